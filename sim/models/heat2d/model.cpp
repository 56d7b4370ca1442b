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
#include "sim/models/heat2d/heat_simulation.hpp"

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

/// The interior of `st` against the exact solution at its time (the analytic initial
/// condition and boundary only); separable, so tables make it O(nx ny) multiply-adds.
Validation validate_heat2d(const Heat2DSetup& setup, const SimState& st) {
  Validation v;
  if (setup.config.initial != InitialCondition::analytic || setup.config.boundary != Boundary::analytic) {
    v.why_not = "needs the analytic initial condition and the analytic boundary";
    return v;
  }
  const std::vector<float>& field = st.fields.at(0);
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

/// The CPU simulation: `cpu` steps the float field; `reference` steps a double copy
/// that the float field shows, rounded. A paint, reset or cpu batch changes the float
/// field, and the next reference batch starts from that.
class HostSim final : public HeatHostSimulation<HostHeat2D<float>> {
 public:
  HostSim(const ModelInfo& info, const ModelConfig& config, const Heat2DSetup& setup, std::string_view variant)
      : HeatHostSimulation(info, config, setup) {
    set_variant(variant);
  }
  void reset() override {
    sim_.reset();
    reference_.reset();
  }
  void set_order(int order) override {
    HeatHostSimulation::set_order(order);
    if (reference_) reference_->set_order(order);
  }
  void set_variant(std::string_view v) override {
    if (v != "cpu" && v != "reference")
      throw Error(fmt::format("variant {} does not run on the CPU backend (choose {})", v, info_.variant_list("cpu")));
    variant_ = v;
  }
  void start_steps(int n) override {
    timed([&] {
      if (variant_ == "reference") {
        step_reference(n);
      } else {
        reference_.reset();  // the float field moves on: a later reference batch starts from it
        sim_.step(n);
      }
    });
  }
  void paint(int, double u, double v, double radius, double value, const ViewPlacement&) override {
    sim_.paint(Brush{u, v, radius, value});
    reference_.reset();
  }
  FieldView view(int, const ViewPlacement&) override { return field_view2d(sim_.field().data(), grid()); }
  void copy_view(int, const ViewPlacement&, float* dst) override {
    const std::vector<float> interior = extract_interior(sim_.field(), grid());
    std::copy(interior.begin(), interior.end(), dst);
  }
  SimState copy_state() override { return heat_state(extract_interior(sim_.field(), grid()), steps_done()); }
  void load_state(const SimState& st) override {
    sim_.load_interior(heat_interior(st, points(), info_).data(), st.steps_done);
    reference_.reset();
  }
  Validation validate() override { return validate_heat2d(sim_.setup(), copy_state()); }

 private:
  const Grid2D& grid() const { return sim_.setup().grid; }
  // The `reference` variant: the double stepper keeps its state in double while it
  // runs; the float field shows it, rounded. A paint, reset or cpu batch changes the
  // float field, and the next reference batch starts from that.
  void step_reference(int n) {
    if (!reference_) {
      reference_.emplace(sim_.setup());
      const std::vector<float> f = extract_interior(sim_.field(), grid());
      const std::vector<double> d(f.begin(), f.end());
      reference_->load_interior(d.data(), sim_.steps_done());
    }
    reference_->step(n);
    const std::vector<double> d = reference_->interior();
    const std::vector<float> f(d.begin(), d.end());
    sim_.load_interior(f.data(), reference_->steps_done());
  }

  std::optional<ReferenceHeat2D> reference_;
};

class DeviceSim final : public HeatDeviceSimulation<DeviceHeat2D<float>, Heat2DVariant, parse_heat2d_variant> {
 public:
  using HeatDeviceSimulation::HeatDeviceSimulation;
  void paint(int, double u, double v, double radius, double value, const ViewPlacement&) override {
    sim_.paint(Brush{u, v, radius, value});
  }
  FieldView view(int, const ViewPlacement&) override {
    return field_view2d(sim_.device_field(), sim_.setup().grid, true, sim_.native_stream());
  }
  void copy_view(int, const ViewPlacement&, float* dst) override { sim_.copy_interior_to_host(dst); }
  Validation validate() override { return validate_heat2d(sim_.setup(), copy_state()); }
};

}  // namespace

const Model& heat2d_model() {
  static const HeatModel<HostSim, DeviceSim, Heat2DBenchOptions, to_heat2d, make_heat2d_setup, parse_heat2d_variant, run_heat2d_bench>
      model(describe());
  return model;
}

}  // namespace ss
