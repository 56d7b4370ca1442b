// The physics tests' measurements: decay error, explosion symmetry, energy spectrum.
#include "sim/models/hydro3d/hydro3d_physics.hpp"

#include <algorithm>
#include <cmath>
#include <complex>

#include <fftw3.h>

#include "sim/core/error.hpp"

namespace ss {

double hydro_decay_amplitude(const Hydro3DSetup& s, double t) {
  const double k = 2 * M_PI / s.config.box * s.config.k;
  return s.config.u0 * std::exp(-s.config.nu * k * k * t);
}

template <typename T>
double hydro_decay_rms_error(const HydroState<T>& st, const Hydro3DSetup& s, double t) {
  const Grid3D& g = s.grid;
  const double a = hydro_decay_amplitude(s, t), k = 2 * M_PI / s.config.box * s.config.k;
  double sum = 0;
  std::size_t o = 0;
  for (int kk = 0; kk < g.nz; ++kk)
    for (int j = 0; j < g.ny; ++j)
      for (int i = 0; i < g.nx; ++i, ++o) {
        const double ex = a * std::sin(k * s.x(i));
        const double dx = st[1][o], dy = st[2][o] - ex, dz = st[3][o];
        sum += dx * dx + dy * dy + dz * dz;
      }
  return std::sqrt(sum / static_cast<double>(g.points()));
}

template <typename T>
HydroSymmetry hydro_explosion_symmetry(const HydroState<T>& st, const Hydro3DSetup& s) {
  const Grid3D& g = s.grid;
  if (g.nx != g.ny || g.nx != g.nz || g.nx % 2 != 0)
    throw Error("the explosion symmetry needs a cubic grid of an even side (the centre on a cell)");
  const int n = g.nx, c = n / 2;
  const int dirs[7][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1}, {1, -1, 1}, {1, 1, -1}, {1, -1, -1}};
  HydroSymmetry out;
  auto wrap = [n](int i) { return ((i % n) + n) % n; };
  for (int d = 0; d < 7; ++d) {
    const bool diag = d >= 3;
    const double spacing = diag ? std::sqrt(3.0) * s.h : s.h;
    const double half = 0.5 * s.config.box;
    double rho = 0, speed = 0;
    for (int m = -n; m <= n; ++m) {
      if (std::abs(m) * spacing >= half) continue;
      const int i = wrap(c + m * dirs[d][0]), j = wrap(c + m * dirs[d][1]), k = wrap(c + m * dirs[d][2]);
      const std::size_t o = (static_cast<std::size_t>(k) * g.ny + static_cast<std::size_t>(j)) * g.nx + static_cast<std::size_t>(i);
      const double ux = st[1][o], uy = st[2][o], uz = st[3][o];
      rho += (std::exp(static_cast<double>(st[0][o])) - 1.0) * spacing;
      speed += std::sqrt(ux * ux + uy * uy + uz * uz) * spacing;
    }
    out.rho[static_cast<std::size_t>(d)] = rho;
    out.speed[static_cast<std::size_t>(d)] = speed;
  }
  auto rel_std = [](const std::array<double, 7>& v) {
    double mean = 0, var = 0;
    for (double x : v) mean += x / 7;
    for (double x : v) var += (x - mean) * (x - mean) / 7;
    return std::sqrt(var) / std::abs(mean);
  };
  out.rel_std_rho = rel_std(out.rho);
  out.rel_std_speed = rel_std(out.speed);
  return out;
}

template <typename T>
std::vector<double> hydro_energy_spectrum(const HydroState<T>& st, const Hydro3DSetup& s) {
  const Grid3D& g = s.grid;
  const int nx = g.nx, ny = g.ny, nz = g.nz;
  const std::size_t cells = g.points(), half = static_cast<std::size_t>(nx / 2 + 1);
  // Wavenumbers in units of 2 pi / box (box = nx h): index j along y is j nx / ny of
  // them. Every axis has the same Nyquist wavenumber, pi / h = nx / 2 of them.
  const int kmax = nx / 2;
  const double to_y = static_cast<double>(nx) / ny, to_z = static_cast<double>(nx) / nz;
  std::vector<double> e(static_cast<std::size_t>(kmax) + 1, 0.0);
  double* in = fftw_alloc_real(cells);
  fftw_complex* out = fftw_alloc_complex(static_cast<std::size_t>(nz) * ny * half);
  if (!in || !out) throw Error("out of host memory for the energy spectrum's FFT");
  fftw_plan plan = fftw_plan_dft_r2c_3d(nz, ny, nx, in, out, FFTW_ESTIMATE);
  const double norm = 1.0 / (static_cast<double>(cells) * static_cast<double>(cells));
  for (int a = 1; a <= 3; ++a) {
    for (std::size_t c = 0; c < cells; ++c)
      in[c] = std::sqrt(std::exp(static_cast<double>(st[0][c]))) * static_cast<double>(st[static_cast<std::size_t>(a)][c]);
    fftw_execute(plan);
    for (int k = 0; k < nz; ++k)
      for (int j = 0; j < ny; ++j)
        for (std::size_t i = 0; i < half; ++i) {
          const double kx = static_cast<double>(i), ky = (j <= ny / 2 ? j : j - ny) * to_y,
                       kz = (k <= nz / 2 ? k : k - nz) * to_z;
          const double kk = std::sqrt(kx * kx + ky * ky + kz * kz);
          const long shell = std::lround(kk);
          if (shell > kmax) continue;
          const fftw_complex& v = out[(static_cast<std::size_t>(k) * ny + static_cast<std::size_t>(j)) * half + i];
          // r2c stores half the x modes: the others are conjugates (count twice, except
          // kx = 0 and the Nyquist plane of an even nx)
          const double weight = (i == 0 || (nx % 2 == 0 && i == half - 1)) ? 1.0 : 2.0;
          e[static_cast<std::size_t>(shell)] += 0.5 * weight * (v[0] * v[0] + v[1] * v[1]) * norm;
        }
  }
  fftw_destroy_plan(plan);
  fftw_free(in);
  fftw_free(out);
  return e;
}

template double hydro_decay_rms_error<float>(const HydroState<float>&, const Hydro3DSetup&, double);
template double hydro_decay_rms_error<double>(const HydroState<double>&, const Hydro3DSetup&, double);
template HydroSymmetry hydro_explosion_symmetry<float>(const HydroState<float>&, const Hydro3DSetup&);
template HydroSymmetry hydro_explosion_symmetry<double>(const HydroState<double>&, const Hydro3DSetup&);
template std::vector<double> hydro_energy_spectrum<float>(const HydroState<float>&, const Hydro3DSetup&);
template std::vector<double> hydro_energy_spectrum<double>(const HydroState<double>&, const Hydro3DSetup&);

}  // namespace ss
