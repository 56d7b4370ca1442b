// elastic3d as the rest of the program sees it: its description, its simulations on the
// CPU and the GPU (three slices of a displacement component, a derived quantity or the
// medium), its benchmark.
#include <array>
#include <chrono>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "sim/core/device.hpp"
#include "sim/core/error.hpp"
#include "sim/core/model.hpp"
#include "sim/core/views.hpp"
#include "sim/models/elastic3d/elastic3d_bench.hpp"
#include "sim/models/elastic3d/elastic3d_box.hpp"
#include "sim/models/elastic3d/elastic3d_solver.hpp"

namespace ss {

namespace {

ParamSpec number(std::string name, std::string label, std::string unit, ParamKind kind, double def, double lo,
                 double hi, std::string help, std::string shown_when = "") {
  ParamSpec p;
  p.name = std::move(name);
  p.label = std::move(label);
  p.unit = std::move(unit);
  p.kind = kind;
  p.default_number = def;
  p.min = lo;
  p.max = hi;
  p.help = std::move(help);
  p.shown_when = std::move(shown_when);
  return p;
}

ParamSpec choice(std::string name, std::vector<std::string> words, std::string help, std::string shown_when = "") {
  ParamSpec p;
  p.name = name;
  p.label = std::move(name);
  p.kind = ParamKind::choice;
  p.default_choice = words.front();
  p.choices = std::move(words);
  p.help = std::move(help);
  p.shown_when = std::move(shown_when);
  return p;
}

ParamSpec automatic(ParamSpec p) {
  p.zero_means_auto = true;
  return p;
}

std::vector<ParamSpec> elastic_params() {
  std::vector<ParamSpec> p;
  p.push_back(choice("medium", {"homogeneous", "layered", "vti_layer", "random"},
                     "homogeneous; layered (four layers, velocities x 1, 1.25, 1.5, 1.75 and density x 1, 1.1, 1.2, "
                     "1.3 downwards); vti_layer (isotropic vp, vs, rho with a VTI middle third in depth: the Thomsen "
                     "parameters, or the stiffnesses when anisotropy = stiffness); random (a smooth random "
                     "perturbation of the velocities, from the seed)"));
  p.push_back(choice("anisotropy", {"isotropic", "thomsen", "stiffness"},
                     "how the base medium is given: isotropic (vp, vs, rho), thomsen (vp0 = vp, vs0 = vs, epsilon, "
                     "delta, gamma, rho; VTI) or stiffness (C11, C13, C33, C44, C66, rho; VTI)"));
  // The ranges keep every parameter's values inside its range valid together where the
  // physics allows (vs at most 0.6 vp at the same fraction of both ranges; the stiffness
  // ranges positive definite at the same fraction); what is refused (vs > vp, a medium that
  // is not positive definite) is refused naming the node.
  p.push_back(number("vp", "vp (P velocity)", "m/s", ParamKind::real, 3000, 100, 1e5,
                     "P velocity (thomsen: the vertical vp0)"));
  p.push_back(number("vs", "vs (S velocity)", "m/s", ParamKind::real, 1732, 1, 6e4,
                     "S velocity (thomsen: the vertical vs0); must not exceed vp"));
  p.push_back(number("rho", "rho (density)", "kg/m^3", ParamKind::real, 2000, 1, 1e5, "density"));
  for (const auto& [name, what, unit] : {std::array<const char*, 3>{"vp_file", "vp", "m/s"},
                                         std::array<const char*, 3>{"vs_file", "vs", "m/s"},
                                         std::array<const char*, 3>{"rho_file", "the density rho", "kg/m^3"}}) {
    ParamSpec f;
    f.name = name;
    f.label = fmt::format("{} file", std::string_view(name).substr(0, std::string_view(name).find('_')));
    f.kind = ParamKind::file;
    f.help = fmt::format(
        "a .npy file of {} at every node ({}): float32 (or float64, rounded), shape (nz, ny, nx), C order (numpy.save of a "
        "indexed a[z, y, x], z downwards); any of the medium files makes the medium per node (isotropic, or VTI "
        "from Thomsen's parameters under anisotropy thomsen), each quantity from its file or, without one, its "
        "parameter everywhere (medium is then unused); values must be positive and finite, vs at most vp; dt "
        "follows the fastest node",
        what, unit);
    p.push_back(f);
  }
  for (const auto& [name, what] : {std::array<const char*, 2>{"epsilon_file", "Thomsen's epsilon"},
                                   std::array<const char*, 2>{"delta_file", "Thomsen's delta"},
                                   std::array<const char*, 2>{"gamma_file", "Thomsen's gamma"}}) {
    ParamSpec f;
    f.name = name;
    f.label = fmt::format("{} file", std::string_view(name).substr(0, std::string_view(name).find('_')));
    f.kind = ParamKind::file;
    f.help = fmt::format(
        "a .npy file of {} at every node (shape (nz, ny, nx), float32 or float64, as vp_file); needs anisotropy "
        "thomsen: with vp (vp0), vs (vs0) and rho from their files or parameters it gives a VTI medium per node, "
        "which must be positive definite",
        what);
    p.push_back(f);
  }
  p.push_back(number("epsilon", "Thomsen epsilon", "", ParamKind::real, 0.2, -0.4, 1,
                     "C11 = C33 (1 + 2 epsilon): horizontal qP faster by sqrt(1 + 2 epsilon) (anisotropy thomsen, "
                     "and the vti_layer)"));
  p.push_back(number("delta", "Thomsen delta", "", ParamKind::real, 0.1, -0.4, 1,
                     "the near-vertical qP anisotropy, through C13 (anisotropy thomsen, and the vti_layer)"));
  p.push_back(number("gamma", "Thomsen gamma", "", ParamKind::real, 0.1, -0.4, 1,
                     "C66 = C44 (1 + 2 gamma): SH anisotropy (anisotropy thomsen, and the vti_layer)"));
  struct Stiff {
    const char* name;
    double def, lo, hi;
  };
  const Stiff stiff[] = {{"c11", 25.2, 0.1, 1500}, {"c13", 7.7, -300, 600}, {"c33", 18, 0.1, 1000},
                         {"c44", 6, 0.01, 300}, {"c66", 7.2, 0.01, 300}};
  for (const auto& [name, def, lo, hi] : stiff)
    p.push_back(number(name, fmt::format("{} (stiffness)", name), "GPa", ParamKind::real, def, lo, hi,
                       "VTI stiffness (symmetry axis z); the medium must be positive definite", "anisotropy=stiffness"));
  p.push_back(number("perturbation", "perturbation", "", ParamKind::real, 0.1, 0, 0.5,
                     "random medium: the largest relative change of the velocities", "medium=random"));
  p.push_back(number("seed", "seed", "", ParamKind::integer, 1, 0, 4294967295.0, "random medium: its seed",
                     "medium=random"));
  p.push_back(number("h", "h (grid spacing)", "m", ParamKind::real, 10, 1e-3, 1e5, "distance between grid nodes"));
  p.push_back(automatic(number("dt", "dt", "s", ParamKind::real, 0, 0, 1e300,
                               "time step; 0 picks half the stability limit of order 8 (the strictest, so dt stays "
                               "when the order changes); above the limit of the order is refused")));
  p.push_back(number("f0", "f0 (source peak)", "Hz", ParamKind::real, 10, 1e-3, 1e6,
                     "peak frequency of the Ricker source; keep vs_min / (2.5 f0 h) at 5 nodes or more per wavelength"));
  p.push_back(choice("source", {"force", "explosion", "moment"},
                     "force: a point force along force_dir (acceleration source); explosion: an isotropic moment "
                     "tensor (stress source on sigma_xx, sigma_yy, sigma_zz); moment: the moment tensor m_xx .. m_yz "
                     "(stress source)"));
  p.push_back(choice("force_dir", {"z", "x", "y"}, "direction of the point force", "source=force"));
  for (const char* c : {"xx", "yy", "zz", "xy", "xz", "yz"})
    p.push_back(number(fmt::format("m_{}", c), fmt::format("M{}", c), "M0", ParamKind::real,
                       std::string_view(c).substr(0, 1) == std::string_view(c).substr(1) ? 1 : 0, -1e6, 1e6,
                       fmt::format("moment source: component {} of the moment tensor in units of M0 = 4 pi rho vp^2 "
                                   "h^2 (1, 1, 1, 0, 0, 0 is the explosion)",
                                   c),
                       "source=moment"));
  for (const char* axis : {"x", "y", "z"})
    p.push_back(automatic(number(fmt::format("src_{}", axis), fmt::format("source {}", axis), "nodes",
                                 ParamKind::integer, 0, 0, 1e300,
                                 fmt::format("node of the source along {}, 1 to n - 1 (0: the centre)", axis))));
  p.push_back(automatic(number("rec_z", "receiver depth", "nodes", ParamKind::integer, 0, 0, 1e300,
                               "depth node of the receiver line (along x through the source's y), 0 to nz - 1; "
                               "0: the surface")));
  ParamSpec b = choice("boundary", {"sponge", "periodic", "periodic_sides", "cpml"},
                       "sponge (Clayton-Engquist on the outermost nodes and a Cerjan sponge along the faces, u = 0 "
                       "beyond), periodic (wrapped), periodic_sides (x and y wrapped, the bottom absorbing, the top "
                       "by `top`) or cpml (a convolutional PML along the faces, the top by `top`, u = 0 beyond)");
  b.selects_code = true;
  p.push_back(b);
  ParamSpec top = choice("top", {"free", "absorbing"},
                         "the top face (z = 0) under the sponge or cpml: free surface (sigma_zj = 0, stress "
                         "imaging) or absorbing like the other faces (under boundary sponge, periodic_sides or cpml)");
  top.selects_code = true;
  p.push_back(top);
  p.push_back(automatic(number("sponge_width", "sponge width", "nodes", ParamKind::integer, 0, 0, 1e300,
                               "nodes of the sponge layer; 0: 20, or a third of the smallest side when that is less; "
                               "wider than a third of the smallest side (periodic_sides: of nz) is refused")));
  p.push_back(automatic(number("cpml_width", "CPML width", "nodes", ParamKind::integer, 0, 0, 1e300,
                               "nodes of the CPML layer; 0: 16, or a third of the smallest side when that is less; "
                               "wider than a third of the smallest side is refused",
                               "boundary=cpml")));
  p.push_back(number("cpml_reflection", "CPML R", "", ParamKind::real, kDefaultCpmlReflection, 1e-12, 0.5,
                     "the theoretical normal-incidence reflection R that sets the CPML's damping "
                     "d0 = -3 vmax ln(R) / (2 L)",
                     "boundary=cpml"));
  return p;
}

// The view quantities in menu order (the first, u_z, is the default) and the solver's id of each.
const std::vector<std::string> kQuantities = {"u_z", "u_x", "u_y", "magnitude", "divergence", "curl", "vp"};
constexpr int kQuantityIds[] = {kViewUz, kViewUx, kViewUy, kViewMagnitude, kViewDivergence, kViewCurl, kViewVp};

ModelInfo describe() {
  ModelInfo m;
  m.name = "elastic3d";
  m.title = "elastic 3D";
  m.description =
      "elastic waves in isotropic or VTI media (Weiss & Shragge's stress-stiffness scheme: leapfrog, first-derivative "
      "stencils of orders 2-8) from a Ricker force or explosion, free surface on top, shown as three slices of a "
      "displacement component, |u|, the divergence (P), the curl (S) or vp; receivers along x on the surface";
  m.dims = 3;
  m.default_size = {96, 96, 96};
  m.quick_sides = {64, 96, 128, 256};
  m.min_side = kMinSide;
  m.orders = {2, 4, 6, 8};
  m.default_order = 8;
  m.params = elastic_params();
  m.variants = {
      {"steps", "the paper's nine kernels: strains, stresses and accelerations through global memory", true, true},
      {"fused", "stresses from u per point written once, then one divergence-and-update kernel", true, true},
      {"stream25d",
       "one kernel streaming along z, the xy tile in shared memory: strains and stresses never reach memory "
       "(sponge boundary; periodic and cpml step as fused)",
       true, true},
      {"register25d",
       "stream25d with the tile's u columns in registers and every load issued a plane ahead "
       "(sponge boundary; periodic and cpml step as fused)",
       true, true},
      {"cpu", "OpenMP over planes, the shared point functions", false, true},
      {"reference", "double precision, plain loops (a yardstick for bench: it recomputes from t = 0)", false, false},
  };
  m.fastest_gpu = "register25d";
  m.fastest_cpu = "cpu";
  m.source_kinds = {SourceKind::force, SourceKind::explosion, SourceKind::moment};
  m.views.quantities = kQuantities;
  m.views.value_unit = "m";
  m.views.overlay_quantity = "vp";
  m.presets = {
      {"homogeneous", "a vertical Ricker force in a uniform isotropic medium, free surface on top",
       {{"medium", std::string("homogeneous")}, {"anisotropy", std::string("isotropic")}}},
      {"layered", "four isotropic layers, faster with depth: converted and head waves",
       {{"medium", std::string("layered")}, {"anisotropy", std::string("isotropic")}}},
      {"vti_layer", "an explosion above a VTI layer (epsilon 0.2, delta 0.1, gamma 0.1) in an isotropic medium",
       {{"medium", std::string("vti_layer")}, {"source", std::string("explosion")}}},
      {"random", "a smooth random isotropic medium: scattered coda",
       {{"medium", std::string("random")}, {"anisotropy", std::string("isotropic")}}},
  };
  m.bench.default_size = {256, 256, 256};
  m.bench.default_steps = 10;
  m.bench.steps_help = "time steps per timed run";
  return m;
}

int whole(const ModelConfig& c, std::string_view name) {
  return static_cast<int>(std::min(c.number(name), static_cast<double>(std::numeric_limits<int>::max())));
}

Elastic3DConfig to_elastic3d(const ModelConfig& c) {
  Elastic3DConfig a;
  a.nx = c.size[0];
  a.ny = c.size[1];
  a.nz = c.size[2];
  a.order = c.order;
  a.medium = parse_elastic_medium(c.word("medium"));
  a.anisotropy = parse_anisotropy(c.word("anisotropy"));
  a.vp = c.number("vp");
  a.vs = c.number("vs");
  a.rho = c.number("rho");
  a.epsilon = c.number("epsilon");
  a.delta = c.number("delta");
  a.gamma = c.number("gamma");
  a.stiffness = {c.number("c11") * 1e9, c.number("c13") * 1e9, c.number("c33") * 1e9, c.number("c44") * 1e9,
                 c.number("c66") * 1e9};
  a.perturbation = c.number("perturbation");
  a.seed = static_cast<std::uint32_t>(c.number("seed"));
  a.h = c.number("h");
  a.dt = c.number("dt");
  a.f0 = c.number("f0");
  a.source_kind = parse_elastic_source(c.word("source"));
  const std::string& dir = c.word("force_dir");
  a.force_dir = {dir == "x" ? 1.0 : 0.0, dir == "y" ? 1.0 : 0.0, dir == "z" ? 1.0 : 0.0};
  a.moment = {c.number("m_xx"), c.number("m_yy"), c.number("m_zz"), c.number("m_xy"), c.number("m_xz"),
              c.number("m_yz")};
  a.src_x = whole(c, "src_x");
  a.src_y = whole(c, "src_y");
  a.src_z = whole(c, "src_z");
  a.rec_z = whole(c, "rec_z");
  a.boundary = parse_elastic_boundary(c.word("boundary"));
  a.top = parse_elastic_top(c.word("top"));
  a.sponge_width = whole(c, "sponge_width");
  a.cpml_width = whole(c, "cpml_width");
  load_elastic_files(a, ElasticMediaPaths{c.word("vp_file"), c.word("vs_file"), c.word("rho_file"),
                                          c.word("epsilon_file"), c.word("delta_file"), c.word("gamma_file")});
  a.cpml_reflection = c.number("cpml_reflection");
  return a;
}

/// The solver's id (ElasticQuantity) of a view's quantity; throws ss::Error for an unknown one.
int quantity_of(const ModelInfo& info, const ViewPlacement& where) {
  if (where.quantity.empty()) return kViewUz;
  for (std::size_t q = 0; q < kQuantities.size(); ++q)
    if (kQuantities[q] == where.quantity) return kQuantityIds[q];
  throw Error(fmt::format("unknown quantity '{}' of {} (choose u_z, u_x, u_y, magnitude, divergence, curl or vp)",
                          where.quantity, info.name));
}

template <typename T>
SimState elastic_sim_state(const ElasticState<T>& s, long steps) {
  SimState st;
  st.steps_done = steps;
  for (const auto& c : s.u) st.fields.emplace_back(c.begin(), c.end());
  for (const auto& c : s.u_prev) st.fields.emplace_back(c.begin(), c.end());
  return st;
}

ElasticState<float> elastic_state_of(const SimState& st, std::size_t points) {
  if (st.fields.size() != 6)
    throw Error(fmt::format("an elastic3d state holds u and u_prev (3 components each, 6 fields); this one has {}",
                            st.fields.size()));
  for (const auto& f : st.fields)
    if (f.size() != points)
      throw Error(fmt::format("an elastic3d state field holds {} values; the grid has {} nodes", f.size(), points));
  ElasticState<float> s;
  for (int c = 0; c < 3; ++c) {
    s.u[c] = st.fields[c];
    s.u_prev[c] = st.fields[3 + c];
  }
  return s;
}

template <typename Solver>
class ElasticSim : public Simulation {
 public:
  ElasticSim(const ModelInfo& info, const ModelConfig& config, const Elastic3DSetup& setup)
      : info_(info), config_(config), sim_(setup) {}
  const ModelInfo& info() const override { return info_; }
  const ModelConfig& config() const override { return config_; }
  std::size_t points() const override { return sim_.setup().grid.points(); }
  double dt() const override { return sim_.setup().dt; }
  double dt_limit() const override { return sim_.setup().dt_limit; }
  long steps_done() const override { return sim_.steps_done(); }
  StepAccounting accounting() const override {
    return {kElasticValuesPerNode * sizeof(float) * static_cast<double>(points()), static_cast<double>(points())};
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
  SimState copy_state() override { return elastic_sim_state(sim_.state(), steps_done()); }
  void load_state(const SimState& st) override { sim_.load(elastic_state_of(st, points()), st.steps_done); }
  std::vector<SourceSpec> sources() const override { return sim_.setup().sources; }
  void add_source(const SourceSpec& source) override { sim_.set_sources(with_source(sim_.setup().sources, source)); }
  void remove_source(int index) override { sim_.set_sources(without_source(sim_.setup().sources, index)); }
  std::optional<ReceiverLayout> receivers() const override { return sim_.setup().receiver_layout; }
  void set_receivers(const ReceiverLayout& layout) override { sim_.set_receivers(layout); }
  Seismogram seismogram() override {
    Seismogram s = elastic3d_seismogram_head(sim_.setup());
    s.first_step = sim_.first_trace_step();
    const auto traces = sim_.traces();
    s.values.assign(traces.begin(), traces.end());
    return s;
  }
  /// The largest |u| and the scheme's discrete energy (elastic3d_energy).
  std::vector<Diagnostic> diagnostics() override {
    const ElasticState<float> s = sim_.state();
    double peak = 0;
    for (std::size_t e = 0; e < points(); ++e)
      peak = std::max(peak, std::sqrt(static_cast<double>(s.u[0][e]) * s.u[0][e] +
                                      static_cast<double>(s.u[1][e]) * s.u[1][e] +
                                      static_cast<double>(s.u[2][e]) * s.u[2][e]));
    return {{"max |u|", "m", peak}, {"energy", "J", elastic3d_energy(sim_.setup(), to_double(s))}};
  }

 protected:
  const ModelInfo& info_;
  ModelConfig config_;
  Solver sim_;
  std::string variant_;
};

class HostSim final : public ElasticSim<HostElastic3D<float>> {
 public:
  HostSim(const ModelInfo& info, const ModelConfig& config, const Elastic3DSetup& setup, std::string_view variant)
      : ElasticSim(info, config, setup) {
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
    return slice_field_view(volume(quantity_of(info_, where)), sim_.setup().grid, view, where);
  }
  void copy_view(int v, const ViewPlacement& where, float* dst) override { copy_host_view(view(v, where), dst); }

 private:
  const float* volume(int q) {
    if (q <= kViewUz) return sim_.displacement(q).data();
    if (q == kViewVp) return sim_.vp().data();
    return sim_.derived(q == kViewMagnitude ? ElasticDerived::magnitude
                        : q == kViewDivergence ? ElasticDerived::divergence
                                               : ElasticDerived::curl)
        .data();
  }
  std::optional<double> last_ms_;
};

class DeviceSim final : public ElasticSim<DeviceElastic3D<float>> {
 public:
  DeviceSim(const ModelInfo& info, const ModelConfig& config, const Elastic3DSetup& setup, std::string_view variant)
      : ElasticSim(info, config, setup), device_(cuda_device_name()) {
    set_variant(variant);
  }
  std::string backend_name() const override { return "GPU: " + device_; }
  bool on_gpu() const override { return true; }
  void set_variant(std::string_view v) override {
    check_live_variant(info_, v);
    const Elastic3DVariant parsed = parse_elastic3d_variant(v);
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
    const float* volume = sim_.device_view_volume(quantity_of(info_, where));
    return slice_field_view(volume, sim_.setup().grid, view, where, true, sim_.native_stream());
  }
  void copy_view(int view, const ViewPlacement& where, float* dst) override {
    sim_.copy_slice_to_host(slice_axis_of_view(view), where.slices[static_cast<std::size_t>(view)],
                            quantity_of(info_, where), dst);
  }

 private:
  std::string device_;
  Elastic3DVariant variant_enum_ = Elastic3DVariant::fused;
};

class Elastic3DModel final : public Model {
 public:
  const ModelInfo& info() const override { return info_; }
  void validate(const ModelConfig& c) const override { make_elastic3d_setup(to_elastic3d(c)); }
  std::unique_ptr<Simulation> create(const ModelConfig& c, Backend backend, std::string_view variant) const override {
    const Elastic3DSetup setup = make_elastic3d_setup(to_elastic3d(c));
    if (backend == Backend::cpu) {
      check_host_memory(24 * setup.grid.elements() * sizeof(float), "elastic3d on this grid");
      return std::make_unique<HostSim>(info_, c, setup, variant);
    }
    require_cuda_device();
    return std::make_unique<DeviceSim>(info_, c, setup, variant);
  }
  /// Distributed (elastic3d_box.hpp): every boundary rule; u and the stresses exchanged
  /// each step. The boxes step the `cpu` variant, or on the GPU `steps` (or `fused`), not
  /// under cpml.
  DistributedSpec distributed(const ModelConfig& c) const override {
    return elastic3d_distributed_spec(make_elastic3d_setup(to_elastic3d(c)));
  }
  std::unique_ptr<BoxSimulation> create_box(const ModelConfig& c, const BoxPlacement& where,
                                            std::string_view variant) const override {
    check_live_variant(info_, variant);
    const Elastic3DSetup setup = make_elastic3d_setup(to_elastic3d(c));
    if (const VariantSpec* v = info_.variant(variant); v && v->gpu) {
      require_cuda_device();
      return make_elastic3d_device_box(setup, where, parse_elastic3d_variant(variant));
    }
    if (variant != "cpu")
      throw Error(fmt::format("a distributed run steps a CPU variant ({}) or, on the GPU, steps or fused",
                              info_.variant_list("cpu")));
    const std::size_t fields = 24 + (setup.cpml_layout.any() ? 18 : 0);
    check_host_memory(fields * static_cast<std::size_t>(where.box.cells()) * sizeof(float) +
                          6 * setup.grid.elements() * sizeof(float),
                      "elastic3d on this rank's box");
    return make_elastic3d_box(setup, where);
  }
  BenchReport bench(const BenchRequest& r) const override {
    Elastic3DBenchOptions o;
    o.config = to_elastic3d(r.config);
    o.steps = r.steps;
    o.repeats = r.repeats;
    for (const std::string& v : r.variants) o.variants.push_back(parse_elastic3d_variant(v));
    o.precision = r.precision;
    o.progress = r.progress;
    return run_elastic3d_bench(o);
  }

 private:
  ModelInfo info_ = describe();
};

}  // namespace

const Model& elastic3d_model() {
  static const Elastic3DModel model;
  return model;
}

}  // namespace ss
