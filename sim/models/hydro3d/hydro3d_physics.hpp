#pragma once
// The paper's physics tests (Pekkilä et al. 2017, Sect. 6) as measurements on a state:
// the viscous decay of a shear wave against eq 22, the spherical symmetry of a radial
// explosion (Fig. 6), and the shell-averaged kinetic energy spectrum of forced
// turbulence (Fig. 7, through FFTW).
#include <array>
#include <vector>

#include "sim/models/hydro3d/hydro3d_solver.hpp"

namespace ss {

/// RMS over the cells of |u - u_exact| at time t, u_exact = u0 exp(-nu k^2 t) sin(k x) e_y
/// (eq 22; k in units of 2 pi / box).
template <typename T>
double hydro_decay_rms_error(const HydroState<T>& st, const Hydro3DSetup& s, double t);
/// The exact amplitude u0 exp(-nu k^2 t).
double hydro_decay_amplitude(const Hydro3DSetup& s, double t);

/// Spherical symmetry of a state about the box centre (Fig. 6): the integrals of
/// rho - 1 and |u| along the 3 axes and the 4 body diagonals through the centre, over
/// the sphere inscribed in the box (|s| < box/2: each line sampled at its own grid
/// points, weighted by their spacing, h or sqrt(3) h), and their relative standard
/// deviations (standard deviation / |mean|).
struct HydroSymmetry {
  std::array<double, 7> rho{}, speed{};
  double rel_std_rho = 0, rel_std_speed = 0;
};
template <typename T>
HydroSymmetry hydro_explosion_symmetry(const HydroState<T>& st, const Hydro3DSetup& s);

/// The shell-averaged kinetic energy spectrum: E(k) = 1/2 sum over |k'| in [k - 1/2,
/// k + 1/2) of |FFT(sqrt(rho) u)|^2 / N^2, k = 0 .. nx/2 in units of 2 pi / box (the
/// Nyquist wavenumber pi / h of every axis; on a non-cubic grid a mode's k_y counts
/// in the same units, 2 pi / (ny h) being nx / ny of them), so that sum_k E(k) is the
/// mean of 1/2 rho |u|^2 (Parseval) for a field without energy beyond k = nx/2 (the
/// cube's corners). FFTW on the host.
template <typename T>
std::vector<double> hydro_energy_spectrum(const HydroState<T>& st, const Hydro3DSetup& s);

}  // namespace ss
