// acoustic3d as the rest of the program sees it: its description, its simulations on the
// CPU and the GPU (three slices of the pressure or of the medium), its benchmark.
#include <chrono>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "sim/core/device.hpp"
#include "sim/core/error.hpp"
#include "sim/core/model.hpp"
#include "sim/core/views.hpp"
#include "sim/models/acoustic3d/acoustic3d_bench.hpp"
#include "sim/models/acoustic3d/acoustic3d_box.hpp"
#include "sim/models/acoustic3d/acoustic3d_solver.hpp"

namespace ss {

namespace {

ParamSpec number(std::string name, std::string label, std::string unit, ParamKind kind, double def, double lo,
                 double hi, std::string help) {
  ParamSpec p;
  p.name = std::move(name);
  p.label = std::move(label);
  p.unit = std::move(unit);
  p.kind = kind;
  p.default_number = def;
  p.min = lo;
  p.max = hi;
  p.help = std::move(help);
  return p;
}

ParamSpec choice(std::string name, std::vector<std::string> words, std::string help) {
  ParamSpec p;
  p.name = name;
  p.label = std::move(name);
  p.kind = ParamKind::choice;
  p.default_choice = words.front();
  p.choices = std::move(words);
  p.help = std::move(help);
  return p;
}

std::vector<ParamSpec> acoustic_params() {
  std::vector<ParamSpec> p;
  p.push_back(choice("medium", {"homogeneous", "layered", "random"},
                     "the velocity model: homogeneous (vp everywhere), layered (four horizontal layers of equal "
                     "thickness, vp x 1, 1.25, 1.5, 1.75 from the top down) or random (a smooth random perturbation "
                     "of vp, from the seed)"));
  p.push_back(number("vp", "vp (velocity)", "m/s", ParamKind::real, 2000, 1, 1e5,
                     "the velocity of the homogeneous medium, the top layer, or the mean of the random one"));
  ParamSpec file;
  file.name = "vp_file";
  file.label = "vp file";
  file.kind = ParamKind::file;
  file.help =
      "a .npy file of the velocity at every node (m/s): float32 (or float64, rounded), shape (nz, ny, nx), C "
      "order (numpy.save of vp indexed vp[z, y, x], z downwards); when given it replaces the medium (vp then only sets the "
      "source's amplitude scale 4 pi vp^2 h); every value must be positive and finite; dt follows its fastest velocity";
  p.push_back(file);
  ParamSpec pert = number("perturbation", "perturbation", "", ParamKind::real, 0.1, 0, 0.5,
                          "random medium: the largest relative change of the velocity");
  pert.shown_when = "medium=random";
  p.push_back(pert);
  ParamSpec seed = number("seed", "seed", "", ParamKind::integer, 1, 0, 4294967295.0, "random medium: its seed");
  seed.shown_when = "medium=random";
  p.push_back(seed);
  p.push_back(number("h", "h (grid spacing)", "m", ParamKind::real, 10, 1e-3, 1e5, "distance between grid nodes"));
  ParamSpec dt = number("dt", "dt", "s", ParamKind::real, 0, 0, 1e300,
                        "time step; 0 picks half the stability limit of order 8 (the strictest, so dt stays when the "
                        "order changes); above the limit of the order is refused");
  dt.zero_means_auto = true;
  p.push_back(dt);
  p.push_back(number("f0", "f0 (source peak)", "Hz", ParamKind::real, 10, 1e-3, 1e6,
                     "peak frequency of the Ricker source; keep vmin / (2.5 f0 h) at 5 nodes or more per wavelength"));
  for (const char* axis : {"x", "y", "z"}) {
    ParamSpec src = number(fmt::format("src_{}", axis), fmt::format("source {}", axis), "cells", ParamKind::integer, 0,
                           0, 1e300,
                           fmt::format("node of the source along {}, 1 to n - 1 (0: the centre); the receivers lie on "
                                       "the line along x through it",
                                       axis));
    src.zero_means_auto = true;
    p.push_back(src);
  }
  ParamSpec b = choice("boundary", {"sponge", "periodic", "cpml"},
                       "sponge (Cerjan 1985 damping in a layer along the faces, p = 0 beyond), periodic (wrapped) or "
                       "cpml (a convolutional PML in a layer along the faces, p = 0 beyond)");
  b.selects_code = true;
  p.push_back(b);
  ParamSpec top = choice("top", {"free", "absorbing"},
                         "the top face (z = 0) under the sponge or cpml: free (p = 0 on the plane, reflects with "
                         "opposite polarity) or absorbing (a layer like the other faces)");
  top.selects_code = true;
  p.push_back(top);
  ParamSpec width = number("sponge_width", "sponge width", "cells", ParamKind::integer, 0, 0, 1e300,
                           "cells of the sponge layer; 0: 20, or a third of the smallest side when that is less; wider "
                           "than a third of the smallest side is refused");
  width.zero_means_auto = true;
  width.shown_when = "boundary=sponge";
  p.push_back(width);
  ParamSpec cpml_width = number("cpml_width", "CPML width", "nodes", ParamKind::integer, 0, 0, 1e300,
                                "nodes of the CPML layer; 0: 16, or a third of the smallest side when that is less; "
                                "wider than a third of the smallest side is refused");
  cpml_width.zero_means_auto = true;
  cpml_width.shown_when = "boundary=cpml";
  p.push_back(cpml_width);
  ParamSpec cpml_r = number("cpml_reflection", "CPML R", "", ParamKind::real, kDefaultCpmlReflection, 1e-12, 0.5,
                            "the theoretical normal-incidence reflection R that sets the CPML's damping "
                            "d0 = -3 vmax ln(R) / (2 L)");
  cpml_r.shown_when = "boundary=cpml";
  p.push_back(cpml_r);
  return p;
}

ModelInfo describe() {
  ModelInfo m;
  m.name = "acoustic3d";
  m.title = "acoustic 3D";
  m.description =
      "constant-density acoustic waves from a Ricker source (leapfrog, orders 2-8), shown as three slices of the "
      "pressure; receivers along x through the source; painting adds a Gaussian pressure pulse";
  m.dims = 3;
  m.default_size = {128, 128, 128};
  m.quick_sides = {64, 128, 256, 512};
  m.min_side = kMinSide;
  m.orders = {2, 4, 6, 8};
  m.default_order = 8;
  m.params = acoustic_params();
  m.variants = {
      {"global", "one point per thread, every neighbour read from global memory", true, true},
      {"stream25d", "an xy tile in shared memory, the z column in registers, marching along z (ours)", true, true},
      {"cpu", "OpenMP over planes, the shared point function", false, true},
      {"reference", "double precision, plain loops (a yardstick for bench: it recomputes from t = 0)", false, false},
  };
  m.fastest_gpu = "stream25d";
  m.fastest_cpu = "cpu";
  m.source_kinds = {SourceKind::pressure};
  m.views.quantities = {"pressure", "velocity"};
  m.views.value_unit = "Pa";
  m.views.overlay_quantity = "velocity";
  m.presets = {
      {"homogeneous", "a Ricker source in a uniform medium, free surface on top", {{"medium", std::string("homogeneous")}}},
      {"layered", "four layers, faster with depth: reflections and head waves", {{"medium", std::string("layered")}}},
      {"random", "a smooth random medium: scattered coda", {{"medium", std::string("random")}}},
  };
  m.bench.default_size = {256, 256, 256};
  m.bench.default_steps = 10;
  m.bench.steps_help = "time steps per timed run";
  return m;
}

/// A whole-number parameter as an int; values past the int range (the ranges are open
/// above) become INT_MAX, which the setup then refuses naming it.
int whole(const ModelConfig& c, std::string_view name) {
  return static_cast<int>(std::min(c.number(name), static_cast<double>(std::numeric_limits<int>::max())));
}

Acoustic3DConfig to_acoustic3d(const ModelConfig& c) {
  Acoustic3DConfig a;
  a.nx = c.size[0];
  a.ny = c.size[1];
  a.nz = c.size[2];
  a.order = c.order;
  a.medium = parse_medium(c.word("medium"));
  a.vp = c.number("vp");
  a.perturbation = c.number("perturbation");
  a.seed = static_cast<std::uint32_t>(c.number("seed"));
  a.h = c.number("h");
  a.dt = c.number("dt");
  a.f0 = c.number("f0");
  a.src_x = whole(c, "src_x");
  a.src_y = whole(c, "src_y");
  a.src_z = whole(c, "src_z");
  a.boundary = parse_acoustic_boundary(c.word("boundary"));
  a.top = parse_top_boundary(c.word("top"));
  a.sponge_width = whole(c, "sponge_width");
  a.cpml_width = whole(c, "cpml_width");
  a.cpml_reflection = c.number("cpml_reflection");
  if (const std::string& path = c.word("vp_file"); !path.empty()) {
    try {
      a.velocity = load_velocity_npy(path, a.nx, a.ny, a.nz);
    } catch (const Error& e) {
      throw Error(fmt::format("vp_file: {}", e.what()));
    }
  }
  return a;
}

/// True when a view shows the medium; throws ss::Error for an unknown quantity.
bool shows_velocity(const ModelInfo& info, const ViewPlacement& where) {
  if (where.quantity.empty() || where.quantity == "pressure") return false;
  if (where.quantity == "velocity") return true;
  throw Error(fmt::format("unknown quantity '{}' of {} (choose pressure or velocity)", where.quantity, info.name));
}

/// The state of an acoustic field: p and p_prev (interiors, x fastest) and the step count.
template <typename T>
SimState acoustic_state(std::vector<T> p, std::vector<T> p_prev, long steps) {
  SimState st;
  st.steps_done = steps;
  st.fields.push_back(std::move(p));
  st.fields.push_back(std::move(p_prev));
  return st;
}

void check_state(const SimState& st, std::size_t points) {
  if (st.fields.size() != 2 || st.fields[0].size() != points || st.fields[1].size() != points)
    throw Error(fmt::format("an acoustic3d state holds p and p_prev of {} nodes each; this one has {} fields", points,
                            st.fields.size()));
}

/// What both backends share over their solver.
template <typename Solver>
class AcousticSim : public Simulation {
 public:
  AcousticSim(const ModelInfo& info, const ModelConfig& config, const Acoustic3DSetup& setup)
      : info_(info), config_(config), sim_(setup) {}
  const ModelInfo& info() const override { return info_; }
  const ModelConfig& config() const override { return config_; }
  std::size_t points() const override { return sim_.setup().grid.points(); }
  double dt() const override { return sim_.setup().dt; }
  double dt_limit() const override { return sim_.setup().dt_limit; }
  long steps_done() const override { return sim_.steps_done(); }
  StepAccounting accounting() const override {
    return {kAcousticValuesPerNode * sizeof(float) * static_cast<double>(points()), static_cast<double>(points())};
  }
  std::string status_line() const override {
    const auto& n = config_.size;
    return fmt::format("{}, {} x {} x {}, step {}, t = {:.4g} s", info_.title, n[0], n[1], n[2], steps_done(), time());
  }
  void reset() override { sim_.reset(); }
  void set_order(int order) override {
    sim_.set_order(order);
    config_.order = order;
  }
  const std::string& variant() const override { return variant_; }
  void paint(int view, double u, double v, double radius, double value, const ViewPlacement& where) override {
    sim_.paint(sphere_on_slice(view, u, v, radius, value, where));
  }
  std::vector<SourceSpec> sources() const override { return sim_.setup().sources; }
  void add_source(const SourceSpec& source) override { sim_.set_sources(with_source(sim_.setup().sources, source)); }
  void remove_source(int index) override { sim_.set_sources(without_source(sim_.setup().sources, index)); }
  std::optional<ReceiverLayout> receivers() const override { return sim_.setup().receiver_layout; }
  void set_receivers(const ReceiverLayout& layout) override { sim_.set_receivers(layout); }
  Seismogram seismogram() override {
    Seismogram s = acoustic3d_seismogram_head(sim_.setup());
    s.first_step = sim_.first_trace_step();
    const auto traces = sim_.traces();
    s.values.assign(traces.begin(), traces.end());
    return s;
  }
  /// The largest |p| and the scheme's discrete energy (acoustic3d_energy).
  std::vector<Diagnostic> diagnostics() override {
    const SimState st = copy_state();
    double peak = 0;
    for (float x : st.fields[0]) peak = std::max(peak, static_cast<double>(std::abs(x)));
    return {{"max |p|", "Pa", peak}, {"energy", "Pa^2 m", acoustic3d_energy(sim_.setup(), st.fields[0], st.fields[1])}};
  }

 protected:
  const ModelInfo& info_;
  ModelConfig config_;
  Solver sim_;
  std::string variant_;
};

class HostSim final : public AcousticSim<HostAcoustic3D<float>> {
 public:
  HostSim(const ModelInfo& info, const ModelConfig& config, const Acoustic3DSetup& setup, std::string_view variant)
      : AcousticSim(info, config, setup) {
    set_variant(variant);
  }
  std::string backend_name() const override { return "CPU"; }
  bool on_gpu() const override { return false; }
  void set_variant(std::string_view v) override {
    check_live_variant(info_, v);
    if (v != "cpu") throw Error(fmt::format("variant {} does not run on the CPU backend (choose cpu)", v));
    variant_ = v;
  }
  void start_steps(int n) override {
    const auto t0 = std::chrono::steady_clock::now();
    sim_.step(n);
    last_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  std::optional<double> finished_batch_ms() override { return last_ms_; }
  bool idle() const override { return true; }
  void wait() override {}
  FieldView view(int view, const ViewPlacement& where) override {
    const float* volume = shows_velocity(info_, where) ? sim_.velocity().data() : sim_.pressure().data();
    return slice_field_view(volume, sim_.setup().grid, view, where);
  }
  void copy_view(int v, const ViewPlacement& where, float* dst) override { copy_host_view(view(v, where), dst); }
  SimState copy_state() override { return acoustic_state(sim_.interior(), sim_.previous_interior(), steps_done()); }
  void load_state(const SimState& st) override {
    check_state(st, points());
    sim_.load_interior(st.fields[0].data(), st.fields[1].data(), st.steps_done);
  }

 private:
  std::optional<double> last_ms_;
};

class DeviceSim final : public AcousticSim<DeviceAcoustic3D<float>> {
 public:
  DeviceSim(const ModelInfo& info, const ModelConfig& config, const Acoustic3DSetup& setup, std::string_view variant)
      : AcousticSim(info, config, setup), device_(cuda_device_name()) {
    set_variant(variant);
  }
  std::string backend_name() const override { return "GPU: " + device_; }
  bool on_gpu() const override { return true; }
  void set_variant(std::string_view v) override {
    check_live_variant(info_, v);
    const Acoustic3DVariant parsed = parse_acoustic3d_variant(v);
    if (!is_gpu(parsed))
      throw Error(fmt::format("variant {} does not run on the GPU backend (choose {})", v, info_.variant_list("gpu")));
    variant_enum_ = parsed;
    variant_ = v;
  }
  void start_steps(int n) override { sim_.step_timed_async(variant_enum_, n); }
  std::optional<double> finished_batch_ms() override { return sim_.finished_batch_ms(); }
  bool idle() const override { return sim_.idle(); }
  void wait() override { sim_.synchronize(); }
  FieldView view(int view, const ViewPlacement& where) override {
    const float* volume = shows_velocity(info_, where) ? sim_.device_velocity() : sim_.device_pressure();
    return slice_field_view(volume, sim_.setup().grid, view, where, true, sim_.native_stream());
  }
  void copy_view(int view, const ViewPlacement& where, float* dst) override {
    sim_.copy_slice_to_host(slice_axis_of_view(view), where.slices[static_cast<std::size_t>(view)],
                            shows_velocity(info_, where), dst);
  }
  SimState copy_state() override {
    std::vector<float> p(points()), p_prev(points());
    sim_.copy_interiors_to_host(p.data(), p_prev.data());
    return acoustic_state(std::move(p), std::move(p_prev), steps_done());
  }
  void load_state(const SimState& st) override {
    check_state(st, points());
    sim_.load_interior(st.fields[0].data(), st.fields[1].data(), st.steps_done);
  }

 private:
  std::string device_;
  Acoustic3DVariant variant_enum_ = Acoustic3DVariant::stream25d;
};

class Acoustic3DModel final : public Model {
 public:
  const ModelInfo& info() const override { return info_; }
  void validate(const ModelConfig& c) const override { make_acoustic3d_setup(to_acoustic3d(c)); }
  std::unique_ptr<Simulation> create(const ModelConfig& c, Backend backend, std::string_view variant) const override {
    const Acoustic3DSetup setup = make_acoustic3d_setup(to_acoustic3d(c));
    if (backend == Backend::cpu) {
      check_host_memory(4 * setup.grid.elements() * sizeof(float), "acoustic3d on this grid");
      return std::make_unique<HostSim>(info_, c, setup, variant);
    }
    require_cuda_device();
    return std::make_unique<DeviceSim>(info_, c, setup, variant);
  }
  /// Distributed (acoustic3d_box.hpp): every boundary rule; width R, p exchanged after
  /// each step (and psi between the CPML's passes); the boxes step the `cpu` variant.
  DistributedSpec distributed(const ModelConfig& c) const override {
    return acoustic3d_distributed_spec(make_acoustic3d_setup(to_acoustic3d(c)));
  }
  std::unique_ptr<BoxSimulation> create_box(const ModelConfig& c, const BoxPlacement& where,
                                            std::string_view variant) const override {
    check_live_variant(info_, variant);
    const Acoustic3DSetup setup = make_acoustic3d_setup(to_acoustic3d(c));
    if (const VariantSpec* v = info_.variant(variant); v && v->gpu) {
      require_cuda_device();
      return make_acoustic3d_device_box(setup, where, parse_acoustic3d_variant(variant));
    }
    if (variant != "cpu")
      throw Error(fmt::format("a distributed run steps a CPU variant ({}) or, on the GPU, global or stream25d",
                              info_.variant_list("cpu")));
    const std::size_t fields = 4 + (setup.cpml_layout.any() ? 6 : 0);
    check_host_memory(fields * static_cast<std::size_t>(where.box.cells()) * sizeof(float) +
                          setup.grid.points() * sizeof(float),
                      "acoustic3d on this rank's box");
    return make_acoustic3d_box(setup, where);
  }
  BenchReport bench(const BenchRequest& r) const override {
    Acoustic3DBenchOptions o;
    o.config = to_acoustic3d(r.config);
    o.steps = r.steps;
    o.repeats = r.repeats;
    for (const std::string& v : r.variants) o.variants.push_back(parse_acoustic3d_variant(v));
    o.precision = r.precision;
    o.progress = r.progress;
    return run_acoustic3d_bench(o);
  }

 private:
  ModelInfo info_ = describe();
};

}  // namespace

const Model& acoustic3d_model() {
  static const Acoustic3DModel model;
  return model;
}

}  // namespace ss
