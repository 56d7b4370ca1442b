// GPU backend of deriv3d: input and output buffers, the boundary step on the
// input, and one launch per derivative whatever the variant. The posts' own
// kernels (deriv3d_posts.cu) also get dense copies of the interior, their layout.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "sim/core/cuda_check.cuh"
#include "sim/core/slice3d_kernels.cuh"
#include "sim/models/deriv3d/deriv3d_kernels.cuh"
#include "sim/models/deriv3d/deriv3d_posts.cuh"
#include "sim/core/ghost3d_kernels.cuh"
#include "sim/models/deriv3d/deriv3d.hpp"
#include "sim/core/device.hpp"

namespace ss {

namespace {

constexpr unsigned kMaxGridYZ = 65535;
constexpr int kMaxThreads = 1024;

// Threads per block and shared bytes of the posts' pencil kernels (whole axis per block).
struct PencilShape {
  dim3 block;
  std::size_t smem = 0;
};

PencilShape pencil_shape(const Grid3D& g, Deriv3DVariant v, Axis a, int R, std::size_t value_bytes) {
  const int P = v == Deriv3DVariant::spencil ? kSPencils : kLPencils;
  PencilShape s;
  if (a == Axis::x) {
    s.block = dim3(g.nx, kSPencils);
    s.smem = static_cast<std::size_t>(P) * (g.nx + 2 * R) * value_bytes;
  } else {
    const int n = a == Axis::y ? g.ny : g.nz;
    // The posts: (sPencils, n) threads for small pencils, (lPencils, n * sPencils / lPencils) for large.
    const int by = v == Deriv3DVariant::spencil ? n : (n * kSPencils + kLPencils - 1) / kLPencils;
    s.block = dim3(P, by);
    s.smem = static_cast<std::size_t>(n + 2 * R) * P * value_bytes;
  }
  return s;
}

// Strip length along the axis for stream y/z: enough strips for ~16 blocks per SM,
// no strip shorter than 16 rows (each strip reads 2R rows twice).
int stream_strip(int n, long long blocks_xy, int sm_count) {
  const long long want = 16LL * sm_count;
  const long long strips = std::max<long long>(1, (want + blocks_xy - 1) / blocks_xy);
  const long long len = (n + strips - 1) / strips;
  return static_cast<int>(std::clamp<long long>(len, std::min(n, 16), n));
}

}  // namespace

template <typename T>
struct DeviceDeriv3D<T>::Impl {
  Deriv3DSetup setup;
  CudaStream stream;
  CudaEvent t0, t1;
  DeviceBuffer<T> in, out;
  DeviceBuffer<T> slice;  // gather target of copy_output_slice_to_host
  DeviceBuffer<GhostRule3D<T>> rule{1};
  // The posts' kernels index a dense n^3 array (k*n*n + j*n + i): the interior of
  // `in` is copied into posts_f before they run and posts_df back into `out` after,
  // outside any timed span. Allocated on their first run.
  DeviceBuffer<T> posts_f, posts_df;
  int sm_count = 0;
  int max_smem_optin = 0;
  DerivCoeffs<T> coeffs[3];

  explicit Impl(const Deriv3DSetup& s) : setup(s) {
    int dev = 0;
    SS_CUDA_CHECK(cudaGetDevice(&dev));
    SS_CUDA_CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, dev));
    SS_CUDA_CHECK(cudaDeviceGetAttribute(&max_smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    check_device_memory(2 * s.grid.elements() * sizeof(T), "this grid");
    in = DeviceBuffer<T>(s.grid.elements());
    out = DeviceBuffer<T>(s.grid.elements());
    for (Axis a : kAllAxes) coeffs[static_cast<int>(a)] = deriv_coeffs<T>(s.config.order, s.h[static_cast<int>(a)]);
    const GhostRule3D<T> periodic = simple_ghost_rule3d<T>(Boundary::periodic);
    SS_CUDA_CHECK(cudaMemcpy(rule.get(), &periodic, sizeof(periodic), cudaMemcpyHostToDevice));
  }

  void upload_constants() {
    if constexpr (sizeof(T) == 4)
      SS_CUDA_CHECK(cudaMemcpyToSymbolAsync(c_deriv_f32, coeffs, sizeof(coeffs), 0, cudaMemcpyHostToDevice, stream.get()));
    else
      SS_CUDA_CHECK(cudaMemcpyToSymbolAsync(c_deriv_f64, coeffs, sizeof(coeffs), 0, cudaMemcpyHostToDevice, stream.get()));
  }

  std::string unsupported(Deriv3DVariant v, Axis a) const {
    if (is_posts_kernel(v)) return posts_kernels_unsupported<T>(setup);
    if (v != Deriv3DVariant::spencil && v != Deriv3DVariant::lpencil) return {};
    const PencilShape s = pencil_shape(setup.grid, v, a, radius_of_order(setup.config.order), sizeof(T));
    const long long threads = static_cast<long long>(s.block.x) * s.block.y;
    const std::string name(to_string(v)), axis(to_string(a));
    if (threads > kMaxThreads)
      return name + " holds a whole " + axis + " pencil in one block of " + std::to_string(s.block.x) + "x" +
             std::to_string(s.block.y) + " threads (limit " + std::to_string(kMaxThreads) +
             "): the posts' kernels stop at 256 points per axis";
    if (s.smem > static_cast<std::size_t>(max_smem_optin))
      return name + " along " + axis + " needs " + std::to_string(s.smem) + " bytes of shared memory per block (limit " +
             std::to_string(max_smem_optin) + ")";
    return {};
  }

  template <int R, int A>
  void launch_axis(Deriv3DVariant v) {
    const Grid3D& g = setup.grid;
    cudaStream_t st = stream.get();
    const Deriv3DArgs<T> args{in.get(), out.get(), g, coeffs[A]};
    switch (v) {
      case Deriv3DVariant::global: {
        const dim3 grid(blocks_for(g.nx, kDerivGlobalBX), blocks_for(g.ny, kDerivGlobalBY),
                        std::min<unsigned>(g.nz, kMaxGridYZ));
        if (grid.y > kMaxGridYZ) throw Error("global: ny " + std::to_string(g.ny) + " is too large for this launch");
        deriv3d_global<T, R, A><<<grid, dim3(kDerivGlobalBX, kDerivGlobalBY), 0, st>>>(args);
        SS_CUDA_LAUNCH_CHECK("deriv3d_global");
        return;
      }
      case Deriv3DVariant::spencil:
      case Deriv3DVariant::lpencil: {
        const std::string why = unsupported(v, static_cast<Axis>(A));
        if (!why.empty()) throw Error(why);
        const PencilShape s = pencil_shape(g, v, static_cast<Axis>(A), R, sizeof(T));
        const bool small = v == Deriv3DVariant::spencil;
        auto go = [&](auto kernel, dim3 grid) {
          if (s.smem > 48 * 1024)
            SS_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(s.smem)));
          kernel<<<grid, s.block, s.smem, st>>>(in.get(), out.get(), g);
          SS_CUDA_LAUNCH_CHECK("deriv3d_pencil");
        };
        if constexpr (A == 0) {
          const dim3 grid(blocks_for(g.ny, small ? kSPencils : kLPencils), std::min<unsigned>(g.nz, kMaxGridYZ));
          if (small) go(deriv3d_pencil_x<T, R, kSPencils>, grid);
          else go(deriv3d_pencil_x<T, R, kLPencils>, grid);
        } else {
          const int n_other = A == 1 ? g.nz : g.ny;
          const dim3 grid(blocks_for(g.nx, small ? kSPencils : kLPencils), std::min<unsigned>(n_other, kMaxGridYZ));
          if (small) go(deriv3d_pencil_yz<T, R, kSPencils, A>, grid);
          else go(deriv3d_pencil_yz<T, R, kLPencils, A>, grid);
        }
        return;
      }
      case Deriv3DVariant::stream: {
        constexpr int W = Pack<T>::n;
        const long long packs = (g.nx + W - 1) / W;
        if constexpr (A == 0) {
          const long long rows = static_cast<long long>(g.ny) * g.nz;
          const dim3 grid(static_cast<unsigned>(std::min<long long>(blocks_for(packs, kStreamXThreadsX), (1LL << 31) - 1)),
                          std::min<unsigned>(blocks_for(rows, kStreamXThreadsY * kStreamXRows), kMaxGridYZ));
          launch_pdl("deriv3d_stream_x", deriv3d_stream_x<T, R>, grid, dim3(kStreamXThreadsX, kStreamXThreadsY), 0, st, args);
        } else {
          const int n = A == 1 ? g.ny : g.nz, n_other = A == 1 ? g.nz : g.ny;
          const long long bx = blocks_for(packs, kStreamYZThreadsX);
          const long long by = std::min<long long>(blocks_for(n_other, kStreamYZThreadsY), kMaxGridYZ);
          const int strip = stream_strip(n, bx * by, sm_count);
          const unsigned bz = blocks_for(n, strip);
          if (bx > (1LL << 31) - 1 || bz > kMaxGridYZ) throw Error("stream: grid too large for this launch");
          launch_pdl("deriv3d_stream_yz", deriv3d_stream_yz<T, R, A>, dim3(bx, by, bz), dim3(kStreamYZThreadsX, kStreamYZThreadsY), 0,
                     st, args, strip);
        }
        return;
      }
      default:
        throw Error("variant '" + std::string(to_string(v)) + "' does not run on the GPU");
    }
  }

  // The interior of a padded field to a dense n^3 array, or back, on the stream.
  void copy_interior_to_dense(const T* padded_src, T* dense_dst) { copy_dense_interior(padded_src, true, dense_dst); }
  void copy_dense_to_interior(const T* dense_src, T* padded_dst) { copy_dense_interior(dense_src, false, padded_dst); }
  void copy_dense_interior(const T* src, bool src_padded, T* dst) {
    const Grid3D& g = setup.grid;
    const std::size_t row_bytes = static_cast<std::size_t>(g.nx) * sizeof(T);
    const cudaPitchedPtr padded = make_cudaPitchedPtr(nullptr, g.pitch * sizeof(T), g.pitch * sizeof(T), g.rows_per_plane());
    const cudaPitchedPtr dense = make_cudaPitchedPtr(nullptr, row_bytes, row_bytes, g.ny);
    const cudaPos interior = make_cudaPos(g.x0 * sizeof(T), kGhost, kGhost);
    cudaMemcpy3DParms p{};
    p.srcPtr = src_padded ? padded : dense;
    p.srcPtr.ptr = const_cast<T*>(src);
    p.dstPtr = src_padded ? dense : padded;
    p.dstPtr.ptr = dst;
    if (src_padded) p.srcPos = interior;
    else p.dstPos = interior;
    p.extent = make_cudaExtent(row_bytes, g.ny, g.nz);
    p.kind = cudaMemcpyDeviceToDevice;
    SS_CUDA_CHECK(cudaMemcpy3DAsync(&p, stream.get()));
  }

  // Before the posts' kernels run: their dense buffers (allocated once, the output
  // NaN so that a point they miss shows), the current input and their coefficients.
  void posts_prepare(Deriv3DVariant v, Axis a) {
    const std::string why = unsupported(v, a);
    if (!why.empty()) throw Error(why);
    if (!posts_f.get()) {
      check_device_memory(2 * setup.grid.points() * sizeof(T), "the posts' dense copies of this grid");
      posts_f = DeviceBuffer<T>(setup.grid.points());
      posts_df = DeviceBuffer<T>(setup.grid.points());
      launch_fill_value3d(posts_df.get(), posts_df.size(), std::numeric_limits<T>::quiet_NaN(), stream.get());
    }
    copy_interior_to_dense(in.get(), posts_f.get());
    posts::set_derivative_parameters(setup.grid.nx, stream.get());
  }

  // One launch of the posts' kernel; posts_prepare first.
  void posts_launch(Deriv3DVariant v, Axis a) {
    if constexpr (sizeof(T) == sizeof(float))
      posts::launch(setup.grid.nx, a, v == Deriv3DVariant::posts_lpencil, posts_f.get(), posts_df.get(), stream.get());
    else
      throw Error(posts_kernels_unsupported<T>(setup));
  }

  // After the posts' kernels: their result into the interior of `out`.
  void posts_finish() { copy_dense_to_interior(posts_df.get(), out.get()); }

  void launch(Deriv3DVariant v, Axis a) {
    if (is_posts_kernel(v)) {
      posts_launch(v, a);
      return;
    }
    dispatch_radius(setup.config.order, [&]<int R>() {
      switch (a) {
        case Axis::x: launch_axis<R, 0>(v); break;
        case Axis::y: launch_axis<R, 1>(v); break;
        case Axis::z: launch_axis<R, 2>(v); break;
      }
    });
  }
};

template <typename T>
DeviceDeriv3D<T>::DeviceDeriv3D(const Deriv3DSetup& setup) {
  std::string why;
  if (!cuda_available(&why)) throw Error(why);
  impl_ = std::make_unique<Impl>(setup);
  set_input(deriv3d_input<T>(setup));
  // The output starts as a copy of the input, so that its ghosts and padding are defined.
  SS_CUDA_CHECK(cudaMemcpyAsync(impl_->out.get(), impl_->in.get(), impl_->in.bytes(), cudaMemcpyDeviceToDevice,
                                impl_->stream.get()));
  SS_CUDA_CHECK(cudaStreamSynchronize(impl_->stream.get()));
}

template <typename T>
DeviceDeriv3D<T>::~DeviceDeriv3D() = default;
template <typename T>
DeviceDeriv3D<T>::DeviceDeriv3D(DeviceDeriv3D&&) noexcept = default;
template <typename T>
DeviceDeriv3D<T>& DeviceDeriv3D<T>::operator=(DeviceDeriv3D&&) noexcept = default;

template <typename T>
void DeviceDeriv3D<T>::set_input(const std::vector<T>& padded) {
  Impl& m = *impl_;
  if (padded.size() != m.setup.grid.elements()) throw Error("DeviceDeriv3D::set_input: size differs from the grid");
  SS_CUDA_CHECK(cudaMemcpyAsync(m.in.get(), padded.data(), padded.size() * sizeof(T), cudaMemcpyHostToDevice,
                                m.stream.get()));
  launch_fill_ghosts3d(m.in.get(), m.setup.grid, m.rule.get(), m.stream.get());  // the boundary step
  SS_CUDA_CHECK(cudaStreamSynchronize(m.stream.get()));
}

template <typename T>
std::vector<T> DeviceDeriv3D<T>::download_input() const {
  std::vector<T> out(impl_->setup.grid.elements());
  SS_CUDA_CHECK(cudaStreamSynchronize(impl_->stream.get()));
  SS_CUDA_CHECK(cudaMemcpy(out.data(), impl_->in.get(), out.size() * sizeof(T), cudaMemcpyDeviceToHost));
  return out;
}

template <typename T>
std::string DeviceDeriv3D<T>::unsupported(Deriv3DVariant v, Axis a) const {
  return impl_->unsupported(v, a);
}

template <typename T>
void DeviceDeriv3D<T>::run(Deriv3DVariant v, Axis a) {
  if (is_posts_kernel(v)) {
    impl_->posts_prepare(v, a);
    impl_->launch(v, a);
    impl_->posts_finish();
    return;
  }
  if (v == Deriv3DVariant::spencil || v == Deriv3DVariant::lpencil) impl_->upload_constants();
  impl_->launch(v, a);
}

template <typename T>
double DeviceDeriv3D<T>::timed(Deriv3DVariant v, Axis a, int launches) {
  Impl& m = *impl_;
  if (launches < 1) throw Error("timed: at least one launch");
  if (v == Deriv3DVariant::spencil || v == Deriv3DVariant::lpencil) m.upload_constants();
  if (is_posts_kernel(v)) m.posts_prepare(v, a);  // the dense copy of the input, before the timed span
  m.launch(v, a);  // warm-up (and cudaFuncSetAttribute) outside the timed span
  SS_CUDA_CHECK(cudaEventRecord(m.t0.get(), m.stream.get()));
  for (int r = 0; r < launches; ++r) m.launch(v, a);
  SS_CUDA_CHECK(cudaEventRecord(m.t1.get(), m.stream.get()));
  if (is_posts_kernel(v)) m.posts_finish();  // the result into the output, after it
  return elapsed_ms(m.t0, m.t1) / launches;
}

template <typename T>
void DeviceDeriv3D<T>::poison_output() {
  Impl& m = *impl_;
  launch_fill_value3d(m.out.get(), m.out.size(), std::numeric_limits<T>::quiet_NaN(), m.stream.get());
  if (m.posts_df.get())
    launch_fill_value3d(m.posts_df.get(), m.posts_df.size(), std::numeric_limits<T>::quiet_NaN(), m.stream.get());
}

template <typename T>
std::vector<T> DeviceDeriv3D<T>::output_interior() const {
  const Impl& m = *impl_;
  const Grid3D& g = m.setup.grid;
  std::vector<T> out(g.points());
  // One strided 2D copy per plane (interior rows only).
  for (int k = 0; k < g.nz; ++k)
    SS_CUDA_CHECK(cudaMemcpy2DAsync(out.data() + static_cast<std::size_t>(k) * g.ny * g.nx, g.nx * sizeof(T),
                                    m.out.get() + g.index(0, 0, k), g.pitch * sizeof(T), g.nx * sizeof(T), g.ny,
                                    cudaMemcpyDeviceToHost, m.stream.get()));
  SS_CUDA_CHECK(cudaStreamSynchronize(m.stream.get()));
  return out;
}

template <typename T>
const Deriv3DSetup& DeviceDeriv3D<T>::setup() const {
  return impl_->setup;
}

template <typename T>
const T* DeviceDeriv3D<T>::device_output() const {
  return impl_->out.get();
}

template <typename T>
void* DeviceDeriv3D<T>::native_stream() const {
  return impl_->stream.get();
}

template <typename T>
void DeviceDeriv3D<T>::synchronize() {
  SS_CUDA_CHECK(cudaStreamSynchronize(impl_->stream.get()));
}

template <typename T>
bool DeviceDeriv3D<T>::idle() const {
  return stream_idle(impl_->stream.get());
}

template <typename T>
void DeviceDeriv3D<T>::copy_output_slice_to_host(SliceAxis axis, int position, T* dst) {
  Impl& m = *impl_;
  copy_slice_to_host_via<T>(m.out.get(), slice_view(m.setup.grid, axis, position), m.slice, dst, m.stream.get());
}

template class DeviceDeriv3D<float>;
template class DeviceDeriv3D<double>;

}  // namespace ss
