// GPU backend of heat 2D: owns the two device buffers, the analytic tables and a
// stream; one launch per time step, whatever the variant.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "sim/core/cuda_check.cuh"
#include "sim/models/heat2d/heat2d_kernels.cuh"
#include "sim/core/device.hpp"
#include "sim/models/heat2d/heat2d_solver.hpp"

namespace ss {

namespace {

constexpr unsigned kMaxGridY = 65535;

template <typename T>
__global__ void fill_kernel(T* p, std::size_t n, T v) {
  for (std::size_t k = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; k < n;
       k += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    p[k] = v;
}

template <typename T>
__global__ void paint_kernel(T* f, Grid2D g, Brush b, int i0, int j0, int w, int h) {
  const int i = i0 + blockIdx.x * blockDim.x + threadIdx.x;
  for (int j = j0 + blockIdx.y * blockDim.y + threadIdx.y; j < j0 + h; j += gridDim.y * blockDim.y)
    if (i < i0 + w && in_brush(b, i, j)) f[g.index(i, j)] = static_cast<T>(b.value);
}


template <typename T>
__global__ void non_finite_kernel(const T* f, Grid2D g, int* flag) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int j = blockIdx.y; j < g.ny; j += gridDim.y)
    if (i < g.nx && !isfinite(f[g.index(i, j)])) *flag = 1;
}

template <typename T>
void launch_fill_ghosts(T* f, const Grid2D& g, const GhostRule<T>* rule, cudaStream_t s) {
  const unsigned blocks = std::min<unsigned>(blocks_for(ghost_frame_cells(g), 256), 4096);
  heat2d_fill_ghosts<T><<<blocks, 256, 0, s>>>(f, g, rule);
  SS_CUDA_LAUNCH_CHECK("heat2d_fill_ghosts");
}

// Strips of rows the `stream` blocks walk: heat2d_stream_strip_rows of the device, so
// that there are many more blocks than fit at once (docs/perf.md, sessions 5 and 22).
// STENCILSCOPE_STREAM_ROWS asks for strips of about that many rows instead, for tuning.
int stream_strips(const Grid2D& g) {
  static const int rows = [] {
    const char* e = std::getenv("STENCILSCOPE_STREAM_ROWS");
    const int forced = e ? std::max(0, std::atoi(e)) : 0;
    return forced > 0 ? forced : heat2d_stream_strip_rows(cuda_peak_gbps_per_sm());
  }();
  const long long strips = blocks_for(g.ny, rows);
  return static_cast<int>(std::clamp<long long>(strips, 1, g.ny));
}

// Whether `stream` takes its strips from the last one every other step
// (Heat2DStepArgs::strips_from_last), so that a step first reads the rows the step before
// wrote last; STENCILSCOPE_ALTERNATE=1 or 0 forces it (read once per process). The bits are
// the same either way. (heat3d's stream25d walking its slabs up and down in turn gained
// nothing on an H200: docs/perf.md, session 28.)
bool alternate_strips() {
  static const bool on = switch_from_env("STENCILSCOPE_ALTERNATE", true);
  return on;
}

// Packs each `stream` lane walks: 1, or 2 with STENCILSCOPE_STREAM_PACKS=2 (the
// kernel's PX; docs/perf.md, session 15), for tuning; "auto": 2 where DRAM is fast for
// the SMs (the H200, not the H100; see cuda_peak_gbps_per_sm), ready for a per-device
// default once the device runs have shown where two packs win.
int stream_packs() {
  static const int packs = [] {
    const char* e = std::getenv("STENCILSCOPE_STREAM_PACKS");
    const std::string v = e ? e : "";
    if (v == "auto") return cuda_peak_gbps_per_sm() > kSmBoundPeakGbpsPerSm ? 2 : 1;
    return v == "2" ? 2 : 1;
  }();
  return packs;
}

template <typename T, int R>
void launch_step(Heat2DVariant v, Heat2DStepArgs<T> a, cudaStream_t s, const GhostRule<T>* rule) {
  const Grid2D& g = a.g;
  auto grid_of = [&](int bx, long long rows_per_block) {
    a.block_rows_y = static_cast<int>(blocks_for(g.ny, rows_per_block));
    return dim3(blocks_for(g.nx, bx), std::min<unsigned>(a.block_rows_y, kMaxGridY));
  };
  switch (v) {
    case Heat2DVariant::global: {
      const dim3 grid = grid_of(kGlobalBX, kGlobalBY);
      heat2d_step_global<T, R><<<grid, dim3(kGlobalBX, kGlobalBY), 0, s>>>(a);
      SS_CUDA_LAUNCH_CHECK("heat2d_step_global");
      break;
    }
    case Heat2DVariant::block: {
      const dim3 grid = grid_of(kBlockBX, kBlockBY * kBlockRows);
      heat2d_step_block<T, R><<<grid, dim3(kBlockBX, kBlockBY), 0, s>>>(a);
      SS_CUDA_LAUNCH_CHECK("heat2d_step_block");
      break;
    }
    case Heat2DVariant::shared: {
      const dim3 grid = grid_of(kSharedBX, kSharedChunk * kSharedPasses);
      heat2d_step_shared<T, R><<<grid, dim3(kSharedBX, kSharedBY), 0, s>>>(a);
      SS_CUDA_LAUNCH_CHECK("heat2d_step_shared");
      break;
    }
    case Heat2DVariant::stream: {
      auto go = [&]<int PX>() {
        constexpr int threads = kStreamThreadsFor<PX>, tile = threads * Pack<T>::n * PX;
        a.block_rows_y = stream_strips(g);
        const dim3 grid(blocks_for(g.nx, tile), std::min<unsigned>(a.block_rows_y, kMaxGridY));
        launch_pdl("heat2d_step_stream", heat2d_step_stream<T, R, threads, PX>, grid, dim3(threads), 0, s, a, rule);
      };
      if (stream_packs() == 2) go.template operator()<2>();
      else go.template operator()<1>();
      return;  // the boundary step is fused into its epilogue
    }
    default:
      throw Error("variant '" + std::string(to_string(v)) + "' does not run on the GPU");
  }
  launch_fill_ghosts(a.out, g, rule, s);  // the explicit boundary step
}

}  // namespace

template <typename T>
struct DeviceHeat2D<T>::Impl {
  Heat2DSetup setup;
  CudaStream stream;
  CudaEvent t0, t1;
  BatchTimer batch;  // step_timed_async's batch
  DeviceBuffer<T> field[2];
  DeviceBuffer<int> flag{1};
  // Ghost rules (the analytic amplitudes change every step) live in device memory,
  // uploaded once per chunk of kRuleRing steps; kernels get a pointer, never a copy.
  static constexpr int kRuleRing = 256;
  DeviceBuffer<GhostRule<T>> rules{kRuleRing + 1};  // the last slot serves refresh_ghosts
  std::vector<GhostRule<T>> rules_host;
  std::vector<T> initial;  // host copy of the initial field, made once: reset() only uploads it
  DeviceBuffer<T> tables;
  int current = 0;
  long steps_done = 0;

  explicit Impl(const Heat2DSetup& s) : setup(s) {
    const std::vector<T> host_tables = analytic_tables<T>(s);
    check_device_memory(2 * s.grid.elements() * sizeof(T) + host_tables.size() * sizeof(T), "this grid");
    field[0] = DeviceBuffer<T>(s.grid.elements());
    field[1] = DeviceBuffer<T>(s.grid.elements());
    tables = DeviceBuffer<T>(std::max<std::size_t>(host_tables.size(), 1));
    if (!host_tables.empty())
      SS_CUDA_CHECK(cudaMemcpy(tables.get(), host_tables.data(), host_tables.size() * sizeof(T), cudaMemcpyHostToDevice));
  }

  void fill(T* p, T v) {
    fill_kernel<T><<<1024, 256, 0, stream.get()>>>(p, setup.grid.elements(), v);
    SS_CUDA_LAUNCH_CHECK("fill_kernel");
  }
};

template <typename T>
DeviceHeat2D<T>::DeviceHeat2D(const Heat2DSetup& setup) {
  std::string why;
  if (!cuda_available(&why)) throw Error(why);
  impl_ = std::make_unique<Impl>(setup);
  reset();
  // Both buffers start identical so that the fixed boundary's ghosts and the
  // padding hold defined values from the first step on.
  SS_CUDA_CHECK(cudaMemcpyAsync(impl_->field[1].get(), impl_->field[0].get(), impl_->field[0].bytes(),
                                cudaMemcpyDeviceToDevice, impl_->stream.get()));
  synchronize();
}

template <typename T>
DeviceHeat2D<T>::~DeviceHeat2D() = default;
template <typename T>
DeviceHeat2D<T>::DeviceHeat2D(DeviceHeat2D&&) noexcept = default;
template <typename T>
DeviceHeat2D<T>& DeviceHeat2D<T>::operator=(DeviceHeat2D&&) noexcept = default;

template <typename T>
void DeviceHeat2D<T>::reset() {
  Impl& m = *impl_;
  if (m.initial.empty()) m.initial = heat2d_initial_field<T>(m.setup);
  SS_CUDA_CHECK(cudaMemcpyAsync(m.field[m.current].get(), m.initial.data(), m.initial.size() * sizeof(T),
                                cudaMemcpyHostToDevice, m.stream.get()));
  SS_CUDA_CHECK(cudaStreamSynchronize(m.stream.get()));
  m.steps_done = 0;
}

template <typename T>
void DeviceHeat2D<T>::step(Heat2DVariant variant, int n) {
  Impl& m = *impl_;
  const T c = static_cast<T>(m.setup.courant());
  dispatch_radius(m.setup.config.order, [&]<int R>() {
    for (int done = 0; done < n;) {
      // Stream-ordered upload: the slots are rewritten only after the kernels before it read them.
      const int chunk = std::min(n - done, Impl::kRuleRing);
      m.rules_host.resize(chunk);
      for (int k = 0; k < chunk; ++k)
        m.rules_host[k] = make_ghost_rule<T>(m.setup, (m.steps_done + k + 1) * m.setup.dt, m.tables.get());
      SS_CUDA_CHECK(cudaMemcpyAsync(m.rules.get(), m.rules_host.data(), chunk * sizeof(GhostRule<T>),
                                    cudaMemcpyHostToDevice, m.stream.get()));
      for (int k = 0; k < chunk; ++k) {
        Heat2DStepArgs<T> a{m.field[m.current].get(), m.field[1 - m.current].get(), m.setup.grid, c, 0};
        a.strips_from_last = variant == Heat2DVariant::stream && alternate_strips() && (m.steps_done & 1) != 0;
        launch_step<T, R>(variant, a, m.stream.get(), m.rules.get() + k);
        m.current = 1 - m.current;
        ++m.steps_done;
      }
      done += chunk;
    }
  });
}

template <typename T>
double DeviceHeat2D<T>::timed_steps(Heat2DVariant variant, int n) {
  Impl& m = *impl_;
  SS_CUDA_CHECK(cudaEventRecord(m.t0.get(), m.stream.get()));
  step(variant, n);
  SS_CUDA_CHECK(cudaEventRecord(m.t1.get(), m.stream.get()));
  return elapsed_ms(m.t0, m.t1);
}

template <typename T>
void DeviceHeat2D<T>::set_order(int order) {
  Heat2DConfig c = impl_->setup.config;
  c.order = order;
  impl_->setup = make_heat2d_setup(c);
  refresh_ghosts();  // the time of the field (steps x dt) moves with dt
}

template <typename T>
void DeviceHeat2D<T>::poison_scratch() {
  impl_->fill(impl_->field[1 - impl_->current].get(), std::numeric_limits<T>::quiet_NaN());
}

template <typename T>
void DeviceHeat2D<T>::synchronize() {
  SS_CUDA_CHECK(cudaStreamSynchronize(impl_->stream.get()));
}

template <typename T>
std::vector<T> DeviceHeat2D<T>::download() const {
  std::vector<T> out(impl_->setup.grid.elements());
  SS_CUDA_CHECK(cudaStreamSynchronize(impl_->stream.get()));
  SS_CUDA_CHECK(cudaMemcpy(out.data(), impl_->field[impl_->current].get(), out.size() * sizeof(T), cudaMemcpyDeviceToHost));
  return out;
}

template <typename T>
const T* DeviceHeat2D<T>::device_field() const {
  return impl_->field[impl_->current].get();
}
template <typename T>
const Heat2DSetup& DeviceHeat2D<T>::setup() const {
  return impl_->setup;
}
template <typename T>
long DeviceHeat2D<T>::steps_done() const {
  return impl_->steps_done;
}

template <typename T>
void DeviceHeat2D<T>::copy_interior_to_host(T* dst) const {
  const Impl& m = *impl_;
  const Grid2D& g = m.setup.grid;
  SS_CUDA_CHECK(cudaMemcpy2DAsync(dst, g.nx * sizeof(T), m.field[m.current].get() + g.index(0, 0), g.pitch * sizeof(T),
                                  g.nx * sizeof(T), g.ny, cudaMemcpyDeviceToHost, m.stream.get()));
  SS_CUDA_CHECK(cudaStreamSynchronize(m.stream.get()));
}

template <typename T>
void DeviceHeat2D<T>::load_interior(const T* interior, long steps_done) {
  Impl& m = *impl_;
  const Grid2D& g = m.setup.grid;
  SS_CUDA_CHECK(cudaMemcpy2DAsync(m.field[m.current].get() + g.index(0, 0), g.pitch * sizeof(T), interior,
                                  g.nx * sizeof(T), g.nx * sizeof(T), g.ny, cudaMemcpyHostToDevice, m.stream.get()));
  m.steps_done = steps_done;
  refresh_ghosts();
  synchronize();  // the caller's buffer may go away
}

template <typename T>
void* DeviceHeat2D<T>::native_stream() const {
  return impl_->stream.get();
}

template <typename T>
void DeviceHeat2D<T>::paint(const Brush& b) {
  Impl& m = *impl_;
  const Grid2D& g = m.setup.grid;
  const int i0 = std::max(0, static_cast<int>(std::floor(b.x - b.radius)));
  const int i1 = std::min(g.nx - 1, static_cast<int>(std::ceil(b.x + b.radius)));
  const int j0 = std::max(0, static_cast<int>(std::floor(b.y - b.radius)));
  const int j1 = std::min(g.ny - 1, static_cast<int>(std::ceil(b.y + b.radius)));
  if (i1 >= i0 && j1 >= j0) {
    const dim3 block(32, 8);
    const dim3 grid(blocks_for(i1 - i0 + 1, 32), std::min<unsigned>(blocks_for(j1 - j0 + 1, 8), kMaxGridY));
    paint_kernel<T><<<grid, block, 0, m.stream.get()>>>(m.field[m.current].get(), g, b, i0, j0, i1 - i0 + 1, j1 - j0 + 1);
    SS_CUDA_LAUNCH_CHECK("paint_kernel");
  }
  refresh_ghosts();
}

template <typename T>
void DeviceHeat2D<T>::refresh_ghosts() {
  Impl& m = *impl_;
  m.rules_host.assign(1, make_ghost_rule<T>(m.setup, m.steps_done * m.setup.dt, m.tables.get()));
  GhostRule<T>* slot = m.rules.get() + Impl::kRuleRing;
  SS_CUDA_CHECK(cudaMemcpyAsync(slot, m.rules_host.data(), sizeof(GhostRule<T>), cudaMemcpyHostToDevice, m.stream.get()));
  launch_fill_ghosts(m.field[m.current].get(), m.setup.grid, slot, m.stream.get());
}

template <typename T>
bool DeviceHeat2D<T>::all_finite() {
  Impl& m = *impl_;
  const Grid2D& g = m.setup.grid;
  SS_CUDA_CHECK(cudaMemsetAsync(m.flag.get(), 0, sizeof(int), m.stream.get()));
  non_finite_kernel<T><<<dim3(blocks_for(g.nx, 256), std::min(g.ny, 4096)), 256, 0, m.stream.get()>>>(
      m.field[m.current].get(), g, m.flag.get());
  SS_CUDA_LAUNCH_CHECK("non_finite_kernel");
  int flag = 0;
  SS_CUDA_CHECK(cudaMemcpyAsync(&flag, m.flag.get(), sizeof(int), cudaMemcpyDeviceToHost, m.stream.get()));
  SS_CUDA_CHECK(cudaStreamSynchronize(m.stream.get()));
  return flag == 0;
}

template <typename T>
void DeviceHeat2D<T>::step_timed_async(Heat2DVariant variant, int n) {
  Impl& m = *impl_;
  m.batch.begin(m.stream.get());
  step(variant, n);
  m.batch.end(m.stream.get());
}

template <typename T>
std::optional<double> DeviceHeat2D<T>::finished_batch_ms() {
  return impl_->batch.finished_ms();
}

template <typename T>
bool DeviceHeat2D<T>::idle() const {
  return stream_idle(impl_->stream.get());
}

template class DeviceHeat2D<float>;
template class DeviceHeat2D<double>;

}  // namespace ss
