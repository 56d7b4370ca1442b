// hydro3d as the rest of the program sees it: its description, its simulations on the
// CPU and the GPU (three slices of a chosen quantity), its benchmark.
#include <algorithm>
#include <chrono>
#include <cmath>

#include <fmt/format.h>

#include "sim/core/device.hpp"
#include "sim/core/error.hpp"
#include "sim/core/model.hpp"
#include "sim/core/slice3d.hpp"
#include "sim/core/views.hpp"
#include "sim/models/hydro3d/hydro3d_bench.hpp"
#include "sim/models/hydro3d/hydro3d_physics.hpp"
#include "sim/models/hydro3d/hydro3d_solver.hpp"
#include "sim/models/hydro3d/hydro3d_tests.hpp"

namespace ss {

namespace {

ParamSpec real_param(const char* name, const char* label, const char* unit, double def, double lo, double hi,
                     const char* help, const char* shown_when = "") {
  ParamSpec p;
  p.name = name;
  p.label = label;
  p.unit = unit;
  p.kind = ParamKind::real;
  p.default_number = def;
  p.min = lo;
  p.max = hi;
  p.help = help;
  p.shown_when = shown_when;
  return p;
}

std::vector<ParamSpec> hydro_params() {
  std::vector<ParamSpec> p;
  ParamSpec init;
  init.name = "init";
  init.label = "initial field";
  init.kind = ParamKind::choice;
  init.choices = {"explosion", "decay", "turbulence"};
  init.default_choice = "explosion";
  init.help = "explosion: a Gaussian shell of radial velocity (eq 23); decay: a shear wave u0 sin(k x) e_y decaying "
              "by viscosity (eq 22, exact); turbulence: at rest, driven by the non-helical forcing of eqs 24-25";
  p.push_back(init);
  ParamSpec boundary;
  boundary.name = "boundary";
  boundary.label = "boundary";
  boundary.kind = ParamKind::choice;
  boundary.choices = {"periodic"};
  boundary.default_choice = "periodic";
  boundary.help = "periodic on every face (ghost zones of width 3); other boundaries are not supported yet";
  boundary.other_words = "hydro3d supports only periodic boundaries so far";
  p.push_back(boundary);
  p.push_back(real_param("cs", "cs (sound speed)", "", 1.0, 1e-6, 1e6, "the isothermal sound speed; must be positive"));
  p.push_back(real_param("nu", "nu (viscosity)", "", 5e-3, 0.0, 1e6,
                         "kinematic viscosity; the viscous Courant limit is 0.08 h^2 / nu; the grid holds a mesh Reynolds "
                         "number |u| h / nu up to about 5"));
  ParamSpec dt = real_param("dt", "dt", "", 0.0, 0.0, 1e300,
                            "time step; 0 (auto): safety x the Courant limit min(0.4 h / (|u|max + cs), 0.08 h^2 / nu) of "
                            "the flow, taken again every dt_every steps; a fixed dt (for benchmarks and bitwise comparisons) "
                            "above the limit at t = 0 is refused");
  dt.zero_means_auto = true;
  p.push_back(dt);
  p.push_back(real_param("safety", "safety factor", "", 0.8, 1e-3, 1.0, "the auto dt as a fraction of the Courant limit"));
  ParamSpec every = real_param("dt_every", "dt every (steps)", "", 1, 0, 1e6,
                               "auto dt: take dt from |u|max of the flow every this many steps (a reduction on the device, "
                               "no wait on the host); 0: keep the dt of t = 0");
  every.kind = ParamKind::integer;
  p.push_back(every);
  p.push_back(real_param("box", "box width", "", 2 * M_PI, 1e-6, 1e6, "the box width along x (cells are cubes of side box / nx); 2 pi makes k = 1 the box"));
  p.push_back(real_param("u0", "u0", "", 0.1, -10, 10, "amplitude of the decaying shear wave", "init=decay"));
  ParamSpec k = real_param("k", "k", "", 13, 1, 1024, "wavenumber of the shear wave, in units of 2 pi / box (the paper: 13)",
                           "init=decay");
  k.kind = ParamKind::integer;
  p.push_back(k);
  p.push_back(real_param("u_ampl", "u_ampl", "", 1.0, -10, 10, "peak radial velocity of the shell", "init=explosion"));
  p.push_back(real_param("r_shell", "r_shell", "", 0.8, 0.0, 1e6, "radius of the shell's peak", "init=explosion"));
  p.push_back(real_param("d_shell", "d_shell", "", 0.2, 1e-6, 1e6, "width of the shell", "init=explosion"));
  p.push_back(real_param("kf", "kf (forcing)", "", 1.5, 1.0, 64,
                         "forcing wavenumber: wave vectors with |k| in [kf - 1/2, kf + 1/2), units of 2 pi / box",
                         "init=turbulence"));
  p.push_back(real_param("f0", "f0 (forcing)", "", 0.02, 0.0, 1e3, "forcing amplitude (eq 25)", "init=turbulence"));
  ParamSpec seed;
  seed.name = "seed";
  seed.label = "seed";
  seed.kind = ParamKind::integer;
  seed.default_number = 1;
  seed.min = 0;
  seed.max = 4294967295.0;
  seed.help = "seed of the forcing's random wave vectors and phases";
  seed.shown_when = "init=turbulence";
  p.push_back(seed);
  return p;
}

ModelInfo describe() {
  ModelInfo m;
  m.name = "hydro3d";
  m.title = "hydro 3D";
  m.description = "isothermal compressible viscous flow, 6th order, RK3: the Astaroth solver (Pekkilä et al. 2017)";
  m.dims = 3;
  m.default_size = {96, 96, 96};
  m.quick_sides = {64, 96, 128, 256};
  m.min_side = kHydroMinSide;
  m.orders = {6};
  m.default_order = 6;
  m.params = hydro_params();
  m.variants = {
      {"global", "single pass, one point per thread, every value from global memory (the plain baseline)", true, true},
      {"55pt", "the paper's single pass: a 3D tile plus halo in shared memory, a rolling cache along z", true, true},
      {"19pt", "the paper's two passes: div u first, then its gradient; 2.5D slabs (another discretisation)", true, true},
      {"stream25d", "ours: single pass, a ring of xy planes of u in shared memory, marching along z", true, true},
      {"cpu", "single pass, float, OpenMP over planes", false, true},
      {"cpu19pt", "two passes, float, OpenMP over planes", false, true},
      {"reference", "double precision, single pass (a yardstick for bench)", false, false},
  };
  m.fastest_gpu = "stream25d";
  m.fastest_cpu = "cpu";
  for (std::string_view q : kHydroQuantities) m.views.quantities.emplace_back(q);
  m.presets = {
      {"explosion", "a radial kinetic explosion: a Gaussian shell of outward velocity (eq 23), Re = u r_shell / nu = 80",
       {{"init", std::string("explosion")}, {"nu", 0.01}}},
      {"decay", "a shear wave decaying by viscosity, with its exact solution (eq 22)",
       {{"init", std::string("decay")}, {"nu", 5e-3}, {"k", 4.0}}},
      {"turbulence", "forced non-helical turbulence at kf = 1.5 (eqs 24-25)",
       {{"init", std::string("turbulence")}, {"nu", 5e-3}, {"kf", 1.5}, {"f0", 0.02}}},
  };
  m.paint_note = "";
  m.bench.default_size = {256, 256, 256};
  m.bench.default_steps = 5;
  m.bench.steps_help = "full RK3 steps per timed run";
  m.bench.tests = hydro3d_test_list();
  return m;
}

const ModelInfo& info() {
  static const ModelInfo i = describe();
  return i;
}

Hydro3DConfig to_hydro(const ModelConfig& c) {
  if (c.order != 6) throw Error(fmt::format("order {}: hydro3d is sixth order only", c.order));
  Hydro3DConfig h;
  h.nx = c.size[0], h.ny = c.size[1], h.nz = c.size[2];
  h.init = parse_hydro_init(c.word("init"));
  h.cs = c.number("cs");
  h.nu = c.number("nu");
  h.dt = c.number("dt");
  h.safety = c.number("safety");
  h.dt_every = static_cast<int>(c.number("dt_every"));
  h.box = c.number("box");
  h.u0 = c.number("u0");
  h.k = static_cast<int>(c.number("k"));
  h.u_ampl = c.number("u_ampl");
  h.r_shell = c.number("r_shell");
  h.d_shell = c.number("d_shell");
  h.kf = c.number("kf");
  h.f0 = c.number("f0");
  h.seed = static_cast<std::uint32_t>(c.number("seed"));
  return h;
}

/// What the two backends share: description, configuration, dt, accounting, status.
class HydroSimulation : public Simulation {
 public:
  HydroSimulation(const ModelConfig& config, const Hydro3DSetup& setup) : config_(config), setup_(setup) {}
  const ModelInfo& info() const override { return ss::info(); }
  const ModelConfig& config() const override { return config_; }
  std::size_t points() const override { return setup_.grid.points(); }
  /// The dt in use: fixed, or the last one an adaptive run took (on the GPU: the last one
  /// read back, behind the batches).
  double dt() const override { return clock().dt; }
  /// Fixed dt: the limit at t = 0; adaptive: the limit of the flow dt was last taken from.
  double dt_limit() const override { return setup_.adaptive() ? clock().dt / setup_.config.safety : setup_.dt_limit; }
  double time() const override { return clock_time(); }
  StepAccounting accounting() const override {
    StepAccounting a;
    a.bytes = 3.0 * kHydroValuesPerCellSubstep * sizeof(float) * static_cast<double>(points());
    a.cell_updates = static_cast<double>(points());
    return a;
  }
  std::string status_line() const override {
    const Grid3D& g = setup_.grid;
    std::string line = fmt::format("hydro 3D ({}), {} x {} x {}, step {}, t = {:.6g}", to_string(setup_.config.init), g.nx,
                                   g.ny, g.nz, steps_done(), time());
    const double re_mesh = setup_.config.nu > 0 ? setup_.umax0 * setup_.h / setup_.config.nu : INFINITY;
    if (re_mesh > kMaxMeshReynolds)  // the grid cannot hold this Reynolds number: say so, run anyway
      line += fmt::format("; mesh Reynolds number {:.3g} > {:g}: under-resolved", re_mesh, kMaxMeshReynolds);
    return line;
  }
  void set_order(int order) override {
    if (order != 6) throw Error(fmt::format("order {}: hydro3d is sixth order only", order));
  }
  const std::string& variant() const override { return variant_; }
  void paint(int view, double u, double v, double radius, double value, const ViewPlacement& where) override {
    const auto p = slice_to_volume(slice_axis_of_view(view), where.slices[static_cast<std::size_t>(view)], u, v);
    HydroKick k;
    k.cx = p[0] - 0.5, k.cy = p[1] - 0.5, k.cz = p[2] - 0.5;  // cell centres sit at integer indices here
    k.sigma = std::max(1.0, radius / 2);
    k.amp = value * setup_.config.cs;
    kick(k);
  }
  FieldView view(int v, const ViewPlacement& where) override {
    FieldView f;
    const auto n = view_size(v);
    f.nu = n[0], f.nv = n[1];
    f.u_stride = 1;
    f.v_stride = static_cast<std::size_t>(n[0]);
    place_view(f, v, where);
    return f;
  }
  SimState copy_state() override {
    const HydroState<float> st = state();
    SimState s;
    s.steps_done = steps_done();
    const HydroClock c = exact_clock();
    s.time = c.time(s.steps_done);
    s.dt = c.dt;
    for (const auto& f : st) s.fields.push_back(f);
    return s;
  }
  void load_state(const SimState& s) override {
    if (s.fields.size() != kHydroFields)
      throw Error(fmt::format("a hydro3d state has {} fields (ln rho, u_x, u_y, u_z), not {}", kHydroFields, s.fields.size()));
    HydroState<float> st;
    for (std::size_t f = 0; f < kHydroFields; ++f) {
      if (s.fields[f].size() != points())
        throw Error(fmt::format("a hydro3d state of {} cells does not fit this grid ({} cells)", s.fields[f].size(), points()));
      st[f] = s.fields[f];
    }
    std::optional<HydroClock> clock;  // a state without them goes on from steps x the t = 0 dt
    if (s.dt && s.time) clock = HydroClock{*s.dt, *s.time, s.steps_done};
    else if (s.time) clock = HydroClock{setup_.dt, *s.time, s.steps_done};
    load(st, s.steps_done, clock);
  }
  /// Kinetic energy, max Mach number, mass and dt.
  std::vector<Diagnostic> diagnostics() override {
    const HydroStats st = hydro_stats(state(), setup_.h);
    return {{"kinetic energy", "", st.kinetic},
            {"max Mach", "", st.umax / setup_.config.cs},
            {"mass", "", st.mass},
            {"dt", "", exact_clock().dt},
            {"Courant limit now", "", hydro3d_dt_limit(setup_.h, setup_.config.cs, setup_.config.nu, st.umax)}};
  }
  bool checks_health() const override { return true; }
  std::string health() override {
    const HydroSpeed sp = speed();  // after queued work: the clock below is that of the same state
    return hydro_health(setup_, sp, steps_done(), exact_clock().dt, recomputes_next());
  }
  GridGeometry geometry() const override {  // cell i at x = -box/2 + i h (hydro3d.hpp)
    const double h = setup_.h, corner = -setup_.config.box / 2;
    return {{corner, corner, corner}, {h, h, h}, ""};
  }
  /// The shell-averaged kinetic energy spectrum E(k) (cuFFT on the GPU, FFTW on the
  /// host) with Kolmogorov's k^-5/3 through its peak; on the CPU left out above 192^3
  /// cells, where the FFT would stall the window for a second.
  std::vector<Curve> curves() override {
    if (!on_gpu() && points() > 192ull * 192 * 192) return {};
    const std::vector<double> e = spectrum();
    Curve c;
    c.name = "kinetic energy spectrum E(k)";
    c.x_label = "k";
    c.y_label = "E";
    for (std::size_t k = 1; k < e.size(); ++k) {
      c.x.push_back(static_cast<double>(k));
      c.y.push_back(e[k]);
    }
    c.log_x = c.log_y = true;
    c.guide_slope = -5.0 / 3.0;
    c.guide_label = "k^-5/3";
    return {c};
  }
  /// The decay case against its exact solution (eq 22).
  Validation validate() override {
    Validation v;
    if (setup_.config.init != HydroInit::decay) {
      v.why_not = "only the decay case has an exact solution (eq 22)";
      return v;
    }
    const HydroState<float> st = state();
    v.available = true;
    v.steps = steps_done();
    v.time = time();
    const double amp = std::abs(hydro_decay_amplitude(setup_, v.time));
    const double rms = hydro_decay_rms_error(st, setup_, v.time);
    v.rel_l2 = amp > 0 ? rms / (amp / std::sqrt(2.0)) : rms;
    double linf = 0;
    const Grid3D& g = setup_.grid;
    const double k = 2 * M_PI / setup_.config.box * setup_.config.k, a = hydro_decay_amplitude(setup_, v.time);
    std::size_t o = 0;
    for (int kk = 0; kk < g.nz; ++kk)
      for (int j = 0; j < g.ny; ++j)
        for (int i = 0; i < g.nx; ++i, ++o) linf = std::max(linf, std::abs(st[2][o] - a * std::sin(k * setup_.x(i))));
    v.rel_linf = amp > 0 ? linf / amp : linf;
    return v;
  }

 protected:
  virtual HydroState<float> state() = 0;
  virtual void load(const HydroState<float>& st, long steps, const std::optional<HydroClock>& clock) = 0;
  /// The dt and time without waiting for queued work (the GPU's last read-back).
  virtual HydroClock clock() const = 0;
  virtual double clock_time() const = 0;
  /// The same after queued work.
  virtual HydroClock exact_clock() = 0;
  virtual bool recomputes_next() const = 0;
  virtual void kick(const HydroKick& k) = 0;
  virtual HydroSpeed speed() = 0;
  virtual std::vector<double> spectrum() { return hydro_energy_spectrum(state(), setup_); }
  /// Sets f.data, offset, on_device and stream for view v.
  virtual void place_view(FieldView& f, int v, const ViewPlacement& where) = 0;
  int quantity_of(const ViewPlacement& where) const {
    if (where.quantity.empty()) return 0;
    for (std::size_t q = 0; q < kHydroQuantities.size(); ++q)
      if (where.quantity == kHydroQuantities[q]) return static_cast<int>(q);
    throw Error(fmt::format("hydro3d has no quantity '{}'", where.quantity));
  }

  ModelConfig config_;
  Hydro3DSetup setup_;
  std::string variant_;
};

class HostSim final : public HydroSimulation {
 public:
  HostSim(const ModelConfig& config, const Hydro3DSetup& setup, std::string_view variant)
      : HydroSimulation(config, setup), sim_(setup, HydroMethod::single_pass), w_(hydro_weights<float>(setup.h)) {
    set_variant(variant);
  }
  std::string backend_name() const override { return "CPU"; }
  bool on_gpu() const override { return false; }
  long steps_done() const override { return sim_.steps_done(); }
  void reset() override { sim_.reset(); }
  void set_variant(std::string_view v) override {
    check_live_variant(info(), v);
    const HydroVariant parsed = parse_hydro_variant(v);
    if (is_gpu(parsed)) throw Error(fmt::format("variant {} does not run on the CPU backend (choose {})", v, info().variant_list("cpu")));
    sim_.set_method(method_of(parsed));
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
  void copy_view(int v, const ViewPlacement& where, float* dst) override {
    const FieldView f = view(v, where);
    std::copy(f.data, f.data + static_cast<std::size_t>(f.nu) * f.nv, dst);
  }

 protected:
  HydroState<float> state() override { return sim_.state(); }
  void load(const HydroState<float>& st, long steps, const std::optional<HydroClock>& clock) override {
    sim_.load_state(st, steps, clock);
  }
  HydroClock clock() const override { return sim_.clock(); }
  double clock_time() const override { return sim_.time(); }
  HydroClock exact_clock() override { return sim_.clock(); }
  bool recomputes_next() const override { return sim_.recomputes_next(); }
  void kick(const HydroKick& k) override { sim_.kick(k); }
  HydroSpeed speed() override {
    const float* const f[kHydroFields] = {sim_.field(0).data(), sim_.field(1).data(), sim_.field(2).data(), sim_.field(3).data()};
    return hydro_max_speed(f, setup_.grid);
  }
  void place_view(FieldView& f, int v, const ViewPlacement& where) override {
    const Grid3D& g = setup_.grid;
    const int q = quantity_of(where), index = where.slices[static_cast<std::size_t>(v)];
    std::vector<float>& buf = slices_[static_cast<std::size_t>(v)];
    buf.resize(static_cast<std::size_t>(f.nu) * f.nv);
    const float* const fields[kHydroFields] = {sim_.field(0).data(), sim_.field(1).data(), sim_.field(2).data(), sim_.field(3).data()};
    for (int b = 0; b < f.nv; ++b)
      for (int a = 0; a < f.nu; ++a) {
        const int i = v == 2 ? index : a, j = v == 0 ? b : (v == 1 ? index : a), k = v == 0 ? index : b;
        buf[static_cast<std::size_t>(b) * f.nu + a] = hydro_quantity(fields, g, w_, q, i, j, k);
      }
    f.data = buf.data();
  }

 private:
  HostHydro3D<float> sim_;
  HydroWeights<float> w_;
  std::array<std::vector<float>, 3> slices_;
  std::optional<double> last_ms_;
};

class DeviceSim final : public HydroSimulation {
 public:
  DeviceSim(const ModelConfig& config, const Hydro3DSetup& setup, std::string_view variant)
      : HydroSimulation(config, setup), sim_(setup, HydroVariant::stream25d), device_(cuda_device_name()) {
    set_variant(variant);
  }
  std::string backend_name() const override { return "GPU: " + device_; }
  bool on_gpu() const override { return true; }
  long steps_done() const override { return sim_.steps_done(); }
  void reset() override {
    sim_.synchronize();
    sim_.reset();
  }
  void set_variant(std::string_view v) override {
    check_live_variant(info(), v);
    const HydroVariant parsed = parse_hydro_variant(v);
    if (!is_gpu(parsed)) throw Error(fmt::format("variant {} does not run on the GPU backend (choose {})", v, info().variant_list("gpu")));
    sim_.set_variant(parsed);
    variant_ = v;
  }
  void start_steps(int n) override {
    sim_.record_start();
    sim_.step(n);
    sim_.record_stop();
  }
  std::optional<double> finished_batch_ms() override { return sim_.batch_ms(); }
  bool idle() const override { return sim_.idle(); }
  void wait() override { sim_.synchronize(); }
  void copy_view(int v, const ViewPlacement& where, float* dst) override {
    sim_.copy_slice(quantity_of(where), v, where.slices[static_cast<std::size_t>(v)], dst);
  }

 protected:
  HydroState<float> state() override { return sim_.state(); }
  void load(const HydroState<float>& st, long steps, const std::optional<HydroClock>& clock) override {
    sim_.load_state(st, steps, clock);
  }
  HydroClock clock() const override { return sim_.clock_read_back().first; }
  double clock_time() const override {
    const auto [c, steps] = sim_.clock_read_back();
    return c.time(steps);
  }
  HydroClock exact_clock() override { return sim_.clock(); }
  bool recomputes_next() const override { return sim_.recomputes_next(); }
  void kick(const HydroKick& k) override { sim_.kick(k); }
  HydroSpeed speed() override { return sim_.max_speed(); }
  std::vector<double> spectrum() override { return sim_.energy_spectrum(); }
  void place_view(FieldView& f, int v, const ViewPlacement& where) override {
    f.data = sim_.slice_on_device(quantity_of(where), v, where.slices[static_cast<std::size_t>(v)]);
    f.offset = 0;
    f.on_device = true;
    f.stream = sim_.native_stream();
  }

 private:
  DeviceHydro3D<float> sim_;
  std::string device_;
};

class HydroModel final : public Model {
 public:
  const ModelInfo& info() const override { return ss::info(); }
  void validate(const ModelConfig& c) const override { make_hydro3d_setup(to_hydro(c)); }
  std::unique_ptr<Simulation> create(const ModelConfig& c, Backend backend, std::string_view variant) const override {
    const Hydro3DSetup setup = make_hydro3d_setup(to_hydro(c));
    if (backend == Backend::cpu) {
      check_host_memory((3 * kHydroFields + 1) * setup.grid.elements() * sizeof(float), "hydro3d on this grid");
      return std::make_unique<HostSim>(c, setup, variant);
    }
    require_cuda_device();
    return std::make_unique<DeviceSim>(c, setup, variant);
  }
  /// Distributed: four fields, every axis periodic, width 3 with edges and corners (the
  /// 55-point method's mixed derivatives), exchanged after each substep (and the divergence
  /// between the 19-point method's passes); the boxes step either CPU method, or on the GPU
  /// `global` (hydro3d_box_device.cu: the fastest variant that reads its ghosts from memory;
  /// stream25d reads the whole grid's periodic images inside its kernel) or 55pt.
  DistributedSpec distributed(const ModelConfig& c) const override {
    make_hydro3d_setup(to_hydro(c));
    DistributedSpec s;
    s.supported = true;
    s.ghost_width = kHydroRadius;
    s.periodic = {true, true, true};
    s.edges = true;
    s.fields = kHydroFields;
    s.gpu_variant = "global";
    s.boxes_show = true;  // both boxes give views (hydro3d_host.cpp), kicks and states
    s.gpu_boxes_show = s.gpu_boxes_paint = true;  // the GPU box through the CPU box's functions on host copies
    return s;
  }
  std::unique_ptr<BoxSimulation> create_box(const ModelConfig& c, const BoxPlacement& where,
                                            std::string_view variant) const override {
    check_live_variant(info(), variant);
    const HydroVariant v = parse_hydro_variant(variant);
    const Hydro3DSetup setup = make_hydro3d_setup(to_hydro(c));
    if (is_gpu(v)) {
      if (v != HydroVariant::global && v != HydroVariant::p55)
        throw Error(fmt::format("hydro3d's boxes on the GPU step with global or 55pt, not {} ({})", variant,
                                v == HydroVariant::p19 ? "the two-pass method's boxes run on the CPU only (cpu19pt)"
                                                       : "it reads the whole grid's periodic images, not a box's ghosts"));
      require_cuda_device();
      check_host_memory(kHydroFields * setup.grid.elements() * sizeof(float), "hydro3d's initial state on this rank");
      return make_hydro3d_device_box(setup, where, v);
    }
    check_host_memory((3 * kHydroFields + 1) * static_cast<std::size_t>(where.box.cells()) * sizeof(float) +
                          kHydroFields * setup.grid.elements() * sizeof(float),
                      "hydro3d on this rank's box");
    return make_hydro3d_box(setup, where, method_of(v));
  }
  BenchReport bench(const BenchRequest& r) const override {
    if (!r.test.empty()) {
      Hydro3DTestOptions t;
      t.test = r.test;
      t.config = to_hydro(r.config);
      for (const auto& [name, value] : r.given) t.given.insert(name);
      t.sizes = r.sizes;
      for (const std::string& v : r.variants) t.variants.push_back(parse_hydro_variant(v));
      t.precision = r.precision;
      t.csv = r.csv;
      t.progress = r.progress;
      t.config.dt_every = 0;  // the physics tests step a fixed dt (the auto one of t = 0, or the one given)
      return run_hydro3d_test(t);
    }
    Hydro3DBenchOptions o;
    o.config = to_hydro(r.config);
    o.config.dt_every = 0;  // timings step a fixed dt: the auto one of t = 0, or the one given
    o.steps = r.steps;
    o.repeats = r.repeats;
    for (const std::string& v : r.variants) o.variants.push_back(parse_hydro_variant(v));
    o.precision = r.precision;
    o.progress = r.progress;
    return run_hydro3d_bench(o);
  }
};

}  // namespace

const Model& hydro3d_model() {
  static const HydroModel model;
  return model;
}

}  // namespace ss
