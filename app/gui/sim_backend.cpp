#include "sim_backend.hpp"

#include <chrono>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "stencilscope/bench.hpp"
#include "stencilscope/device.hpp"
#include "stencilscope/error.hpp"

namespace ss::app {

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
  const Heat2DSetup& setup() const override { return sim_.setup(); }
  double copy_gbps() const override { return copy_gbps_; }
  void reset() override { sim_.reset(); }
  void set_order(int order) override { sim_.set_order(order); }
  void start_batch(Heat2DVariant variant, int n) override {
    if (variant != Heat2DVariant::cpu)
      throw Error(fmt::format("variant {} does not run on the CPU backend", to_string(variant)));
    const auto t0 = std::chrono::steady_clock::now();
    sim_.step(n);
    last_ms_ = elapsed_ms(t0);
  }
  std::optional<double> finished_batch_ms() override { return last_ms_; }
  bool idle() const override { return true; }
  void wait() override {}
  void paint(const Brush& brush) override { sim_.paint(brush); }
  long steps_done() const override { return sim_.steps_done(); }
  void copy_interior(std::vector<float>& out) override { out = extract_interior(sim_.field(), setup().grid); }
  void load_interior(const std::vector<float>& interior, long steps_done) override {
    sim_.load_interior(interior.data(), steps_done);
  }
  UploadPath upload(render::FieldTexture& texture, bool) override {
    const Grid2D& g = setup().grid;
    const float* first = sim_.field().data() + g.index(0, 0);
    texture.upload_host(first, static_cast<std::size_t>(g.pitch));
    stats_ = field_stats(first, g.nx, g.ny, static_cast<std::size_t>(g.pitch));
    return UploadPath::cpu_backend;
  }
  std::optional<render::FieldStats> upload_stats() override { return stats_; }

 private:
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
  const Heat2DSetup& setup() const override { return sim_.setup(); }
  double copy_gbps() const override { return copy_gbps_; }
  void reset() override {
    sim_.reset();
    stats_pending_ = false;
  }
  void set_order(int order) override { sim_.set_order(order); }
  void start_batch(Heat2DVariant variant, int n) override {
    if (!is_gpu(variant)) throw Error(fmt::format("variant {} does not run on the GPU backend", to_string(variant)));
    sim_.step_timed_async(variant, n);
  }
  std::optional<double> finished_batch_ms() override { return sim_.finished_batch_ms(); }
  bool idle() const override { return sim_.idle(); }
  void wait() override { sim_.synchronize(); }
  void paint(const Brush& brush) override { sim_.paint(brush); }
  long steps_done() const override { return sim_.steps_done(); }
  void copy_interior(std::vector<float>& out) override {
    out.resize(setup().grid.points());
    sim_.copy_interior_to_host(out.data());
  }
  void load_interior(const std::vector<float>& interior, long steps_done) override {
    sim_.load_interior(interior.data(), steps_done);
  }
  UploadPath upload(render::FieldTexture& texture, bool allow_interop) override {
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

}  // namespace

std::unique_ptr<SimBackend> make_host_backend(const Heat2DSetup& setup) { return std::make_unique<HostBackend>(setup); }

std::unique_ptr<SimBackend> make_device_backend(const Heat2DSetup& setup) {
  std::string why;
  if (!cuda_available(&why)) throw Error("no CUDA device: " + why);
  return std::make_unique<DeviceBackend>(setup);
}

}  // namespace ss::app
