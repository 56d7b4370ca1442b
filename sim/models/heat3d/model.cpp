// heat3d as the rest of the program sees it: its description, its simulations on the
// CPU and the GPU (three slice views), its benchmark.
#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "sim/core/device.hpp"
#include "sim/core/error.hpp"
#include "sim/core/model.hpp"
#include "sim/core/views.hpp"
#include "sim/models/heat2d/heat_params.hpp"
#include "sim/models/heat3d/heat3d_bench.hpp"
#include "sim/models/heat3d/heat3d_solver.hpp"

namespace ss {

namespace {

ModelInfo describe() {
  ModelInfo m;
  m.name = "heat3d";
  m.title = "heat 3D";
  m.description = "the 3D heat equation, shown as three slices; 2.5D streaming (Micikevicius 2009) on the GPU";
  m.dims = 3;
  m.default_size = {128, 128, 128};
  m.quick_sides = {64, 128, 256, 512};
  m.min_side = kMinSide;
  m.orders = {2, 4, 6, 8};
  m.default_order = 8;
  m.params = heat_params();
  m.variants = {
      {"global", "one point per thread, every neighbour read from global memory", true, true},
      {"shared3d", "a 3D tile plus halo in shared memory", true, true},
      {"stream25d", "an xy tile in a shared ring of planes, the z column in registers, marching along z (ours)", true,
       true},
      {"cpu", "OpenMP over planes, the shared point function", false, true},
      {"reference", "double precision, plain loops (a yardstick for bench: it recomputes from t = 0)", false, false},
  };
  m.fastest_gpu = "stream25d";
  m.fastest_cpu = "cpu";
  m.views.quantities = {"temperature"};
  m.presets = heat_presets();
  m.bench.default_size = {256, 256, 256};
  m.bench.default_steps = 10;
  m.bench.steps_help = "time steps per timed run";
  return m;
}

Heat3DConfig to_heat3d(const ModelConfig& c) {
  Heat3DConfig h;
  h.nx = c.size[0];
  h.ny = c.size[1];
  h.nz = c.size[2];
  h.order = c.order;
  apply_heat_params(c, h);
  return h;
}

std::string status(const ModelInfo& info, const Heat3DSetup& s, long steps) {
  return fmt::format("{}, {} x {} x {}, step {}, t = {:.6g}", info.title, s.grid.nx, s.grid.ny, s.grid.nz, steps,
                     steps * s.dt);
}

SimState state_of(std::vector<float> interior, long steps) {
  SimState st;
  st.steps_done = steps;
  st.fields.push_back(std::move(interior));
  return st;
}

const std::vector<float>& only_field(const SimState& st, const Grid3D& g) {
  if (st.fields.size() != 1 || st.fields[0].size() != g.points())
    throw Error(fmt::format("heat3d state of {} fields does not fit a {}x{}x{} grid", st.fields.size(), g.nx, g.ny,
                            g.nz));
  return st.fields[0];
}

void check_live(const ModelInfo& info, std::string_view v) {
  const VariantSpec* spec = info.variant(v);
  if (spec && !spec->live)
    throw Error(fmt::format("the {} variant '{}' does not step live: {}", info.name, v, spec->help));
}

class HostSim final : public Simulation {
 public:
  HostSim(const ModelInfo& info, const ModelConfig& config, std::string_view variant)
      : info_(info), config_(config), sim_(make_heat3d_setup(to_heat3d(config))) {
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
  void reset() override { sim_.reset(); }
  void set_order(int order) override {
    sim_.set_order(order);
    config_.order = order;
  }
  void set_variant(std::string_view v) override {
    check_live(info_, v);
    if (v != "cpu")
      throw Error(fmt::format("variant {} does not run on the CPU backend (choose cpu)", v));
    variant_ = v;
  }
  const std::string& variant() const override { return variant_; }
  void start_steps(int n) override {
    const auto t0 = std::chrono::steady_clock::now();
    sim_.step(n);
    last_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  std::optional<double> finished_batch_ms() override { return last_ms_; }
  bool idle() const override { return true; }
  void wait() override {}
  void paint(int view, double u, double v, double radius, double value, const ViewPlacement& where) override {
    sim_.paint(sphere_on_slice(view, u, v, radius, value, where));
  }
  FieldView view(int view, const ViewPlacement& where) override {
    return slice_field_view(sim_.field().data(), setup().grid, view, where);
  }
  void copy_view(int v, const ViewPlacement& where, float* dst) override { copy_host_view(view(v, where), dst); }
  SimState copy_state() override { return state_of(sim_.interior(), steps_done()); }
  void load_state(const SimState& st) override {
    sim_.load_interior(only_field(st, setup().grid).data(), st.steps_done);
  }

 private:
  const Heat3DSetup& setup() const { return sim_.setup(); }

  const ModelInfo& info_;
  ModelConfig config_;
  HostHeat3D<float> sim_;
  std::string variant_;
  std::optional<double> last_ms_;
};

class DeviceSim final : public Simulation {
 public:
  DeviceSim(const ModelInfo& info, const ModelConfig& config, std::string_view variant)
      : info_(info), config_(config), sim_(make_heat3d_setup(to_heat3d(config))), device_(cuda_device_name()) {
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
    check_live(info_, v);
    const Heat3DVariant parsed = parse_heat3d_variant(v);
    if (!is_gpu(parsed))
      throw Error(fmt::format("variant {} does not run on the GPU backend (choose {})", v, info_.variant_list("gpu")));
    variant_enum_ = parsed;
    variant_ = v;
  }
  const std::string& variant() const override { return variant_; }
  void start_steps(int n) override { sim_.step_timed_async(variant_enum_, n); }
  std::optional<double> finished_batch_ms() override { return sim_.finished_batch_ms(); }
  bool idle() const override { return sim_.idle(); }
  void wait() override { sim_.synchronize(); }
  void paint(int view, double u, double v, double radius, double value, const ViewPlacement& where) override {
    sim_.paint(sphere_on_slice(view, u, v, radius, value, where));
  }
  FieldView view(int view, const ViewPlacement& where) override {
    return slice_field_view(sim_.device_field(), setup().grid, view, where, true, sim_.native_stream());
  }
  void copy_view(int view, const ViewPlacement& where, float* dst) override {
    sim_.copy_slice_to_host(slice_axis_of_view(view), where.slices[static_cast<std::size_t>(view)], dst);
  }
  SimState copy_state() override {
    std::vector<float> interior(points());
    sim_.copy_interior_to_host(interior.data());
    return state_of(std::move(interior), steps_done());
  }
  void load_state(const SimState& st) override {
    sim_.load_interior(only_field(st, setup().grid).data(), st.steps_done);
  }

 private:
  const Heat3DSetup& setup() const { return sim_.setup(); }

  const ModelInfo& info_;
  ModelConfig config_;
  DeviceHeat3D<float> sim_;
  std::string device_;
  std::string variant_;
  Heat3DVariant variant_enum_ = Heat3DVariant::stream25d;
};

class Heat3DModel final : public Model {
 public:
  const ModelInfo& info() const override { return info_; }
  void validate(const ModelConfig& c) const override { make_heat3d_setup(to_heat3d(c)); }
  std::unique_ptr<Simulation> create(const ModelConfig& c, Backend backend, std::string_view variant) const override {
    const Heat3DSetup setup = make_heat3d_setup(to_heat3d(c));
    if (backend == Backend::cpu) {
      check_host_memory(2 * setup.grid.elements() * sizeof(float), "heat3d on this grid");
      return std::make_unique<HostSim>(info_, c, variant);
    }
    require_cuda_device();
    return std::make_unique<DeviceSim>(info_, c, variant);
  }
  BenchReport bench(const BenchRequest& r) const override {
    Heat3DBenchOptions o;
    o.config = to_heat3d(r.config);
    o.steps = r.steps;
    o.repeats = r.repeats;
    for (const std::string& v : r.variants) o.variants.push_back(parse_heat3d_variant(v));
    o.precision = r.precision;
    o.progress = r.progress;
    return run_heat3d_bench(o);
  }

 private:
  ModelInfo info_ = describe();
};

}  // namespace

const Model& heat3d_model() {
  static const Heat3DModel model;
  return model;
}

}  // namespace ss
