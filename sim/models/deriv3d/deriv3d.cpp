// Derivative 3D on the host: setup, the test function, the `cpu` variant (shared
// point function) and the double reference (independent plain loops).
#include "sim/models/deriv3d/deriv3d.hpp"

#include <cmath>
#include <numbers>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/core/parse_word.hpp"

namespace ss {

namespace {

constexpr double kTwoPi = 2 * std::numbers::pi;

double phase(const Deriv3DSetup& s, int i, int j, int k) {
  const Grid3D& g = s.grid;
  // Each term wrapped into [0, 1) first: the same phase for i and i + n, exactly.
  auto frac = [](int i, int n) { return static_cast<double>(((i % n) + n) % n) / n; };
  return kTwoPi * (frac(i, g.nx) + frac(j, g.ny) + frac(k, g.nz));
}

}  // namespace

std::string_view to_string(Axis a) { return a == Axis::x ? "x" : a == Axis::y ? "y" : "z"; }
std::string_view to_string(Deriv3DVariant v) {
  switch (v) {
    case Deriv3DVariant::global: return "global";
    case Deriv3DVariant::spencil: return "spencil";
    case Deriv3DVariant::lpencil: return "lpencil";
    case Deriv3DVariant::stream: return "stream";
    case Deriv3DVariant::posts_spencil: return "posts-spencil";
    case Deriv3DVariant::posts_lpencil: return "posts-lpencil";
    case Deriv3DVariant::cpu: return "cpu";
    case Deriv3DVariant::reference: return "reference";
  }
  return "?";
}
Axis parse_axis(std::string_view s) { return parse_word(s, kAllAxes, "axis"); }
Deriv3DVariant parse_deriv3d_variant(std::string_view s) { return parse_word(s, kAllDeriv3DVariants, "variant"); }
bool is_gpu(Deriv3DVariant v) { return v != Deriv3DVariant::cpu && v != Deriv3DVariant::reference; }
bool is_posts_kernel(Deriv3DVariant v) {
  return v == Deriv3DVariant::posts_spencil || v == Deriv3DVariant::posts_lpencil;
}
bool uses_deriv_point(Deriv3DVariant v) { return v != Deriv3DVariant::reference && !is_posts_kernel(v); }

Deriv3DSetup make_deriv3d_setup(const Deriv3DConfig& c) {
  check_order(c.order);
  Deriv3DSetup s;
  s.config = c;
  s.grid = Grid3D::make(c.nx, c.ny, c.nz);
  s.h = {1.0 / c.nx, 1.0 / c.ny, 1.0 / c.nz};
  return s;
}

template <typename T>
std::string posts_kernels_unsupported(const Deriv3DSetup& s) {
  const Grid3D& g = s.grid;
  const bool cube = g.nx == g.ny && g.ny == g.nz;
  // sim/src/deriv3d_posts.cu instantiates the posts' kernels for these sides only:
  // their mx, my, mz are compile-time constants.
  if (cube && (g.nx == 64 || g.nx == 256) && s.config.order == 8 && sizeof(T) == sizeof(float)) return {};
  return fmt::format("the posts' kernels are compiled for 64^3 and 256^3, order 8, float (this run: {}x{}x{}, order {}, {})",
                     g.nx, g.ny, g.nz, s.config.order, sizeof(T) == sizeof(float) ? "float" : "double");
}

double deriv3d_function(const Deriv3DSetup& s, int i, int j, int k) { return std::cos(phase(s, i, j, k)); }

double deriv3d_exact(const Deriv3DSetup& s, Axis, int i, int j, int k) { return -kTwoPi * std::sin(phase(s, i, j, k)); }

template <typename T>
DerivCoeffs<T> deriv_coeffs(int order, double h) {
  const auto w = first_derivative_weights_runtime(order);
  DerivCoeffs<T> c;
  for (int k = 1; k <= radius_of_order(order); ++k) c.c[k - 1] = static_cast<T>(w[k] / h);
  return c;
}

template <typename T>
std::vector<T> deriv3d_input(const Deriv3DSetup& s) {
  const Grid3D& g = s.grid;
  std::vector<T> f(g.elements(), T(0));
#pragma omp parallel for schedule(static)
  for (int k = 0; k < g.nz; ++k)
    for (int j = 0; j < g.ny; ++j)
      for (int i = 0; i < g.nx; ++i) f[g.index(i, j, k)] = static_cast<T>(deriv3d_function(s, i, j, k));
  fill_ghosts3d_host(f.data(), g, simple_ghost_rule3d<T>(Boundary::periodic));
  return f;
}

template <typename T>
void deriv3d_cpu(const Deriv3DSetup& s, Axis a, const T* in, T* out) {
  const Grid3D g = s.grid;
  const DerivCoeffs<T> c = deriv_coeffs<T>(s.config.order, s.h[static_cast<int>(a)]);
  const std::ptrdiff_t stride = a == Axis::x ? 1 : a == Axis::y ? g.pitch : static_cast<std::ptrdiff_t>(g.plane());
  dispatch_radius(s.config.order, [&]<int R>() {
#pragma omp parallel for schedule(static)
    for (int k = 0; k < g.nz; ++k)
      for (int j = 0; j < g.ny; ++j)
        for (int i = 0; i < g.nx; ++i) {
          const T* p = in + g.index(i, j, k);
          T v[2 * R + 1];
          for (int m = 0; m <= 2 * R; ++m) v[m] = p[(m - R) * stride];
          out[g.index(i, j, k)] = deriv_point<T, R>(v, c);
        }
  });
}

std::vector<double> deriv3d_reference(const Deriv3DSetup& s, Axis a) {
  const Grid3D& g = s.grid;
  const int nx = g.nx, ny = g.ny, nz = g.nz;
  const int R = radius_of_order(s.config.order);
  const auto w = first_derivative_weights_runtime(s.config.order);
  const double h = s.h[static_cast<int>(a)];
  const int di = a == Axis::x, dj = a == Axis::y, dk = a == Axis::z;
  auto at = [&](int i, int j, int k) { return (static_cast<std::size_t>(k) * ny + j) * nx + i; };
  std::vector<double> f(g.points()), out(g.points());
#pragma omp parallel for schedule(static)
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) f[at(i, j, k)] = deriv3d_function(s, i, j, k);
  auto wrap = [](int i, int n) { return (i % n + n) % n; };
#pragma omp parallel for schedule(static)
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) {
        double d = 0;
        for (int m = 1; m <= R; ++m)
          d += w[m] * (f[at(wrap(i + m * di, nx), wrap(j + m * dj, ny), wrap(k + m * dk, nz))] -
                       f[at(wrap(i - m * di, nx), wrap(j - m * dj, ny), wrap(k - m * dk, nz))]);
        out[at(i, j, k)] = d / h;
      }
  return out;
}

std::vector<double> deriv3d_exact_interior(const Deriv3DSetup& s, Axis a) {
  const Grid3D& g = s.grid;
  std::vector<double> out(g.points());
#pragma omp parallel for schedule(static)
  for (int k = 0; k < g.nz; ++k)
    for (int j = 0; j < g.ny; ++j)
      for (int i = 0; i < g.nx; ++i) out[(static_cast<std::size_t>(k) * g.ny + j) * g.nx + i] = deriv3d_exact(s, a, i, j, k);
  return out;
}

template <typename T>
DerivErrors deriv_errors(const std::vector<T>& interior, const std::vector<double>& exact) {
  if (interior.size() != exact.size()) throw Error("deriv_errors: sizes differ");
  const long long n = static_cast<long long>(exact.size());
  double sum = 0, max = 0;
  long long bad = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum, bad) reduction(max : max)
  for (long long p = 0; p < n; ++p) {
    const double x = static_cast<double>(interior[p]);
    if (!std::isfinite(x)) ++bad;
    const double d = std::abs(x - exact[p]);
    sum += d * d;
    max = std::max(max, d);
  }
  DerivErrors e;
  e.finite = bad == 0;
  e.rms = e.finite ? std::sqrt(sum / static_cast<double>(std::max(n, 1LL))) : INFINITY;
  e.max = e.finite ? max : INFINITY;
  return e;
}

#define SS_INSTANTIATE(T)                                                                          \
  template std::string posts_kernels_unsupported<T>(const Deriv3DSetup&);                          \
  template DerivCoeffs<T> deriv_coeffs<T>(int, double);                                            \
  template std::vector<T> deriv3d_input<T>(const Deriv3DSetup&);                                   \
  template void deriv3d_cpu<T>(const Deriv3DSetup&, Axis, const T*, T*);                           \
  template DerivErrors deriv_errors<T>(const std::vector<T>&, const std::vector<double>&);
SS_INSTANTIATE(float)
SS_INSTANTIATE(double)
#undef SS_INSTANTIATE

}  // namespace ss
