#pragma once
// The running simulation as the app sees it: applies edited settings (rebuild, live order
// or variant change), advances in batches whose size follows a frame budget without ever
// waiting for a batch (unless asked to, for reproducible recordings), keeps the texture
// up to date (on the GPU with the next batch queued before the previous one is shown:
// BatchQueue), measures, validates against the analytic solution, and turns failures
// (NaN, CUDA errors) into a paused state with a message. It drives any registered
// model through the model interface (sim/core/model.hpp): a 2D model has one texture
// (the field), a 3D model three (the XY, XZ and YZ slices at the settings' positions).
#include <array>
#include <chrono>
#include <deque>
#include <memory>
#include <optional>
#include <tuple>
#include <string>
#include <vector>

#include "batch_queue.hpp"
#include "settings.hpp"
#include "simulation_factory.hpp"
#include "stencilscope/render/image_texture.hpp"
#include "view_upload.hpp"

namespace ss::app {

/// Timing of one finished batch.
struct PerfSample {
  double t_s = 0;          ///< seconds since start-up
  int steps = 0;
  double ms_per_step = 0;
  double gbps = 0;         ///< effective: one read + one write per cell and step
  double mcups = 0;
  double copy_ratio = 0;   ///< gbps / the backend's copy bandwidth
};

/// The model's diagnostics over time (the Plots section and its CSV): one row per sample.
struct DiagnosticSeries {
  std::vector<std::string> names;   ///< with the unit in brackets where it has one
  std::deque<double> time;          ///< simulated time of each sample
  std::deque<long> steps;
  std::vector<std::deque<double>> values;  ///< values[k][n]: diagnostic k at sample n
  std::vector<Curve> curves;        ///< the model's curves at the last curve sample
  long curves_step = -1;            ///< the step they were taken at
};

/// The probes' values over time (the Plots section and its CSV): one row per sample,
/// a column per probe; a probe added later has NaN before its first sample.
struct ProbeSeries {
  std::vector<std::array<int, 3>> cells;    ///< the probes sampled, as the settings list them
  std::string quantity;                     ///< what they read (the views' quantity)
  std::deque<double> time;                  ///< simulated time of each sample
  std::deque<long> steps;
  std::vector<std::deque<double>> values;   ///< values[p][n]: probe p at sample n
};

/// The A/B comparison: run B beside the running one (A), the difference B - A of the
/// view compared (2D: the field; 3D: the XY slice) and B's timing.
struct AbStatus {
  bool active = false;
  std::string a_label, b_label;   ///< what each runs: "order 8, stream (GPU)"
  std::string backend_b;
  std::string compared;           ///< "the field" or "the XY slice at z = 12"
  double rel_l2 = 0;              ///< ||B - A||_2 / ||A||_2 over the compared cells (||B - A|| when A is 0)
  double max_abs = 0;             ///< max |B - A| over them
  long steps = -1;                ///< the step both were at when compared
  std::deque<PerfSample> history_b;  ///< B's recent batches
};

/// What the panels show (read-only for them).
struct SimStatus {
  std::string backend;               ///< "GPU: NVIDIA H100 ..." or "CPU"
  bool on_gpu = false;               ///< the simulation steps on the GPU (its batches queued ahead)
  std::string headline;              ///< the model's status line ("heat 2D, 1024 x 1024, step 10, t = ...")
  std::string gpu_unavailable;       ///< why GPU variants cannot run (empty when they can)
  std::optional<UploadPath> upload_path;
  std::string interop_failure;       ///< why a better interop path is not used on the GPU backend, path by path
  double copy_gbps = 0;
  long steps_done = 0;
  double time = 0, dt = 0, dt_limit = 0;
  int batch_steps = 0;               ///< steps in the next batch
  std::deque<PerfSample> history;    ///< recent batches, oldest first
  double upload_ms = 0;              ///< last upload: CPU time of the call (recording: until the GPU finished it)
  double upload_ms_total = 0;        ///< sum over all uploads (for averages)
  long uploads = 0;
  std::string error;                 ///< non-empty: stepping is paused because of it
  std::string note;                  ///< a one-line remark (e.g. "switched to the CPU backend: ...")
  Validation validation;
  DiagnosticSeries diagnostics;
  ProbeSeries probes;
  AbStatus ab;
  std::string distributed;           ///< a run over MPI ranks: "3 ranks, 1x1x3" (empty: one rank)
  std::string distributed_note;      ///< what such a run can change live
  std::vector<RankTiming> ranks;     ///< its ranks' times in the last batch
  std::vector<std::string> sources;  ///< the model's point sources, described (none without)
  std::string receivers;             ///< where the receivers are, described
  std::optional<ReceiverLayout> receiver_layout;
  std::string seismogram;            ///< "64 receivers x 3 components, 412 steps (t 0.009 .. 0.93 s)"
  unsigned seismogram_texture = 0;   ///< GL name of its picture (0: none yet)
  int seismogram_width = 0, seismogram_height = 0;
  double seismogram_peak = 0;        ///< the colour range is +- this
};

class LiveSimulation {
 public:
  /// Builds the backend and the field texture for `settings` (GL context current). A GPU
  /// variant without a usable device falls back to the CPU backend and `cpu`, saying why
  /// in status().note. Throws ss::Error for invalid settings.
  /// `factory` makes run A (empty: Model::create; under mpirun: the field split over the
  /// ranks); run B of A/B is always the model's own, on this process.
  explicit LiveSimulation(SimSettings& settings, SimulationFactory factory = {});
  ~LiveSimulation();

  /// Brings the simulation in line with `settings`. Invalid edits are undone in `settings`
  /// and reported in status().note (the simulation keeps running); they never throw.
  void apply(SimSettings& settings);
  /// One frame: takes a finished batch's timing, refreshes the texture, starts the next
  /// batch unless paused. wait_for_batch: run exactly settings.steps_per_frame steps and
  /// wait for them (recording), so frame k shows k batches.
  void advance(const SimSettings& settings, bool wait_for_batch);
  /// GPU batches queued and not yet shown (at most BatchQueue::kMaxBatches; 0 on the CPU,
  /// with A/B and while recording, which take the simple path: one batch, then its upload).
  int queued_batches() const { return queue_.size(); }
  /// The window's loop, once the frame's drawing is issued: writes the newest finished
  /// batch's snapshot (chosen by advance()) into the textures, which the next frame
  /// draws, and queues the batch that takes its staging slot. After the drawing, the
  /// textures' hand-over from GL to CUDA rides on the frame's own GL work instead of
  /// interrupting the steps once more (docs/perf.md, "the window's upload"). advance()
  /// does it first when it was not called. Does nothing when no snapshot is due.
  void show_due();
  /// Runs one step now (even when paused) and refreshes the texture.
  void step_once(const SimSettings& settings);
  /// Back to the initial condition; clears the error.
  void reset();
  /// The state of the running simulation (after queued work): what a checkpoint holds.
  SimState copy_state();
  /// Replaces the running simulation's state (a checkpoint of the same scene); throws
  /// ss::Error when it does not fit.
  void load_state(const SimState& state);
  /// Paints the brush's value at cell coordinates (x, y) of the first view (2D: a disc
  /// in the field; 3D: a sphere on the XY slice).
  void paint(double x, double y, double radius_cells, double value) { paint_view(0, x, y, radius_cells, value); }
  /// Paints at cell coordinates (u, v) of view `view` (3D: a sphere in the volume
  /// centred in that slice's cell layer).
  void paint_view(int view, double u, double v, double radius_cells, double value);
  /// Clears the error (stepping resumes unless the settings pause it).
  void clear_error() { status_.error.clear(); }
  /// Pauses stepping with a message (a GL error, a failed shader, a CUDA error).
  void set_error(std::string message) { status_.error = std::move(message); }
  /// Clears the one-line note.
  void clear_note() { status_.note.clear(); }
  /// Shows a one-line note (a scene file that could not be opened); stepping goes on.
  void set_note(std::string message) { status_.note = std::move(message); }
  /// Asks for a validation at the next opportunity (throttled to twice a second).
  void request_validation() { validation_wanted_ = true; }
  /// Asks for a diagnostics sample at the next opportunity (throttled to 4 a second; never
  /// waits for a running batch).
  void request_diagnostics() { diagnostics_wanted_ = true; }
  /// Asks for a seismogram picture at the next opportunity (4 a second at most; never
  /// waits for a running batch).
  void request_seismogram() { seismogram_wanted_ = true; }
  /// Puts a source of the tool at the node under (u, v) of view `view`, firing now; a
  /// refusal (outside the grid, too many) goes to status().note and changes nothing.
  /// Returns whether it was placed.
  bool place_source(int view, double u, double v, const SourceTool& tool);
  /// Removes source `index`; a refusal goes to status().note.
  void remove_source(int index);
  /// Moves the receivers; a refusal goes to status().note and keeps the old ones.
  void set_receivers(const ReceiverLayout& layout);
  /// Writes the seismogram so far to `base`.npy and `base`.csv; returns the message shown.
  std::string export_seismogram(const std::string& base);

  /// The diagnostics so far as CSV: a header "time,step,<names>" and a row per sample.
  std::string diagnostics_csv() const;

  /// Samples the probes now unless the step has not changed since the last sample (or,
  /// `throttled`, less than 50 ms went by); a change of the probes samples at once. Waits
  /// for a running batch. advance() calls it between batches (throttled unless recording).
  void sample_probes(bool throttled = true);
  /// The probes so far as CSV: a header "time,step,<quantity> at x=X y=Y[ z=Z]..." and a
  /// row per sample (empty fields before a probe's first sample).
  std::string probes_csv() const;

  /// True while an A/B comparison runs (SimSettings::ab).
  bool ab_active() const { return sim_b_ != nullptr; }
  /// Run B (tests; only while ab_active()).
  Simulation& simulation_b() { return *sim_b_; }
  /// A/B: run B's compared view (0) and the difference B - A (1).
  const render::FieldTexture& ab_texture(int k) const { return k == 0 ? *texture_b_ : *texture_diff_; }

  /// The texture of view `view` (0 .. views() - 1).
  const render::FieldTexture& texture(int view = 0) const { return *textures_.at(static_cast<std::size_t>(view)); }
  /// 1 for 2D models, 3 for the 3D models (XY, XZ, YZ).
  int views() const { return static_cast<int>(textures_.size()); }
  /// The seismogram as a field texture for the views' fourth pane (models with point
  /// sources, once something is recorded; sampled 4 times a second), or nullptr.
  const render::FieldTexture* seismogram_texture() const { return seismogram_field_.get(); }
  /// The factor its values were multiplied by (the largest trace value reaches the slices' largest |value|).
  double seismogram_gain() const { return seismogram_gain_; }
  /// The running model's description.
  const ModelInfo& model() const { return sim_->info(); }
  /// The configuration running (its order follows live changes).
  const ModelConfig& config() const { return sim_->config(); }
  /// The simulation, to set up from the command line (sources, receivers) or to write its
  /// seismogram at the end; waits for a running batch first.
  Simulation& simulation_for_setup() {
    sim_->wait();
    in_flight_ = false;
    return *sim_;
  }
  /// The simulation itself (tests, and the panels' read-only figures).
  const Simulation& simulation() const { return *sim_; }
  /// The probes in use (cells x, y, z), inside the grid.
  const std::vector<std::array<int, 3>>& probes() const { return applied_.probes; }
  /// The slice positions in use (3D models), clamped into the grid.
  const std::array<int, 3>& slices() const { return applied_.slice; }
  /// The medium overlay: the views' quantity `quantity` (the model's
  /// ViewsSpec::overlay_quantity; empty: off), read like the views into textures of its own
  /// (host copy of the slices) when turned on and again when the slices or the
  /// configuration change.
  void set_overlay_quantity(const std::string& quantity);
  /// The overlay's texture of view `view`, or nullptr while off.
  const render::FieldTexture* overlay_texture(int view) const;
  /// The range of the overlay's values over the slices.
  render::ValueRange overlay_range() const { return overlay_range_; }
  /// Stats of the field in the texture (empty until known).
  std::optional<render::FieldStats> field_stats() { return uploader_.stats(*sim_); }
  const SimStatus& status() const { return status_; }
  /// True when a GPU device can run the GPU variants.
  bool gpu_available() const { return status_.gpu_unavailable.empty(); }

 private:
  void rebuild(const SimSettings& settings, bool on_gpu);
  /// (Re)builds run B from A's state now, or drops it when A/B is off. Throws ss::Error.
  void rebuild_b(const SimSettings& settings);
  /// B - A of the compared view into the textures and status_.ab (both idle).
  void compare_ab();
  void wait_all();
  void upload(bool wait_for_gpu = false);
  void record_batch(double ms, int steps);
  void record_batch_b(double ms, int steps);
  void start_batch(const SimSettings& settings, int steps, bool wait);
  /// advance() on the GPU without A/B or recording: batches queued ahead (BatchQueue).
  void advance_queued(const SimSettings& settings);
  /// Waits for the queued batches and records their timing; the texture is then stale.
  void drain_queue();
  /// A batch is running or queued (readings of the state would wait for it).
  bool busy() const { return in_flight_ || !queue_.empty(); }
  /// The next batch's size from a finished one's time (adaptive steps).
  void adapt_batch(const SimSettings& settings, double ms, int steps);
  void validate();
  void sample_diagnostics();
  void sample_seismogram();
  void update_status();

  ViewPlacement placement() const;

  std::vector<std::unique_ptr<render::FieldTexture>> textures_;  // declared before sim_: destroyed after it
  ViewUploader uploader_;
  BatchQueue queue_;  // GPU batches queued ahead of the frame
  std::unique_ptr<Simulation> sim_;
  std::unique_ptr<render::FieldTexture> texture_b_, texture_diff_;  // before sim_b_: destroyed after it
  std::unique_ptr<Simulation> sim_b_;  // A/B: run B
  std::vector<float> view_a_, view_b_, view_diff_;
  std::string b_params_text_;  // ", alpha 0.5": B's own parameters, for its label
  SimSettings applied_;
  SimStatus status_;
  SimulationFactory factory_;
  bool in_flight_ = false;
  int in_flight_steps_ = 0;
  int adaptive_steps_ = 1;
  int batches_undrawn_ = 0;  // finished batches not yet shown (max speed: SimSettings::draw_every)
  int due_show_ = -1;        // the staging slot show_due() writes into the textures (-1: none)
  int due_steps_ = 0;        // the batch show_due() queues into the slot it frees (0: none)
  bool dirty_ = true;  // the texture is older than the field
  bool validation_wanted_ = false;
  bool diagnostics_wanted_ = false;
  std::chrono::steady_clock::time_point start_, last_validation_, last_diagnostics_, last_health_, last_curves_,
      last_probes_, last_seismogram_;
  long probes_step_ = -1;  // the step of the last probe sample
  bool seismogram_wanted_ = false;
  render::ImageTexture seismogram_texture_;
  std::unique_ptr<render::FieldTexture> seismogram_field_;
  double seismogram_gain_ = 1;
  // The medium overlay (set_overlay_quantity): its textures, reader and what they hold.
  void upload_overlay();
  std::string overlay_quantity_;
  std::vector<std::unique_ptr<render::FieldTexture>> overlay_textures_;
  ViewUploader overlay_uploader_;
  render::ValueRange overlay_range_{0, 1};
  std::optional<std::tuple<const Simulation*, std::array<int, 3>, ParamValues, std::array<int, 3>>> overlay_of_;
};

}  // namespace ss::app
