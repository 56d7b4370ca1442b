// heat2d as the rest of the program sees it: its description, its simulations on the
// CPU (cpu, and the live double-precision reference) and the GPU, its benchmark.
#include <algorithm>
#include <chrono>
#include <cmath>

#include <fmt/format.h>

#include "sim/core/device.hpp"
#include "sim/core/error.hpp"
#include "sim/core/model.hpp"
#include "sim/core/views.hpp"
#include "sim/models/heat2d/heat2d_bench.hpp"
#include "sim/models/heat2d/heat2d_solver.hpp"
#include "sim/models/heat2d/heat_params.hpp"

namespace ss {

namespace {

ModelInfo describe() {
  ModelInfo m;
  m.name = "heat2d";
  m.title = "heat 2D";
  m.description = "the 2D heat equation dT/dt = alpha lap T (the CME 213 assignment): explicit Euler, orders 2 to 8";
  m.dims = 2;
  m.default_size = {1024, 1024, 1};
  m.quick_sides = {256, 512, 1024, 2048, 4096};
  m.min_side = kMinSide;
  m.orders = {2, 4, 6, 8};
  m.default_order = 8;
  m.params = heat_params();
  m.variants = {
      {"global", "one point per thread, every neighbour read from global memory", true, true},
      {"block", "8 rows per thread (the CME 213 loop-blocked kernel)", true, true},
      {"shared", "a tile plus halo in shared memory, looping along y", true, true},
      {"stream", "each thread walks a 12-row strip with the column in registers (ours)", true, true},
      {"cpu", "OpenMP over rows, the shared point function", false, true},
      {"reference", "double precision, plain loops and its own boundary code (shown rounded to float)", false, true},
  };
  m.fastest_gpu = "stream";
  m.fastest_cpu = "cpu";
  m.views.quantities = {"temperature"};
  m.presets = heat_presets();
  m.bench.default_size = {2048, 2048, 1};
  m.bench.default_steps = 10;
  m.bench.steps_help = "time steps per timed run";
  return m;
}

Heat2DConfig to_heat2d(const ModelConfig& c) {
  Heat2DConfig h;
  h.nx = c.size[0];
  h.ny = c.size[1];
  h.order = c.order;
  apply_heat_params(c, h);
  return h;
}

std::string status(const ModelInfo& info, const Heat2DSetup& s, long steps) {
  return fmt::format("{}, {} x {}, step {}, t = {:.6g}", info.title, s.grid.nx, s.grid.ny, steps, steps * s.dt);
}

/// The state of a 2D field: its interior.
SimState state_of(std::vector<float> interior, long steps) {
  SimState st;
  st.steps_done = steps;
  st.fields.push_back(std::move(interior));
  return st;
}

const std::vector<float>& only_field(const SimState& st, const Grid2D& g) {
  if (st.fields.size() != 1 || st.fields[0].size() != g.points())
    throw Error(fmt::format("heat2d state of {} fields does not fit a {}x{} grid", st.fields.size(), g.nx, g.ny));
  return st.fields[0];
}

/// The interior of `st` against the exact solution at its time (the analytic initial
/// condition and boundary only); separable, so tables make it O(nx ny) multiply-adds.
Validation validate_heat2d(const Heat2DSetup& setup, const SimState& st) {
  Validation v;
  if (setup.config.initial != InitialCondition::analytic || setup.config.boundary != Boundary::analytic) {
    v.why_not = "needs the analytic initial condition and the analytic boundary";
    return v;
  }
  const std::vector<float>& field = only_field(st, setup.grid);
  const Grid2D& g = setup.grid;
  const double t = st.steps_done * setup.dt, alpha = setup.config.alpha;
  const AnalyticHeat2D& a = setup.analytic;
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
  v.steps = st.steps_done;
  v.time = t;
  return v;
}

double elapsed_ms(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - since).count();
}

/// The CPU simulation: `cpu` steps the float field; `reference` steps a double copy
/// that the float field shows, rounded. A paint, reset or cpu batch changes the float
/// field, and the next reference batch starts from that.
class HostSim final : public Simulation {
 public:
  HostSim(const ModelInfo& info, const ModelConfig& config, std::string_view variant)
      : info_(info), config_(config), sim_(make_heat2d_setup(to_heat2d(config))) {
    set_variant(variant);
  }
  const ModelInfo& info() const override { return info_; }
  const ModelConfig& config() const override { return config_; }
  std::string backend_name() const override { return "CPU"; }
  bool on_gpu() const override { return false; }
  std::size_t points() const override { return setup().grid.points(); }
  double dt() const override { return setup().dt; }
  double dt_limit() const override { return setup().dt_limit; }
  long steps_done() const override { return sim_.steps_done(); }
  StepAccounting accounting() const override { return heat_accounting(points()); }
  std::string status_line() const override { return status(info_, setup(), steps_done()); }
  void reset() override {
    sim_.reset();
    reference_.reset();
  }
  void set_order(int order) override {
    sim_.set_order(order);
    if (reference_) reference_->set_order(order);
    config_.order = order;
  }
  void set_variant(std::string_view v) override {
    if (v != "cpu" && v != "reference")
      throw Error(fmt::format("variant {} does not run on the CPU backend (choose {})", v, info_.variant_list("cpu")));
    variant_ = v;
  }
  const std::string& variant() const override { return variant_; }
  void start_steps(int n) override {
    const auto t0 = std::chrono::steady_clock::now();
    if (variant_ == "reference") {
      step_reference(n);
    } else {
      reference_.reset();  // the float field moves on: a later reference batch starts from it
      sim_.step(n);
    }
    last_ms_ = elapsed_ms(t0);
  }
  std::optional<double> finished_batch_ms() override { return last_ms_; }
  bool idle() const override { return true; }
  void wait() override {}
  void paint(int, double u, double v, double radius, double value, const ViewPlacement&) override {
    sim_.paint(Brush{u, v, radius, value});
    reference_.reset();
  }
  FieldView view(int, const ViewPlacement&) override {
    return field_view2d(sim_.field().data(), setup().grid);
  }
  void copy_view(int, const ViewPlacement&, float* dst) override {
    const std::vector<float> interior = extract_interior(sim_.field(), setup().grid);
    std::copy(interior.begin(), interior.end(), dst);
  }
  SimState copy_state() override { return state_of(extract_interior(sim_.field(), setup().grid), steps_done()); }
  void load_state(const SimState& st) override {
    sim_.load_interior(only_field(st, setup().grid).data(), st.steps_done);
    reference_.reset();
  }
  Validation validate() override { return validate_heat2d(setup(), copy_state()); }

 private:
  const Heat2DSetup& setup() const { return sim_.setup(); }
  void step_reference(int n) {
    const Grid2D& g = setup().grid;
    if (!reference_) {
      reference_.emplace(setup());
      const std::vector<float> f = extract_interior(sim_.field(), g);
      const std::vector<double> d(f.begin(), f.end());
      reference_->load_interior(d.data(), sim_.steps_done());
    }
    reference_->step(n);
    const std::vector<double> d = reference_->interior();
    const std::vector<float> f(d.begin(), d.end());
    sim_.load_interior(f.data(), reference_->steps_done());
  }

  const ModelInfo& info_;
  ModelConfig config_;
  HostHeat2D<float> sim_;
  std::optional<ReferenceHeat2D> reference_;
  std::string variant_;
  std::optional<double> last_ms_;
};

class DeviceSim final : public Simulation {
 public:
  DeviceSim(const ModelInfo& info, const ModelConfig& config, std::string_view variant)
      : info_(info), config_(config), sim_(make_heat2d_setup(to_heat2d(config))), device_(cuda_device_name()) {
    set_variant(variant);
  }
  const ModelInfo& info() const override { return info_; }
  const ModelConfig& config() const override { return config_; }
  std::string backend_name() const override { return "GPU: " + device_; }
  bool on_gpu() const override { return true; }
  std::size_t points() const override { return setup().grid.points(); }
  double dt() const override { return setup().dt; }
  double dt_limit() const override { return setup().dt_limit; }
  long steps_done() const override { return sim_.steps_done(); }
  StepAccounting accounting() const override { return heat_accounting(points()); }
  std::string status_line() const override { return status(info_, setup(), steps_done()); }
  void reset() override { sim_.reset(); }
  void set_order(int order) override {
    sim_.set_order(order);
    config_.order = order;
  }
  void set_variant(std::string_view v) override {
    variant_enum_ = parse_heat2d_variant(v);
    if (!is_gpu(variant_enum_))
      throw Error(fmt::format("variant {} does not run on the GPU backend (choose {})", v, info_.variant_list("gpu")));
    variant_ = v;
  }
  const std::string& variant() const override { return variant_; }
  void start_steps(int n) override { sim_.step_timed_async(variant_enum_, n); }
  std::optional<double> finished_batch_ms() override { return sim_.finished_batch_ms(); }
  bool idle() const override { return sim_.idle(); }
  void wait() override { sim_.synchronize(); }
  void paint(int, double u, double v, double radius, double value, const ViewPlacement&) override {
    sim_.paint(Brush{u, v, radius, value});
  }
  FieldView view(int, const ViewPlacement&) override {
    return field_view2d(sim_.device_field(), setup().grid, true, sim_.native_stream());
  }
  void copy_view(int, const ViewPlacement&, float* dst) override { sim_.copy_interior_to_host(dst); }
  SimState copy_state() override {
    std::vector<float> interior(points());
    sim_.copy_interior_to_host(interior.data());
    return state_of(std::move(interior), steps_done());
  }
  void load_state(const SimState& st) override {
    sim_.load_interior(only_field(st, setup().grid).data(), st.steps_done);
  }
  Validation validate() override { return validate_heat2d(setup(), copy_state()); }

 private:
  const Heat2DSetup& setup() const { return sim_.setup(); }

  const ModelInfo& info_;
  ModelConfig config_;
  DeviceHeat2D<float> sim_;
  std::string device_;
  std::string variant_;
  Heat2DVariant variant_enum_ = Heat2DVariant::stream;
};

class Heat2DModel final : public Model {
 public:
  const ModelInfo& info() const override { return info_; }
  void validate(const ModelConfig& c) const override { make_heat2d_setup(to_heat2d(c)); }
  std::unique_ptr<Simulation> create(const ModelConfig& c, Backend backend, std::string_view variant) const override {
    const Heat2DSetup setup = make_heat2d_setup(to_heat2d(c));
    if (backend == Backend::cpu) {
      check_host_memory(2 * setup.grid.elements() * sizeof(float), "heat2d on this grid");
      return std::make_unique<HostSim>(info_, c, variant);
    }
    require_cuda_device();
    return std::make_unique<DeviceSim>(info_, c, variant);
  }
  BenchReport bench(const BenchRequest& r) const override {
    Heat2DBenchOptions o;
    o.config = to_heat2d(r.config);
    o.steps = r.steps;
    o.repeats = r.repeats;
    for (const std::string& v : r.variants) o.variants.push_back(parse_heat2d_variant(v));
    o.precision = r.precision;
    o.progress = r.progress;
    return run_heat2d_bench(o);
  }

 private:
  ModelInfo info_ = describe();
};

}  // namespace

const Model& heat2d_model() {
  static const Heat2DModel model;
  return model;
}

}  // namespace ss
