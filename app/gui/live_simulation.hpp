#pragma once
// The running simulation as the app sees it: applies edited settings (rebuild, live order
// or variant change), advances in batches whose size follows a frame budget without ever
// waiting for a batch (unless asked to, for reproducible recordings), keeps the texture
// up to date, measures, validates against the analytic solution, and turns failures
// (NaN, CUDA errors) into a paused state with a message. It drives any registered
// model through the model interface (sim/core/model.hpp): a 2D model has one texture
// (the field), a 3D model three (the XY, XZ and YZ slices at the settings' positions).
#include <chrono>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "settings.hpp"
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

/// What the panels show (read-only for them).
struct SimStatus {
  std::string backend;               ///< "GPU: NVIDIA H100 ..." or "CPU"
  std::string headline;              ///< the model's status line ("heat 2D, 1024 x 1024, step 10, t = ...")
  std::string gpu_unavailable;       ///< why GPU variants cannot run (empty when they can)
  std::optional<UploadPath> upload_path;
  std::string interop_failure;       ///< why interop is not used on the GPU backend
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
  explicit LiveSimulation(SimSettings& settings);
  ~LiveSimulation();

  /// Brings the simulation in line with `settings`. Invalid edits are undone in `settings`
  /// and reported in status().note (the simulation keeps running); they never throw.
  void apply(SimSettings& settings);
  /// One frame: takes a finished batch's timing, refreshes the texture, starts the next
  /// batch unless paused. wait_for_batch: run exactly settings.steps_per_frame steps and
  /// wait for them (recording), so frame k shows k batches.
  void advance(const SimSettings& settings, bool wait_for_batch);
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
  /// The slice positions in use (3D models), clamped into the grid.
  const std::array<int, 3>& slices() const { return applied_.slice; }
  /// Stats of the field in the texture (empty until known).
  std::optional<render::FieldStats> field_stats() { return uploader_.stats(*sim_); }
  const SimStatus& status() const { return status_; }
  /// True when a GPU device can run the GPU variants.
  bool gpu_available() const { return status_.gpu_unavailable.empty(); }

 private:
  void rebuild(const SimSettings& settings, bool on_gpu);
  void upload(bool wait_for_gpu = false);
  void record_batch(double ms, int steps);
  void start_batch(const SimSettings& settings, int steps, bool wait);
  void validate();
  void sample_diagnostics();
  void sample_seismogram();
  void update_status();

  ViewPlacement placement() const;

  std::vector<std::unique_ptr<render::FieldTexture>> textures_;  // declared before sim_: destroyed after it
  ViewUploader uploader_;
  std::unique_ptr<Simulation> sim_;
  SimSettings applied_;
  SimStatus status_;
  bool in_flight_ = false;
  int in_flight_steps_ = 0;
  int adaptive_steps_ = 1;
  bool dirty_ = true;  // the texture is older than the field
  bool validation_wanted_ = false;
  bool diagnostics_wanted_ = false;
  bool seismogram_wanted_ = false;
  render::ImageTexture seismogram_texture_;
  std::unique_ptr<render::FieldTexture> seismogram_field_;
  double seismogram_gain_ = 1;
  std::chrono::steady_clock::time_point start_, last_validation_, last_diagnostics_, last_health_, last_curves_,
      last_seismogram_;
};

}  // namespace ss::app
