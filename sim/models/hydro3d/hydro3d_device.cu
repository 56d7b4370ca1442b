// GPU backend of hydro 3D: the four fields, the RK3 intermediates, the outputs, the
// divergence (19pt), the forcing tables and the view slices in device memory, on the
// object's own stream. A substep is: ghost zone of the fields, then the variant's
// kernel(s); a step is three substeps and, for turbulence, the forcing.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include <cufft.h>

#include "sim/core/cuda_check.cuh"
#include "sim/core/device.hpp"
#include "sim/models/hydro3d/hydro3d_kernels.cuh"
#include "sim/models/hydro3d/hydro3d_solver.hpp"

namespace ss {

namespace {

constexpr int kP19BX = 32, kP19BY = 4;
constexpr int kStreamBX = 32, kStreamBY = 8;

/// stream25d's tile: 32 x 16 in float (less halo per plane; two blocks of 512 threads
/// per SM with the 87 KB ring: 25.3 G cell-substeps/s at 256^3 on an H100 against 23.9
/// with 32 x 8), 32 x 8 in double (a 32 x 16 ring of 174 KB would leave one block per
/// SM). STENCILSCOPE_HYDRO_TILE=32x8 or 32x16 overrides it, for tuning.
template <typename T>
bool stream_tall_tile() {
  static const bool tall = [] {
    const char* e = std::getenv("STENCILSCOPE_HYDRO_TILE");
    if (e && std::string(e) == "32x16") return true;
    if (e && std::string(e) == "32x8") return false;
    return sizeof(T) == sizeof(float);
  }();
  return tall;
}

int sm_count() {
  static const int n = [] {
    int dev = 0, count = 0;
    SS_CUDA_CHECK(cudaGetDevice(&dev));
    SS_CUDA_CHECK(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, dev));
    return count;
  }();
  return n;
}

/// Planes per block of a 2.5D kernel (a slab): the slab count with the least waves x
/// (slab planes + 8), the 8 planes being what starting a slab costs (its 2R + 1 planes
/// read before the first output), ties to fewer slabs; at least 16 planes (or nz). At
/// 256^3 on an H100 (stream25d, float: 128 tiles of 32 x 16, 264 resident blocks) two
/// slabs of 128. STENCILSCOPE_HYDRO_SLAB=N asks for N planes, for tuning (H100, 256^3:
/// 32, 64 and 128 within 1%; 256, one wave with half the SMs idle, 30% slower).
int slab_planes(long long tiles, int nz, long long resident) {
  static const int forced = [] {
    const char* e = std::getenv("STENCILSCOPE_HYDRO_SLAB");
    return e ? std::max(0, std::atoi(e)) : 0;
  }();
  if (forced > 0) return std::min(forced, nz);
  constexpr int kSlabStart = 8, kMinPlanes = 16;
  int best = nz;
  long long best_cost = -1;
  for (int slabs = 1; slabs == 1 || (nz + slabs - 1) / slabs >= kMinPlanes; ++slabs) {
    const int planes = (nz + slabs - 1) / slabs;
    const long long waves = (tiles * slabs + resident - 1) / resident;
    const long long cost = waves * (planes + kSlabStart);
    if (best_cost < 0 || cost < best_cost) best_cost = cost, best = planes;
  }
  return best;
}

template <typename Kernel>
long long resident_blocks(Kernel kernel, int threads, std::size_t dynamic_smem) {
  if (dynamic_smem > 48 * 1024)
    SS_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(dynamic_smem)));
  int per_sm = 0;
  SS_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, dynamic_smem));
  if (per_sm < 1) throw Error("hydro3d: a kernel does not fit on this device");
  return static_cast<long long>(per_sm) * sm_count();
}

}  // namespace

template <typename T>
struct DeviceHydro3D<T>::Impl {
  Hydro3DSetup setup;
  HydroVariant variant;
  HydroWeights<T> w;
  HydroConstants<T> c;
  CudaStream stream;
  CudaEvent start, stop;
  bool timing = false;
  std::optional<double> last_ms;
  DeviceBuffer<T> f[kHydroFields], rk[kHydroFields], out[kHydroFields], div;
  DeviceBuffer<T> forcing_tables;
  DeviceBuffer<float> slices[3];
  DeviceBuffer<T> kick_buffer;
  DeviceBuffer<unsigned> speed_acc{2};
  std::vector<T> host_tables;
  long steps = 0;
  bool ghosts_valid = false;  ///< the ghost zones of f hold their periodic images
  // An adaptive dt lives on the device: its clock (dt, time), the dt in T the kernels read,
  // the forcing's amplitudes of the step. Behind each batch the clock is copied to pinned
  // memory (clock_copied records when), so the host can show it without waiting.
  DeviceBuffer<HydroClock> clock_dev{1};
  DeviceBuffer<T> dt_dev{1}, forcing_amp{3};
  PinnedBuffer<HydroClock> clock_host{1};
  CudaEvent clock_copied;
  long clock_copy_steps = 0;    ///< the step count the last queued copy belongs to
  mutable HydroClock read_clock;  ///< the last copy that had landed when asked
  mutable long read_steps = 0;
  bool dt_stale = false;  ///< a kick or load changed the state since dt was taken

  explicit Impl(const Hydro3DSetup& s, HydroVariant v)
      : setup(s), variant(v), w(hydro_weights<T>(s.h)), c(hydro_constants<T>(s)) {
    const std::size_t n = s.grid.elements();
    check_device_memory((3 * kHydroFields + 1) * n * sizeof(T), "hydro3d on this grid");
    for (int q = 0; q < kHydroFields; ++q) {
      f[q] = DeviceBuffer<T>(n);
      rk[q] = DeviceBuffer<T>(n);
      out[q] = DeviceBuffer<T>(n);
    }
    div = DeviceBuffer<T>(n);
    host_tables = hydro_forcing_tables<T>(s);
    if (!host_tables.empty()) {
      forcing_tables = DeviceBuffer<T>(host_tables.size());
      SS_CUDA_CHECK(cudaMemcpyAsync(forcing_tables.get(), host_tables.data(), host_tables.size() * sizeof(T),
                                    cudaMemcpyHostToDevice, stream.get()));
    }
    const Grid3D& g = s.grid;
    slices[0] = DeviceBuffer<float>(static_cast<std::size_t>(g.nx) * g.ny);
    slices[1] = DeviceBuffer<float>(static_cast<std::size_t>(g.nx) * g.nz);
    slices[2] = DeviceBuffer<float>(static_cast<std::size_t>(g.ny) * g.nz);
    // Everything a kernel might read outside what it writes is defined: zero the buffers.
    for (int q = 0; q < kHydroFields; ++q) {
      SS_CUDA_CHECK(cudaMemsetAsync(rk[q].get(), 0, n * sizeof(T), stream.get()));
      SS_CUDA_CHECK(cudaMemsetAsync(out[q].get(), 0, n * sizeof(T), stream.get()));
    }
    SS_CUDA_CHECK(cudaMemsetAsync(div.get(), 0, n * sizeof(T), stream.get()));
    reset();
  }

  void reset() {
    const auto init = hydro3d_initial_fields<T>(setup);
    for (int q = 0; q < kHydroFields; ++q)
      SS_CUDA_CHECK(cudaMemcpyAsync(f[q].get(), init[q].data(), init[q].size() * sizeof(T), cudaMemcpyHostToDevice,
                                    stream.get()));
    SS_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
    steps = 0;
    ghosts_valid = true;  // the initial fields come with their ghosts
    set_clock(HydroClock{setup.dt, 0, 0});
    dt_stale = false;
  }

  /// The clock on the device and as last read back (waits for the copy).
  void set_clock(const HydroClock& c) {
    const T dt_t = static_cast<T>(c.dt);
    *clock_host.get() = c;
    SS_CUDA_CHECK(cudaMemcpyAsync(clock_dev.get(), clock_host.get(), sizeof(HydroClock), cudaMemcpyHostToDevice, stream.get()));
    SS_CUDA_CHECK(cudaMemcpyAsync(dt_dev.get(), &dt_t, sizeof(T), cudaMemcpyHostToDevice, stream.get()));
    SS_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
    read_clock = c;
    read_steps = clock_copy_steps = steps;
  }

  bool recomputes_next() const { return setup.recomputes_dt_at(steps) || (setup.adaptive() && dt_stale); }

  /// Queues the |u|max reduction and hydro_take_dt: dt from the state now, on the device.
  void take_dt() {
    queue_max_speed();
    hydro_take_dt<T><<<1, 1, 0, stream.get()>>>(speed_acc.get(), hydro_dt_rule(setup), steps, clock_dev.get(), dt_dev.get());
    SS_CUDA_LAUNCH_CHECK("hydro_take_dt");
    dt_stale = false;
  }

  void queue_max_speed() {
    const Grid3D& g = setup.grid;
    cudaStream_t s = stream.get();
    SS_CUDA_CHECK(cudaMemsetAsync(speed_acc.get(), 0, 2 * sizeof(unsigned), s));
    hydro_max_speed2<T><<<4 * sm_count(), 256, 0, s>>>(f[0].get(), f[1].get(), f[2].get(), f[3].get(), g, speed_acc.get());
    SS_CUDA_LAUNCH_CHECK("hydro_max_speed2");
  }

  void fill_ghosts(const HydroFieldList<T>& list) {
    const long long cells = hydro_ghost_cells(setup.grid);
    const int blocks = static_cast<int>(std::min<long long>((cells + 255) / 256, 8LL * sm_count()));
    hydro_fill_ghosts<T><<<blocks, 256, 0, stream.get()>>>(list, setup.grid);
    SS_CUDA_LAUNCH_CHECK("hydro_fill_ghosts");
  }

  void fill_field_ghosts() {
    fill_ghosts(HydroFieldList<T>{{f[0].get(), f[1].get(), f[2].get(), f[3].get()}, kHydroFields});
    ghosts_valid = true;
  }
  /// Fills the ghost zones if they are stale (stream25d reads the periodic images
  /// directly and leaves them stale; the other variants and the views read them).
  void ensure_ghosts() {
    if (!ghosts_valid) fill_field_ghosts();
  }

  HydroBuffers<T> buffers() {
    HydroBuffers<T> b;
    for (int q = 0; q < kHydroFields; ++q) {
      b.f[q] = f[q].get();
      b.rk[q] = rk[q].get();
      b.out[q] = out[q].get();
    }
    b.div = div.get();
    return b;
  }

  void substep(int s) {
    const Grid3D& g = setup.grid;
    const HydroRk<T> r = hydro_rk<T>();
    const HydroStep<T> st{g, w, c, s, r.alpha[s], r.beta[s], setup.adaptive() ? dt_dev.get() : nullptr};
    if (variant != HydroVariant::stream25d) ensure_ghosts();
    const HydroBuffers<T> b = buffers();
    cudaStream_t cs = stream.get();
    switch (variant) {
      case HydroVariant::global: launch_hydro_global(b, st, cs); break;
      case HydroVariant::p55: {
        using S = P55Shape<T>;
        static const long long resident = resident_blocks(hydro_p55<T>, S::TX * S::TY * S::TZ, S::smem_bytes);
        (void)resident;  // throws where the tile does not fit
        launch_hydro_p55(b, st, cs);
        break;
      }
      case HydroVariant::p19: {
        using S = SlabShape<kP19BX, kP19BY>;
        const long long tiles = static_cast<long long>((g.nx + S::BX - 1) / S::BX) * ((g.ny + S::BY - 1) / S::BY);
        static const long long resident = resident_blocks(hydro_p19_first<T, kP19BX, kP19BY>, S::threads, 0);
        const int planes = slab_planes(tiles, g.nz, resident);
        const dim3 block(S::BX, S::BY), grid((g.nx + S::BX - 1) / S::BX, (g.ny + S::BY - 1) / S::BY, (g.nz + planes - 1) / planes);
        hydro_p19_first<T, kP19BX, kP19BY><<<grid, block, 0, cs>>>(b, st, planes);
        SS_CUDA_LAUNCH_CHECK("hydro_p19_first");
        fill_ghosts(HydroFieldList<T>{{div.get(), nullptr, nullptr, nullptr}, 1});
        hydro_p19_second<T, kP19BX, kP19BY><<<grid, block, 0, cs>>>(b, st, planes);
        SS_CUDA_LAUNCH_CHECK("hydro_p19_second");
        break;
      }
      case HydroVariant::stream25d:
        if (stream_tall_tile<T>()) launch_stream<32, 16>(b, st);
        else launch_stream<kStreamBX, kStreamBY>(b, st);
        break;
      default: throw Error(fmt_variant_error());
    }
    for (int q = 0; q < kHydroFields; ++q) std::swap(f[q], out[q]);
    ghosts_valid = false;
  }

  template <int BX, int BY>
  void launch_stream(const HydroBuffers<T>& b, const HydroStep<T>& st) {
    using S = StreamShape<T, BX, BY>;
    const Grid3D& g = setup.grid;
    const long long tiles = static_cast<long long>((g.nx + BX - 1) / BX) * ((g.ny + BY - 1) / BY);
    static const long long resident = resident_blocks(hydro_stream25d<T, BX, BY>, S::threads, S::smem_bytes);
    const int planes = slab_planes(tiles, g.nz, resident);
    const dim3 block(BX, BY), grid((g.nx + BX - 1) / BX, (g.ny + BY - 1) / BY, (g.nz + planes - 1) / planes);
    hydro_stream25d<T, BX, BY><<<grid, block, S::smem_bytes, stream.get()>>>(b, st, planes);
    SS_CUDA_LAUNCH_CHECK("hydro_stream25d");
  }

  std::string fmt_variant_error() const {
    return "hydro3d: variant " + std::string(to_string(variant)) + " does not run on the GPU";
  }

  void force() {
    if (setup.forcing_k.empty()) return;
    const HydroForcingStep fs = hydro_forcing_step(setup, steps);
    const Grid3D& g = setup.grid;
    const T* tab = forcing_tables.get() + static_cast<std::size_t>(fs.index) * hydro_forcing_stride(g);
    const dim3 block(32, 4), grid((g.nx + 31) / 32, (g.ny + 3) / 4, g.nz);
    const T* amp_dev = nullptr;  // a fixed dt: the amplitudes as arguments
    if (setup.adaptive()) {
      hydro_forcing_amps<T><<<1, 1, 0, stream.get()>>>(fs, clock_dev.get(), forcing_amp.get());
      SS_CUDA_LAUNCH_CHECK("hydro_forcing_amps");
      amp_dev = forcing_amp.get();
    }
    const double dt = setup.dt;
    hydro_force<T><<<grid, block, 0, stream.get()>>>(f[1].get(), f[2].get(), f[3].get(), g, g, make_int3(0, 0, 0), tab, amp_dev,
                                                   static_cast<T>(fs.amp_dt(dt, 0)), static_cast<T>(fs.amp_dt(dt, 1)),
                                                   static_cast<T>(fs.amp_dt(dt, 2)), static_cast<T>(fs.cos_phase),
                                                   static_cast<T>(fs.sin_phase));
    SS_CUDA_LAUNCH_CHECK("hydro_force");
    ghosts_valid = false;
  }

  void step(int n) {
    for (int t = 0; t < n; ++t) {
      if (recomputes_next()) take_dt();
      for (int s = 0; s < 3; ++s) substep(s);
      force();
      ++steps;
    }
    if (setup.adaptive() && n > 0) {  // the clock behind the batch, for the host to show later
      refresh_read_clock();             // keeps the previous copy if it has landed
      SS_CUDA_CHECK(cudaMemcpyAsync(clock_host.get(), clock_dev.get(), sizeof(HydroClock), cudaMemcpyDeviceToHost, stream.get()));
      SS_CUDA_CHECK(cudaEventRecord(clock_copied.get(), stream.get()));
      clock_copy_steps = steps;
    }
  }

  /// Takes the last queued copy of the clock once it has landed (never waits).
  void refresh_read_clock() const {
    const cudaError_t e = cudaEventQuery(clock_copied.get());
    if (e == cudaErrorNotReady) return;
    SS_CUDA_CHECK(e);
    read_clock = *clock_host.get();
    read_steps = clock_copy_steps;
  }
};

template <typename T>
DeviceHydro3D<T>::DeviceHydro3D(const Hydro3DSetup& setup, HydroVariant variant) {
  require_cuda_device();
  if (!is_gpu(variant)) throw Error("hydro3d: variant " + std::string(to_string(variant)) + " does not run on the GPU");
  impl_ = std::make_unique<Impl>(setup, variant);
}
template <typename T>
DeviceHydro3D<T>::~DeviceHydro3D() = default;

template <typename T>
void DeviceHydro3D<T>::reset() {
  impl_->reset();
}
template <typename T>
void DeviceHydro3D<T>::step(int n) {
  impl_->step(n);
}
template <typename T>
void DeviceHydro3D<T>::set_variant(HydroVariant v) {
  if (!is_gpu(v)) throw Error("hydro3d: variant " + std::string(to_string(v)) + " does not run on the GPU");
  impl_->variant = v;
}
template <typename T>
HydroVariant DeviceHydro3D<T>::variant() const {
  return impl_->variant;
}

template <typename T>
HydroState<T> DeviceHydro3D<T>::state() {
  const Grid3D& g = impl_->setup.grid;
  HydroState<T> st;
  std::vector<T> padded(g.elements());
  for (int q = 0; q < kHydroFields; ++q) {
    SS_CUDA_CHECK(cudaMemcpyAsync(padded.data(), impl_->f[q].get(), padded.size() * sizeof(T), cudaMemcpyDeviceToHost,
                                  impl_->stream.get()));
    SS_CUDA_CHECK(cudaStreamSynchronize(impl_->stream.get()));
    auto& v = st[static_cast<std::size_t>(q)];
    v.resize(g.points());
    std::size_t o = 0;
    for (int k = 0; k < g.nz; ++k)
      for (int j = 0; j < g.ny; ++j)
        for (int i = 0; i < g.nx; ++i) v[o++] = padded[g.index(i, j, k)];
  }
  return st;
}

template <typename T>
void DeviceHydro3D<T>::load_state(const HydroState<T>& st, long steps_done, const std::optional<HydroClock>& clock) {
  const Grid3D& g = impl_->setup.grid;
  std::vector<T> padded(g.elements(), T(0));
  for (int q = 0; q < kHydroFields; ++q) {
    const auto& v = st[static_cast<std::size_t>(q)];
    if (v.size() != g.points())
      throw Error("a hydro3d state of " + std::to_string(v.size()) + " cells does not fit this grid");
    std::size_t o = 0;
    for (int k = 0; k < g.nz; ++k)
      for (int j = 0; j < g.ny; ++j)
        for (int i = 0; i < g.nx; ++i) padded[g.index(i, j, k)] = v[o++];
    SS_CUDA_CHECK(cudaMemcpyAsync(impl_->f[q].get(), padded.data(), padded.size() * sizeof(T), cudaMemcpyHostToDevice,
                                  impl_->stream.get()));
    SS_CUDA_CHECK(cudaStreamSynchronize(impl_->stream.get()));
  }
  impl_->fill_field_ghosts();
  SS_CUDA_CHECK(cudaStreamSynchronize(impl_->stream.get()));
  impl_->steps = steps_done;
  impl_->set_clock(clock ? *clock : HydroClock{impl_->setup.dt, 0, 0});
  impl_->dt_stale = !clock;
}

template <typename T>
HydroClock DeviceHydro3D<T>::clock() {
  if (!impl_->setup.adaptive()) return HydroClock{impl_->setup.dt, 0, 0};
  SS_CUDA_CHECK(cudaStreamSynchronize(impl_->stream.get()));
  SS_CUDA_CHECK(cudaMemcpyAsync(impl_->clock_host.get(), impl_->clock_dev.get(), sizeof(HydroClock), cudaMemcpyDeviceToHost,
                                impl_->stream.get()));
  SS_CUDA_CHECK(cudaStreamSynchronize(impl_->stream.get()));
  impl_->read_clock = *impl_->clock_host.get();
  impl_->read_steps = impl_->clock_copy_steps = impl_->steps;
  return impl_->read_clock;
}

template <typename T>
std::pair<HydroClock, long> DeviceHydro3D<T>::clock_read_back() const {
  if (!impl_->setup.adaptive()) return {HydroClock{impl_->setup.dt, 0, 0}, impl_->steps};
  impl_->refresh_read_clock();
  return {impl_->read_clock, impl_->read_steps};
}

template <typename T>
bool DeviceHydro3D<T>::recomputes_next() const {
  return impl_->recomputes_next();
}

template <typename T>
void DeviceHydro3D<T>::kick(const HydroKick& kick) {
  const Grid3D& g = impl_->setup.grid;
  const std::size_t p = g.points();
  std::vector<T> du(3 * p);
  std::size_t o = 0;
  for (int k = 0; k < g.nz; ++k)
    for (int j = 0; j < g.ny; ++j)
      for (int i = 0; i < g.nx; ++i, ++o) {
        const auto d = hydro_kick_at(kick, g, i, j, k);
        for (int a = 0; a < 3; ++a) du[static_cast<std::size_t>(a) * p + o] = static_cast<T>(d[static_cast<std::size_t>(a)]);
      }
  if (impl_->kick_buffer.size() != du.size()) impl_->kick_buffer = DeviceBuffer<T>(du.size());
  SS_CUDA_CHECK(cudaMemcpyAsync(impl_->kick_buffer.get(), du.data(), du.size() * sizeof(T), cudaMemcpyHostToDevice,
                                impl_->stream.get()));
  const dim3 block(32, 4), grid((g.nx + 31) / 32, (g.ny + 3) / 4, g.nz);
  hydro_add_interior<T><<<grid, block, 0, impl_->stream.get()>>>(impl_->f[1].get(), impl_->f[2].get(), impl_->f[3].get(), g,
                                                                impl_->kick_buffer.get());
  SS_CUDA_LAUNCH_CHECK("hydro_add_interior");
  impl_->fill_field_ghosts();
  SS_CUDA_CHECK(cudaStreamSynchronize(impl_->stream.get()));  // du lives on the host stack
  impl_->dt_stale = true;
}

template <typename T>
HydroSpeed DeviceHydro3D<T>::max_speed() {
  cudaStream_t s = impl_->stream.get();
  impl_->queue_max_speed();
  unsigned acc[2];
  SS_CUDA_CHECK(cudaMemcpyAsync(acc, impl_->speed_acc.get(), sizeof(acc), cudaMemcpyDeviceToHost, s));
  SS_CUDA_CHECK(cudaStreamSynchronize(s));
  float u2;
  std::memcpy(&u2, &acc[0], sizeof(u2));
  return {std::sqrt(static_cast<double>(u2)), u2, acc[1] == 0};
}

namespace {

void check_cufft(cufftResult r, const char* what) {
  if (r != CUFFT_SUCCESS) throw Error(std::string("cuFFT: ") + what + " failed (cufftResult " + std::to_string(static_cast<int>(r)) + ")");
}

/// A cuFFT plan, destroyed with its owner.
struct FftPlan {
  cufftHandle h = 0;
  bool made = false;
  FftPlan() = default;
  FftPlan(const FftPlan&) = delete;
  FftPlan& operator=(const FftPlan&) = delete;
  ~FftPlan() {
    if (made) cufftDestroy(h);
  }
};

template <typename T>
struct FftTypes;
template <>
struct FftTypes<float> {
  using complex = cufftComplex;
  static constexpr cufftType type = CUFFT_R2C;
  static cufftResult exec(cufftHandle p, float* in, complex* out) { return cufftExecR2C(p, in, out); }
};
template <>
struct FftTypes<double> {
  using complex = cufftDoubleComplex;
  static constexpr cufftType type = CUFFT_D2Z;
  static cufftResult exec(cufftHandle p, double* in, complex* out) { return cufftExecD2Z(p, in, out); }
};

}  // namespace

template <typename T>
std::vector<double> DeviceHydro3D<T>::energy_spectrum() {
  using F = FftTypes<T>;
  const Grid3D& g = impl_->setup.grid;
  cudaStream_t s = impl_->stream.get();
  const std::size_t cells = g.points(), half = static_cast<std::size_t>(g.nx / 2 + 1);
  const std::size_t coefficients = static_cast<std::size_t>(g.nz) * g.ny * half;
  check_device_memory(cells * sizeof(T) + coefficients * sizeof(typename F::complex), "the energy spectrum's FFT");
  DeviceBuffer<T> dense(cells);
  DeviceBuffer<typename F::complex> coeff(coefficients);
  const int kmax = g.nx / 2;  // every axis's Nyquist wavenumber in units of 2 pi / box
  DeviceBuffer<double> e(static_cast<std::size_t>(kmax) + 1);
  SS_CUDA_CHECK(cudaMemsetAsync(e.get(), 0, e.bytes(), s));
  FftPlan plan;
  check_cufft(cufftPlan3d(&plan.h, g.nz, g.ny, g.nx, F::type), "planning the 3D transform");
  plan.made = true;
  check_cufft(cufftSetStream(plan.h, s), "setting the stream");
  const double norm = 1.0 / (static_cast<double>(cells) * static_cast<double>(cells));
  const dim3 block(32, 4), grid((g.nx + 31) / 32, (g.ny + 3) / 4, g.nz);
  for (int a = 1; a <= 3; ++a) {
    hydro_pack_momentum<T><<<grid, block, 0, s>>>(impl_->f[0].get(), impl_->f[a].get(), g, dense.get());
    SS_CUDA_LAUNCH_CHECK("hydro_pack_momentum");
    check_cufft(F::exec(plan.h, dense.get(), coeff.get()), "the forward transform");
    hydro_bin_spectrum<<<4 * sm_count(), 256, 0, s>>>(coeff.get(), g.nx, g.ny, g.nz, kmax, norm, e.get());
    SS_CUDA_LAUNCH_CHECK("hydro_bin_spectrum");
  }
  std::vector<double> out(e.size());
  SS_CUDA_CHECK(cudaMemcpyAsync(out.data(), e.get(), e.bytes(), cudaMemcpyDeviceToHost, s));
  SS_CUDA_CHECK(cudaStreamSynchronize(s));
  return out;
}

template <typename T>
void DeviceHydro3D<T>::poison_scratch() {
  const std::size_t n = impl_->setup.grid.elements();
  std::vector<T> nan(n, std::numeric_limits<T>::quiet_NaN());
  for (int q = 0; q < kHydroFields; ++q) {
    SS_CUDA_CHECK(cudaMemcpyAsync(impl_->rk[q].get(), nan.data(), n * sizeof(T), cudaMemcpyHostToDevice, impl_->stream.get()));
    SS_CUDA_CHECK(cudaMemcpyAsync(impl_->out[q].get(), nan.data(), n * sizeof(T), cudaMemcpyHostToDevice, impl_->stream.get()));
  }
  SS_CUDA_CHECK(cudaMemcpyAsync(impl_->div.get(), nan.data(), n * sizeof(T), cudaMemcpyHostToDevice, impl_->stream.get()));
  SS_CUDA_CHECK(cudaStreamSynchronize(impl_->stream.get()));
}

template <typename T>
const float* DeviceHydro3D<T>::slice_on_device(int q, int axis, int index) {
  const Grid3D& g = impl_->setup.grid;
  const int nu = axis == 2 ? g.ny : g.nx, nv = axis == 0 ? g.ny : g.nz;
  float* buf = impl_->slices[axis].get();
  impl_->ensure_ghosts();  // the derived quantities read neighbours
  const dim3 block(32, 8), grid((nu + 31) / 32, (nv + 7) / 8);
  hydro_slice_quantity<T><<<grid, block, 0, impl_->stream.get()>>>(impl_->f[0].get(), impl_->f[1].get(), impl_->f[2].get(),
                                                                  impl_->f[3].get(), g, impl_->w, q, axis, index, buf, nu, nv);
  SS_CUDA_LAUNCH_CHECK("hydro_slice_quantity");
  return buf;
}

template <typename T>
void DeviceHydro3D<T>::copy_slice(int q, int axis, int index, float* dst) {
  const Grid3D& g = impl_->setup.grid;
  const int nu = axis == 2 ? g.ny : g.nx, nv = axis == 0 ? g.ny : g.nz;
  const float* buf = slice_on_device(q, axis, index);
  SS_CUDA_CHECK(cudaMemcpyAsync(dst, buf, static_cast<std::size_t>(nu) * nv * sizeof(float), cudaMemcpyDeviceToHost,
                                impl_->stream.get()));
  SS_CUDA_CHECK(cudaStreamSynchronize(impl_->stream.get()));
}

template <typename T>
void DeviceHydro3D<T>::record_start() {
  SS_CUDA_CHECK(cudaEventRecord(impl_->start.get(), impl_->stream.get()));
  impl_->timing = true;
}
template <typename T>
void DeviceHydro3D<T>::record_stop() {
  SS_CUDA_CHECK(cudaEventRecord(impl_->stop.get(), impl_->stream.get()));
}
template <typename T>
std::optional<double> DeviceHydro3D<T>::batch_ms() {
  if (!impl_->timing) return impl_->last_ms;
  const cudaError_t e = cudaEventQuery(impl_->stop.get());
  if (e == cudaErrorNotReady) return std::nullopt;
  SS_CUDA_CHECK(e);
  float ms = 0;
  SS_CUDA_CHECK(cudaEventElapsedTime(&ms, impl_->start.get(), impl_->stop.get()));
  impl_->timing = false;
  impl_->last_ms = ms;
  return impl_->last_ms;
}
template <typename T>
bool DeviceHydro3D<T>::idle() const {
  return stream_idle(impl_->stream.get());
}
template <typename T>
void DeviceHydro3D<T>::synchronize() {
  SS_CUDA_CHECK(cudaStreamSynchronize(impl_->stream.get()));
}
template <typename T>
void* DeviceHydro3D<T>::native_stream() const {
  return impl_->stream.get();
}
template <typename T>
const Hydro3DSetup& DeviceHydro3D<T>::setup() const {
  return impl_->setup;
}
template <typename T>
long DeviceHydro3D<T>::steps_done() const {
  return impl_->steps;
}

template class DeviceHydro3D<float>;
template class DeviceHydro3D<double>;

}  // namespace ss
