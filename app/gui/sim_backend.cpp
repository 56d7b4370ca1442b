#include "sim_backend.hpp"

#include <algorithm>
#include <chrono>
#include <utility>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "stencilscope/bench.hpp"
#include "stencilscope/device.hpp"
#include "stencilscope/error.hpp"

namespace ss::app {

std::string_view to_string(Model m) {
  switch (m) {
    case Model::heat2d: return "heat2d";
    case Model::heat3d: return "heat3d";
    case Model::deriv3d: return "deriv3d";
  }
  return "?";
}

Model parse_model(std::string_view s) {
  for (Model m : kAllModels)
    if (s == to_string(m)) return m;
  throw Error("unknown model '" + std::string(s) + "' (choose heat2d, heat3d or deriv3d)");
}

std::string_view to_string(UploadPath p) {
  switch (p) {
    case UploadPath::interop: return "CUDA-GL interop";
    case UploadPath::host_copy: return "device -> host -> texture copy";
    case UploadPath::cpu_backend: return "CPU backend (glTexSubImage2D)";
  }
  return "?";
}

render::FieldStats field_stats(const float* first_cell, int nx, int ny, std::size_t row_pitch) {
  float lo = std::numeric_limits<float>::infinity(), hi = -lo;
  bool finite = true;
  for (int j = 0; j < ny; ++j) {
    const float* row = first_cell + static_cast<std::size_t>(j) * row_pitch;
    for (int i = 0; i < nx; ++i) {
      const float v = row[i];
      if (!std::isfinite(v)) {
        finite = false;
        continue;
      }
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  render::FieldStats s;
  s.finite = finite;
  if (lo <= hi) s.range = {lo, hi};
  return s;
}

render::FieldStats merge(const render::FieldStats& a, const render::FieldStats& b) {
  render::FieldStats m;
  m.finite = a.finite && b.finite;
  m.range = {std::min(a.range.lo, b.range.lo), std::max(a.range.hi, b.range.hi)};
  return m;
}

std::array<int, 2> slice_view_size(int nx, int ny, int nz, SliceAxis axis) {
  switch (axis) {
    case SliceAxis::xy: return {nx, ny};
    case SliceAxis::xz: return {nx, nz};
    case SliceAxis::yz: return {ny, nz};
  }
  return {nx, ny};
}

namespace {

double elapsed_ms(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - since).count();
}

class HostBackend final : public SimBackend {
 public:
  explicit HostBackend(const Heat2DSetup& setup) : sim_(setup) {
    static const double host_copy = measure_host_copy_gbps(std::size_t(64) << 20);
    copy_gbps_ = host_copy;
  }
  std::string name() const override { return "CPU"; }
  bool on_gpu() const override { return false; }
  Model model() const override { return Model::heat2d; }
  const Heat2DSetup* setup2d() const override { return &sim_.setup(); }
  const Heat2DSetup& setup() const { return sim_.setup(); }
  std::size_t points() const override { return setup().grid.points(); }
  double dt() const override { return setup().dt; }
  double dt_limit() const override { return setup().dt_limit; }
  double copy_gbps() const override { return copy_gbps_; }
  void reset() override {
    sim_.reset();
    reference_.reset();
  }
  void set_order(int order) override {
    sim_.set_order(order);
    if (reference_) reference_->set_order(order);
  }
  void start_batch(const SimSettings& s, int n) override {
    const Heat2DVariant variant = s.variant;
    if (variant != Heat2DVariant::cpu && variant != Heat2DVariant::reference)
      throw Error(fmt::format("variant {} does not run on the CPU backend", to_string(variant)));
    const auto t0 = std::chrono::steady_clock::now();
    if (variant == Heat2DVariant::reference) {
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
  void paint(int, double u, double v, double radius, double value, const SlicePositions&) override {
    sim_.paint(Brush{u, v, radius, value});
    reference_.reset();
  }
  long steps_done() const override { return sim_.steps_done(); }
  void copy_interior(std::vector<float>& out) override { out = extract_interior(sim_.field(), setup().grid); }
  void load_interior(const std::vector<float>& interior, long steps_done) override {
    sim_.load_interior(interior.data(), steps_done);
    reference_.reset();
  }
  int views() const override { return 1; }
  std::array<int, 2> view_size(int) const override { return {setup().grid.nx, setup().grid.ny}; }
  UploadPath upload(std::span<render::FieldTexture* const> textures, const SlicePositions&, bool) override {
    render::FieldTexture& texture = *textures[0];
    const Grid2D& g = setup().grid;
    const float* first = sim_.field().data() + g.index(0, 0);
    texture.upload_host(first, static_cast<std::size_t>(g.pitch));
    stats_ = field_stats(first, g.nx, g.ny, static_cast<std::size_t>(g.pitch));
    return UploadPath::cpu_backend;
  }
  std::optional<render::FieldStats> upload_stats() override { return stats_; }

 private:
  // The `reference` variant: the double-precision stepper keeps its state in double
  // while it runs; the float field shows it, rounded. A paint, reset or cpu batch
  // changes the float field, and the next reference batch starts from that.
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
  std::optional<ReferenceHeat2D> reference_;
  HostHeat2D<float> sim_;
  double copy_gbps_ = 0;
  std::optional<double> last_ms_;
  std::optional<render::FieldStats> stats_;
};

class DeviceBackend final : public SimBackend {
 public:
  explicit DeviceBackend(const Heat2DSetup& setup) : sim_(setup), device_name_(cuda_device_name()) {
    static const double device_copy = measure_copy_gbps(std::size_t(256) << 20, 10);
    copy_gbps_ = device_copy;
  }
  std::string name() const override { return "GPU: " + device_name_; }
  bool on_gpu() const override { return true; }
  Model model() const override { return Model::heat2d; }
  const Heat2DSetup* setup2d() const override { return &sim_.setup(); }
  const Heat2DSetup& setup() const { return sim_.setup(); }
  std::size_t points() const override { return setup().grid.points(); }
  double dt() const override { return setup().dt; }
  double dt_limit() const override { return setup().dt_limit; }
  double copy_gbps() const override { return copy_gbps_; }
  void reset() override {
    sim_.reset();
    stats_pending_ = false;
  }
  void set_order(int order) override { sim_.set_order(order); }
  void start_batch(const SimSettings& s, int n) override {
    const Heat2DVariant variant = s.variant;
    if (!is_gpu(variant)) throw Error(fmt::format("variant {} does not run on the GPU backend", to_string(variant)));
    sim_.step_timed_async(variant, n);
  }
  std::optional<double> finished_batch_ms() override { return sim_.finished_batch_ms(); }
  bool idle() const override { return sim_.idle(); }
  void wait() override { sim_.synchronize(); }
  void paint(int, double u, double v, double radius, double value, const SlicePositions&) override {
    sim_.paint(Brush{u, v, radius, value});
  }
  long steps_done() const override { return sim_.steps_done(); }
  void copy_interior(std::vector<float>& out) override {
    out.resize(setup().grid.points());
    sim_.copy_interior_to_host(out.data());
  }
  void load_interior(const std::vector<float>& interior, long steps_done) override {
    sim_.load_interior(interior.data(), steps_done);
  }
  int views() const override { return 1; }
  std::array<int, 2> view_size(int) const override { return {setup().grid.nx, setup().grid.ny}; }
  UploadPath upload(std::span<render::FieldTexture* const> textures, const SlicePositions&, bool allow_interop) override {
    render::FieldTexture& texture = *textures[0];
    // The previous write has finished when the stream is idle (uploads happen between
    // batches): take its stats before the next write reuses their buffer. In the window
    // this makes the auto range and the NaN check lag one batch; recordings wait, no lag.
    refresh_stats();
    if (interop_texture_ != texture.gl_name()) {  // register once per texture
      interop_.reset();
      interop_texture_ = texture.gl_name();
      try {
        interop_.emplace(texture);
        interop_failure_.clear();
      } catch (const Error& e) {
        interop_failure_ = e.what();
      }
    }
    const Grid2D& g = setup().grid;
    if (interop_ && allow_interop) {
      interop_->write(sim_.device_field() + g.index(0, 0), static_cast<std::size_t>(g.pitch), sim_.native_stream());
      stats_pending_ = true;
      return UploadPath::interop;
    }
    stats_pending_ = false;
    copy_interior(host_);
    texture.upload_host(host_.data(), static_cast<std::size_t>(g.nx));
    stats_ = field_stats(host_.data(), g.nx, g.ny, static_cast<std::size_t>(g.nx));
    return UploadPath::host_copy;
  }
  std::optional<render::FieldStats> upload_stats() override {
    refresh_stats();
    return stats_;
  }
  std::string interop_failure() const override { return interop_failure_; }

 private:
  void refresh_stats() {
    if (stats_pending_ && interop_ && sim_.idle()) {
      stats_ = interop_->last_stats();
      stats_pending_ = false;
    }
  }

  DeviceHeat2D<float> sim_;
  std::string device_name_;
  double copy_gbps_ = 0;
  std::optional<render::FieldInterop> interop_;
  unsigned interop_texture_ = 0;
  std::string interop_failure_;
  std::vector<float> host_;
  std::optional<render::FieldStats> stats_;
  bool stats_pending_ = false;
};

/// The slice axis of heat 3D view `view` (0 XY, 1 XZ, 2 YZ).
SliceAxis axis_of(int view) { return kAllSliceAxes.at(static_cast<std::size_t>(view)); }

/// The sphere painted at (u, v) of a slice view: centred in the slice's cell layer.
Sphere sphere_on_slice(int view, double u, double v, double radius, double value, const SlicePositions& slices) {
  const auto p = slice_to_volume(axis_of(view), slices[static_cast<std::size_t>(view)], u, v);
  return Sphere{p[0], p[1], p[2], radius, value};
}

/// Extracts the three slices of a padded host volume into the textures; their merged stats.
render::FieldStats upload_host_slices(const std::vector<float>& field, const Grid3D& g,
                                      std::span<render::FieldTexture* const> textures, const SlicePositions& slices,
                                      std::vector<float>& scratch) {
  std::optional<render::FieldStats> all;
  for (int view = 0; view < 3; ++view) {
    extract_slice(field, g, axis_of(view), slices[static_cast<std::size_t>(view)], scratch);
    const auto [nu, nv] = slice_view_size(g.nx, g.ny, g.nz, axis_of(view));
    textures[static_cast<std::size_t>(view)]->upload_host(scratch.data(), static_cast<std::size_t>(nu));
    const render::FieldStats st = field_stats(scratch.data(), nu, nv, static_cast<std::size_t>(nu));
    all = all ? merge(*all, st) : st;
  }
  return *all;
}

/// The three slice textures of a GPU volume through interop: registered once per
/// texture, each written by the interop kernel reading its slice as a strided view.
class SliceInterop {
 public:
  /// Registers textures not yet registered; true when all three can be written.
  bool ready(std::span<render::FieldTexture* const> textures) {
    bool all = true;
    for (std::size_t view = 0; view < 3; ++view) {
      if (registered_[view] != textures[view]->gl_name()) {
        interop_[view].reset();
        registered_[view] = textures[view]->gl_name();
        try {
          interop_[view].emplace(*textures[view]);
          failure_.clear();
        } catch (const Error& e) {
          failure_ = e.what();
        }
      }
      all = all && interop_[view].has_value();
    }
    return all;
  }
  /// Enqueues the three writes on `stream` (after ready() said true).
  void write(const float* volume, const Grid3D& g, const SlicePositions& slices, void* stream) {
    for (std::size_t view = 0; view < 3; ++view) {
      const SliceView sv = slice_view(g, axis_of(static_cast<int>(view)), slices[view]);
      interop_[view]->write_strided(volume + sv.offset, sv.u_stride, sv.v_stride, stream);
    }
  }
  /// The merged stats of the last writes (valid once the stream has passed them).
  std::optional<render::FieldStats> stats() const {
    for (const auto& i : interop_)
      if (!i) return std::nullopt;
    return merge(merge(interop_[0]->last_stats(), interop_[1]->last_stats()), interop_[2]->last_stats());
  }
  const std::string& failure() const { return failure_; }

 private:
  std::array<std::optional<render::FieldInterop>, 3> interop_;
  std::array<unsigned, 3> registered_{};
  std::string failure_;
};

class HostBackend3D final : public SimBackend {
 public:
  explicit HostBackend3D(const Heat3DSetup& setup) : sim_(setup) {
    static const double host_copy = measure_host_copy_gbps(std::size_t(64) << 20);
    copy_gbps_ = host_copy;
  }
  std::string name() const override { return "CPU"; }
  bool on_gpu() const override { return false; }
  Model model() const override { return Model::heat3d; }
  const Heat3DSetup* setup3d() const override { return &sim_.setup(); }
  const Grid3D* grid3d() const override { return &sim_.setup().grid; }
  std::size_t points() const override { return sim_.setup().grid.points(); }
  double dt() const override { return sim_.setup().dt; }
  double dt_limit() const override { return sim_.setup().dt_limit; }
  double copy_gbps() const override { return copy_gbps_; }
  void reset() override { sim_.reset(); }
  void set_order(int order) override { sim_.set_order(order); }
  void start_batch(const SimSettings& s, int n) override {
    if (s.variant3d != Heat3DVariant::cpu)
      throw Error(fmt::format("variant {} does not run on the CPU backend", to_string(s.variant3d)));
    const auto t0 = std::chrono::steady_clock::now();
    sim_.step(n);
    last_ms_ = elapsed_ms(t0);
  }
  std::optional<double> finished_batch_ms() override { return last_ms_; }
  bool idle() const override { return true; }
  void wait() override {}
  void paint(int view, double u, double v, double radius, double value, const SlicePositions& slices) override {
    sim_.paint(sphere_on_slice(view, u, v, radius, value, slices));
  }
  long steps_done() const override { return sim_.steps_done(); }
  void copy_interior(std::vector<float>& out) override { out = sim_.interior(); }
  void load_interior(const std::vector<float>& interior, long steps_done) override {
    sim_.load_interior(interior.data(), steps_done);
  }
  int views() const override { return 3; }
  std::array<int, 2> view_size(int view) const override {
    const Grid3D& g = sim_.setup().grid;
    return slice_view_size(g.nx, g.ny, g.nz, axis_of(view));
  }
  UploadPath upload(std::span<render::FieldTexture* const> textures, const SlicePositions& slices, bool) override {
    stats_ = upload_host_slices(sim_.field(), sim_.setup().grid, textures, slices, slice_);
    return UploadPath::cpu_backend;
  }
  std::optional<render::FieldStats> upload_stats() override { return stats_; }

 private:
  HostHeat3D<float> sim_;
  double copy_gbps_ = 0;
  std::optional<double> last_ms_;
  std::optional<render::FieldStats> stats_;
  std::vector<float> slice_;
};

class DeviceBackend3D final : public SimBackend {
 public:
  explicit DeviceBackend3D(const Heat3DSetup& setup) : sim_(setup), device_name_(cuda_device_name()) {
    static const double device_copy = measure_copy_gbps(std::size_t(256) << 20, 10);
    copy_gbps_ = device_copy;
  }
  std::string name() const override { return "GPU: " + device_name_; }
  bool on_gpu() const override { return true; }
  Model model() const override { return Model::heat3d; }
  const Heat3DSetup* setup3d() const override { return &sim_.setup(); }
  const Grid3D* grid3d() const override { return &sim_.setup().grid; }
  std::size_t points() const override { return sim_.setup().grid.points(); }
  double dt() const override { return sim_.setup().dt; }
  double dt_limit() const override { return sim_.setup().dt_limit; }
  double copy_gbps() const override { return copy_gbps_; }
  void reset() override {
    sim_.reset();
    stats_pending_ = false;
  }
  void set_order(int order) override { sim_.set_order(order); }
  void start_batch(const SimSettings& s, int n) override {
    if (!is_gpu(s.variant3d))
      throw Error(fmt::format("variant {} does not run on the GPU backend", to_string(s.variant3d)));
    sim_.step_timed_async(s.variant3d, n);
  }
  std::optional<double> finished_batch_ms() override { return sim_.finished_batch_ms(); }
  bool idle() const override { return sim_.idle(); }
  void wait() override { sim_.synchronize(); }
  void paint(int view, double u, double v, double radius, double value, const SlicePositions& slices) override {
    sim_.paint(sphere_on_slice(view, u, v, radius, value, slices));
  }
  long steps_done() const override { return sim_.steps_done(); }
  void copy_interior(std::vector<float>& out) override {
    out.resize(points());
    sim_.copy_interior_to_host(out.data());
  }
  void load_interior(const std::vector<float>& interior, long steps_done) override {
    sim_.load_interior(interior.data(), steps_done);
  }
  int views() const override { return 3; }
  std::array<int, 2> view_size(int view) const override {
    const Grid3D& g = sim_.setup().grid;
    return slice_view_size(g.nx, g.ny, g.nz, axis_of(view));
  }
  UploadPath upload(std::span<render::FieldTexture* const> textures, const SlicePositions& slices,
                    bool allow_interop) override {
    refresh_stats();  // as heat 2D: the previous writes' stats, before the next writes reuse their buffers
    if (interop_.ready(textures) && allow_interop) {
      interop_.write(sim_.device_field(), sim_.setup().grid, slices, sim_.native_stream());
      stats_pending_ = true;
      return UploadPath::interop;
    }
    stats_pending_ = false;
    std::optional<render::FieldStats> all;
    for (int view = 0; view < 3; ++view) {
      const auto [nu, nv] = view_size(view);
      host_.resize(static_cast<std::size_t>(nu) * nv);
      sim_.copy_slice_to_host(axis_of(view), slices[static_cast<std::size_t>(view)], host_.data());  // the slice only
      textures[static_cast<std::size_t>(view)]->upload_host(host_.data(), static_cast<std::size_t>(nu));
      const render::FieldStats st = field_stats(host_.data(), nu, nv, static_cast<std::size_t>(nu));
      all = all ? merge(*all, st) : st;
    }
    stats_ = all;
    return UploadPath::host_copy;
  }
  std::optional<render::FieldStats> upload_stats() override {
    refresh_stats();
    return stats_;
  }
  std::string interop_failure() const override { return interop_.failure(); }

 private:
  void refresh_stats() {
    if (!stats_pending_ || !sim_.idle()) return;
    if (const auto st = interop_.stats()) stats_ = st;
    stats_pending_ = false;
  }

  DeviceHeat3D<float> sim_;
  std::string device_name_;
  double copy_gbps_ = 0;
  SliceInterop interop_;
  std::vector<float> host_;
  std::optional<render::FieldStats> stats_;
  bool stats_pending_ = false;
};

/// What the two deriv3d backends share: a static field, so stepping recomputes the
/// derivative (steps count evaluations), dt is 0 and painting does nothing.
class Deriv3DBackendBase : public SimBackend {
 public:
  Model model() const override { return Model::deriv3d; }
  double dt() const override { return 0; }
  double dt_limit() const override { return 0; }
  void paint(int, double, double, double, double, const SlicePositions&) override {}
  long steps_done() const override { return steps_done_; }
  void reset() override { steps_done_ = 0; }
  // The field is recomputed from f on the other backend; only the count carries over.
  void copy_interior(std::vector<float>& out) override { out.clear(); }
  void load_interior(const std::vector<float>&, long steps_done) override { steps_done_ = steps_done; }
  int views() const override { return 3; }
  std::array<int, 2> view_size(int view) const override {
    const Grid3D& g = *grid3d();
    return slice_view_size(g.nx, g.ny, g.nz, axis_of(view));
  }

 protected:
  long steps_done_ = 0;
};

class HostDeriv3DBackend final : public Deriv3DBackendBase {
 public:
  HostDeriv3DBackend(const Deriv3DSetup& setup, Axis axis)
      : setup_(setup), axis_(axis), in_(deriv3d_input<float>(setup)), out_(in_) {
    static const double host_copy = measure_host_copy_gbps(std::size_t(64) << 20);
    copy_gbps_ = host_copy;
    deriv3d_cpu(setup_, axis_, in_.data(), out_.data());  // shown before the first batch
  }
  std::string name() const override { return "CPU"; }
  bool on_gpu() const override { return false; }
  const Grid3D* grid3d() const override { return &setup_.grid; }
  std::size_t points() const override { return setup_.grid.points(); }
  double copy_gbps() const override { return copy_gbps_; }
  void set_order(int order) override {
    Deriv3DConfig c = setup_.config;
    c.order = order;
    setup_ = make_deriv3d_setup(c);
    deriv3d_cpu(setup_, axis_, in_.data(), out_.data());
  }
  void start_batch(const SimSettings& s, int n) override {
    if (s.deriv_variant != Deriv3DVariant::cpu)
      throw Error(fmt::format("variant {} does not run on the CPU backend", to_string(s.deriv_variant)));
    const auto t0 = std::chrono::steady_clock::now();
    for (int k = 0; k < n; ++k) deriv3d_cpu(setup_, axis_, in_.data(), out_.data());
    last_ms_ = elapsed_ms(t0);
    steps_done_ += n;
  }
  std::optional<double> finished_batch_ms() override { return last_ms_; }
  bool idle() const override { return true; }
  void wait() override {}
  UploadPath upload(std::span<render::FieldTexture* const> textures, const SlicePositions& slices, bool) override {
    stats_ = upload_host_slices(out_, setup_.grid, textures, slices, slice_);
    return UploadPath::cpu_backend;
  }
  std::optional<render::FieldStats> upload_stats() override { return stats_; }

 private:
  Deriv3DSetup setup_;
  Axis axis_;
  std::vector<float> in_, out_;
  double copy_gbps_ = 0;
  std::optional<double> last_ms_;
  std::optional<render::FieldStats> stats_;
  std::vector<float> slice_;
};

class DeviceDeriv3DBackend final : public Deriv3DBackendBase {
 public:
  DeviceDeriv3DBackend(const Deriv3DSetup& setup, Axis axis)
      : sim_(std::make_unique<DeviceDeriv3D<float>>(setup)), axis_(axis), device_name_(cuda_device_name()) {
    static const double device_copy = measure_copy_gbps(std::size_t(256) << 20, 10);
    copy_gbps_ = device_copy;
    sim_->run(Deriv3DVariant::global, axis_);  // shown before the first batch (every variant gives the same bits)
  }
  std::string name() const override { return "GPU: " + device_name_; }
  bool on_gpu() const override { return true; }
  const Grid3D* grid3d() const override { return &sim_->setup().grid; }
  std::size_t points() const override { return sim_->setup().grid.points(); }
  double copy_gbps() const override { return copy_gbps_; }
  void set_order(int order) override {
    Deriv3DConfig c = sim_->setup().config;
    c.order = order;
    const Deriv3DSetup setup = make_deriv3d_setup(c);
    wait();
    sim_ = std::make_unique<DeviceDeriv3D<float>>(setup);
    interop_ = SliceInterop{};  // the stats of the old writes are gone with them
    stats_pending_ = false;
    sim_->run(Deriv3DVariant::global, axis_);
  }
  void start_batch(const SimSettings& s, int n) override {
    if (!is_gpu(s.deriv_variant))
      throw Error(fmt::format("variant {} does not run on the GPU backend", to_string(s.deriv_variant)));
    if (const std::string why = sim_->unsupported(s.deriv_variant, axis_); !why.empty()) throw Error(why);
    last_ms_ = sim_->timed(s.deriv_variant, axis_, n) * n;  // synchronous: a static field needs no overlap
    steps_done_ += n;
  }
  std::optional<double> finished_batch_ms() override { return std::exchange(last_ms_, std::nullopt); }
  bool idle() const override { return sim_->idle(); }
  void wait() override { sim_->synchronize(); }
  UploadPath upload(std::span<render::FieldTexture* const> textures, const SlicePositions& slices,
                    bool allow_interop) override {
    refresh_stats();
    if (interop_.ready(textures) && allow_interop) {
      interop_.write(sim_->device_output(), sim_->setup().grid, slices, sim_->native_stream());
      stats_pending_ = true;
      return UploadPath::interop;
    }
    stats_pending_ = false;
    std::optional<render::FieldStats> all;
    for (int view = 0; view < 3; ++view) {
      const auto [nu, nv] = view_size(view);
      host_.resize(static_cast<std::size_t>(nu) * nv);
      sim_->copy_output_slice_to_host(axis_of(view), slices[static_cast<std::size_t>(view)], host_.data());
      textures[static_cast<std::size_t>(view)]->upload_host(host_.data(), static_cast<std::size_t>(nu));
      const render::FieldStats st = field_stats(host_.data(), nu, nv, static_cast<std::size_t>(nu));
      all = all ? merge(*all, st) : st;
    }
    stats_ = all;
    return UploadPath::host_copy;
  }
  std::optional<render::FieldStats> upload_stats() override {
    refresh_stats();
    return stats_;
  }
  std::string interop_failure() const override { return interop_.failure(); }

 private:
  void refresh_stats() {
    if (!stats_pending_ || !sim_->idle()) return;
    if (const auto st = interop_.stats()) stats_ = st;
    stats_pending_ = false;
  }

  std::unique_ptr<DeviceDeriv3D<float>> sim_;
  Axis axis_;
  std::string device_name_;
  double copy_gbps_ = 0;
  std::optional<double> last_ms_;
  SliceInterop interop_;
  std::vector<float> host_;
  std::optional<render::FieldStats> stats_;
  bool stats_pending_ = false;
};

}  // namespace

std::unique_ptr<SimBackend> make_host_backend(const Deriv3DSetup& setup, Axis axis) {
  return std::make_unique<HostDeriv3DBackend>(setup, axis);
}

std::unique_ptr<SimBackend> make_device_backend(const Deriv3DSetup& setup, Axis axis) {
  std::string why;
  if (!cuda_available(&why)) throw Error("no CUDA device: " + why);
  return std::make_unique<DeviceDeriv3DBackend>(setup, axis);
}

std::unique_ptr<SimBackend> make_host_backend(const Heat3DSetup& setup) {
  return std::make_unique<HostBackend3D>(setup);
}

std::unique_ptr<SimBackend> make_device_backend(const Heat3DSetup& setup) {
  std::string why;
  if (!cuda_available(&why)) throw Error("no CUDA device: " + why);
  return std::make_unique<DeviceBackend3D>(setup);
}

std::unique_ptr<SimBackend> make_host_backend(const Heat2DSetup& setup) { return std::make_unique<HostBackend>(setup); }

std::unique_ptr<SimBackend> make_device_backend(const Heat2DSetup& setup) {
  std::string why;
  if (!cuda_available(&why)) throw Error("no CUDA device: " + why);
  return std::make_unique<DeviceBackend>(setup);
}

}  // namespace ss::app
