#pragma once
// The model interface: the one thing the rest of the program knows about a model.
//
// A Model describes itself once, as data (ModelInfo: name, parameters with units,
// ranges and help, variants and the device each runs on, orders, views, presets,
// bench accounting), and makes what runs: a Simulation (one live field on the CPU or
// the GPU, stepped in batches, painted, read as views, copied and loaded) and a
// benchmark report. The app's panels, the command line, `bench`, `record` and the
// shared test suite read this interface and never branch on a model's name.
//
// Adding a model: a folder sim/models/<name>/ whose model.cpp defines
// `const Model& <name>_model()`, and one line in sim/models/list.inc
// (docs/adding-a-model.md).
#include <array>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "sim/bench/report.hpp"
#include "sim/core/box_simulation.hpp"
#include "sim/core/precision.hpp"
#include "sim/core/sources.hpp"  // SourceSpec, ReceiverLayout, Seismogram

namespace ss {

// ---- description -----------------------------------------------------------

/// How a parameter is entered: a whole number, a real number, one of named words, or the
/// path of a file (an empty path means none; the help says what the file must hold).
enum class ParamKind { integer, real, choice, file };

/// A parameter value: a number for integer and real parameters, a word for choices, a
/// path for files.
using ParamValue = std::variant<double, std::string>;
/// Values by parameter name.
using ParamValues = std::map<std::string, ParamValue, std::less<>>;

/// One parameter of a model, as the panels, the command line and scene files show it.
struct ParamSpec {
  std::string name;   ///< as typed: `--param name=value`, `--name value`, scene files ("alpha")
  std::string label;  ///< in the panel ("alpha (diffusivity)")
  std::string unit;   ///< "" when dimensionless
  std::string help;   ///< tooltip and --help text
  ParamKind kind = ParamKind::real;
  double default_number = 0;          ///< integer and real
  double min = -1e300, max = 1e300;   ///< inclusive range of integer and real values
  bool zero_means_auto = false;       ///< 0 asks the model for its default (dt: half the stability limit)
  std::vector<std::string> choices;   ///< choice: the accepted words, in menu order
  std::string default_choice;         ///< choice
  bool bench_sweeps = false;          ///< choice: `bench` also takes "all" (and defaults to it): one group of rows per word
  bool selects_code = false;          ///< choice: each word runs other kernel code (a boundary rule), so checks sweep them
  std::string shown_when;             ///< "param=word": only meaningful then (the panel hides it otherwise)
  std::string other_words;            ///< choice: said when a word outside the choices is refused ("others are not supported yet")
  bool rebuilds = true;               ///< false: changes on the live field; true: the field restarts

  /// True for the kinds whose value is text (choice, file).
  bool takes_text() const { return kind == ParamKind::choice || kind == ParamKind::file; }
  /// The default value: the default word, an empty path or the default number.
  ParamValue default_value() const;
};

/// One kernel variant of a model (the model's "method").
struct VariantSpec {
  std::string name;  ///< "stream25d"
  std::string help;  ///< one line: how it reaches the point function
  bool gpu = false;  ///< runs on a CUDA device (else on the CPU)
  bool live = true;  ///< steps in the app; false for bench-only yardsticks (3D `reference`)
};

/// A named starting point: parameter values (and a size) applied together.
struct Preset {
  std::string name;
  std::string help;
  ParamValues values;
};

/// How a model's views look. 2D models show their field; 3D models three axis-aligned
/// slices (XY at z, XZ at y, YZ at x) of a chosen quantity.
struct ViewsSpec {
  std::vector<std::string> quantities;  ///< what a view can show; the first is the default
  std::string value_unit;               ///< of the shown values ("" when dimensionless)
  /// The quantity that shows the medium (one of `quantities`), which the app can draw as a
  /// translucent overlay over the slices; empty: the model offers no overlay.
  std::string overlay_quantity;
};

/// What `bench MODEL` prints for this model and how it counts.
struct BenchSpec {
  std::array<int, 3> default_size{};  ///< (nz 1 for 2D models)
  int default_steps = 10;
  std::string steps_help;             ///< what --steps counts ("time steps per timed run")
  /// Tests `bench MODEL --test NAME` runs instead of the timing table (name, one line of
  /// help), e.g. a physics test against a paper's figure; empty when the model has none.
  std::vector<std::pair<std::string, std::string>> tests;
};

/// Everything a model says about itself.
struct ModelInfo {
  std::string name;         ///< "heat2d": --model, bench MODEL, the registry key
  std::string title;        ///< "heat 2D": in the panel and messages
  std::string description;  ///< one line
  int dims = 2;             ///< 2 (one field view) or 3 (three slice views)
  std::array<int, 3> default_size{};  ///< the app's default scene (nz 1 for 2D)
  std::vector<int> quick_sides;       ///< size buttons in the panel
  int min_side = 1;                   ///< smallest cells per axis
  std::vector<int> orders;            ///< accepted stencil orders
  int default_order = 8;
  std::vector<ParamSpec> params;
  std::vector<VariantSpec> variants;  ///< in menu and bench order
  std::string fastest_gpu;  ///< the default variant on the GPU; empty for a model without GPU variants
  std::string fastest_cpu;  ///< the default variant on the CPU (every model has one)
  ViewsSpec views;
  std::vector<Preset> presets;
  bool steps_in_time = true;  ///< false: a static field; a "step" recomputes it (deriv3d)
  std::string paint_note;     ///< non-empty: painting does nothing, and this says why
  /// Point sources the model injects (Simulation::add_source); empty: none, and the app
  /// shows no source tools. Models with sources also record seismograms.
  std::vector<SourceKind> source_kinds;
  BenchSpec bench;

  /// The parameter named `name`, or nullptr.
  const ParamSpec* param(std::string_view name) const;
  /// The variant named `name`, or nullptr.
  const VariantSpec* variant(std::string_view name) const;
  /// "a, b or c": the variant names (gpu: only GPU ones, cpu: only CPU ones, all: every).
  std::string variant_list(std::string_view device = "all") const;
};

/// A validated configuration: size, order and every parameter (defaults filled in).
struct ModelConfig {
  std::array<int, 3> size{1, 1, 1};  ///< nx, ny, nz (nz 1 for 2D models)
  int order = 8;
  ParamValues params;

  /// A number parameter's value; throws ss::Error if it is missing or a word.
  double number(std::string_view name) const;
  /// A choice parameter's word or a file parameter's path; throws ss::Error if it is
  /// missing or a number.
  const std::string& word(std::string_view name) const;
};

/// "alpha" = 0.5 / "boundary" = periodic, as typed back to the person.
std::string to_string(const ParamValue& v);
/// Reads `text` as a value of `spec` (a number or one of its words); throws ss::Error
/// naming the parameter, the bad text and what it accepts.
ParamValue parse_param(const ParamSpec& spec, std::string_view text, bool bench = false);
/// Throws ss::Error naming the parameter and its range (or words) when `value` is not
/// one `spec` accepts.
void check_param(const ParamSpec& spec, const ParamValue& value, bool bench = false);

// ---- running ---------------------------------------------------------------

/// Where a 3D model's slices cut: z of the XY slice, y of the XZ slice, x of the YZ
/// slice (indexed like SliceAxis), and which quantity the views show.
struct ViewPlacement {
  std::array<int, 3> slices{0, 0, 0};
  std::string quantity;  ///< empty: the model's default
};

/// Where a view's cells are: cell (u, v) is data[offset + u * u_stride + v * v_stride],
/// in device memory (on_device; work on it is ordered on `stream`) or host memory.
/// Valid until the simulation steps, changes or is destroyed.
struct FieldView {
  const float* data = nullptr;
  std::size_t offset = 0, u_stride = 1, v_stride = 0;
  int nu = 0, nv = 0;
  bool on_device = false;
  void* stream = nullptr;  ///< the cudaStream_t the field is written on (on_device only)
};

/// A simulation's state in host memory: every field it steps (interiors, x fastest)
/// and the step count; enough to continue bit for bit on either backend.
struct SimState {
  long steps_done = 0;
  std::vector<std::vector<float>> fields;
  /// A model whose dt follows the flow (hydro3d's auto dt): the simulated time and the dt
  /// in use; empty for the others (time = steps_done x dt).
  std::optional<double> time, dt;
};

/// Where a simulation's cells lie in space: cell (i, j, k) (interior indices) is centred at
/// origin + (i, j, k) * spacing, in `unit` ("" for a dimensionless box). What `export
/// --out F.vti` writes as the image's origin and spacing.
struct GridGeometry {
  std::array<double, 3> origin{0, 0, 0};
  std::array<double, 3> spacing{1, 1, 1};
  std::string unit;
};

/// The live error of the field against a known solution.
struct Validation {
  bool available = false;
  std::string why_not;  ///< when not available
  double rel_l2 = 0, rel_linf = 0;
  long steps = 0;
  double time = 0;
};

/// One number a model reports about its state, followed over time in the app's plots
/// ("total heat"; later models: energy, max Mach number).
struct Diagnostic {
  std::string name;
  std::string unit;  ///< "" when dimensionless
  double value = 0;
};

/// A curve a model reports about its state now (hydro3d: the kinetic energy spectrum
/// E(k)), drawn by the app's Plots section and replaced at each sample.
struct Curve {
  std::string name;              ///< "E(k)"
  std::string x_label, y_label;  ///< "k", "E"
  std::vector<double> x, y;
  bool log_x = false, log_y = false;
  double guide_slope = 0;        ///< non-zero: a guide line y ~ x^slope through the peak (Kolmogorov's -5/3)
  std::string guide_label;       ///< "k^-5/3"
};

/// Bytes moved and cells updated by one step, as the bandwidth figures count them:
/// each input read once and each output written once.
struct StepAccounting {
  double bytes = 0;
  double cell_updates = 0;
};

/// One rank's share of the last batch of a run over several MPI ranks
/// (sim/dist/distributed_simulation.hpp), per step.
struct RankTiming {
  int rank = 0;
  Box box;                       ///< the rank's box of the global grid
  double step_ms = 0;            ///< wall time of a step on this rank, the exchange included
  double exchange_ms = 0;        ///< of which in the halo exchange (waiting for neighbours included)
};

/// One live field on one backend (float). GPU work is queued on the simulation's own
/// stream; the CPU runs a batch before start_steps returns. Every method may throw
/// ss::Error (CUDA failures, bad arguments); the object stays usable after a refusal.
class Simulation {
 public:
  virtual ~Simulation() = default;
  virtual const ModelInfo& info() const = 0;
  /// The configuration it runs (the order follows set_order).
  virtual const ModelConfig& config() const = 0;
  /// "GPU: <device>" or "CPU".
  virtual std::string backend_name() const = 0;
  virtual bool on_gpu() const = 0;
  /// Interior cells.
  virtual std::size_t points() const = 0;
  /// Time step in use and its stability limit (0 for models that do not step in time).
  virtual double dt() const = 0;
  virtual double dt_limit() const = 0;
  virtual long steps_done() const = 0;
  /// Simulated time: by default steps_done() x dt(); a model whose dt changes sums its dts.
  virtual double time() const { return static_cast<double>(steps_done()) * dt(); }
  /// Bytes and cell updates of one step (float).
  virtual StepAccounting accounting() const = 0;
  /// One line for the panel: "heat 2D, 1024 x 1024, step 10, t = 0.001".
  virtual std::string status_line() const = 0;

  /// Back to the initial condition, t = 0.
  virtual void reset() = 0;
  /// Changes the stencil order on the live field.
  virtual void set_order(int order) = 0;
  /// The variant stepping from now on; throws ss::Error when it does not run on this
  /// backend or cannot step live.
  virtual void set_variant(std::string_view variant) = 0;
  virtual const std::string& variant() const = 0;
  /// Starts n steps. GPU: queued, returns at once. CPU: runs them before returning.
  virtual void start_steps(int n) = 0;
  /// The last batch's time in ms once it has finished; empty while it runs (never blocks).
  virtual std::optional<double> finished_batch_ms() = 0;
  /// True when no work is queued.
  virtual bool idle() const = 0;
  /// Blocks until no work is queued.
  virtual void wait() = 0;
  /// Paints `value` at (u, v) (cell units) of view `view`: a disc in a 2D field, a
  /// sphere centred in the slice's cell layer in 3D (queued after running work).
  /// Models with a paint_note ignore it.
  virtual void paint(int view, double u, double v, double radius, double value, const ViewPlacement& where) = 0;

  /// Number of views: 1 for 2D models, 3 for 3D (XY, XZ, YZ).
  int views() const;
  /// Size (nu, nv) of view `view`.
  std::array<int, 2> view_size(int view) const;
  /// Where view `view`'s cells are now (after queued work).
  virtual FieldView view(int view, const ViewPlacement& where) = 0;
  /// Copies view `view` (nu * nv values, u fastest) to host memory after queued work;
  /// on the GPU only the view crosses the bus.
  virtual void copy_view(int view, const ViewPlacement& where, float* dst) = 0;
  /// The state, after queued work.
  virtual SimState copy_state() = 0;
  /// Replaces the state (from copy_state of the same configuration, on either backend).
  virtual void load_state(const SimState& state) = 0;
  /// The field against the model's exact solution, when it has one for this configuration.
  virtual Validation validate();
  /// Numbers to follow over time, after queued work (reads the state: call it sparingly).
  /// By default the minimum, maximum and mean of each stepped field; models add theirs.
  virtual std::vector<Diagnostic> diagnostics();
  /// Curves of the state now, after queued work (reads the state: called every few
  /// seconds while the Plots section is open). By default none.
  virtual std::vector<Curve> curves();
  /// Why the run must pause now, after queued work (a NaN, a Courant limit the flow has
  /// outgrown); empty when it may go on. Cheap enough to ask twice a second (a
  /// reduction on the device, not a copy of the state). By default: nothing to say.
  virtual std::string health();
  /// Whether health() has anything to check. The window's loop asks it twice a second after
  /// letting its queued batches run down (the frame then waits for the running one); where
  /// there is nothing to check (the default) it never waits on its account.
  virtual bool checks_health() const { return false; }
  /// The value of `quantity` (empty: the views' default) at interior cell (x, y, z) (z 0 for
  /// 2D models), after queued work: what a probe reads. On the GPU only that value crosses
  /// the bus. By default read through view() (the XY view at z); throws ss::Error naming
  /// the cell when it is outside the grid.
  virtual float read_cell(const std::array<int, 3>& cell, const std::string& quantity = {});
  /// Where the cells lie in space. By default: a parameter named "h" (the grid spacing,
  /// its unit) with the first cell at the origin when the model has one, else the unit
  /// box along x (spacing 1 / nx on every axis) with cell centres at (i + 1/2) / nx.
  virtual GridGeometry geometry() const;

  // Sources and receivers (models whose ModelInfo lists source_kinds; by default none).
  // Changing them keeps the field; set_receivers starts new traces.

  /// The point sources, in injection order (the configured one first, when there is one).
  virtual std::vector<SourceSpec> sources() const { return {}; }
  /// Adds a source from the next step on; throws ss::Error (one line: outside the grid, a
  /// kind the model lacks, more than kMaxSources) and keeps the list then.
  virtual void add_source(const SourceSpec& source);
  /// Removes source `index` (throws ss::Error when there is none).
  virtual void remove_source(int index);
  /// Where the receivers are; empty for a model without receivers.
  virtual std::optional<ReceiverLayout> receivers() const { return std::nullopt; }
  /// Moves the receivers (their traces start again); throws ss::Error (outside the grid)
  /// and keeps the old ones then.
  virtual void set_receivers(const ReceiverLayout& layout);
  /// What the receivers recorded since the last reset, load or set_receivers, after
  /// queued work (a copy: call it a few times a second at most). Empty by default.
  virtual Seismogram seismogram() { return {}; }

  /// A run over several MPI ranks: each rank's box and its times in the last batch (rank
  /// order); empty for a run on one rank (the default).
  virtual std::vector<RankTiming> rank_timings() const { return {}; }
  /// A run over several MPI ranks: "3 ranks, 1x1x3"; empty for one rank.
  virtual std::string decomposition_text() const { return {}; }
};

/// The grid node a click at (u, v) (cell units) of 3D view `view` means: the cell under
/// the cursor in the slice's layer (coordinates may lie outside the grid; add_source
/// refuses those).
std::array<int, 3> node_on_slice(int view, double u, double v, const ViewPlacement& where);

/// Which backend a simulation runs on.
enum class Backend { cpu, gpu };

/// What `bench MODEL` runs.
struct BenchRequest {
  ModelConfig config;               ///< a bench_sweeps parameter may hold "all"
  int steps = 10;
  int repeats = 5;
  std::vector<std::string> variants;  ///< in the order the rows appear
  Precision precision = Precision::f32;
  std::function<void(const std::string&)> progress;  ///< told before each long piece of work
  /// A test of BenchSpec::tests to run instead of the timing table; empty: the table.
  std::string test;
  /// --test: the sizes asked for (`--size A,B,...`); empty: the test's own. config.size
  /// holds the first (or the bench default).
  std::vector<std::array<int, 3>> sizes;
  /// The parameters given (command line or scene file); a test keeps its own settings
  /// for the others (config holds every parameter, defaults filled in).
  ParamValues given;
  /// --test: where to write the test's data series as CSV (e.g. a spectrum); empty: not written.
  std::string csv;
};

class Model {
 public:
  virtual ~Model() = default;
  virtual const ModelInfo& info() const = 0;
  /// Model-specific checks of a configuration whose parameters are each in range
  /// (e.g. dt against the stability limit); throws ss::Error naming the value.
  virtual void validate(const ModelConfig& config) const = 0;
  /// A simulation of `config` (validated) running `variant`, which must run on
  /// `backend`; throws ss::Error (no CUDA device, does not fit in memory, ...).
  virtual std::unique_ptr<Simulation> create(const ModelConfig& config, Backend backend,
                                             std::string_view variant) const = 0;
  /// Runs the benchmark; throws ss::Error for bad input.
  virtual BenchReport bench(const BenchRequest& request) const = 0;

  /// How `config` (validated) runs over several ranks (sim/core/box_simulation.hpp); by
  /// default it does not, and says so.
  virtual DistributedSpec distributed(const ModelConfig& config) const;
  /// One rank's box of a distributed run of `config`, stepped by `variant`: the model's
  /// CPU variant (a box on the CPU) or DistributedSpec::gpu_variant (a box on the current
  /// CUDA device); throws ss::Error when the model does not run distributed or the variant
  /// does not step boxes.
  virtual std::unique_ptr<BoxSimulation> create_box(const ModelConfig& config, const BoxPlacement& where,
                                                    std::string_view variant) const;
};

/// Throws ss::Error ("the heat3d variant 'reference' does not step live: ...") when
/// `variant` is one of the model's bench-only yardsticks.
void check_live_variant(const ModelInfo& info, std::string_view variant);

/// The registered models, in menu order.
const std::vector<const Model*>& models();
/// The model named `name`; throws ss::Error naming it and the registered ones.
const Model& find_model(std::string_view name);
/// "heat2d, heat3d or deriv3d".
std::string model_list();

/// A configuration of `model`: the size (2D models: nz is set to 1), the order and the
/// given parameters, each checked against its spec (unknown names, values outside the
/// range or not among the words are refused naming the parameter and what it accepts),
/// the rest at their defaults; then the model's own checks. bench: bench_sweeps
/// parameters may be "all".
ModelConfig make_config(const Model& model, std::array<int, 3> size, int order, const ParamValues& given,
                        bool bench = false);

}  // namespace ss
