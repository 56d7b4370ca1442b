// deriv3d as the rest of the program sees it: NVIDIA's posts' problem, a static field
// (the derivative of a known function along one axis) shown as three slices; a "step"
// recomputes the derivative, so steps count evaluations and dt is 0.
#include <chrono>
#include <utility>

#include <fmt/format.h>

#include "sim/core/device.hpp"
#include "sim/core/error.hpp"
#include "sim/core/model.hpp"
#include "sim/core/views.hpp"
#include "sim/models/deriv3d/deriv3d.hpp"
#include "sim/models/deriv3d/deriv3d_bench.hpp"

namespace ss {

namespace {

ModelInfo describe() {
  ModelInfo m;
  m.name = "deriv3d";
  m.title = "deriv3d";
  m.description =
      "NVIDIA's \"Finite Difference Methods in CUDA\" posts: df/dx, df/dy or df/dz of cos(2 pi (x + y + z)) on a "
      "periodic cube, shown as three slices of the derivative";
  m.dims = 3;
  m.default_size = {64, 64, 64};
  m.quick_sides = {64, 128, 256, 512};
  m.min_side = kMinSide;
  m.orders = {2, 4, 6, 8};
  m.default_order = 8;
  ParamSpec axis;
  axis.name = "axis";
  axis.label = "axis";
  axis.kind = ParamKind::choice;
  axis.choices = {"x", "y", "z"};
  axis.default_choice = "x";
  axis.bench_sweeps = true;
  axis.selects_code = true;
  axis.help = "the derivative computed and shown: d/dx, d/dy or d/dz (bench: also all, one group of rows per axis)";
  m.params = {axis};
  m.variants = {
      {"global", "one point per thread", true, true},
      {"spencil", "our port of the posts' 64x4 pencil tiles (a whole axis per tile)", true, true},
      {"lpencil", "our port of the posts' 64x32 pencil tiles (a whole axis per tile)", true, true},
      {"stream", "16-byte packs, any size (ours)", true, true},
      {"posts-spencil", "the posts' own small-pencil kernels (64^3 and 256^3, order 8, float only)", true, true},
      {"posts-lpencil", "the posts' own long-pencil kernels (64^3 and 256^3, order 8, float only)", true, true},
      {"cpu", "OpenMP over planes, the shared point function", false, true},
      {"reference", "double precision, plain loops (a yardstick for bench)", false, false},
  };
  m.fastest_gpu = "stream";
  m.fastest_cpu = "cpu";
  m.views.quantities = {"derivative"};
  m.steps_in_time = false;
  m.paint_note = "deriv3d is a static field (the derivative of a known function): painting changes nothing";
  m.bench.default_size = {64, 64, 64};
  m.bench.default_steps = 20;
  m.bench.steps_help = "derivatives per timed run";
  return m;
}

Deriv3DConfig to_deriv3d(const ModelConfig& c) {
  Deriv3DConfig d;
  d.nx = c.size[0];
  d.ny = c.size[1];
  d.nz = c.size[2];
  d.order = c.order;
  return d;
}

std::string status(const ModelInfo& info, const ModelConfig& c, long steps) {
  return fmt::format("{}: d/d{} of cos(2 pi (x + y + z)), {} x {} x {}, {} evaluations", info.title, c.word("axis"),
                     c.size[0], c.size[1], c.size[2], steps);
}

/// What both backends share: the configuration, the evaluation count, and a state
/// that is only that count (the field is recomputed from f).
class DerivSim : public Simulation {
 public:
  DerivSim(const ModelInfo& info, const ModelConfig& config)
      : info_(info), config_(config), axis_(parse_axis(config.word("axis"))) {}
  const ModelInfo& info() const override { return info_; }
  const ModelConfig& config() const override { return config_; }
  double dt() const override { return 0; }
  double dt_limit() const override { return 0; }
  long steps_done() const override { return steps_done_; }
  StepAccounting accounting() const override {
    return {2.0 * sizeof(float) * static_cast<double>(points()), static_cast<double>(points())};
  }
  std::string status_line() const override { return status(info_, config_, steps_done_); }
  void reset() override { steps_done_ = 0; }
  const std::string& variant() const override { return variant_; }
  void paint(int, double, double, double, double, const ViewPlacement&) override {}
  SimState copy_state() override {
    wait();
    SimState st;
    st.steps_done = steps_done_;
    return st;
  }
  void load_state(const SimState& st) override {
    if (!st.fields.empty()) throw Error("a deriv3d state holds no fields (the derivative is recomputed from f)");
    steps_done_ = st.steps_done;
  }

 protected:
  const ModelInfo& info_;
  ModelConfig config_;
  Axis axis_;
  std::string variant_;
  long steps_done_ = 0;
};

class HostSim final : public DerivSim {
 public:
  HostSim(const ModelInfo& info, const ModelConfig& config, std::string_view variant)
      : DerivSim(info, config), setup_(make_deriv3d_setup(to_deriv3d(config))), in_(deriv3d_input<float>(setup_)),
        out_(in_) {
    set_variant(variant);
    deriv3d_cpu(setup_, axis_, in_.data(), out_.data());  // shown before the first batch
  }
  std::string backend_name() const override { return "CPU"; }
  bool on_gpu() const override { return false; }
  std::size_t points() const override { return setup_.grid.points(); }
  void set_order(int order) override {
    Deriv3DConfig c = setup_.config;
    c.order = order;
    setup_ = make_deriv3d_setup(c);
    config_.order = order;
    deriv3d_cpu(setup_, axis_, in_.data(), out_.data());
  }
  void set_variant(std::string_view v) override {
    check_live_variant(info_, v);
    if (v != "cpu") throw Error(fmt::format("variant {} does not run on the CPU backend (choose cpu)", v));
    variant_ = v;
  }
  void start_steps(int n) override {
    const auto t0 = std::chrono::steady_clock::now();
    for (int k = 0; k < n; ++k) deriv3d_cpu(setup_, axis_, in_.data(), out_.data());
    last_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    steps_done_ += n;
  }
  std::optional<double> finished_batch_ms() override { return last_ms_; }
  bool idle() const override { return true; }
  void wait() override {}
  FieldView view(int view, const ViewPlacement& where) override {
    return slice_field_view(out_.data(), setup_.grid, view, where);
  }
  void copy_view(int v, const ViewPlacement& where, float* dst) override { copy_host_view(view(v, where), dst); }

 private:
  Deriv3DSetup setup_;
  std::vector<float> in_, out_;
  std::optional<double> last_ms_;
};

class DeviceSim final : public DerivSim {
 public:
  DeviceSim(const ModelInfo& info, const ModelConfig& config, std::string_view variant)
      : DerivSim(info, config),
        sim_(std::make_unique<DeviceDeriv3D<float>>(make_deriv3d_setup(to_deriv3d(config)))),
        device_(cuda_device_name()) {
    set_variant(variant);
    sim_->run(Deriv3DVariant::global, axis_);  // shown before the first batch (every variant gives the same bits)
  }
  std::string backend_name() const override { return "GPU: " + device_; }
  bool on_gpu() const override { return true; }
  std::size_t points() const override { return sim_->setup().grid.points(); }
  void set_order(int order) override {
    Deriv3DConfig c = sim_->setup().config;
    c.order = order;
    const Deriv3DSetup setup = make_deriv3d_setup(c);
    wait();
    sim_ = std::make_unique<DeviceDeriv3D<float>>(setup);
    config_.order = order;
    sim_->run(Deriv3DVariant::global, axis_);
  }
  void set_variant(std::string_view v) override {
    check_live_variant(info_, v);
    const Deriv3DVariant parsed = parse_deriv3d_variant(v);
    if (!is_gpu(parsed))
      throw Error(fmt::format("variant {} does not run on the GPU backend (choose {})", v, info_.variant_list("gpu")));
    if (const std::string why = sim_->unsupported(parsed, axis_); !why.empty()) throw Error(why);
    variant_enum_ = parsed;
    variant_ = v;
  }
  void start_steps(int n) override {
    if (const std::string why = sim_->unsupported(variant_enum_, axis_); !why.empty()) throw Error(why);
    last_ms_ = sim_->timed(variant_enum_, axis_, n) * n;  // synchronous: a static field needs no overlap
    steps_done_ += n;
  }
  std::optional<double> finished_batch_ms() override { return std::exchange(last_ms_, std::nullopt); }
  bool idle() const override { return sim_->idle(); }
  void wait() override { sim_->synchronize(); }
  FieldView view(int view, const ViewPlacement& where) override {
    return slice_field_view(sim_->device_output(), sim_->setup().grid, view, where, true, sim_->native_stream());
  }
  void copy_view(int view, const ViewPlacement& where, float* dst) override {
    sim_->copy_output_slice_to_host(slice_axis_of_view(view), where.slices[static_cast<std::size_t>(view)], dst);
  }

 private:
  std::unique_ptr<DeviceDeriv3D<float>> sim_;
  std::string device_;
  Deriv3DVariant variant_enum_ = Deriv3DVariant::stream;
  std::optional<double> last_ms_;
};

class Deriv3DModel final : public Model {
 public:
  const ModelInfo& info() const override { return info_; }
  void validate(const ModelConfig& c) const override { make_deriv3d_setup(to_deriv3d(c)); }
  std::unique_ptr<Simulation> create(const ModelConfig& c, Backend backend, std::string_view variant) const override {
    const Deriv3DSetup setup = make_deriv3d_setup(to_deriv3d(c));
    if (backend == Backend::cpu) {
      check_host_memory(2 * setup.grid.elements() * sizeof(float), "deriv3d on this grid");
      return std::make_unique<HostSim>(info_, c, variant);
    }
    require_cuda_device();
    return std::make_unique<DeviceSim>(info_, c, variant);
  }
  BenchReport bench(const BenchRequest& r) const override {
    Deriv3DBenchOptions o;
    o.config = to_deriv3d(r.config);
    const std::string& axis = r.config.word("axis");
    if (axis != "all") o.axes = {parse_axis(axis)};
    o.launches = r.steps;
    o.repeats = r.repeats;
    for (const std::string& v : r.variants) o.variants.push_back(parse_deriv3d_variant(v));
    o.precision = r.precision;
    o.progress = r.progress;
    return run_deriv3d_bench(o);
  }

 private:
  ModelInfo info_ = describe();
};

}  // namespace

const Model& deriv3d_model() {
  static const Deriv3DModel model;
  return model;
}

}  // namespace ss
