#pragma once
// Derivative 3D: the problem of NVIDIA's "Finite Difference Methods in CUDA
// C/C++ (and Fortran), Part 1". On a periodic nx-by-ny-by-nz grid of the unit
// cube (point (i, j, k) at (i/nx, j/ny, k/nz)), compute df/dx, df/dy or df/dz of
//   f = cos(2 pi (x + y + z))
// with central first-derivative stencils of order 2..8. Along every axis f is the
// posts' cos(2 pi x) with a phase, so the error figures compare with theirs, and
// every neighbour offset changes the value, so a kernel reading the wrong axis fails.
#include <array>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/ghost3d.hpp"
#include "sim/core/grid3d.hpp"
#include "sim/core/hostdevice.hpp"
#include "sim/core/slice3d.hpp"
#include "sim/core/stencil.hpp"

namespace ss {

enum class Axis { x = 0, y = 1, z = 2 };
inline constexpr std::array kAllAxes = {Axis::x, Axis::y, Axis::z};

/// Kernel variants of deriv3d. GPU: global (one point per thread), spencil and
/// lpencil (our ports of the posts' 64x4 and 64x32 pencil tiles, whole axis per
/// tile, coefficients in constant memory), stream (ours: 16-byte packs, any size),
/// posts_spencil and posts_lpencil (the posts' own six kernels, compiled for 64^3
/// and 256^3, order 8, float: the baseline "as published"). CPU: cpu (shared
/// point function) and reference (double, plain loops).
enum class Deriv3DVariant { global, spencil, lpencil, stream, posts_spencil, posts_lpencil, cpu, reference };
inline constexpr std::array kAllDeriv3DVariants = {
    Deriv3DVariant::global,        Deriv3DVariant::spencil,       Deriv3DVariant::lpencil, Deriv3DVariant::stream,
    Deriv3DVariant::posts_spencil, Deriv3DVariant::posts_lpencil, Deriv3DVariant::cpu,     Deriv3DVariant::reference};
/// The GPU variants that compute through deriv_point: bitwise equal to `cpu`.
inline constexpr std::array kGpuDeriv3DVariants = {Deriv3DVariant::global, Deriv3DVariant::spencil,
                                                   Deriv3DVariant::lpencil, Deriv3DVariant::stream};
/// The posts' kernels as published: they sum the stencil their own way.
inline constexpr std::array kPostsDeriv3DVariants = {Deriv3DVariant::posts_spencil, Deriv3DVariant::posts_lpencil};

std::string_view to_string(Axis a);
std::string_view to_string(Deriv3DVariant v);
/// Parsers: throw ss::Error naming the bad word and the accepted ones.
Axis parse_axis(std::string_view s);
Deriv3DVariant parse_deriv3d_variant(std::string_view s);
/// True for the variants that run on a CUDA device.
bool is_gpu(Deriv3DVariant v);
/// True for the variants that compute through deriv_point, which makes them bitwise
/// equal to each other; false for the reference and the posts' kernels as published.
bool uses_deriv_point(Deriv3DVariant v);
/// True for posts_spencil and posts_lpencil.
bool is_posts_kernel(Deriv3DVariant v);

struct Deriv3DConfig {
  int nx = 64, ny = 64, nz = 64;  ///< grid points per axis (periodic, no duplicated end point)
  int order = 8;                  ///< 2, 4, 6 or 8
};

struct Deriv3DSetup {
  Deriv3DConfig config;
  Grid3D grid;
  std::array<double, 3> h{};  ///< spacing per axis: 1 / n

  /// Points along axis a.
  int extent(Axis a) const { return a == Axis::x ? grid.nx : a == Axis::y ? grid.ny : grid.nz; }
};

/// Validates the order and sizes; throws ss::Error naming the bad value.
Deriv3DSetup make_deriv3d_setup(const Deriv3DConfig& config);

/// Empty when the posts' kernels (posts_spencil, posts_lpencil) are built for this
/// setup in precision T: a 64^3 or 256^3 cube, order 8, float. Otherwise why not,
/// naming the setup. Needs no device.
template <typename T>
std::string posts_kernels_unsupported(const Deriv3DSetup& s);

/// f at grid point (i, j, k), in double.
double deriv3d_function(const Deriv3DSetup& s, int i, int j, int k);
/// The exact derivative of f along a at grid point (i, j, k).
double deriv3d_exact(const Deriv3DSetup& s, Axis a, int i, int j, int k);

/// Stencil weights scaled by 1/h: c[k-1] weights f(+k) - f(-k). Passed by value
/// (its indices are compile-time constants in every kernel) or held in constant memory.
template <typename T>
struct DerivCoeffs {
  T c[kMaxRadius] = {};
};

/// The coefficients of this order for spacing h, rounded to T once on the host.
template <typename T>
DerivCoeffs<T> deriv_coeffs(int order, double h);

/// The first-derivative point update every variant, CPU and GPU, computes;
/// v[m] = f(p + (m - R) e_axis). Differences first, outermost pair first, explicit
/// FMAs: the summation order is fixed here, which makes the variants bitwise identical.
template <typename T, int R>
SS_HD SS_FORCEINLINE T deriv_point(const T (&v)[2 * R + 1], const DerivCoeffs<T>& c) {
  T s = c.c[R - 1] * (v[2 * R] - v[0]);
SS_UNROLL
  for (int k = R - 1; k >= 1; --k) s = fma_t(c.c[k - 1], v[R + k] - v[R - k], s);
  return s;
}

/// The input field f in the padded layout, rounded to T, periodic ghosts filled.
template <typename T>
std::vector<T> deriv3d_input(const Deriv3DSetup& s);

/// The `cpu` variant: derivative along a of the padded field `in` (ghosts filled)
/// into the interior of the padded field `out` (OpenMP over planes).
template <typename T>
void deriv3d_cpu(const Deriv3DSetup& s, Axis a, const T* in, T* out);

/// The reference derivative along a in double, interior x fastest: f evaluated in
/// double into its own unpadded array, plain loops over the stencil with indices
/// wrapped by modulo (no ghost cells, no shared point function).
std::vector<double> deriv3d_reference(const Deriv3DSetup& s, Axis a);

/// The posts' error lines: RMS and maximum of |result - exact derivative|.
struct DerivErrors {
  double rms = 0;
  double max = 0;
  bool finite = true;
};
/// The exact derivative along a at every interior point, x fastest.
std::vector<double> deriv3d_exact_interior(const Deriv3DSetup& s, Axis a);
/// Errors of an interior (x fastest) against exact values of the same layout.
template <typename T>
DerivErrors deriv_errors(const std::vector<T>& interior, const std::vector<double>& exact);

/// GPU backend: the input field (ghosts filled on the device by the boundary step)
/// and one output field, on the object's own stream. Throws ss::Error without a device.
template <typename T>
class DeviceDeriv3D {
 public:
  explicit DeviceDeriv3D(const Deriv3DSetup& setup);
  ~DeviceDeriv3D();
  DeviceDeriv3D(DeviceDeriv3D&&) noexcept;
  DeviceDeriv3D& operator=(DeviceDeriv3D&&) noexcept;
  DeviceDeriv3D(const DeviceDeriv3D&) = delete;
  DeviceDeriv3D& operator=(const DeviceDeriv3D&) = delete;

  /// Uploads a padded input field and runs the periodic boundary step on the device
  /// (its ghost cells are rewritten). The constructor uploads deriv3d_input.
  void set_input(const std::vector<T>& padded);
  /// The padded input field as it is on the device (ghosts included).
  std::vector<T> download_input() const;
  /// Empty string when `variant` can run this grid along a; otherwise why not
  /// (the posts' pencils hold a whole axis in one thread block; the posts' own
  /// kernels exist for 64^3 and 256^3, order 8, float only).
  std::string unsupported(Deriv3DVariant variant, Axis a) const;
  /// Enqueues one derivative along a; throws ss::Error when unsupported(). The posts'
  /// kernels run on dense copies of the interior (their own layout): the input is
  /// copied there before the launch and the result back into the output after it.
  void run(Deriv3DVariant variant, Axis a);
  /// Runs `launches` derivatives and returns the mean time of one, in ms (CUDA events).
  /// The time covers the launches only (not the posts' dense copies).
  double timed(Deriv3DVariant variant, Axis a, int launches);
  /// Fills the whole padded output buffer with NaN (and the posts' dense output, if any).
  void poison_output();
  /// Device pointer to the padded output field; work on it must be ordered on native_stream().
  const T* device_output() const;
  /// The cudaStream_t (as void*) all work runs on.
  void* native_stream() const;
  /// Waits for the stream.
  void synchronize();
  /// True when the stream has no queued work left.
  bool idle() const;
  /// The output's slice at `position` (nu*nv values, u fastest), gathered on the device:
  /// only the slice crosses the bus (synchronous).
  void copy_output_slice_to_host(SliceAxis axis, int position, T* dst);
  /// The output interior, x fastest (synchronous).
  std::vector<T> output_interior() const;
  const Deriv3DSetup& setup() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ss
