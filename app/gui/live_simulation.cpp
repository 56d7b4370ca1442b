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
  return a.model == b.model && a.nx == b.nx && a.ny == b.ny && (a.model == Model::heat2d || a.nz == b.nz) &&
         (a.model != Model::deriv3d || a.deriv_axis == b.deriv_axis) && a.boundary == b.boundary && a.initial == b.initial && a.alpha == b.alpha &&
         a.dt == b.dt && a.fixed_value == b.fixed_value && a.seed == b.seed;
}

/// A 3D reference variant (a yardstick for bench, not a live stepper) becomes cpu.
/// Heat 2D's reference steps live (ReferenceHeat2D, double precision).
bool is_reference(const SimSettings& s) {
  switch (s.model) {
    case Model::heat2d: return false;
    case Model::heat3d: return s.variant3d == Heat3DVariant::reference;
    case Model::deriv3d: return s.deriv_variant == Deriv3DVariant::reference;
  }
  return false;
}
void use_cpu_variant(SimSettings& s) {
  switch (s.model) {
    case Model::heat2d: s.variant = Heat2DVariant::cpu; break;
    case Model::heat3d: s.variant3d = Heat3DVariant::cpu; break;
    case Model::deriv3d: s.deriv_variant = Deriv3DVariant::cpu; break;
  }
}
/// The fastest variant of the settings' model on the GPU or the CPU (bench).
void use_fastest_variant(SimSettings& s, bool gpu) {
  switch (s.model) {
    case Model::heat2d: s.variant = gpu ? Heat2DVariant::stream : Heat2DVariant::cpu; break;
    case Model::heat3d: s.variant3d = gpu ? Heat3DVariant::stream25d : Heat3DVariant::cpu; break;
    case Model::deriv3d: s.deriv_variant = gpu ? Deriv3DVariant::stream : Deriv3DVariant::cpu; break;
  }
}

/// Slice positions clamped into the grid; -1 (or out of range) becomes the middle.
void clamp_slices(SimSettings& s) {
  if (s.model == Model::heat2d) return;
  const int depth[3] = {s.nz, s.ny, s.nx};
  for (int a = 0; a < 3; ++a)
    if (s.slice[a] < 0 || s.slice[a] >= depth[a]) s.slice[a] = std::max(0, depth[a] / 2);
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

LiveSimulation::LiveSimulation(SimSettings& settings) : start_(std::chrono::steady_clock::now()) {
  std::string why;
  if (!cuda_available(&why)) status_.gpu_unavailable = why.empty() ? "no CUDA device" : why;
  if (is_reference(settings)) use_cpu_variant(settings);
  if (runs_on_gpu(settings) && !gpu_available()) {
    status_.note = "no CUDA device (" + status_.gpu_unavailable + "): running the CPU backend";
    use_cpu_variant(settings);
  }
  clamp_slices(settings);
  applied_ = settings;
  rebuild(settings, runs_on_gpu(settings));
  last_validation_ = start_ - std::chrono::hours(1);
}

LiveSimulation::~LiveSimulation() = default;

const Heat2DSetup& LiveSimulation::setup() const {
  if (!backend_->setup2d()) throw Error("the running model is heat 3D: it has no heat 2D setup");
  return *backend_->setup2d();
}

void LiveSimulation::rebuild(const SimSettings& s, bool on_gpu) {
  std::unique_ptr<SimBackend> next;
  if (s.model == Model::heat2d) {
    const Heat2DSetup setup = make_heat2d_setup(to_config(s));  // throws for invalid settings
    if (backend_) backend_->wait();
    backend_.reset();
    next = on_gpu ? make_device_backend(setup) : make_host_backend(setup);
  } else if (s.model == Model::heat3d) {
    const Heat3DSetup setup = make_heat3d_setup(to_config3d(s));
    if (backend_) backend_->wait();
    backend_.reset();
    next = on_gpu ? make_device_backend(setup) : make_host_backend(setup);
  } else {
    const Deriv3DSetup setup = make_deriv3d_setup(to_deriv_config(s));
    if (backend_) backend_->wait();
    backend_.reset();
    next = on_gpu ? make_device_backend(setup, s.deriv_axis) : make_host_backend(setup, s.deriv_axis);
  }
  // One texture per view, kept while its size holds (interop stays registered).
  textures_.resize(static_cast<std::size_t>(next->views()));
  for (int v = 0; v < next->views(); ++v) {
    auto& t = textures_[static_cast<std::size_t>(v)];
    const auto [nu, nv] = next->view_size(v);
    if (!t || t->nx() != nu || t->ny() != nv) t = std::make_unique<render::FieldTexture>(nu, nv);
  }
  backend_ = std::move(next);
  in_flight_ = false;
  dirty_ = true;
  status_.error.clear();
  status_.history.clear();
  status_.validation = {};
  adaptive_steps_ = 1;
  update_status();
}

void LiveSimulation::apply(SimSettings& s) {
  if (s.model != applied_.model) use_fastest_variant(s, backend_->on_gpu());  // on the device that runs now
  if (is_reference(s)) {
    s.variant = applied_.variant;
    s.variant3d = applied_.variant3d;
    s.deriv_variant = applied_.deriv_variant;
    status_.note = "the 3D 'reference' variants recompute from t = 0 in double precision: they check results (bench), they do not step live";
  }
  if (runs_on_gpu(s) && !gpu_available()) {
    s.variant = applied_.variant;
    s.variant3d = applied_.variant3d;
    s.deriv_variant = applied_.deriv_variant;
    if (s.model != applied_.model) use_cpu_variant(s);
    status_.note = "GPU variants need a CUDA device: " + status_.gpu_unavailable;
  }
  clamp_slices(s);
  try {
    const bool device_change = runs_on_gpu(s) != backend_->on_gpu();
    if (!same_field_config(s, applied_)) {
      rebuild(s, runs_on_gpu(s));
    } else if (device_change) {
      // Same field, other backend: the field and its time carry over.
      std::vector<float> field;
      backend_->wait();
      backend_->copy_interior(field);
      const long steps = backend_->steps_done();
      rebuild(s, runs_on_gpu(s));
      backend_->load_interior(field, steps);
      status_.note = fmt::format("moved to the {} backend at step {}", runs_on_gpu(s) ? "GPU" : "CPU", steps);
    } else if (s.order != applied_.order) {
      backend_->set_order(s.order);
      update_status();
    }
    if (s.upload != applied_.upload || s.slice != applied_.slice) dirty_ = true;
    applied_ = s;
  } catch (const Error& e) {
    status_.note = std::string("refused: ") + e.what();
    s = applied_;  // keep what runs; the note says what was refused
  }
}

void LiveSimulation::record_batch(double ms, int steps) {
  PerfSample p;
  p.t_s = seconds_since(start_);
  p.steps = steps;
  p.ms_per_step = ms / steps;
  p.gbps = effective_gbps(backend_->points(), steps, sizeof(float), ms);
  p.mcups = mcups(backend_->points(), steps, ms);
  p.copy_ratio = backend_->copy_gbps() > 0 ? p.gbps / backend_->copy_gbps() : 0;
  status_.history.push_back(p);
  while (status_.history.size() > kHistory) status_.history.pop_front();
}

void LiveSimulation::upload(bool wait_for_gpu) {
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<render::FieldTexture*> targets;
  for (auto& t : textures_) targets.push_back(t.get());
  status_.upload_path = backend_->upload(targets, applied_.slice, applied_.upload != UploadChoice::host_copy);
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
  backend_->start_batch(s, steps);
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
        backend_->steps_done(), backend_->dt(), backend_->dt_limit());
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

void LiveSimulation::paint_view(int view, double u, double v, double radius_cells, double value) {
  if (view < 0 || view >= views()) return;
  if (backend_->model() == Model::deriv3d) {
    status_.note = "deriv3d is a static field (the derivative of a known function): painting changes nothing";
    return;
  }
  backend_->paint(view, u, v, radius_cells, value, applied_.slice);  // queued after running work on the GPU
  dirty_ = true;
  if (!in_flight_) upload();
}

void LiveSimulation::validate() {
  last_validation_ = std::chrono::steady_clock::now();
  validation_wanted_ = false;
  Validation v;
  if (!backend_->setup2d()) {
    v.why_not = "the live check against the exact solution covers heat 2D (heat 3D is checked by the tests and bench)";
    status_.validation = v;
    return;
  }
  const Heat2DSetup& setup = *backend_->setup2d();
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
  status_.backend = backend_->name();
  status_.copy_gbps = backend_->copy_gbps();
  status_.steps_done = backend_->steps_done();
  status_.time = backend_->time();
  status_.dt = backend_->dt();
  status_.dt_limit = backend_->dt_limit();
  status_.batch_steps = adaptive_steps_;
}

}  // namespace ss::app
