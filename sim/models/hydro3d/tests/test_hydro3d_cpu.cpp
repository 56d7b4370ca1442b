// Hydro 3D on the CPU: the ghost zone, the paper's physics tests at small sizes
// (viscous decay and its convergence order, the two methods' difference and its order,
// the explosion's symmetry, forced turbulence's spectrum), and bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "sim/core/error.hpp"
#include "sim/core/model.hpp"
#include "sim/models/hydro3d/hydro3d_physics.hpp"
#include "sim/models/hydro3d/hydro3d_solver.hpp"

namespace ss {
namespace {

/// Least-squares slope of log(err) against log(h): the measured order.
double order_of(const std::vector<double>& h, const std::vector<double>& err) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  const double n = static_cast<double>(h.size());
  for (std::size_t i = 0; i < h.size(); ++i) {
    const double x = std::log(h[i]), y = std::log(err[i]);
    sx += x, sy += y, sxx += x * x, sxy += x * y;
  }
  return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

TEST(Hydro3DGhosts, EveryCellOfTheExtendedBoxHoldsItsPeriodicImage) {
  Hydro3DConfig c;
  c.nx = 11, c.ny = 9, c.nz = 8;
  const Hydro3DSetup s = make_hydro3d_setup(c);
  const Grid3D& g = s.grid;
  std::vector<double> v(g.elements(), std::numeric_limits<double>::quiet_NaN());
  for (int k = 0; k < g.nz; ++k)
    for (int j = 0; j < g.ny; ++j)
      for (int i = 0; i < g.nx; ++i) v[g.index(i, j, k)] = i + 100 * j + 10000 * k;
  std::vector<int> writes(g.elements(), 0);
  for (long long e = 0; e < hydro_ghost_cells(g); ++e) {
    std::size_t dst, src;
    hydro_ghost_cell(g, e, dst, src);
    v[dst] = v[src];
    ++writes[dst];
  }
  constexpr int R = kHydroRadius;
  for (int k = -R; k < g.nz + R; ++k)
    for (int j = -R; j < g.ny + R; ++j)
      for (int i = -R; i < g.nx + R; ++i) {
        const int si = (i + g.nx) % g.nx, sj = (j + g.ny) % g.ny, sk = (k + g.nz) % g.nz;
        ASSERT_EQ(v[g.index(i, j, k)], si + 100 * sj + 10000 * sk) << i << " " << j << " " << k;
        const bool interior = i >= 0 && i < g.nx && j >= 0 && j < g.ny && k >= 0 && k < g.nz;
        ASSERT_EQ(writes[g.index(i, j, k)], interior ? 0 : 1) << i << " " << j << " " << k;
      }
}

/// The decay test (eq 22) on an nx x 8 x 8 box (the wave depends on x alone): the RMS
/// error against the exact decay at t_end, with dt small enough that RK3's error is far
/// below the sixth-order spatial one.
template <typename T>
double decay_error(int nx, HydroMethod m, double t_end = 1.5, double dt = 5e-3) {
  Hydro3DConfig c;
  c.nx = nx, c.ny = 8, c.nz = 8;
  c.init = HydroInit::decay;
  c.nu = 5e-3;
  c.dt = dt;
  const Hydro3DSetup s = make_hydro3d_setup(c);
  HostHydro3D<T> sim(s, m);
  const int steps = static_cast<int>(std::lround(t_end / dt));
  sim.step(steps);
  return hydro_decay_rms_error(sim.state(), s, steps * dt);
}

TEST(Hydro3DDecay, SixthOrderConvergenceInDoubleForBothMethods) {
  for (HydroMethod m : {HydroMethod::single_pass, HydroMethod::two_pass}) {
    std::vector<double> h, err;
    for (int n : {64, 96, 128}) {
      h.push_back(2 * M_PI / n);
      err.push_back(decay_error<double>(n, m));
    }
    const double order = order_of(h, err);
    RecordProperty(m == HydroMethod::single_pass ? "order_single" : "order_two", std::to_string(order));
    std::printf("decay, %s: errors %.3e %.3e %.3e, order %.2f\n", m == HydroMethod::single_pass ? "single pass" : "two pass",
                err[0], err[1], err[2], order);
    EXPECT_GE(order, 5.5);
    EXPECT_LE(order, 7.0);
  }
}

TEST(Hydro3DDecay, FloatErrorStaysNearDouble) {
  // At 64 cells the discretisation error dominates rounding: float within 5% of double.
  const double d = decay_error<double>(64, HydroMethod::single_pass);
  const double f = decay_error<float>(64, HydroMethod::single_pass);
  EXPECT_NEAR(f, d, 0.05 * d);
  // The two-pass method's error within 10% of the single pass one (the paper's Fig. 5).
  const double two = decay_error<double>(64, HydroMethod::two_pass);
  EXPECT_NEAR(two, d, 0.1 * d);
}

/// A smooth 3D velocity with a non-zero grad div u in every component.
template <typename T>
HydroState<T> smooth_state(const Hydro3DSetup& s) {
  const Grid3D& g = s.grid;
  HydroState<T> st;
  for (auto& v : st) v.resize(g.points());
  std::size_t o = 0;
  for (int k = 0; k < g.nz; ++k)
    for (int j = 0; j < g.ny; ++j)
      for (int i = 0; i < g.nx; ++i, ++o) {
        const double x = s.x(i), y = s.y(j), z = s.z(k);
        st[0][o] = static_cast<T>(0.1 * std::sin(x - z));
        st[1][o] = static_cast<T>(0.2 * std::sin(x + 2 * y) * std::cos(z));
        st[2][o] = static_cast<T>(0.2 * std::cos(x) * std::sin(y - z));
        st[3][o] = static_cast<T>(0.2 * std::sin(x) * std::sin(y) * std::sin(2 * z));
      }
  return st;
}

TEST(Hydro3DMethods, TwoPassDiffersFromSinglePassBySixthOrderDiscretisation) {
  std::vector<double> h, diff;
  for (int n : {16, 24, 32}) {
    Hydro3DConfig c;
    c.nx = c.ny = c.nz = n;
    c.nu = 0.05;
    c.dt = 1e-3;
    const Hydro3DSetup s = make_hydro3d_setup(c);
    HostHydro3D<double> a(s, HydroMethod::single_pass), b(s, HydroMethod::two_pass);
    a.load_state(smooth_state<double>(s), 0);
    b.load_state(smooth_state<double>(s), 0);
    a.step(2);
    b.step(2);
    const HydroState<double> sa = a.state(), sb = b.state();
    double m = 0;
    for (int f = 1; f < kHydroFields; ++f)
      for (std::size_t c2 = 0; c2 < sa[f].size(); ++c2) m = std::max(m, std::abs(sa[f][c2] - sb[f][c2]));
    h.push_back(2 * M_PI / n);
    diff.push_back(m);
  }
  const double order = order_of(h, diff);
  std::printf("two pass - single pass, max |du|: %.3e %.3e %.3e, order %.2f\n", diff[0], diff[1], diff[2], order);
  EXPECT_GT(diff[0], 0.0);
  EXPECT_GE(order, 5.5);
}

HydroSymmetry explosion(int n, double nu, double t_end, HydroSymmetry* before = nullptr) {
  Hydro3DConfig c;
  c.nx = c.ny = c.nz = n;
  c.init = HydroInit::explosion;
  c.nu = nu;
  const Hydro3DSetup s = make_hydro3d_setup(c);
  HostHydro3D<double> sim(s, HydroMethod::single_pass);
  if (before) *before = hydro_explosion_symmetry(sim.state(), s);
  sim.step(static_cast<int>(std::ceil(t_end / s.dt)));
  return hydro_explosion_symmetry(sim.state(), s);
}

TEST(Hydro3DExplosion, SymmetryImprovesWithResolution) {
  HydroSymmetry b32, b64;
  const HydroSymmetry a32 = explosion(32, 0.02, 0.5, &b32), a64 = explosion(64, 0.02, 0.5, &b64);
  std::printf("explosion, nu 0.02, t 0.5: 32^3 rel std rho %.3e |u| %.3e (t = 0: %.3e); 64^3 %.3e %.3e (t = 0: %.3e)\n",
              a32.rel_std_rho, a32.rel_std_speed, b32.rel_std_speed, a64.rel_std_rho, a64.rel_std_speed, b64.rel_std_speed);
  EXPECT_LT(a64.rel_std_speed, a32.rel_std_speed);
  EXPECT_LT(a64.rel_std_rho, a32.rel_std_rho);
}

TEST(Hydro3DExplosion, AxesAgreeAndMassIsKept) {
  Hydro3DConfig c;
  c.nx = c.ny = c.nz = 32;
  c.init = HydroInit::explosion;
  c.nu = 0.02;  // Re = u_ampl r_shell / nu = 40
  const Hydro3DSetup s = make_hydro3d_setup(c);
  HostHydro3D<double> sim(s, HydroMethod::single_pass);
  sim.step(static_cast<int>(std::ceil(0.5 / s.dt)));
  const HydroSymmetry after = hydro_explosion_symmetry(sim.state(), s);
  EXPECT_GT(std::abs(after.rho[0]), 1e-3) << "the explosion moved mass";
  // The x, y and z axes are equivalent on the grid: their integrals agree to rounding.
  EXPECT_NEAR(after.speed[0], after.speed[1], 1e-12 * std::abs(after.speed[0]));
  EXPECT_NEAR(after.speed[0], after.speed[2], 1e-12 * std::abs(after.speed[0]));
  // Mass is conserved by the continuity equation only to the scheme's accuracy in ln rho.
  const HydroStats st = hydro_stats(sim.state(), s.h);
  EXPECT_NEAR(st.mass, std::pow(c.box, 3), 1e-3 * std::pow(c.box, 3));
}

TEST(Hydro3DInput, BadValuesAreRefusedNamingThem) {
  auto refuses = [](Hydro3DConfig c, const char* what) {
    try {
      make_hydro3d_setup(c);
      ADD_FAILURE() << "accepted " << what;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  Hydro3DConfig c;
  c.nx = 6;
  refuses(c, "at least 8");
  c = {};
  c.cs = 0;
  refuses(c, "cs = 0");
  c = {};
  c.nu = -1;
  refuses(c, "nu = -1");
  c = {};
  c.dt = 1.0;
  refuses(c, "Courant limit");
}

}  // namespace
}  // namespace ss

namespace ss {
namespace {

TEST(Hydro3DHealth, AKickBeyondTheCourantLimitPausesWithTheReason) {
  const Model& m = find_model("hydro3d");
  ParamValues p = {{"init", std::string("decay")}, {"u0", 0.1}, {"k", 2.0}};
  auto sim = m.create(make_config(m, {16, 16, 16}, 6, p), Backend::cpu, "cpu");
  sim->start_steps(1);
  EXPECT_EQ(sim->health(), "") << "a calm flow may go on";
  ViewPlacement where;
  where.slices = {8, 8, 8};
  sim->paint(0, 8, 8, 6, 4.0, where);  // a kick of 4 cs: the dt of |u| 0.1 no longer holds
  const std::string why = sim->health();
  EXPECT_NE(why.find("Courant limit is violated"), std::string::npos) << why;
  EXPECT_NE(why.find("paused"), std::string::npos) << why;
  // Stepping on anyway blows up, and the reason then names the NaN.
  for (int i = 0; i < 200 && sim->health().find("NaN") == std::string::npos; ++i) sim->start_steps(5);
  EXPECT_NE(sim->health().find("NaN or Inf"), std::string::npos) << sim->health();
}

}  // namespace
}  // namespace ss

namespace ss {
namespace {

TEST(Hydro3DCurves, TheLiveSpectrumIsALogLogCurveWithTheKolmogorovGuide) {
  const Model& m = find_model("hydro3d");
  auto sim = m.create(make_config(m, {16, 16, 16}, 6, {{"init", std::string("turbulence")}, {"f0", 0.2}}), Backend::cpu, "cpu");
  sim->start_steps(20);
  const std::vector<Curve> c = sim->curves();
  ASSERT_EQ(c.size(), 1u);
  EXPECT_TRUE(c[0].log_x && c[0].log_y);
  EXPECT_DOUBLE_EQ(c[0].guide_slope, -5.0 / 3.0);
  ASSERT_EQ(c[0].x.size(), 8u) << "k = 1 .. 8 on a 16^3 box";
  double sum = 0;
  for (std::size_t k = 0; k < c[0].x.size(); ++k) {
    EXPECT_EQ(c[0].x[k], static_cast<double>(k + 1));
    EXPECT_GE(c[0].y[k], 0.0);
    sum += c[0].y[k];
  }
  EXPECT_GT(sum, 0.0) << "the forcing put energy in";
  // The forcing shell (kf 1.5: |k| in [1, 2)) holds the most energy after 20 steps from rest.
  const auto peak = std::max_element(c[0].y.begin(), c[0].y.end()) - c[0].y.begin();
  EXPECT_LE(peak, 1) << "E(k) peaks at k = " << peak + 1;
}

}  // namespace
}  // namespace ss

namespace ss {
namespace {

TEST(Hydro3DInput, ANonPeriodicBoundaryIsRefusedSayingItIsNotSupportedYet) {
  const Model& m = find_model("hydro3d");
  try {
    make_config(m, {16, 16, 16}, 6, {{"boundary", std::string("closed")}});
    ADD_FAILURE() << "a closed box was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("only periodic boundaries so far"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ss
