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
#include "sim/models/heat2d/heat_simulation.hpp"
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

class HostSim final : public HeatHostSimulation<HostHeat3D<float>> {
 public:
  HostSim(const ModelInfo& info, const ModelConfig& config, const Heat3DSetup& setup, std::string_view variant)
      : HeatHostSimulation(info, config, setup) {
    set_variant(variant);
  }
  void set_variant(std::string_view v) override {
    check_live_variant(info_, v);
    if (v != "cpu") throw Error(fmt::format("variant {} does not run on the CPU backend (choose cpu)", v));
    variant_ = v;
  }
  void start_steps(int n) override {
    timed([&] { sim_.step(n); });
  }
  void paint(int view, double u, double v, double radius, double value, const ViewPlacement& where) override {
    sim_.paint(sphere_on_slice(view, u, v, radius, value, where));
  }
  FieldView view(int view, const ViewPlacement& where) override {
    return slice_field_view(sim_.field().data(), sim_.setup().grid, view, where);
  }
  void copy_view(int v, const ViewPlacement& where, float* dst) override { copy_host_view(view(v, where), dst); }
  SimState copy_state() override { return heat_state(sim_.interior(), steps_done()); }
  void load_state(const SimState& st) override {
    sim_.load_interior(heat_interior(st, points(), info_).data(), st.steps_done);
  }
};

class DeviceSim final : public HeatDeviceSimulation<DeviceHeat3D<float>, Heat3DVariant, parse_heat3d_variant> {
 public:
  using HeatDeviceSimulation::HeatDeviceSimulation;
  void paint(int view, double u, double v, double radius, double value, const ViewPlacement& where) override {
    sim_.paint(sphere_on_slice(view, u, v, radius, value, where));
  }
  FieldView view(int view, const ViewPlacement& where) override {
    return slice_field_view(sim_.device_field(), sim_.setup().grid, view, where, true, sim_.native_stream());
  }
  void copy_view(int view, const ViewPlacement& where, float* dst) override {
    sim_.copy_slice_to_host(slice_axis_of_view(view), where.slices[static_cast<std::size_t>(view)], dst);
  }
};

}  // namespace

const Model& heat3d_model() {
  static const HeatModel<HostSim, DeviceSim, Heat3DBenchOptions, to_heat3d, make_heat3d_setup, parse_heat3d_variant,
                         run_heat3d_bench, make_heat3d_box, Heat3DDeviceBoxes>
      model(describe());
  return model;
}

}  // namespace ss
