#include "live_simulation.hpp"

#include "seismogram_image.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <new>

#include <fmt/format.h>

#include "sim/core/device.hpp"
#include "sim/core/error.hpp"

namespace ss::app {

namespace {

constexpr std::size_t kHistory = 2000;

/// Slice positions clamped into the grid; -1 (or out of range) becomes the middle.
void clamp_slices(SimSettings& s) {
  if (model_of(s).info().dims != 3) return;
  const int depth[3] = {s.nz, s.ny, s.nx};
  for (int a = 0; a < 3; ++a)
    if (s.slice[a] < 0 || s.slice[a] >= depth[a]) s.slice[a] = std::max(0, depth[a] / 2);
}

/// The parameters of `s` that its model has (a model switch leaves the old model's behind).
void drop_foreign_params(SimSettings& s) {
  const ModelInfo& info = model_of(s).info();
  for (auto it = s.params.begin(); it != s.params.end();) it = info.param(it->first) ? std::next(it) : s.params.erase(it);
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

/// The copy bandwidth of the device or the host, measured once per run.
double copy_gbps(bool gpu) {
  if (gpu) {
    static const double device_copy = measure_copy_gbps(std::size_t(256) << 20, 10);
    return device_copy;
  }
  static const double host_copy = measure_host_copy_gbps(std::size_t(64) << 20);
  return host_copy;
}

/// The probes of `s` inside its grid (z 0 for 2D models); the others are dropped.
void drop_outside_probes(SimSettings& s) {
  const bool flat = model_of(s).info().dims == 2;
  const std::array<int, 3> n{s.nx, s.ny, flat ? 1 : s.nz};
  std::erase_if(s.probes, [&](const std::array<int, 3>& c) {
    for (int a = 0; a < 3; ++a)
      if (c[a] < 0 || c[a] >= n[a]) return true;
    return false;
  });
}

/// True when `sim` steps a GPU variant: on_gpu(), or a run over MPI ranks on GPU boxes, whose
/// views are gathered to host memory (on_gpu() false).
bool steps_on_gpu(const Simulation& sim) {
  const VariantSpec* v = sim.info().variant(sim.variant());
  return v && v->gpu;
}

/// "order 8, stream (GPU)".
std::string run_label(const Simulation& sim) {
  return fmt::format("order {}, {} ({}), dt {:.4g}", sim.config().order, sim.variant(), steps_on_gpu(sim) ? "GPU" : "CPU",
                     sim.dt());
}

/// Why the settings' variant cannot step live (empty when it can).
std::string not_live(const SimSettings& s) {
  const VariantSpec* v = variant_of(s);
  if (!v) return fmt::format("unknown {} variant '{}' (choose {})", s.model, s.variant, model_of(s).info().variant_list());
  try {
    check_live_variant(model_of(s).info(), s.variant);
  } catch (const Error& e) {
    return e.what();
  }
  return {};
}

}  // namespace

LiveSimulation::LiveSimulation(SimSettings& settings, SimulationFactory factory)
    : factory_(std::move(factory)), start_(std::chrono::steady_clock::now()) {
  status_.distributed_note = factory_.note;
  std::string why;
  if (!cuda_available(&why)) status_.gpu_unavailable = why.empty() ? "no CUDA device" : why;
  drop_foreign_params(settings);
  if (settings.variant.empty() || !not_live(settings).empty()) use_fastest_variant(settings, false);
  if (runs_on_gpu(settings) && !gpu_available()) {
    status_.note = "no CUDA device (" + status_.gpu_unavailable + "): running the CPU backend";
    use_fastest_variant(settings, false);
  }
  clamp_slices(settings);
  drop_outside_probes(settings);
  rebuild(settings, runs_on_gpu(settings));
  settings.params = sim_->config().params;
  applied_ = settings;  // B's comparison reads the placement
  rebuild_b(settings);
  last_validation_ = start_ - std::chrono::hours(1);
  last_diagnostics_ = last_validation_;
  last_health_ = last_validation_;
  last_curves_ = last_validation_;
  last_probes_ = last_validation_;
}

LiveSimulation::~LiveSimulation() {
  try {
    drain_queue();  // the staging buffers outlive the work that writes them
  } catch (const Error& e) {
    std::fprintf(stderr, "stencilscope: warning: %s\n", e.what());
  }
}

ViewPlacement LiveSimulation::placement() const {
  ViewPlacement p;
  p.slices = applied_.slice;
  p.quantity = applied_.quantity;
  return p;
}

void LiveSimulation::rebuild(const SimSettings& s, bool on_gpu) {
  const ModelConfig config = to_model_config(s);  // throws for invalid settings
  const Model& model = model_of(s);
  const Backend backend = on_gpu ? Backend::gpu : Backend::cpu;
  if (factory_.check) factory_.check(model, config, backend, s.variant, factory_.transport);  // a refusal keeps the running one
  if (sim_) drain_queue();
  if (sim_) sim_->wait();
  if (sim_b_) sim_b_->wait();
  sim_b_.reset();  // B follows A: apply() builds it again from the new state
  status_.ab = {};
  const bool replacing = sim_ != nullptr;
  sim_.reset();
  uploader_.forget_pending();
  std::unique_ptr<Simulation> next;
  try {
    next = factory_ ? factory_.create(model, config, backend, s.variant, factory_.transport)
                    : model.create(config, backend, s.variant);
  } catch (const Error&) {
    // A refusal only the ranks could find (a box's own checks), after the running run was
    // dropped: the settings that ran start again, so that there is always a simulation.
    if (factory_ && replacing && &s != &applied_) rebuild(applied_, runs_on_gpu(applied_));
    throw;
  }
  // One texture per view, kept while its size holds (interop stays registered).
  textures_.resize(static_cast<std::size_t>(next->views()));
  for (int v = 0; v < next->views(); ++v) {
    auto& t = textures_[static_cast<std::size_t>(v)];
    const auto [nu, nv] = next->view_size(v);
    if (!t || t->nx() != nu || t->ny() != nv) t = std::make_unique<render::FieldTexture>(nu, nv);
  }
  sim_ = std::move(next);
  in_flight_ = false;
  dirty_ = true;
  status_.error.clear();
  status_.history.clear();
  status_.ranks.clear();
  status_.validation = {};
  status_.diagnostics = {};
  status_.probes = {};
  probes_step_ = -1;
  status_.seismogram.clear();  // a model without sources shows no seismogram pane
  status_.seismogram_texture = 0;
  seismogram_field_.reset();
  adaptive_steps_ = 1;
  update_status();
}

void LiveSimulation::wait_all() {
  drain_queue();
  sim_->wait();
  if (sim_b_) sim_b_->wait();
}

void LiveSimulation::rebuild_b(const SimSettings& s) {
  drain_queue();  // B starts from A's state after the queued batches
  if (in_flight_) {  // the running batch finishes first: B starts from A's state after it
    wait_all();
    in_flight_ = false;
    if (const auto ms = sim_->finished_batch_ms()) record_batch(*ms, in_flight_steps_);
    dirty_ = true;
  }
  sim_b_.reset();
  status_.ab = {};
  if (!s.ab.enabled) return;
  SimSettings b = s;
  if (s.ab.order > 0) b.order = s.ab.order;
  if (!s.ab.variant.empty()) b.variant = s.ab.variant;
  for (const auto& [name, value] : s.ab.params) b.params[name] = value;
  // Both runs at the same times: an automatic dt (half the stability limit of each order)
  // would differ, so B takes A's dt unless B's own is what differs.
  const ParamSpec* dt = model().param("dt");
  if (dt && dt->kind != ParamKind::choice && !s.ab.params.count("dt") && model().steps_in_time)
    b.params["dt"] = sim_->dt();
  if (const std::string why = not_live(b); !why.empty()) throw Error("A/B: " + why);
  if (runs_on_gpu(b) && !gpu_available()) throw Error("A/B: B's variant " + b.variant + " needs a CUDA device: " + status_.gpu_unavailable);
  const ModelConfig config = to_model_config(b);  // throws naming what B may not change
  sim_->wait();
  const SimState state = sim_->copy_state();
  std::unique_ptr<Simulation> next = model_of(b).create(config, runs_on_gpu(b) ? Backend::gpu : Backend::cpu, b.variant);
  next->load_state(state);  // the same state: refused, naming the shapes, when B's parameters change them
  const auto [nu, nv] = next->view_size(0);
  for (auto* t : {&texture_b_, &texture_diff_})
    if (!*t || (*t)->nx() != nu || (*t)->ny() != nv) *t = std::make_unique<render::FieldTexture>(nu, nv);
  sim_b_ = std::move(next);
  b_params_text_.clear();
  for (const auto& [name, value] : s.ab.params) b_params_text_ += ", " + name + " " + ss::to_string(value);
  status_.ab.active = true;
  status_.ab.backend_b = sim_b_->backend_name();
  compare_ab();
}

void LiveSimulation::compare_ab() {
  if (!sim_b_) return;
  AbStatus& ab = status_.ab;
  ab.a_label = run_label(*sim_);
  ab.b_label = run_label(*sim_b_) + b_params_text_;
  const ViewPlacement where = placement();
  const auto [nu, nv] = sim_->view_size(0);
  const std::size_t n = static_cast<std::size_t>(nu) * nv;
  view_a_.resize(n);
  view_b_.resize(n);
  view_diff_.resize(n);
  sim_->copy_view(0, where, view_a_.data());
  sim_b_->copy_view(0, where, view_b_.data());
  double dd = 0, aa = 0, max_abs = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const double d = static_cast<double>(view_b_[k]) - static_cast<double>(view_a_[k]);
    view_diff_[k] = static_cast<float>(d);
    dd += d * d;
    aa += static_cast<double>(view_a_[k]) * view_a_[k];
    max_abs = std::max(max_abs, std::abs(d));
  }
  ab.rel_l2 = aa > 0 ? std::sqrt(dd / aa) : std::sqrt(dd);
  ab.max_abs = max_abs;
  ab.steps = sim_->steps_done();
  ab.compared = model().dims == 2 ? "the field" : fmt::format("the XY slice at z = {}", where.slices[0]);
  texture_b_->upload_host(view_b_.data(), static_cast<std::size_t>(nu));
  texture_diff_->upload_host(view_diff_.data(), static_cast<std::size_t>(nu));
}

void LiveSimulation::apply(SimSettings& s) {
  const bool model_change = s.model != applied_.model;
  try {
    if (model_change) {
      model_of(s);  // an unknown name is refused below
      drop_foreign_params(s);
      const bool gpu = steps_on_gpu(*sim_);  // the device that runs now
      use_fastest_variant(s, gpu);
      if (factory_.default_variant)  // under mpirun: the variant its boxes step
        s.variant = factory_.default_variant(model_of(s), to_model_config(s), gpu ? Backend::gpu : Backend::cpu);
    }
    if (const std::string why = not_live(s); !why.empty()) {
      s.variant = applied_.variant;
      status_.note = why;
    }
    if (runs_on_gpu(s) && !gpu_available()) {
      s.variant = applied_.variant;
      if (model_change) use_fastest_variant(s, false);
      status_.note = "GPU variants need a CUDA device: " + status_.gpu_unavailable;
    }
    clamp_slices(s);
    drop_outside_probes(s);
    const ModelConfig next = to_model_config(s);  // throws for invalid settings
    const ModelConfig& now = sim_->config();
    const bool same_field = !model_change && next.size == now.size && next.params == now.params;
    const bool device_change = runs_on_gpu(s) != steps_on_gpu(*sim_);
    if (!same_field) {
      rebuild(s, runs_on_gpu(s));
    } else if (device_change) {
      // Same field, other backend: the state and its time carry over.
      wait_all();
      in_flight_ = false;
      const SimState state = sim_->copy_state();
      const std::vector<SourceSpec> sources = sim_->sources();
      const std::optional<ReceiverLayout> receivers = sim_->receivers();
      rebuild(s, runs_on_gpu(s));
      if (!sim_->info().source_kinds.empty()) {  // the sources and receivers carry over too
        while (!sim_->sources().empty()) sim_->remove_source(0);
        for (const SourceSpec& src : sources) sim_->add_source(src);
        if (receivers) sim_->set_receivers(*receivers);
      }
      sim_->load_state(state);
      status_.note = fmt::format("moved to the {} backend at step {}", runs_on_gpu(s) ? "GPU" : "CPU", state.steps_done);
    } else {
      if (s.order != now.order || s.variant != sim_->variant()) drain_queue();  // the queued batches keep the old ones
      if (s.order != now.order) {
        sim_->set_order(s.order);
        dirty_ = true;
      }
      if (s.variant != sim_->variant()) {
        if (in_flight_) {  // the batch running belongs to the old variant
          sim_->wait();
          in_flight_ = false;
          if (const auto ms = sim_->finished_batch_ms()) record_batch(*ms, in_flight_steps_);
        }
        sim_->set_variant(s.variant);
      }
      update_status();
    }
    s.params = sim_->config().params;
    // B starts again from A's state whenever what it compares changes (or A restarted).
    const bool b_stale = (s.ab.enabled != (sim_b_ != nullptr)) || s.ab.order != applied_.ab.order ||
                         s.ab.variant != applied_.ab.variant || s.ab.params != applied_.ab.params ||
                         s.order != applied_.order || s.variant != applied_.variant;
    if (b_stale) {
      try {
        rebuild_b(s);
      } catch (const Error& e) {
        s.ab = AbSettings{};  // A goes on alone; the note says why B could not run
        status_.note = std::string("A/B refused: ") + e.what();
      }
    }
    if (s.upload != applied_.upload || s.slice != applied_.slice || s.quantity != applied_.quantity) dirty_ = true;
    applied_ = s;
  } catch (const Error& e) {
    status_.note = std::string("refused: ") + e.what();
    s = applied_;  // keep what runs; the note says what was refused
  } catch (const std::bad_alloc&) {  // a size the checks let through but the allocator did not
    status_.note = "refused: not enough memory for " + size_text(s);
    s = applied_;
  }
}

void LiveSimulation::record_batch(double ms, int steps) {
  const StepAccounting a = sim_->accounting();
  PerfSample p;
  p.t_s = seconds_since(start_);
  p.steps = steps;
  p.ms_per_step = ms / steps;
  p.gbps = ms > 0 ? a.bytes * steps / (ms * 1e6) : 0;
  p.mcups = ms > 0 ? a.cell_updates * steps / (ms * 1e3) : 0;
  const double copy = copy_gbps(steps_on_gpu(*sim_));
  p.copy_ratio = copy > 0 ? p.gbps / copy : 0;
  status_.history.push_back(p);
  while (status_.history.size() > kHistory) status_.history.pop_front();
  status_.ranks = sim_->rank_timings();
}

void LiveSimulation::record_batch_b(double ms, int steps) {
  const StepAccounting a = sim_b_->accounting();
  PerfSample p;
  p.t_s = seconds_since(start_);
  p.steps = steps;
  p.ms_per_step = ms / steps;
  p.gbps = ms > 0 ? a.bytes * steps / (ms * 1e6) : 0;
  p.mcups = ms > 0 ? a.cell_updates * steps / (ms * 1e3) : 0;
  const double copy = copy_gbps(steps_on_gpu(*sim_b_));
  p.copy_ratio = copy > 0 ? p.gbps / copy : 0;
  status_.ab.history_b.push_back(p);
  while (status_.ab.history_b.size() > kHistory) status_.ab.history_b.pop_front();
}

void LiveSimulation::upload(bool wait_for_gpu) {
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<render::FieldTexture*> targets;
  for (auto& t : textures_) targets.push_back(t.get());
  status_.upload_path = uploader_.upload(*sim_, targets, placement(), applied_.upload != UploadChoice::host_copy);
  if (wait_for_gpu) sim_->wait();  // recording: the time includes the GPU's part
  status_.upload_ms = seconds_since(t0) * 1e3;
  status_.upload_ms_total += status_.upload_ms;
  ++status_.uploads;
  if (applied_.upload == UploadChoice::interop && sim_->on_gpu() && !is_interop(*status_.upload_path))
    throw Error("CUDA-GL interop was required (--upload interop) but is unavailable: " + uploader_.interop_failure());
  status_.interop_failure = sim_->on_gpu() ? uploader_.interop_failure() : std::string();
  if (!overlay_quantity_.empty()) upload_overlay();
  compare_ab();
  dirty_ = false;
}

void LiveSimulation::start_batch(const SimSettings& s, int steps, bool wait) {
  sim_->start_steps(steps);
  if (sim_b_) sim_b_->start_steps(steps);  // both step together
  in_flight_ = true;
  in_flight_steps_ = steps;
  if ((!sim_->on_gpu() && !(sim_b_ && sim_b_->on_gpu())) || wait) {  // the CPU has already finished; the recorder waits
    wait_all();
    const std::optional<double> ms = sim_->finished_batch_ms();
    in_flight_ = false;
    if (ms) record_batch(*ms, steps);
    if (sim_b_)
      if (const auto ms_b = sim_b_->finished_batch_ms()) record_batch_b(*ms_b, steps);
    if (wait || ++batches_undrawn_ >= std::max(1, s.draw_every)) {
      batches_undrawn_ = 0;
      upload(wait);
    }
  }
}

void LiveSimulation::adapt_batch(const SimSettings& s, double ms, int steps) {
  if (!s.adaptive_steps || ms <= 0) return;
  const double ratio = std::clamp(frame_budget_ms(s, sim_->on_gpu()) / ms, 0.5, 2.0);
  adaptive_steps_ = std::clamp(static_cast<int>(std::lround(steps * ratio)), 1, 1 << 20);
}

void LiveSimulation::drain_queue() {
  due_show_ = -1;  // the caller uploads the state itself, which is newer
  due_steps_ = 0;
  if (queue_.empty()) return;
  for (const BatchQueue::Finished& f : queue_.drain(*sim_)) record_batch(f.ms, f.steps);
  dirty_ = true;  // the field is ahead of the texture: the caller uploads it
}

void LiveSimulation::advance_queued(const SimSettings& s) {
  if (in_flight_) {  // a batch of the simple path (the mode just changed): once
    wait_all();
    in_flight_ = false;
    if (const auto ms = sim_->finished_batch_ms()) record_batch(*ms, in_flight_steps_);
    dirty_ = true;
  }
  show_due();  // the last frame's, if the loop did not call it
  // The finished batches: their timing, the batch size, and the newest snapshot due.
  while (const auto f = queue_.poll(uploader_)) {
    record_batch(f->ms, f->steps);
    adapt_batch(s, f->ms, f->steps);
    if (++batches_undrawn_ >= std::max(1, s.draw_every)) {  // max speed: every k-th batch
      batches_undrawn_ = 0;
      due_show_ = f->slot;  // shown by show_due(), after the frame's drawing
    }
    queue_.pop();
  }
  // Readings of the state (validation, diagnostics, probes, the model's health) wait for
  // queued work: while one is due no batch is queued, the queue runs down to its last
  // batch, the frame waits for that one, the readings run, and queueing resumes.
  const auto reading_due = [&] {
    return (validation_wanted_ && seconds_since(last_validation_) > 0.5) ||
           (diagnostics_wanted_ && seconds_since(last_diagnostics_) > 0.25) ||
           (sim_->checks_health() && status_.error.empty() && seconds_since(last_health_) > 0.5) ||
           (!s.probes.empty() && seconds_since(last_probes_) >= 0.05 && sim_->steps_done() != probes_step_) ||
           (seismogram_wanted_ && seconds_since(last_seismogram_) > 0.25);
  };
  if (!model().source_kinds.empty()) seismogram_wanted_ = true;  // the views' fourth pane shows it
  // Once only the running batch is left, wait for it: the GPU stays busy until the
  // readings, which then run at once, and queueing resumes in this same frame. (Waiting
  // for an empty queue at the next frame would leave the GPU idle until then.)
  if (queue_.size() == 1 && reading_due()) drain_queue();
  if (queue_.empty()) {
    if (dirty_) upload();  // a paint, a reset, a new slice: the state now
    if (!s.probes.empty()) sample_probes(true);
    if (validation_wanted_ && seconds_since(last_validation_) > 0.5) validate();
    if (diagnostics_wanted_ && seconds_since(last_diagnostics_) > 0.25) sample_diagnostics();
    if (seismogram_wanted_ && seconds_since(last_seismogram_) > 0.25) sample_seismogram();
    if (sim_->checks_health() && status_.error.empty() && seconds_since(last_health_) > 0.5) {
      last_health_ = std::chrono::steady_clock::now();
      status_.error = sim_->health();
    }
  }
  if (const auto stats = uploader_.stats(*sim_); stats && !stats->finite && status_.error.empty())
    status_.error = fmt::format(
        "the field holds NaN or Inf after step {} (dt {:.4g}, stability limit {:.4g}): paused; reset to go on",
        sim_->steps_done() - queue_.queued_steps(), sim_->dt(), sim_->dt_limit());
  if (!s.paused && status_.error.empty() && !reading_due()) {
    const int steps = s.adaptive_steps ? adaptive_steps_ : std::max(1, s.steps_per_frame);
    while (!queue_.full(due_show_))
      queue_.push(*sim_, uploader_, placement(), steps, due_show_, uploader_.displayed_slot());
    if (due_show_ >= 0) due_steps_ = steps;  // the last batch waits for the slot show_due() frees
  }
  update_status();
}

void LiveSimulation::show_due() {
  if (due_show_ < 0) return;
  const int slot = std::exchange(due_show_, -1);
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<render::FieldTexture*> targets;
  for (auto& t : textures_) targets.push_back(t.get());
  status_.upload_path =
      uploader_.show(slot, targets, applied_.upload != UploadChoice::host_copy, sim_->view(0, placement()).stream);
  status_.upload_ms = seconds_since(t0) * 1e3;
  status_.upload_ms_total += status_.upload_ms;
  ++status_.uploads;
  if (applied_.upload == UploadChoice::interop && !is_interop(*status_.upload_path))
    throw Error("CUDA-GL interop was required (--upload interop) but is unavailable: " + uploader_.interop_failure());
  status_.interop_failure = uploader_.interop_failure();
  if (const int steps = std::exchange(due_steps_, 0); steps > 0 && !queue_.full())
    queue_.push(*sim_, uploader_, placement(), steps, -1, uploader_.displayed_slot());
}

void LiveSimulation::advance(const SimSettings& s, bool wait_for_batch) {
  if (sim_->on_gpu() && !sim_b_ && !wait_for_batch) {  // the window's loop: batches queued ahead
    advance_queued(s);
    return;
  }
  drain_queue();  // the simple path from here: one batch, then its upload
  if (in_flight_) {
    std::optional<double> ms = sim_->finished_batch_ms();
    std::optional<double> ms_b = sim_b_ ? sim_b_->finished_batch_ms() : std::optional<double>(0.0);
    if ((!ms || !ms_b) && !wait_for_batch) {
      update_status();
      return;  // still running: the frame shows the previous field
    }
    if (!ms || !ms_b) {
      wait_all();
      ms = sim_->finished_batch_ms();
      if (sim_b_) ms_b = sim_b_->finished_batch_ms();
    }
    in_flight_ = false;
    if (ms) record_batch(*ms, in_flight_steps_);
    if (sim_b_ && ms_b) record_batch_b(*ms_b, in_flight_steps_);
    if (s.adaptive_steps && ms && *ms > 0) {
      const double ratio = std::clamp(frame_budget_ms(s, sim_->on_gpu()) / *ms, 0.5, 2.0);
      adaptive_steps_ = std::clamp(static_cast<int>(std::lround(in_flight_steps_ * ratio)), 1, 1 << 20);
    }
    if (wait_for_batch || ++batches_undrawn_ >= std::max(1, s.draw_every)) {  // max speed: every k-th batch
      batches_undrawn_ = 0;
      dirty_ = true;
    }
  }
  if (dirty_) upload(wait_for_batch);
  if (!in_flight_ && !s.probes.empty()) sample_probes(!wait_for_batch);  // recording: every frame
  if (validation_wanted_ && seconds_since(last_validation_) > 0.5) validate();
  // A recording (wait_for_batch) reads every frame, so that its frames do not depend on
  // how fast the machine runs; the window reads a few times a second.
  const auto due = [&](auto last, double seconds) { return wait_for_batch || seconds_since(last) > seconds; };
  if (diagnostics_wanted_ && due(last_diagnostics_, 0.25)) sample_diagnostics();
  if (!model().source_kinds.empty()) seismogram_wanted_ = true;  // the views' fourth pane shows it
  if (seismogram_wanted_ && due(last_seismogram_, 0.25)) sample_seismogram();
  if (const auto stats = uploader_.stats(*sim_); stats && !stats->finite && status_.error.empty())
    status_.error = fmt::format(
        "the field holds NaN or Inf after step {} (dt {:.4g}, stability limit {:.4g}): paused; reset to go on",
        sim_->steps_done(), sim_->dt(), sim_->dt_limit());
  if (status_.error.empty() && !in_flight_ && seconds_since(last_health_) > 0.5) {  // the model's own checks
    last_health_ = std::chrono::steady_clock::now();
    status_.error = sim_->health();
  }
  if (!s.paused && status_.error.empty()) {
    const int steps = wait_for_batch || !s.adaptive_steps ? std::max(1, s.steps_per_frame) : adaptive_steps_;
    start_batch(s, steps, wait_for_batch);
    if (!sim_->on_gpu() && s.adaptive_steps && !status_.history.empty()) {  // CPU: adapt right away
      const double ms = status_.history.back().ms_per_step * steps;
      if (ms > 0) adaptive_steps_ = std::clamp(static_cast<int>(std::lround(steps * std::clamp(frame_budget_ms(s, false) / ms, 0.5, 2.0))), 1, 1 << 20);
    }
  }
  update_status();
}

void LiveSimulation::step_once(const SimSettings& s) {
  drain_queue();
  if (in_flight_) {  // finish the running batch first: one step means one step after it
    wait_all();
    in_flight_ = false;
    if (const auto ms = sim_->finished_batch_ms()) record_batch(*ms, in_flight_steps_);
  }
  if (!status_.error.empty()) return;
  start_batch(s, 1, true);
  update_status();
}

void LiveSimulation::reset() {
  wait_all();
  in_flight_ = false;
  sim_->reset();
  dirty_ = true;
  status_.error.clear();
  status_.validation = {};
  status_.diagnostics = {};
  status_.probes = {};
  probes_step_ = -1;
  if (sim_b_) rebuild_b(applied_);  // B starts again from A's initial state
  upload();
  update_status();
}

SimState LiveSimulation::copy_state() {
  drain_queue();
  sim_->wait();
  return sim_->copy_state();
}

void LiveSimulation::load_state(const SimState& state) {
  wait_all();
  in_flight_ = false;
  sim_->load_state(state);
  if (sim_b_) sim_b_->load_state(state);
  dirty_ = true;
  status_.error.clear();
  status_.history.clear();
  update_status();
}

void LiveSimulation::paint_view(int view, double u, double v, double radius_cells, double value) {
  if (view < 0 || view >= views()) return;
  if (!model().paint_note.empty()) {
    status_.note = model().paint_note;
    return;
  }
  drain_queue();  // the brush lands on the state the queued batches lead to, shown at once
  try {
    sim_->paint(view, u, v, radius_cells, value, placement());  // queued after running work on the GPU
  } catch (const Error& e) {  // a run that cannot be painted (GPU boxes of some models under mpirun)
    status_.note = e.what();
    return;
  }
  if (sim_b_) sim_b_->paint(view, u, v, radius_cells, value, placement());  // B sees the same brush
  dirty_ = true;
  if (!in_flight_) upload();
}

void LiveSimulation::validate() {
  if (busy()) return;  // never wait for a batch: try again next frame
  last_validation_ = std::chrono::steady_clock::now();
  validation_wanted_ = false;
  status_.validation = sim_->validate();
}

void LiveSimulation::sample_diagnostics() {
  if (busy()) return;  // never wait for a batch: try again next frame
  last_diagnostics_ = std::chrono::steady_clock::now();
  diagnostics_wanted_ = false;
  const std::vector<Diagnostic> d = sim_->diagnostics();
  DiagnosticSeries& s = status_.diagnostics;
  std::vector<std::string> names;
  for (const Diagnostic& x : d) names.push_back(x.unit.empty() ? x.name : x.name + " [" + x.unit + "]");
  if (names != s.names) s = DiagnosticSeries{names, {}, {}, std::vector<std::deque<double>>(names.size()), {}, -1};
  if (seconds_since(last_curves_) > 2.0) {  // curves cost more (hydro3d: an FFT of the state)
    last_curves_ = std::chrono::steady_clock::now();
    s.curves = sim_->curves();
    s.curves_step = sim_->steps_done();
  }
  s.time.push_back(sim_->time());
  s.steps.push_back(sim_->steps_done());
  for (std::size_t k = 0; k < d.size(); ++k) s.values[k].push_back(d[k].value);
  if (s.time.size() > kHistory) {
    s.time.pop_front();
    s.steps.pop_front();
    for (auto& v : s.values) v.pop_front();
  }
}

void LiveSimulation::sample_probes(bool throttled) {
  ProbeSeries& p = status_.probes;
  const bool same = p.cells == applied_.probes && p.quantity == applied_.quantity;
  if (applied_.probes.empty() && p.cells.empty()) return;
  if (same && (sim_->steps_done() == probes_step_ || (throttled && seconds_since(last_probes_) < 0.05))) return;
  if (busy()) {  // the values after the running batch
    wait_all();
    in_flight_ = false;
    if (const auto ms = sim_->finished_batch_ms()) record_batch(*ms, in_flight_steps_);
    dirty_ = true;
  }
  if (p.quantity != applied_.quantity) p = ProbeSeries{{}, applied_.quantity, {}, {}, {}};
  if (p.cells != applied_.probes) {  // keep the columns of probes still there; new ones start empty
    std::vector<std::deque<double>> values;
    for (const auto& c : applied_.probes) {
      const auto it = std::find(p.cells.begin(), p.cells.end(), c);
      values.push_back(it != p.cells.end() ? std::move(p.values[static_cast<std::size_t>(it - p.cells.begin())])
                                           : std::deque<double>(p.time.size(), std::nan("")));
    }
    p.cells = applied_.probes;
    p.values = std::move(values);
  }
  last_probes_ = std::chrono::steady_clock::now();
  probes_step_ = sim_->steps_done();
  p.time.push_back(sim_->time());
  p.steps.push_back(sim_->steps_done());
  for (std::size_t k = 0; k < p.cells.size(); ++k) p.values[k].push_back(sim_->read_cell(p.cells[k], applied_.quantity));
  constexpr std::size_t kProbeHistory = 20000;
  if (p.time.size() > kProbeHistory) {
    p.time.pop_front();
    p.steps.pop_front();
    for (auto& v : p.values) v.pop_front();
  }
}

std::string LiveSimulation::probes_csv() const {
  const ProbeSeries& p = status_.probes;
  const std::string quantity = p.quantity.empty() && !model().views.quantities.empty() ? model().views.quantities.front()
                                                                                        : p.quantity;
  std::string out = "time,step";
  for (const auto& c : p.cells)
    out += model().dims == 2 ? fmt::format(",{} at x={} y={}", quantity, c[0], c[1])
                             : fmt::format(",{} at x={} y={} z={}", quantity, c[0], c[1], c[2]);
  out += "\n";
  for (std::size_t i = 0; i < p.time.size(); ++i) {
    out += fmt::format("{:.17g},{}", p.time[i], p.steps[i]);
    for (const auto& v : p.values) out += std::isnan(v[i]) ? std::string(",") : fmt::format(",{:.9g}", v[i]);
    out += "\n";
  }
  return out;
}

void LiveSimulation::sample_seismogram() {
  if (in_flight_) return;  // never wait for a batch: try again next frame
  last_seismogram_ = std::chrono::steady_clock::now();
  seismogram_wanted_ = false;
  const Seismogram s = sim_->seismogram();
  if (s.components.empty()) {
    status_.seismogram.clear();
    status_.seismogram_texture = 0;
    return;
  }
  status_.seismogram = fmt::format("{} receivers x {} component{}, {} steps", s.receivers(), s.components.size(),
                                   s.components.size() == 1 ? "" : "s", s.rows());
  if (s.rows() > 0)
    status_.seismogram += fmt::format(" (t {:.4g} .. {:.4g} s)", (s.first_step + 1) * s.dt, (s.first_step + s.rows()) * s.dt);
  constexpr int kPaneCells = 256;  // the pane's picture: square cells, fitted into the pane
  std::vector<float> field = seismogram_field(s, kPaneCells, kPaneCells);
  if (!field.empty()) {
    // A gain so that the largest trace value reaches the slices' largest |value|: the pane
    // shares their colormap and range, and the receivers are usually far from the source.
    double peak = 0, reach = 0;
    for (float v : field) peak = std::max(peak, static_cast<double>(std::abs(v)));
    if (const auto stats = uploader_.stats(*sim_))
      reach = std::max(std::abs(stats->range.lo), std::abs(stats->range.hi));
    seismogram_gain_ = peak > 0 && reach > 0 ? reach / peak : 1.0;
    for (float& v : field) v = static_cast<float>(v * seismogram_gain_);
    if (!seismogram_field_) seismogram_field_ = std::make_unique<render::FieldTexture>(kPaneCells, kPaneCells);
    seismogram_field_->upload_host(field.data(), kPaneCells);
  }
  const SeismogramImage img = seismogram_image(s);
  status_.seismogram_peak = img.peak;
  if (img.width == 0) {
    status_.seismogram_texture = 0;
    return;
  }
  seismogram_texture_.upload(img.width, img.height, img.rgba);
  status_.seismogram_texture = seismogram_texture_.gl_name();
  status_.seismogram_width = img.width;
  status_.seismogram_height = img.height;
}

bool LiveSimulation::place_source(int view, double u, double v, const SourceTool& tool) {
  const auto& kinds = model().source_kinds;
  if (kinds.empty() || view < 0 || view >= views() || views() != 3) {
    status_.note = model().title + " has no point sources to place";
    return false;
  }
  SourceSpec s;
  s.kind = kinds[static_cast<std::size_t>(std::clamp(tool.kind, 0, static_cast<int>(kinds.size()) - 1))];
  s.node = node_on_slice(view, u, v, placement());
  s.f0_hz = tool.f0_hz;
  s.amplitude = tool.amplitude;
  s.delay_s = sim_->time();  // fires now: its wavelet peaks 1.5 / f0 after the click
  s.direction = tool.direction;
  s.moment = tool.moment;
  try {
    sim_->add_source(s);  // queued after running work; throws, keeping the list
  } catch (const Error& e) {
    status_.note = std::string("source not placed: ") + e.what();
    return false;
  }
  status_.note = "placed " + describe(s);
  update_status();
  return true;
}

void LiveSimulation::remove_source(int index) {
  try {
    sim_->remove_source(index);
  } catch (const Error& e) {
    status_.note = e.what();
  }
  update_status();
}

void LiveSimulation::set_receivers(const ReceiverLayout& layout) {
  try {
    sim_->wait();  // the traces restart from the field as it is now
    in_flight_ = false;
    sim_->set_receivers(layout);
    seismogram_wanted_ = true;
    last_seismogram_ = {};
  } catch (const Error& e) {
    status_.note = std::string("receivers not moved: ") + e.what();
  }
  update_status();
}

std::string LiveSimulation::export_seismogram(const std::string& base) {
  try {
    sim_->wait();
    const Seismogram s = sim_->seismogram();
    write_seismogram_npy(base + ".npy", s);
    write_seismogram_csv(base + ".csv", s);
    status_.note = fmt::format("wrote {}.npy and {}.csv ({} steps)", base, base, s.rows());
  } catch (const Error& e) {
    status_.note = std::string("could not write the seismogram: ") + e.what();
  }
  return status_.note;
}

std::string LiveSimulation::diagnostics_csv() const {
  const DiagnosticSeries& s = status_.diagnostics;
  std::string out = "time,step";
  for (const std::string& n : s.names) out += "," + n;
  out += "\n";
  for (std::size_t i = 0; i < s.time.size(); ++i) {
    out += fmt::format("{:.17g},{}", s.time[i], s.steps[i]);
    for (const auto& v : s.values) out += fmt::format(",{:.17g}", v[i]);
    out += "\n";
  }
  return out;
}

void LiveSimulation::update_status() {
  status_.backend = sim_->backend_name();
  status_.on_gpu = sim_->on_gpu();
  status_.distributed = sim_->decomposition_text();
  status_.headline = sim_->status_line();
  status_.copy_gbps = copy_gbps(steps_on_gpu(*sim_));
  status_.steps_done = sim_->steps_done() - queue_.queued_steps();  // finished: what the views can show
  // A model whose dt changes sums its dts (Simulation::time); with batches still queued,
  // the finished steps at the dt in use.
  status_.time = queue_.queued_steps() == 0 ? sim_->time() : static_cast<double>(status_.steps_done) * sim_->dt();
  status_.dt = sim_->dt();
  status_.dt_limit = sim_->dt_limit();
  status_.batch_steps = adaptive_steps_;
  status_.sources.clear();
  for (const SourceSpec& src : sim_->sources()) status_.sources.push_back(describe(src));
  status_.receiver_layout = sim_->receivers();
  status_.receivers = status_.receiver_layout ? describe(*status_.receiver_layout) : std::string();
}

void LiveSimulation::set_overlay_quantity(const std::string& quantity) {
  if (quantity == overlay_quantity_) return;
  overlay_quantity_ = quantity;
  overlay_of_.reset();
  overlay_textures_.clear();
  if (!quantity.empty()) upload_overlay();
}

const render::FieldTexture* LiveSimulation::overlay_texture(int view) const {
  if (view < 0 || view >= static_cast<int>(overlay_textures_.size())) return nullptr;
  return overlay_textures_[static_cast<std::size_t>(view)].get();
}

void LiveSimulation::upload_overlay() {
  if (!sim_ || overlay_quantity_ != sim_->info().views.overlay_quantity) {  // another model: none
    overlay_textures_.clear();
    overlay_of_.reset();
    return;
  }
  // The medium does not change while the run steps: read it again only for another run,
  // configuration or slice (a copy_view on the GPU waits for the batch).
  auto now = std::make_tuple(static_cast<const Simulation*>(sim_.get()), sim_->config().size, sim_->config().params,
                             applied_.slice);
  if (overlay_of_ && *overlay_of_ == now && overlay_textures_.size() == static_cast<std::size_t>(sim_->views())) return;
  overlay_textures_.resize(static_cast<std::size_t>(sim_->views()));
  std::vector<render::FieldTexture*> targets;
  for (int v = 0; v < sim_->views(); ++v) {
    auto& t = overlay_textures_[static_cast<std::size_t>(v)];
    const auto [nu, nv] = sim_->view_size(v);
    if (!t || t->nx() != nu || t->ny() != nv) t = std::make_unique<render::FieldTexture>(nu, nv);
    targets.push_back(t.get());
  }
  ViewPlacement where = placement();
  where.quantity = overlay_quantity_;
  overlay_uploader_.upload(*sim_, targets, where, false);
  if (const auto stats = overlay_uploader_.stats(*sim_)) overlay_range_ = stats->range;
  overlay_of_ = std::move(now);
}

}  // namespace ss::app
