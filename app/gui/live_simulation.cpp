#include "live_simulation.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "stencilscope/device.hpp"
#include "stencilscope/error.hpp"

namespace ss::app {

namespace {

constexpr std::size_t kHistory = 2000;

bool same_field_config(const SimSettings& a, const SimSettings& b) {
  return a.nx == b.nx && a.ny == b.ny && a.boundary == b.boundary && a.initial == b.initial && a.alpha == b.alpha &&
         a.dt == b.dt && a.fixed_value == b.fixed_value && a.seed == b.seed;
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

LiveSimulation::LiveSimulation(SimSettings& settings) : start_(std::chrono::steady_clock::now()) {
  std::string why;
  if (!cuda_available(&why)) status_.gpu_unavailable = why.empty() ? "no CUDA device" : why;
  if (settings.variant == Heat2DVariant::reference) settings.variant = Heat2DVariant::cpu;
  if (is_gpu(settings.variant) && !gpu_available()) {
    status_.note = "no CUDA device (" + status_.gpu_unavailable + "): running the CPU backend";
    settings.variant = Heat2DVariant::cpu;
  }
  applied_ = settings;
  rebuild(settings, is_gpu(settings.variant));
  last_validation_ = start_ - std::chrono::hours(1);
}

LiveSimulation::~LiveSimulation() = default;

void LiveSimulation::rebuild(const SimSettings& s, bool on_gpu) {
  const Heat2DSetup setup = make_heat2d_setup(to_config(s));  // throws for invalid settings
  if (backend_) backend_->wait();
  backend_.reset();
  if (!texture_ || texture_->nx() != s.nx || texture_->ny() != s.ny)
    texture_ = std::make_unique<render::FieldTexture>(s.nx, s.ny);
  backend_ = on_gpu ? make_device_backend(setup) : make_host_backend(setup);
  in_flight_ = false;
  dirty_ = true;
  status_.error.clear();
  status_.history.clear();
  status_.validation = {};
  adaptive_steps_ = 1;
  update_status();
}

void LiveSimulation::apply(SimSettings& s) {
  if (s.variant == Heat2DVariant::reference) {
    s.variant = applied_.variant;
    status_.note = "'reference' recomputes from t = 0 in double precision: it checks results (bench), it does not step live";
  }
  if (is_gpu(s.variant) && !gpu_available()) {
    s.variant = applied_.variant;
    status_.note = "GPU variants need a CUDA device: " + status_.gpu_unavailable;
  }
  try {
    const bool device_change = is_gpu(s.variant) != is_gpu(applied_.variant);
    if (!same_field_config(s, applied_)) {
      rebuild(s, is_gpu(s.variant));
    } else if (device_change) {
      // Same field, other backend: the field and its time carry over.
      std::vector<float> field;
      backend_->wait();
      backend_->copy_interior(field);
      const long steps = backend_->steps_done();
      rebuild(s, is_gpu(s.variant));
      backend_->load_interior(field, steps);
      status_.note = fmt::format("moved to the {} backend at step {}", is_gpu(s.variant) ? "GPU" : "CPU", steps);
    } else if (s.order != applied_.order) {
      backend_->set_order(s.order);
      update_status();
    }
    if (s.upload != applied_.upload) dirty_ = true;
    applied_ = s;
  } catch (const Error& e) {
    status_.note = std::string("refused: ") + e.what();
    s = applied_;  // keep what runs; the note says what was refused
  }
}

void LiveSimulation::record_batch(double ms, int steps) {
  const Heat2DSetup& setup = backend_->setup();
  PerfSample p;
  p.t_s = seconds_since(start_);
  p.steps = steps;
  p.ms_per_step = ms / steps;
  p.gbps = effective_gbps(setup.grid.points(), steps, sizeof(float), ms);
  p.mcups = mcups(setup.grid.points(), steps, ms);
  p.copy_ratio = backend_->copy_gbps() > 0 ? p.gbps / backend_->copy_gbps() : 0;
  status_.history.push_back(p);
  while (status_.history.size() > kHistory) status_.history.pop_front();
}

void LiveSimulation::upload(bool wait_for_gpu) {
  const auto t0 = std::chrono::steady_clock::now();
  status_.upload_path = backend_->upload(*texture_, applied_.upload != UploadChoice::host_copy);
  if (wait_for_gpu) backend_->wait();  // recording: the time includes the GPU's part
  status_.upload_ms = seconds_since(t0) * 1e3;
  status_.upload_ms_total += status_.upload_ms;
  ++status_.uploads;
  if (applied_.upload == UploadChoice::interop && backend_->on_gpu() && *status_.upload_path != UploadPath::interop)
    throw Error("CUDA-GL interop was required (--upload interop) but is unavailable: " + backend_->interop_failure());
  status_.interop_failure = backend_->interop_failure();
  dirty_ = false;
}

void LiveSimulation::start_batch(const SimSettings& s, int steps, bool wait) {
  backend_->start_batch(s.variant, steps);
  in_flight_ = true;
  in_flight_steps_ = steps;
  if (!backend_->on_gpu() || wait) {  // the CPU has already finished; the recorder waits
    backend_->wait();
    const std::optional<double> ms = backend_->finished_batch_ms();
    in_flight_ = false;
    if (ms) record_batch(*ms, steps);
    upload(wait);
  }
}

void LiveSimulation::advance(const SimSettings& s, bool wait_for_batch) {
  if (in_flight_) {
    std::optional<double> ms = backend_->finished_batch_ms();
    if (!ms && !wait_for_batch) {
      update_status();
      return;  // still running: the frame shows the previous field
    }
    if (!ms) {
      backend_->wait();
      ms = backend_->finished_batch_ms();
    }
    in_flight_ = false;
    if (ms) record_batch(*ms, in_flight_steps_);
    if (s.adaptive_steps && ms && *ms > 0) {
      const double ratio = std::clamp(s.frame_budget_ms / *ms, 0.5, 2.0);
      adaptive_steps_ = std::clamp(static_cast<int>(std::lround(in_flight_steps_ * ratio)), 1, 1 << 20);
    }
    dirty_ = true;
  }
  if (dirty_) upload(wait_for_batch);
  if (validation_wanted_ && seconds_since(last_validation_) > 0.5) validate();
  if (const auto stats = backend_->upload_stats(); stats && !stats->finite && status_.error.empty())
    status_.error = fmt::format(
        "the field holds NaN or Inf after step {} (dt {:.4g}, stability limit {:.4g}): paused; reset to go on",
        backend_->steps_done(), backend_->setup().dt, backend_->setup().dt_limit);
  if (!s.paused && status_.error.empty()) {
    const int steps = wait_for_batch || !s.adaptive_steps ? std::max(1, s.steps_per_frame) : adaptive_steps_;
    start_batch(s, steps, wait_for_batch);
    if (!backend_->on_gpu() && s.adaptive_steps && !status_.history.empty()) {  // CPU: adapt right away
      const double ms = status_.history.back().ms_per_step * steps;
      if (ms > 0) adaptive_steps_ = std::clamp(static_cast<int>(std::lround(steps * std::clamp(s.frame_budget_ms / ms, 0.5, 2.0))), 1, 1 << 20);
    }
  }
  update_status();
}

void LiveSimulation::step_once(const SimSettings& s) {
  if (in_flight_) {  // finish the running batch first: one step means one step after it
    backend_->wait();
    in_flight_ = false;
    if (const auto ms = backend_->finished_batch_ms()) record_batch(*ms, in_flight_steps_);
  }
  if (!status_.error.empty()) return;
  start_batch(s, 1, true);
  update_status();
}

void LiveSimulation::reset() {
  backend_->wait();
  in_flight_ = false;
  backend_->reset();
  dirty_ = true;
  status_.error.clear();
  status_.validation = {};
  upload();
  update_status();
}

void LiveSimulation::paint(double x, double y, double radius_cells, double value) {
  Brush b;
  b.x = x;
  b.y = y;
  b.radius = radius_cells;
  b.value = value;
  backend_->paint(b);  // queued after running work on the GPU
  dirty_ = true;
  if (!in_flight_) upload();
}

void LiveSimulation::validate() {
  last_validation_ = std::chrono::steady_clock::now();
  validation_wanted_ = false;
  const Heat2DSetup& setup = backend_->setup();
  Validation v;
  if (setup.config.initial != InitialCondition::analytic || setup.config.boundary != Boundary::analytic) {
    v.why_not = "needs the analytic initial condition and the analytic boundary";
    status_.validation = v;
    return;
  }
  if (in_flight_) return;  // never wait for a batch: try again next frame
  std::vector<float> field;
  backend_->copy_interior(field);
  const Grid2D& g = setup.grid;
  const double t = backend_->time(), alpha = setup.config.alpha;
  const AnalyticHeat2D& a = setup.analytic;
  // Separable: T = offset + sum_m A_m(t) sx_m(x_i) sy_m(y_j); tables make it O(nx*ny) multiply-adds.
  std::vector<std::vector<double>> sx(static_cast<std::size_t>(a.modes)), sy(sx.size());
  for (int m = 0; m < a.modes; ++m) {
    const double amp = a.amplitude(m, t, alpha);
    for (int i = 0; i < g.nx; ++i) sx[m].push_back(amp * std::sin(a.mode[m].kx * setup.x_of(i) + a.mode[m].phase_x));
    for (int j = 0; j < g.ny; ++j) sy[m].push_back(std::sin(a.mode[m].ky * setup.y_of(j) + a.mode[m].phase_y));
  }
  double err2 = 0, ref2 = 0, err_max = 0, ref_max = 0;
  for (int j = 0; j < g.ny; ++j)
    for (int i = 0; i < g.nx; ++i) {
      double exact = a.offset;
      for (int m = 0; m < a.modes; ++m) exact += sx[m][i] * sy[m][j];
      const double e = field[static_cast<std::size_t>(j) * g.nx + i] - exact;
      err2 += e * e;
      ref2 += exact * exact;
      err_max = std::max(err_max, std::abs(e));
      ref_max = std::max(ref_max, std::abs(exact));
    }
  v.available = true;
  v.rel_l2 = ref2 > 0 ? std::sqrt(err2 / ref2) : std::sqrt(err2);
  v.rel_linf = ref_max > 0 ? err_max / ref_max : err_max;
  v.steps = backend_->steps_done();
  v.time = t;
  status_.validation = v;
}

void LiveSimulation::update_status() {
  const Heat2DSetup& setup = backend_->setup();
  status_.backend = backend_->name();
  status_.copy_gbps = backend_->copy_gbps();
  status_.steps_done = backend_->steps_done();
  status_.time = backend_->time();
  status_.dt = setup.dt;
  status_.dt_limit = setup.dt_limit;
  status_.batch_steps = adaptive_steps_;
}

}  // namespace ss::app
