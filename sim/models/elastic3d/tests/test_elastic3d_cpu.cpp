// elastic3d on the host: the physics (Stokes' solution of a point force, spatial
// convergence orders, VTI qP speeds, energy, the sponge's reflection), the `cpu` variant
// against the independent double reference, the setup and bad input. Measured figures are
// printed as "[ MEASURED ]" lines.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <numbers>

#include <fmt/format.h>

#include "sim/bench/report.hpp"  // ErrorNorms, compare_to_reference
#include "sim/core/error.hpp"
#include "sim/core/model.hpp"
#include "sim/core/npy.hpp"
#include "sim/core/wavelet.hpp"
#include "sim/models/elastic3d/elastic3d_solver.hpp"

namespace ss {
namespace {

constexpr double pi = std::numbers::pi;

template <typename T>
std::vector<T> flat(const ElasticState<T>& s) {
  std::vector<T> out;
  for (const auto& c : s.u) out.insert(out.end(), c.begin(), c.end());
  return out;
}

// ---- the cpu variant against the reference ---------------------------------------

Elastic3DConfig small_case(int order, int kind) {
  Elastic3DConfig c;
  c.nx = 23, c.ny = 19, c.nz = 17, c.order = order;
  c.f0 = 40;
  switch (kind) {
    case 0:
      c.boundary = ElasticBoundary::sponge, c.top = ElasticTop::free, c.src_z = 2;
      c.source_kind = ElasticSource::explosion;
      break;
    case 1:
      c.boundary = ElasticBoundary::sponge, c.top = ElasticTop::absorbing, c.medium = ElasticMedium::layered;
      c.anisotropy = Anisotropy::thomsen, c.force_dir = {1, 0.5, 2}, c.rec_z = 4;
      break;
    case 2:
      c.boundary = ElasticBoundary::periodic, c.medium = ElasticMedium::random, c.src_x = 1;
      c.force_dir = {0, 1, 0};
      break;
    case 3:  // CPML (5 nodes: a third of nz) under a free top
      c.boundary = ElasticBoundary::cpml, c.top = ElasticTop::free, c.src_z = 2;
      c.source_kind = ElasticSource::explosion;
      break;
    default:  // CPML on all six faces, the source near a corner
      c.boundary = ElasticBoundary::cpml, c.top = ElasticTop::absorbing, c.medium = ElasticMedium::layered;
      c.anisotropy = Anisotropy::thomsen, c.force_dir = {1, 0.5, 2}, c.rec_z = 4;
      c.src_x = 4, c.src_y = 15, c.src_z = 13;
      break;
  }
  return c;
}

std::string kind_name(int kind) {
  constexpr const char* names[] = {"free_explosion", "absorbing_layered_vti", "periodic_random", "cpml_free_explosion",
                                   "cpml_absorbing_layered_vti"};
  return names[kind];
}

class CpuVsReference : public ::testing::TestWithParam<std::tuple<int, int>> {};

TEST_P(CpuVsReference, FloatAndDoubleAfter100Steps) {
  const auto [order, kind] = GetParam();
  const Elastic3DSetup s = make_elastic3d_setup(small_case(order, kind));
  const int steps = 100;
  std::vector<double> ref_traces;
  const std::vector<double> ref = flat(elastic3d_reference(s, steps, &ref_traces));
  HostElastic3D<double> d(s);
  d.poison_scratch();
  d.step(steps);
  const ErrorNorms ed = compare_to_reference(flat(d.state()), ref);
  EXPECT_LT(ed.rel_l2, 1e-12);
  HostElastic3D<float> f(s);
  f.poison_scratch();
  f.step(steps);
  const ErrorNorms e = compare_to_reference(flat(f.state()), ref);
  EXPECT_TRUE(e.finite);
  EXPECT_GT(e.ref_l2, 0);
  EXPECT_LT(e.rel_l2, 1e-4);
  std::printf("[ MEASURED ] order %d, %s: cpu float rel L2 %.2e, double %.2e against the reference\n", order,
              kind_name(kind).c_str(), e.rel_l2, ed.rel_l2);
  ASSERT_EQ(f.traces().size(), ref_traces.size());
  EXPECT_LT(compare_to_reference(f.traces(), ref_traces).rel_l2, 1e-4);
  const Grid3D& g = s.grid;
  for (int c = 0; c < 3; ++c)
    for (int i = 0; i < g.nx; ++i)
      EXPECT_EQ(f.traces()[(static_cast<std::size_t>(steps - 1) * 3 + c) * g.nx + i],
                f.displacement(c)[g.index(i, s.src[1], s.config.rec_z)]);
}

INSTANTIATE_TEST_SUITE_P(OrdersAndBoundaries, CpuVsReference,
                         ::testing::Combine(::testing::Values(2, 4, 6, 8), ::testing::Values(0, 1, 2, 3, 4)),
                         [](const auto& info) {
                           return "order" + std::to_string(std::get<0>(info.param)) + "_" + kind_name(std::get<1>(info.param));
                         });


// ---- Stokes' solution of a point force -------------------------------------------

/// Aki & Richards (2002) eq. 4.23: the displacement at x = r gamma from a point force
/// F(t) f (f a unit vector) in a homogeneous isotropic medium, component i.
struct Stokes {
  double rho, alpha, beta;
  std::function<double(double)> force;  // F(t), N
  double u(int i, const std::array<double, 3>& gamma, const std::array<double, 3>& f, double r, double t) const {
    double gf = 0;
    for (int j = 0; j < 3; ++j) gf += gamma[j] * f[j];
    const double near_coef = 3 * gamma[i] * gf - f[i], far_p = gamma[i] * gf, far_s = gamma[i] * gf - f[i];
    // int_{r/alpha}^{r/beta} tau F(t - tau) dtau by Simpson's rule on 400 intervals.
    const int n = 400;
    const double a = r / alpha, b = r / beta, hq = (b - a) / n;
    double near = 0;
    for (int k = 0; k <= n; ++k) {
      const double tau = a + k * hq, w = k == 0 || k == n ? 1 : k % 2 ? 4 : 2;
      near += w * tau * force(t - tau);
    }
    near *= hq / 3;
    return (near_coef * near / (r * r * r) + far_p * force(t - r / alpha) / (alpha * alpha * r) -
            far_s * force(t - r / beta) / (beta * beta * r)) /
           (4 * pi * rho);
  }
};

/// Peak time of |trace| with a parabola through the largest sample and its neighbours.
double peak_time(const std::vector<double>& v, double dt, double t0) {
  std::size_t m = 0;
  for (std::size_t n = 1; n < v.size(); ++n)
    if (std::abs(v[n]) > std::abs(v[m])) m = n;
  if (m == 0 || m + 1 >= v.size()) return t0 + m * dt;
  const double a = std::abs(v[m - 1]), b = std::abs(v[m]), c = std::abs(v[m + 1]);
  return t0 + (m + 0.5 * (a - c) / (a - 2 * b + c)) * dt;
}

// Homogeneous isotropic periodic box, a point force along (1, 0, 1)/sqrt(2) at the
// centre (band-limited: spread over the source box, whose response is 1 within 5e-4 over
// the wavelet's band), receivers along x through it beyond the box: u_x carries the P wave (and near field), u_z the
// S wave (and near field). 5 nodes per minimum S wavelength (vs / (2.5 f0)), order 8; the
// window ends before the first periodic image of the P wave reaches the farthest receiver.
TEST(Elastic3DPhysics, PointForceMatchesStokesSolution) {
  Elastic3DConfig c;
  c.nx = c.ny = c.nz = 66;
  c.boundary = ElasticBoundary::periodic;
  c.vp = 3000, c.vs = 2000, c.rho = 2000, c.h = 10;
  c.f0 = c.vs / (2.5 * 5 * c.h);  // 16 Hz: 5 nodes per S wavelength at 2.5 f0
  c.force_dir = {1, 0, 1};
  const Elastic3DSetup s = make_elastic3d_setup(c);
  c.rec_z = s.src[2];
  const Elastic3DSetup setup = make_elastic3d_setup(c);
  const int rmax = 10;  // receivers at 8, 9 and 10 nodes: outside the source's box (8 nodes)
  ASSERT_GE(8, kSourceRadius);
  const double t_end = (c.nx - rmax) * c.h / c.vp + 0.5 / c.f0;  // the first image's onset
  ASSERT_GE(t_end, rmax * c.h / c.vs + 2.6 / c.f0) << "the S wavelet at the farthest receiver is in the window";
  const int steps = static_cast<int>(t_end / setup.dt);
  HostElastic3D<float> sim(setup);
  sim.step(steps);
  const Stokes stokes{c.rho, c.vp, c.vs, [&](double t) { return setup.source_strength * setup.ricker(t); }};
  const std::array<double, 3> f = setup.force_dir, gamma = {1, 0, 0};
  const int nx = c.nx;
  for (int r : {8, 9, rmax}) {
    for (int comp : {0, 2}) {
      std::vector<double> num, exact;
      for (int n = 0; n < steps; ++n) {
        num.push_back(sim.traces()[(static_cast<std::size_t>(n) * 3 + comp) * nx + setup.src[0] + r]);
        exact.push_back(stokes.u(comp, gamma, f, r * c.h, (n + 1) * setup.dt));
      }
      double diff = 0, norm = 0;
      for (int n = 0; n < steps; ++n) diff += (num[n] - exact[n]) * (num[n] - exact[n]), norm += exact[n] * exact[n];
      const double misfit = std::sqrt(diff / norm);
      const double t_num = peak_time(num, setup.dt, setup.dt), t_exact = peak_time(exact, setup.dt, setup.dt);
      const double v = comp == 0 ? c.vp : c.vs;
      std::printf("[ MEASURED ] Stokes, r = %d nodes, u_%c (%s): L2 misfit %.3f %%, peak at %.5f s (Stokes %.5f s, "
                  "far-field arrival + 1.5/f0 = %.5f s, dt %.5f s)\n",
                  r, comp == 0 ? 'x' : 'z', comp == 0 ? "P" : "S", 100 * misfit, t_num, t_exact,
                  r * c.h / v + 1.5 / c.f0, setup.dt);
      EXPECT_LT(misfit, 0.02) << "r " << r << ", component " << comp;
      EXPECT_LT(std::abs(t_num - t_exact), 0.5 * setup.dt) << "r " << r << ", component " << comp;
    }
  }
}

// ---- spatial convergence ---------------------------------------------------------

// A plane P or S wave a cos(k.x - w t) in a periodic box, k = 2 pi (1, 2, 1) across the
// unit box. One dt at both resolutions and w from leapfrog's dispersion relation with the
// exact derivatives, 2 (1 - cos(w dt)) = (v |k| dt)^2: what remains is the spatial error.
double plane_wave_error(int n, int order, double dt, int steps, bool p_wave) {
  Elastic3DConfig c;
  c.nx = c.ny = c.nz = n;
  c.order = order;
  c.boundary = ElasticBoundary::periodic;
  c.source = false;
  c.vp = 1.0, c.vs = 0.6, c.rho = 1.0;
  c.h = 1.0 / n;
  c.dt = dt;
  const Elastic3DSetup s = make_elastic3d_setup(c);
  const std::array<double, 3> k = {2 * pi, 4 * pi, 2 * pi};
  const double kk = std::sqrt(k[0] * k[0] + k[1] * k[1] + k[2] * k[2]);
  const std::array<double, 3> a =
      p_wave ? std::array<double, 3>{k[0] / kk, k[1] / kk, k[2] / kk} : std::array<double, 3>{1 / std::sqrt(2.0), 0, -1 / std::sqrt(2.0)};
  const double v = p_wave ? c.vp : c.vs;
  const double w = std::acos(1 - 0.5 * v * v * kk * kk * dt * dt) / dt;
  auto exact = [&](int comp, int i, int j, int l, double t) {
    return a[comp] * std::cos(k[0] * i * c.h + k[1] * j * c.h + k[2] * l * c.h - w * t);
  };
  ElasticState<double> st;
  for (int comp = 0; comp < 3; ++comp) {
    st.u[comp].resize(s.grid.points());
    st.u_prev[comp].resize(s.grid.points());
    for (int l = 0; l < n; ++l)
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
          st.u[comp][s.node(i, j, l)] = exact(comp, i, j, l, 0.0);
          st.u_prev[comp][s.node(i, j, l)] = exact(comp, i, j, l, -dt);
        }
  }
  HostElastic3D<double> sim(s);
  sim.load(st, 0);
  sim.step(steps);
  const ElasticState<double> out = sim.state();
  double worst = 0;
  for (int comp = 0; comp < 3; ++comp)
    for (int l = 0; l < n; ++l)
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i)
          worst = std::max(worst, std::abs(out.u[comp][s.node(i, j, l)] - exact(comp, i, j, l, steps * dt)));
  return worst;
}

TEST(Elastic3DPhysics, SpatialConvergenceOrdersOfPlanePAndSWaves) {
  const int coarse = 16, fine = 32;
  const double dt = 0.5 * elastic3d_dt_limit(8, 1.0, 1.0 / fine);
  const int steps = static_cast<int>(0.25 / dt);
  for (bool p_wave : {true, false})
    for (int order : {2, 4, 6, 8}) {
      const double e0 = plane_wave_error(coarse, order, dt, steps, p_wave);
      const double e1 = plane_wave_error(fine, order, dt, steps, p_wave);
      const double measured = std::log2(e0 / e1);
      std::printf("[ MEASURED ] plane %s wave, order %d: max error %.3e at %d^3, %.3e at %d^3: measured order %.2f\n",
                  p_wave ? "P" : "S", order, e0, coarse, e1, fine, measured);
      EXPECT_NEAR(measured, order, 0.35) << (p_wave ? "P" : "S") << ", order " << order;
    }
}

// The derived views of a plane P wave and a plane S wave: the divergence sees only the P
// wave, the curl only the S wave, each with the amplitude |k| |a| of the continuum (the
// order-8 derivatives at 16 nodes per wavelength and more), and |u| peaks at |a| = 1.
TEST(Elastic3DViews, DivergenceSeesPAndCurlSeesS) {
  for (bool p_wave : {true, false}) {
    Elastic3DConfig c;
    c.nx = c.ny = c.nz = 32;
    c.boundary = ElasticBoundary::periodic;
    c.source = false;
    c.h = 1.0 / 32;
    const Elastic3DSetup s = make_elastic3d_setup(c);
    const std::array<double, 3> k = {2 * pi, 4 * pi, 2 * pi};
    const double kk = std::sqrt(24.0) * pi;
    const std::array<double, 3> a = p_wave ? std::array<double, 3>{k[0] / kk, k[1] / kk, k[2] / kk}
                                           : std::array<double, 3>{1 / std::sqrt(2.0), 0, -1 / std::sqrt(2.0)};
    ElasticState<float> st;
    for (int comp = 0; comp < 3; ++comp) {
      st.u[comp].resize(s.grid.points());
      for (int l = 0; l < c.nz; ++l)
        for (int j = 0; j < c.ny; ++j)
          for (int i = 0; i < c.nx; ++i)
            st.u[comp][s.node(i, j, l)] = static_cast<float>(a[comp] * std::cos((k[0] * i + k[1] * j + k[2] * l) * c.h));
      st.u_prev[comp] = st.u[comp];
    }
    HostElastic3D<float> sim(s);
    sim.load(st, 0);
    auto peak = [&](ElasticDerived q) {
      const std::vector<float>& v = sim.derived(q);
      double m = 0;
      for (float x : v) m = std::max(m, static_cast<double>(std::abs(x)));
      return m;
    };
    const double div = peak(ElasticDerived::divergence), curl = peak(ElasticDerived::curl);
    const double mag = peak(ElasticDerived::magnitude);
    std::printf("[ MEASURED ] plane %s wave: max |div| %.4g, max |curl| %.4g (|k| |a| = %.4g), max |u| %.5f\n",
                p_wave ? "P" : "S", div, curl, kk, mag);
    EXPECT_NEAR(p_wave ? div : curl, kk, 0.01 * kk);
    EXPECT_LT(p_wave ? curl : div, 1e-3 * kk);
    EXPECT_NEAR(mag, 1.0, 1e-5);
  }
}

// ---- VTI ---------------------------------------------------------------------------

TEST(Elastic3DSetup, ThomsenConversionRoundTripsAndIsotropicIsItsSpecialCase) {
  const Vti c = thomsen_stiffness(3000, 1500, 0.25, 0.1, 0.15, 2000);
  EXPECT_DOUBLE_EQ(c.c33, 2000.0 * 3000 * 3000);
  EXPECT_DOUBLE_EQ(c.c44, 2000.0 * 1500 * 1500);
  EXPECT_DOUBLE_EQ(c.c11, c.c33 * 1.5);
  EXPECT_DOUBLE_EQ(c.c66, c.c44 * 1.3);
  const auto [eps, delta, gamma] = thomsen_parameters(c);
  EXPECT_NEAR(eps, 0.25, 1e-12);
  EXPECT_NEAR(delta, 0.1, 1e-12);
  EXPECT_NEAR(gamma, 0.15, 1e-12);
  // epsilon = delta = gamma = 0 is the isotropic medium: C13 = lambda.
  const Vti iso = thomsen_stiffness(3000, 1500, 0, 0, 0, 2000), lame = isotropic_stiffness(3000, 1500, 2000);
  EXPECT_NEAR(iso.c13, lame.c13, 1e-6 * lame.c11);
  EXPECT_NEAR(iso.c11, lame.c11, 1e-6 * lame.c11);
  // The fastest phase velocity: horizontal qP when epsilon > delta >= 0.
  EXPECT_NEAR(vti_max_phase_velocity(c, 2000), std::sqrt(c.c11 / 2000), 1e-5 * std::sqrt(c.c11 / 2000));
  EXPECT_NEAR(vti_max_phase_velocity(lame, 2000), 3000, 1e-2);
}

/// Speed of a plane qP pulse along `axis` (0 x, 2 z) in a periodic VTI box: a Gaussian of
/// the component along the axis at rest splits into two halves; the forward half's peak
/// (a parabola through the largest sample and its neighbours) is tracked between two times.
double plane_pulse_speed(int axis, Elastic3DSetup* out_setup) {
  Elastic3DConfig c;
  c.nx = axis == 0 ? 160 : 8;
  c.ny = 8;
  c.nz = axis == 2 ? 160 : 8;
  c.anisotropy = Anisotropy::thomsen;
  c.vp = 3000, c.vs = 1500, c.epsilon = 0.25, c.delta = 0.1, c.gamma = 0.1, c.rho = 2000, c.h = 10;
  c.boundary = ElasticBoundary::periodic;
  c.source = false;
  const Elastic3DSetup s = make_elastic3d_setup(c);
  *out_setup = s;
  const int n = axis == 0 ? c.nx : c.nz;
  const double x0 = 40, sigma = 3;
  ElasticState<float> st;
  for (int comp = 0; comp < 3; ++comp) {
    st.u[comp].assign(s.grid.points(), 0.0f);
    st.u_prev[comp].assign(s.grid.points(), 0.0f);
  }
  for (int k = 0; k < c.nz; ++k)
    for (int j = 0; j < c.ny; ++j)
      for (int i = 0; i < c.nx; ++i) {
        const int x = axis == 0 ? i : k;
        const float v = static_cast<float>(std::exp(-(x - x0) * (x - x0) / (2 * sigma * sigma)));
        st.u[axis][s.node(i, j, k)] = v;
        st.u_prev[axis][s.node(i, j, k)] = v;
      }
  HostElastic3D<float> sim(s);
  sim.load(st, 0);
  auto peak_position = [&] {
    const std::vector<float>& u = sim.displacement(axis);
    auto at = [&](int x) { return static_cast<double>(u[axis == 0 ? s.grid.index(x, 4, 4) : s.grid.index(4, 4, x)]); };
    int best = static_cast<int>(x0);
    for (int x = static_cast<int>(x0); x < n - 1; ++x)
      if (at(x) > at(best)) best = x;
    const double a = at(best - 1), b = at(best), cc = at(best + 1);
    return best + 0.5 * (a - cc) / (a - 2 * b + cc);
  };
  const double v_guess = std::sqrt((axis == 0 ? s.medium->c11[0] : s.medium->c33[0]) / c.rho);
  const int n1 = static_cast<int>(20 * c.h / v_guess / s.dt), n2 = static_cast<int>(60 * c.h / v_guess / s.dt);
  sim.step(n1);
  const double p1 = peak_position();
  sim.step(n2 - n1);
  const double p2 = peak_position();
  return (p2 - p1) * c.h / ((n2 - n1) * s.dt);
}

TEST(Elastic3DPhysics, VtiQpFrontsTravelAtC33VerticallyAndC11Horizontally) {
  Elastic3DSetup s;
  const double vz = plane_pulse_speed(2, &s);
  const double want_z = std::sqrt(s.medium->c33[0] / s.medium->rho[0]);
  const double vx = plane_pulse_speed(0, &s);
  const double want_x = std::sqrt(s.medium->c11[0] / s.medium->rho[0]);
  std::printf("[ MEASURED ] VTI qP: vertical %.2f m/s (sqrt(C33/rho) = %.2f, %.3f %% off), horizontal %.2f m/s "
              "(sqrt(C11/rho) = %.2f, %.3f %% off)\n",
              vz, want_z, 100 * (vz / want_z - 1), vx, want_x, 100 * (vx / want_x - 1));
  EXPECT_NEAR(vz, want_z, 0.01 * want_z);
  EXPECT_NEAR(vx, want_x, 0.01 * want_x);
  EXPECT_GT(vx / vz, 1.2) << "the anisotropy is in the medium";
}

// ---- the free surface: Rayleigh waves ------------------------------------------------

// A Rayleigh plane wave along x on a Poisson solid (vp = sqrt(3) vs), one wavelength of
// 40 nodes across a box periodic in x and y, free on top, absorbing at the bottom (96
// nodes deep: the mode decays over 16). Started from the continuum eigenmode, its phase on
// the surface, the projection of u_z on cos(k x) and sin(k x), advances at the Rayleigh
// speed 0.9194 vs. (40 nodes per wavelength: the surface converges at about second order,
// -2.2 % at 10 nodes per wavelength; docs/elastic3d.md.)
TEST(Elastic3DPhysics, RayleighWaveTravelsAtItsSpeedAlongTheFreeSurface) {
  Elastic3DConfig c;
  c.nx = 40, c.ny = 8, c.nz = 96;
  c.vs = 1732.0508075688772, c.vp = std::sqrt(3.0) * c.vs, c.rho = 2000, c.h = 10;
  c.boundary = ElasticBoundary::periodic_sides;
  c.top = ElasticTop::free;
  c.source = false;
  const Elastic3DSetup s = make_elastic3d_setup(c);
  // Rayleigh's equation (2 - c^2/vs^2)^2 = 4 sqrt(1 - c^2/vp^2) sqrt(1 - c^2/vs^2) for a
  // Poisson solid: c^2 / vs^2 = 2 - 2 / sqrt(3).
  const double cr = c.vs * std::sqrt(2 - 2 / std::sqrt(3.0));
  const double pp = std::sqrt(1 - cr * cr / (c.vp * c.vp)), sp = std::sqrt(1 - cr * cr / (c.vs * c.vs));
  ASSERT_NEAR((2 - cr * cr / (c.vs * c.vs)) * (2 - cr * cr / (c.vs * c.vs)), 4 * pp * sp, 1e-12);
  const double k = 2 * pi / (c.nx * c.h), w = k * cr;
  // u_x = -X(z) sin(k x - w t), u_z = Z(z) cos(k x - w t) (z downwards; sigma_xz = sigma_zz = 0 at z = 0).
  auto mode = [&](int comp, int i, int l, double t) {
    const double z = l * c.h, th = k * i * c.h - w * t;
    const double ep = std::exp(-k * pp * z), es = std::exp(-k * sp * z);
    if (comp == 0) return -(ep - 2 * pp * sp / (1 + sp * sp) * es) * std::sin(th);
    return pp * (-ep + 2 / (1 + sp * sp) * es) * std::cos(th);
  };
  ElasticState<float> st;
  for (int comp = 0; comp < 3; ++comp) {
    st.u[comp].assign(s.grid.points(), 0.0f);
    st.u_prev[comp].assign(s.grid.points(), 0.0f);
  }
  for (int l = 0; l < c.nz; ++l)
    for (int j = 0; j < c.ny; ++j)
      for (int i = 0; i < c.nx; ++i)
        for (int comp : {0, 2}) {
          st.u[comp][s.node(i, j, l)] = static_cast<float>(mode(comp, i, l, 0.0));
          st.u_prev[comp][s.node(i, j, l)] = static_cast<float>(mode(comp, i, l, -s.dt));
        }
  HostElastic3D<float> sim(s);
  sim.load(st, 0);
  const double period = 2 * pi / w;
  const int steps = static_cast<int>(2.0 * period / s.dt);
  sim.step(steps);
  // The phase of the surface u_z, unwrapped, from the trace rows (row n: t = (n + 1) dt).
  std::vector<double> phase, amplitude;
  for (int n = 0; n < steps; ++n) {
    double a = 0, b = 0;
    for (int i = 0; i < c.nx; ++i) {
      const double v = sim.traces()[(static_cast<std::size_t>(n) * 3 + 2) * c.nx + i];
      a += v * std::cos(k * i * c.h);
      b += v * std::sin(k * i * c.h);
    }
    double ph = std::atan2(b, a);
    if (!phase.empty())
      while (ph < phase.back() - pi) ph += 2 * pi;
    phase.push_back(ph);
    amplitude.push_back(2 * std::hypot(a, b) / c.nx);
  }
  const int n1 = static_cast<int>(0.5 * period / s.dt), n2 = steps - 1;
  const double speed = (phase[n2] - phase[n1]) / (k * (n2 - n1) * s.dt);
  const double z0 = mode(2, 0, 0, 0.0);
  std::printf("[ MEASURED ] Rayleigh wave, 40 nodes per wavelength, order 8: %.2f m/s = %.4f vs (0.9194 vs = %.2f, "
              "%.3f %% off); surface u_z amplitude %.4f -> %.4f (eigenmode %.4f)\n",
              speed, speed / c.vs, cr, 100 * (speed / cr - 1), amplitude[n1], amplitude[n2], z0);
  EXPECT_NEAR(speed, cr, 0.01 * cr);
  EXPECT_NEAR(amplitude[n2], z0, 0.05 * z0) << "the mode keeps its amplitude (it is a surface wave, not a body wave)";
}

// ---- energy ------------------------------------------------------------------------

// A u_z bump at rest in a periodic box of a random VTI medium, no source: leapfrog
// conserves the discrete energy (double, 1000 steps); inside a sponge it only falls.
TEST(Elastic3DPhysics, EnergyIsConservedInAPeriodicBoxAndFallsInASponge) {
  for (ElasticBoundary b : {ElasticBoundary::periodic, ElasticBoundary::sponge}) {
    Elastic3DConfig c;
    c.nx = c.ny = c.nz = b == ElasticBoundary::periodic ? 14 : 24;
    c.medium = ElasticMedium::random;
    c.anisotropy = Anisotropy::thomsen;
    c.boundary = b;
    c.top = ElasticTop::absorbing;
    c.sponge_width = 8;
    c.source = false;
    const Elastic3DSetup s = make_elastic3d_setup(c);
    HostElastic3D<double> sim(s);
    sim.paint({c.nx / 2.0, c.ny / 2.0, c.nz / 2.0, 4, 1.0});
    auto energy = [&] { return elastic3d_energy(s, sim.state()); };
    const double e0 = energy();
    ASSERT_GT(e0, 0);
    double drift = 0, last = e0;
    bool falls = true;
    const int chunks = b == ElasticBoundary::periodic ? 10 : 6, chunk = b == ElasticBoundary::periodic ? 100 : 50;
    for (int k = 0; k < chunks; ++k) {
      sim.step(chunk);
      const double e = energy();
      drift = std::max(drift, std::abs(e - e0) / e0);
      falls = falls && e <= last * (1 + 1e-9);
      last = e;
    }
    if (b == ElasticBoundary::periodic) {
      std::printf("[ MEASURED ] energy over 1000 steps, periodic random VTI medium (double): largest relative drift "
                  "%.2e\n",
                  drift);
      EXPECT_LT(drift, 1e-4);
    } else {
      std::printf("[ MEASURED ] energy over 300 steps in a sponge: %.3e of the initial left\n", last / e0);
      EXPECT_TRUE(falls);
      EXPECT_LT(last, 0.5 * e0);
    }
  }
}

// ---- the sponge --------------------------------------------------------------------

// An explosion in a box with Clayton-Engquist and a Cerjan sponge on every face against
// the same source and receiver in a larger periodic box, where nothing comes back within
// the window: the difference is what the boundaries send back.
TEST(Elastic3DPhysics, SpongeReflectsLittle) {
  const int width = 16;
  auto config = [&](int n, ElasticBoundary b) {
    Elastic3DConfig c;
    c.nx = c.ny = c.nz = n;
    c.order = 4;  // what the sponge sends back hardly depends on the order; order 4 halves the time
    c.source_kind = ElasticSource::explosion;
    c.f0 = c.vp / (2.5 * 5 * c.h);  // 5 nodes per P wavelength at 2.5 f0 (an explosion sends no S)
    c.boundary = b;
    c.top = ElasticTop::absorbing;
    c.sponge_width = width;
    c.rec_z = n / 2;  // the receivers on the line through the source
    return c;
  };
  const Elastic3DConfig small = config(52, ElasticBoundary::sponge), big = config(68, ElasticBoundary::periodic);
  const Elastic3DSetup ss = make_elastic3d_setup(small), sb = make_elastic3d_setup(big);
  ASSERT_EQ(ss.dt, sb.dt);
  const int r = 10;  // beyond the source's box
  const double t_echo = 1.5 / small.f0 + (small.nx / 2 + small.nx / 2 - r) * small.h / small.vp;
  // Up to just past the peak of the first echo (from the nearest face, the +x one).
  const int steps = static_cast<int>((t_echo + 0.25 / small.f0) / ss.dt);
  ASSERT_LT(steps * ss.dt, (big.nx - r) * big.h / big.vp + 0.5 / big.f0) << "no periodic image in the big box";
  HostElastic3D<float> a(ss), b(sb);
  a.step(steps);
  b.step(steps);
  double direct = 0, echo = 0;
  for (int n = 0; n < steps; ++n) {
    const double ua = a.traces()[(static_cast<std::size_t>(n) * 3) * small.nx + ss.src[0] + r];
    const double ub = b.traces()[(static_cast<std::size_t>(n) * 3) * big.nx + sb.src[0] + r];
    direct = std::max(direct, std::abs(ub));
    echo = std::max(echo, std::abs(ua - ub));
  }
  std::printf("[ MEASURED ] Clayton-Engquist + Cerjan sponge of %d nodes: reflected %.3f %% of the direct amplitude\n",
              width, 100 * echo / direct);
  EXPECT_LT(echo, 0.01 * direct);
  EXPECT_GT(direct, 0);
}

// ---- CPML --------------------------------------------------------------------------

/// What the faces of a 52^3 box of boundary `b` send back to the receiver 10 nodes from an
/// explosion at its centre, relative to the direct wave: the largest |u_x| difference
/// against the same run in a 68^3 periodic box, as SpongeReflectsLittle measures it, but at
/// order 8 (the model's default): unlike the sponge's, the CPML's reflection depends on the
/// order. At order 4 the first-derivative stencil's dispersion at the wavelet's upper band
/// (2.2 f0, 5.6 nodes per wavelength) makes the layer's discrete reflection 2.2 times
/// larger (0.184 % at width 16).
double elastic_reflection(ElasticBoundary b, int width) {
  auto config = [&](int n, ElasticBoundary bd) {
    Elastic3DConfig c;
    c.nx = c.ny = c.nz = n;
    c.order = 8;
    c.source_kind = ElasticSource::explosion;
    c.f0 = c.vp / (2.5 * 5 * c.h);  // 5 nodes per P wavelength at 2.5 f0 (an explosion sends no S)
    c.boundary = bd;
    c.top = ElasticTop::absorbing;
    c.cpml_width = width;
    c.rec_z = n / 2;
    return c;
  };
  const Elastic3DConfig small = config(52, b), big = config(68, ElasticBoundary::periodic);
  const Elastic3DSetup ss = make_elastic3d_setup(small), sb = make_elastic3d_setup(big);
  const int r = 10;
  const double t_echo = 1.5 / small.f0 + (small.nx / 2 + small.nx / 2 - r) * small.h / small.vp;
  const int steps = static_cast<int>((t_echo + 0.25 / small.f0) / ss.dt);
  static std::vector<double> big_trace;  // the big run is shared by every call
  if (big_trace.empty()) {
    HostElastic3D<float> bs(sb);
    bs.step(steps);
    for (int n = 0; n < steps; ++n) big_trace.push_back(bs.traces()[(static_cast<std::size_t>(n) * 3) * big.nx + sb.src[0] + r]);
  }
  HostElastic3D<float> a(ss);
  a.step(steps);
  double direct = 0, echo = 0;
  for (int n = 0; n < steps; ++n) {
    const double ua = a.traces()[(static_cast<std::size_t>(n) * 3) * small.nx + ss.src[0] + r];
    direct = std::max(direct, std::abs(big_trace[n]));
    echo = std::max(echo, std::abs(ua - big_trace[n]));
  }
  EXPECT_GT(direct, 0);
  return echo / direct;
}

// The CPML on every face at the default width (16): at most 0.1 % of the direct amplitude.
TEST(Elastic3DPhysics, CpmlOfTheDefaultWidthReflectsAtMostATenthOfAPercent) {
  const double r = elastic_reflection(ElasticBoundary::cpml, kDefaultCpmlWidth);
  std::printf("[ MEASURED ] CPML of %d nodes (R %.0e, N %d): reflected %.4f %% of the direct amplitude\n",
              kDefaultCpmlWidth, kDefaultCpmlReflection, kCpmlPower, 100 * r);
  EXPECT_LT(r, 1e-3);
}

// Narrower layers reflect more.
TEST(Elastic3DPhysics, NarrowerCpmlReflectsMore) {
  double previous = 1;
  for (int width : {8, 12}) {
    const double r = elastic_reflection(ElasticBoundary::cpml, width);
    std::printf("[ MEASURED ] CPML of %d nodes (R %.0e, N %d): reflected %.4f %% of the direct amplitude\n", width,
                kDefaultCpmlReflection, kCpmlPower, 100 * r);
    EXPECT_LT(r, 0.005) << "width " << width;
    EXPECT_LT(r, previous) << "width " << width;
    previous = r;
  }
}

// A free top over CPML faces, a long run (3000 steps, a random VTI medium, a u_z bump
// near the surface, no source): the field decays and stays bounded, no late-time growth
// in the layers or at their corners with the free surface.
TEST(Elastic3DPhysics, CpmlUnderAFreeTopStaysBoundedOverALongRun) {
  Elastic3DConfig c;
  c.nx = c.ny = c.nz = 12;
  c.order = 4;
  c.medium = ElasticMedium::random;
  c.anisotropy = Anisotropy::thomsen;
  c.boundary = ElasticBoundary::cpml;
  c.top = ElasticTop::free;
  c.cpml_width = 4;
  c.source = false;
  const Elastic3DSetup s = make_elastic3d_setup(c);
  HostElastic3D<float> sim(s);
  sim.paint({6, 6, 2.5, 3, 1.0});
  auto largest = [&] {
    double m = 0;
    for (const std::vector<float>& comp : sim.state().u)
      for (float v : comp) m = std::max(m, static_cast<double>(std::abs(v)));
    return m;
  };
  const double u0 = largest();
  double late = 0, last = 0;
  for (int chunk = 0; chunk < 30; ++chunk) {
    sim.step(100);
    last = largest();
    if (chunk >= 10) late = std::max(late, last);
  }
  std::printf("[ MEASURED ] CPML of 4 nodes under a free top, 3000 steps: largest |u| %.2e of the initial after 1000 "
              "steps, %.2e at the end\n",
              late / u0, last / u0);
  EXPECT_TRUE(std::isfinite(last));
  EXPECT_LT(late, 1e-2 * u0);
  EXPECT_LE(last, late);
}

// ---- receivers -----------------------------------------------------------------------

TEST(Elastic3DPhysics, SurfaceTracesRoundTripThroughNpy) {
  Elastic3DConfig c;
  c.nx = c.ny = c.nz = 16;
  c.f0 = 60;
  c.src_z = 2;
  const Elastic3DSetup s = make_elastic3d_setup(c);
  HostElastic3D<float> sim(s);
  sim.step(12);
  ASSERT_EQ(sim.trace_rows(), 12);
  const std::string path = (std::filesystem::temp_directory_path() / "elastic3d_test_traces.npy").string();
  write_elastic_traces_npy(path, sim.traces(), c.nx);
  const NpyArray a = read_npy(path);
  EXPECT_EQ(a.shape, (std::vector<std::size_t>{12, 3, 16}));
  EXPECT_EQ(a.values, sim.traces());
  // The last row is u on the surface line (j = src_y, k = 0), and the force along z has
  // reached it.
  for (int comp = 0; comp < 3; ++comp)
    for (int i = 0; i < c.nx; ++i)
      EXPECT_EQ(a.values[(11 * 3 + comp) * 16 + i], sim.displacement(comp)[s.grid.index(i, s.src[1], 0)]);
  EXPECT_NE(a.values[(11 * 3 + 2) * 16 + s.src[0]], 0.0f);
  std::filesystem::remove(path);
}

// ---- setup and bad input -------------------------------------------------------------

// The band-limited source passes the resolved band and stops the wavenumbers near the
// grid's Nyquist, where the collocated first derivative vanishes.
TEST(Elastic3DSetup, BandLimitedSourceWeights) {
  const auto w = band_limited_source_weights();
  double sum = 0;
  for (double x : w) sum += x;
  EXPECT_NEAR(sum, 1.0, 1e-14);
  for (int m = 1; m <= kSourceRadius; ++m) EXPECT_EQ(w[kSourceRadius + m], w[kSourceRadius - m]);
  auto response = [&](double th) {
    double r = 0;
    for (int m = -kSourceRadius; m <= kSourceRadius; ++m) r += w[m + kSourceRadius] * std::cos(m * th);
    return r;
  };
  double pass = 0, stop = 0;
  for (int s = 0; s <= 1000; ++s) {
    const double th = pi * s / 1000;
    if (th <= 0.3 * pi) pass = std::max(pass, std::abs(response(th) - 1));
    if (th >= 0.8 * pi) stop = std::max(stop, std::abs(response(th)));
  }
  std::printf("[ MEASURED ] band-limited source: |S - 1| <= %.2e up to 0.3 pi, |S| <= %.2e from 0.8 pi\n", pass, stop);
  EXPECT_LT(pass, 3e-3);
  EXPECT_LT(stop, 2e-2);
}

TEST(Elastic3DSetup, StabilityLimitAndAutomaticDt) {
  EXPECT_NEAR(first_derivative_spectral_radius(2), 1.0, 1e-12);
  // Order 2: dt <= 2 h / (vp sqrt(3)).
  EXPECT_NEAR(elastic3d_dt_limit(2, 3000, 10), 2 * 10 / (3000 * std::sqrt(3.0)), 1e-15);
  for (int order : {2, 4, 6, 8}) {
    EXPECT_GT(first_derivative_spectral_radius(order), order == 2 ? 0.99 : first_derivative_spectral_radius(order - 2));
    Elastic3DConfig c;
    c.nx = c.ny = c.nz = 16;
    c.order = order;
    c.medium = ElasticMedium::layered;
    const Elastic3DSetup s = make_elastic3d_setup(c);
    EXPECT_NEAR(s.vmax, 1.75 * c.vp, 1e-3 * c.vp);
    EXPECT_EQ(s.dt, kElasticDtFraction * elastic3d_dt_limit(8, s.vmax, c.h)) << "the same dt at every order";
    EXPECT_LT(s.dt, s.dt_limit);
  }
}

std::string error_of(const Elastic3DConfig& c) {
  try {
    make_elastic3d_setup(c);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Elastic3DSetup, BadInputIsRefusedNamingTheValue) {
  auto cube = [] {
    Elastic3DConfig c;
    c.nx = c.ny = c.nz = 48;
    return c;
  };
  Elastic3DConfig c = cube();
  const double limit = make_elastic3d_setup(c).dt_limit;
  c.dt = 1.01 * limit;
  std::string e = error_of(c);
  EXPECT_NE(e.find("stability limit"), std::string::npos) << e;
  EXPECT_NE(e.find(fmt::format("{:.6g}", limit)), std::string::npos) << e;

  c = cube();
  c.sponge_width = 17;  // a third of 48 is 16
  e = error_of(c);
  EXPECT_NE(e.find("sponge width 17"), std::string::npos) << e;
  c.sponge_width = 16;
  EXPECT_EQ(error_of(c), "");

  c = cube();
  c.src_x = 48;
  e = error_of(c);
  EXPECT_NE(e.find("src_x = 48"), std::string::npos) << e;
  c = cube();
  c.src_z = -1;
  e = error_of(c);
  EXPECT_NE(e.find("src_z = -1"), std::string::npos) << e;
  c = cube();
  c.rec_z = 48;
  e = error_of(c);
  EXPECT_NE(e.find("rec_z = 48"), std::string::npos) << e;

  c = cube();
  c.vs = 3500;  // above vp 3000
  e = error_of(c);
  EXPECT_NE(e.find("vs = 3500 m/s is above vp = 3000 m/s at node (x 0, y 0, z 0)"), std::string::npos) << e;
  c = cube();
  c.rho = -1;
  e = error_of(c);
  EXPECT_NE(e.find("density -1 kg/m^3 at node (x 0, y 0, z 0)"), std::string::npos) << e;
  // A bad node inside the medium is named: the VTI layer (from z = 16 down) of stiffnesses
  // that are not positive definite.
  c = cube();
  c.medium = ElasticMedium::vti_layer;
  c.anisotropy = Anisotropy::stiffness;
  c.stiffness = {10e9, 20e9, 10e9, 3e9, 3e9};  // C13^2 > (C11 - C66) C33
  e = error_of(c);
  EXPECT_NE(e.find("node (x 0, y 0, z 16)"), std::string::npos) << e;
  EXPECT_NE(e.find("not positive definite"), std::string::npos) << e;

  // Through the model interface, as the app and the command line meet them.
  const Model& m = find_model("elastic3d");
  EXPECT_THROW(make_config(m, {32, 32, 32}, 8, {{"dt", 1.0}}), Error);
  EXPECT_THROW(make_config(m, {32, 32, 32}, 8, {{"sponge_width", 11.0}}), Error);
  EXPECT_NO_THROW(make_config(m, {32, 32, 32}, 8, {{"sponge_width", 10.0}}));
  EXPECT_THROW(make_config(m, {32, 32, 32}, 8, {{"src_z", 40.0}}), Error);
  EXPECT_THROW(make_config(m, {32, 32, 32}, 8, {{"vs", 3001.0}}), Error);
  EXPECT_NO_THROW(make_config(m, {32, 32, 32}, 8, {{"anisotropy", std::string("stiffness")}}));
}

}  // namespace
}  // namespace ss
