#pragma once
// What the Simulations of heat 2D and heat 3D share, over their solvers (HostHeat2D,
// DeviceHeat2D, HostHeat3D, DeviceHeat3D): the description and configuration, dt and
// its limit, the step count, the accounting, order changes, the state (one interior),
// the status line; and on the GPU the whole batch machinery and variant checks.
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "sim/core/device.hpp"
#include "sim/core/error.hpp"
#include "sim/core/model.hpp"
#include "sim/models/heat2d/heat_params.hpp"

namespace ss {

/// The state of a heat field: its interior (x fastest) and the step count.
inline SimState heat_state(std::vector<float> interior, long steps) {
  SimState st;
  st.steps_done = steps;
  st.fields.push_back(std::move(interior));
  return st;
}

/// The interior a heat state holds; throws ss::Error when it does not fit `points` cells.
inline const std::vector<float>& heat_interior(const SimState& st, std::size_t points, const ModelInfo& info) {
  if (st.fields.size() != 1 || st.fields[0].size() != points)
    throw Error(fmt::format("a {} state of {} fields does not fit this grid ({} cells)", info.name, st.fields.size(),
                            points));
  return st.fields[0];
}

/// The members every heat Simulation has, over its solver.
template <typename Solver>
class HeatSimulation : public Simulation {
 public:
  template <typename Setup>
  HeatSimulation(const ModelInfo& info, const ModelConfig& config, const Setup& setup)
      : info_(info), config_(config), sim_(setup) {}
  const ModelInfo& info() const override { return info_; }
  const ModelConfig& config() const override { return config_; }
  std::size_t points() const override { return sim_.setup().grid.points(); }
  double dt() const override { return sim_.setup().dt; }
  double dt_limit() const override { return sim_.setup().dt_limit; }
  long steps_done() const override { return sim_.steps_done(); }
  StepAccounting accounting() const override { return heat_accounting(points()); }
  std::string status_line() const override {
    const auto& n = config_.size;
    const std::string size = info_.dims == 2 ? fmt::format("{} x {}", n[0], n[1])
                                             : fmt::format("{} x {} x {}", n[0], n[1], n[2]);
    return fmt::format("{}, {}, step {}, t = {:.6g}", info_.title, size, steps_done(), time());
  }
  void reset() override { sim_.reset(); }
  void set_order(int order) override {
    sim_.set_order(order);
    config_.order = order;
  }
  const std::string& variant() const override { return variant_; }
  /// The generic min, max and mean, and the total heat: the integral of T over the domain
  /// (conserved under the periodic and insulated rules, a check on the step).
  std::vector<Diagnostic> diagnostics() override {
    std::vector<Diagnostic> d = Simulation::diagnostics();
    const double h = sim_.setup().h;
    for (const Diagnostic& x : d)
      if (x.name == "mean")
        d.push_back({"total heat", "", x.value * static_cast<double>(points()) * (info_.dims == 2 ? h * h : h * h * h)});
    return d;
  }

 protected:
  const ModelInfo& info_;
  ModelConfig config_;
  Solver sim_;
  std::string variant_;
};

/// A heat Simulation on the CPU: batches run before start_steps returns, timed on the host.
template <typename Solver>
class HeatHostSimulation : public HeatSimulation<Solver> {
 public:
  using HeatSimulation<Solver>::HeatSimulation;
  std::string backend_name() const override { return "CPU"; }
  bool on_gpu() const override { return false; }
  std::optional<double> finished_batch_ms() override { return last_ms_; }
  bool idle() const override { return true; }
  void wait() override {}

 protected:
  /// Runs `batch` and keeps its time for finished_batch_ms.
  template <typename F>
  void timed(F&& batch) {
    const auto t0 = std::chrono::steady_clock::now();
    batch();
    last_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }

 private:
  std::optional<double> last_ms_;
};

/// A heat Simulation on the GPU: batches queued on the solver's stream between timing
/// events; parse(name) reads a variant of the model, is_gpu(variant) says where it runs.
template <typename Solver, typename Variant, Variant (*parse)(std::string_view)>
class HeatDeviceSimulation : public HeatSimulation<Solver> {
  using Base = HeatSimulation<Solver>;

 public:
  template <typename Setup>
  HeatDeviceSimulation(const ModelInfo& info, const ModelConfig& config, const Setup& setup, std::string_view variant)
      : Base(info, config, setup), device_(cuda_device_name()) {
    set_variant(variant);
  }
  std::string backend_name() const override { return "GPU: " + device_; }
  bool on_gpu() const override { return true; }
  void set_variant(std::string_view v) override {
    check_live_variant(this->info_, v);
    const Variant parsed = parse(v);
    if (!is_gpu(parsed))
      throw Error(fmt::format("variant {} does not run on the GPU backend (choose {})", v,
                              this->info_.variant_list("gpu")));
    variant_enum_ = parsed;
    this->variant_ = v;
  }
  void start_steps(int n) override { this->sim_.step_timed_async(variant_enum_, n); }
  std::optional<double> finished_batch_ms() override { return this->sim_.finished_batch_ms(); }
  bool idle() const override { return this->sim_.idle(); }
  void wait() override { this->sim_.synchronize(); }
  SimState copy_state() override {
    std::vector<float> interior(this->points());
    this->sim_.copy_interior_to_host(interior.data());
    return heat_state(std::move(interior), this->steps_done());
  }
  void load_state(const SimState& st) override {
    this->sim_.load_interior(heat_interior(st, this->points(), this->info_).data(), st.steps_done);
  }

 private:
  std::string device_;
  Variant variant_enum_{};
};

/// The Model of a heat model: validation, creation on either backend and the bench,
/// over its functions (to_config: ModelConfig -> Heat2DConfig/Heat3DConfig; make_setup;
/// parse: a variant name; run_bench; make_box: one rank's box of a distributed run, or
/// nullptr where the model runs on one rank only; DeviceBoxes: void, or a type with the
/// GPU variant its boxes step (`variant`), what they give the window (`shows`: views;
/// `paints`: paints and loaded states; DistributedSpec::gpu_boxes_show and _paint) and
/// `make(setup, placement, variant)` for boxes on the GPU) and its two Simulation types.
template <typename HostSim, typename DeviceSim, typename BenchOptions, auto to_config, auto make_setup, auto parse,
          auto run_bench, auto make_box = nullptr, typename DeviceBoxes = void>
class HeatModel final : public Model {
 public:
  explicit HeatModel(ModelInfo info) : info_(std::move(info)) {}
  const ModelInfo& info() const override { return info_; }
  void validate(const ModelConfig& c) const override { make_setup(to_config(c)); }
  std::unique_ptr<Simulation> create(const ModelConfig& c, Backend backend, std::string_view variant) const override {
    const auto setup = make_setup(to_config(c));
    if (backend == Backend::cpu) {
      check_host_memory(2 * setup.grid.elements() * sizeof(float), (info_.name + " on this grid").c_str());
      return std::make_unique<HostSim>(info_, c, setup, variant);
    }
    require_cuda_device();
    return std::make_unique<DeviceSim>(info_, c, setup, variant);
  }
  BenchReport bench(const BenchRequest& r) const override {
    BenchOptions o;
    o.config = to_config(r.config);
    o.steps = r.steps;
    o.repeats = r.repeats;
    for (const std::string& v : r.variants) o.variants.push_back(parse(v));
    o.precision = r.precision;
    o.progress = r.progress;
    return run_bench(o);
  }
  /// A distributed heat run exchanges the one field, radius-wide faces (a cross stencil
  /// reads no edges); every axis wraps under the periodic rule.
  DistributedSpec distributed(const ModelConfig& c) const override {
    if constexpr (make_box == nullptr) {
      return Model::distributed(c);
    } else {
      const auto setup = make_setup(to_config(c));
      DistributedSpec s;
      s.supported = true;
      s.ghost_width = radius_of_order(setup.config.order);
      const bool wraps = setup.config.boundary == Boundary::periodic;
      s.periodic = {wraps, wraps, wraps};
      s.boxes_show = true;  // HostHeat3DBox: views, paint, load_interiors
      if constexpr (!std::is_void_v<DeviceBoxes>) {
        s.gpu_variant = DeviceBoxes::variant;
        s.gpu_boxes_show = DeviceBoxes::shows;
        s.gpu_boxes_paint = DeviceBoxes::paints;
      }
      return s;
    }
  }
  std::unique_ptr<BoxSimulation> create_box(const ModelConfig& c, const BoxPlacement& where,
                                            std::string_view variant) const override {
    if constexpr (make_box == nullptr) {
      return Model::create_box(c, where, variant);
    } else {
      check_live_variant(info_, variant);
      const auto setup = make_setup(to_config(c));
      if constexpr (!std::is_void_v<DeviceBoxes>) {
        const VariantSpec* v = info_.variant(variant);
        if (v && v->gpu) {
          require_cuda_device();
          return DeviceBoxes::make(setup, where, variant);
        }
      }
      if (variant != info_.fastest_cpu)
        throw Error(fmt::format("a distributed run of {} steps its {} variant on the CPU{}", info_.name,
                                info_.fastest_cpu, std::is_void_v<DeviceBoxes> ? "" : " or its GPU variants"));
      check_host_memory(2 * static_cast<std::size_t>(where.box.cells()) * sizeof(float),
                        (info_.name + " on this rank's box").c_str());
      return make_box(setup, where);
    }
  }

 private:
  ModelInfo info_;
};

}  // namespace ss
