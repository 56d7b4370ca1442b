// Hydro 3D on the CPU: the ghost zone, the paper's physics tests at small sizes
// (viscous decay and its convergence order, the two methods' difference and its order,
// the explosion's symmetry, forced turbulence's spectrum), and bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "sim/core/decomposition.hpp"
#include "sim/core/error.hpp"
#include "sim/core/model.hpp"
#include "sim/models/hydro3d/hydro3d_physics.hpp"
#include "sim/models/hydro3d/hydro3d_solver.hpp"
#include "hydro3d_box_calls.hpp"

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
  c.dt_every = -1;
  refuses(c, "dt_every = -1");
  c = {};
  c.dt = -1;
  refuses(c, "dt = -1");
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

TEST(Hydro3DHealth, AKickBeyondTheCourantLimitOfAFixedDtPausesWithTheReason) {
  const Model& m = find_model("hydro3d");
  ParamValues p = {{"init", std::string("decay")}, {"u0", 0.1}, {"k", 2.0}, {"dt_every", 0.0}};  // the dt of t = 0, kept
  auto sim = m.create(make_config(m, {16, 16, 16}, 6, p), Backend::cpu, "cpu");
  sim->start_steps(1);
  EXPECT_TRUE(sim->checks_health()) << "the window's loop asks health() only of models that say so";
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


namespace ss {
namespace {

// ---- the adaptive dt ---------------------------------------------------------------
//
// The default scene (the explosion of eq 23 at the model's defaults: u_ampl 1, r_shell 0.8,
// d_shell 0.2) focuses at the centre: |u|max grows from 1 towards u_ampl r_shell / d_shell.
// At 32^3 the dt of t = 0 (|u|max 1) is outgrown at step 30 (|u|max 1.55); followed, the
// peak is 2.0 at step 33 and the flow then spreads out (step 160: t = 7.4).

constexpr int kSide = 32;

std::unique_ptr<Simulation> default_scene(ParamValues p = {}) {
  const Model& m = find_model("hydro3d");
  return m.create(make_config(m, {kSide, kSide, kSide}, 6, p), Backend::cpu, "cpu");
}

TEST(Hydro3DAdaptiveDt, TheDtOfTZeroPausesTheDefaultSceneAtTheFocusing) {
  auto sim = default_scene({{"dt_every", 0.0}});  // the old behaviour: dt taken once
  long paused = -1;
  for (int s = 0; s < 60 && paused < 0; ++s) {
    sim->start_steps(1);
    if (!sim->health().empty()) paused = sim->steps_done();
  }
  EXPECT_GT(paused, 20) << "the shell needs time to focus";
  EXPECT_LE(paused, 40) << "this size must pass through the focusing that paused the app";
}

TEST(Hydro3DAdaptiveDt, TheDefaultSceneRunsThroughTheFocusingWithoutPausing) {
  auto sim = default_scene();
  EXPECT_EQ(sim->config().number("dt"), 0.0) << "the default is the auto dt";
  double peak = 0, time = 0;
  long peak_step = 0;
  for (int s = 0; s < 120; ++s) {  // four times the step the dt of t = 0 pauses at
    sim->start_steps(1);
    const std::string why = sim->health();
    ASSERT_EQ(why, "") << "step " << sim->steps_done();
    time += sim->dt();  // the dt the step took (taken before it)
    const double mach = sim->diagnostics()[1].value;
    if (mach > peak) peak = mach, peak_step = sim->steps_done();
  }
  const double now = sim->diagnostics()[1].value;
  std::printf("default scene, %d^3: |u|max peaks at %.3f at step %ld; step 120: |u|max %.3f, t = %.4g, dt %.4g\n", kSide,
              peak, peak_step, now, sim->time(), sim->dt());
  EXPECT_GT(peak, 1.5) << "the shell focused";
  EXPECT_GT(peak_step, 25);
  EXPECT_LT(now, 0.8 * peak) << "and spread out again";
  EXPECT_NEAR(sim->time(), time, 1e-12 * time) << "the time sums the steps' dts";
  EXPECT_GT(sim->time(), 3.0);
}

TEST(Hydro3DAdaptiveDt, TheCourantNumberStaysAtItsTargetEveryStep) {
  Hydro3DConfig c;
  c.nx = c.ny = c.nz = kSide;
  c.init = HydroInit::explosion;
  for (int every : {1, 4}) {
    c.dt_every = every;
    const Hydro3DSetup s = make_hydro3d_setup(c);
    HostHydro3D<float> sim(s, HydroMethod::single_pass);
    double worst_taken = 0, worst_now = 0;
    int worst_step = 0;
    for (int step = 0; step < 80; ++step) {
      const float* const f[kHydroFields] = {sim.field(0).data(), sim.field(1).data(), sim.field(2).data(), sim.field(3).data()};
      const HydroSpeed before = hydro_max_speed(f, s.grid);
      const bool takes = sim.recomputes_next();
      ASSERT_EQ(takes, step % every == 0);
      sim.step(1);
      const double dt = sim.clock().dt;
      // the Courant number of the step: dt over the limit of the flow it starts from
      const double courant = dt / hydro3d_dt_limit(s.h, c.cs, c.nu, before.umax);
      if (takes) {
        EXPECT_NEAR(courant, c.safety, 1e-12) << "step " << step << ": dt is taken at its target";
        worst_taken = std::max(worst_taken, courant);
      }
      if (courant > worst_now) worst_now = courant, worst_step = step;
      if (every == 1) ASSERT_LE(courant, c.safety * (1 + 1e-12)) << "step " << step;
    }
    std::printf("dt every %d step(s): Courant number at most %.4f of the limit, at step %d (%.4f where dt was taken)\n", every,
                worst_now, worst_step, worst_taken);
    // Between takes it drifts with the flow: through the focusing, dt every 4 steps
    // reaches the limit itself (the health check then pauses): the default takes it every step.
    if (every > 1) EXPECT_GT(worst_now, c.safety);
  }
}

TEST(Hydro3DAdaptiveDt, AFixedDtStaysFixedAndTheTimeIsStepsTimesDt) {
  auto sim = default_scene({{"dt", 0.02}});  // as a scene file or --param gives it; dt_every is then unused
  for (int i = 0; i < 4; ++i) sim->start_steps(10);
  EXPECT_EQ(sim->dt(), 0.02);
  EXPECT_EQ(sim->time(), 40 * 0.02);
  EXPECT_EQ(sim->health(), "") << "0.02 is below the limit of the focused flow at 32^3";
  auto fixed0 = default_scene({{"dt_every", 0.0}});
  const double dt0 = fixed0->dt();
  fixed0->start_steps(10);
  EXPECT_EQ(fixed0->dt(), dt0);
  EXPECT_EQ(fixed0->time(), 10 * dt0);
}

TEST(Hydro3DAdaptiveDt, ACopiedStateGoesOnBitForBit) {
  auto a = default_scene({{"dt_every", 3.0}});
  a->start_steps(20);  // mid-interval: the next dt is not taken at step 20
  const SimState st = a->copy_state();
  ASSERT_TRUE(st.dt && st.time);
  auto b = default_scene({{"dt_every", 3.0}});
  b->load_state(st);
  EXPECT_EQ(b->time(), a->time());
  a->start_steps(10);
  b->start_steps(10);
  EXPECT_EQ(b->dt(), a->dt());
  EXPECT_EQ(b->time(), a->time());
  const SimState sa = a->copy_state(), sb = b->copy_state();
  for (std::size_t f = 0; f < sa.fields.size(); ++f) EXPECT_EQ(sa.fields[f], sb.fields[f]) << "field " << f;
}

TEST(Hydro3DAdaptiveDt, AKickTakesASmallerDtInsteadOfPausing) {
  auto sim = default_scene({{"init", std::string("decay")}, {"u0", 0.1}, {"k", 2.0}});
  sim->start_steps(1);
  const double calm = sim->dt();
  ViewPlacement where;
  where.slices = {16, 16, 16};
  sim->paint(0, 16, 16, 6, 4.0, where);  // the kick that pauses a fixed dt (Hydro3DHealth above)
  EXPECT_EQ(sim->health(), "") << "the next step takes its dt from the kicked flow";
  sim->start_steps(1);
  EXPECT_LT(sim->dt(), 0.5 * calm);
  for (int i = 0; i < 10; ++i) {
    sim->start_steps(5);
    ASSERT_EQ(sim->health(), "") << "step " << sim->steps_done();
  }
}

TEST(Hydro3DAdaptiveDt, BadValuesAreRefusedNamingThem) {
  const Model& m = find_model("hydro3d");
  auto refuses = [&](ParamValues p, const char* what) {
    try {
      make_config(m, {16, 16, 16}, 6, p);
      ADD_FAILURE() << "accepted " << what;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  refuses({{"dt_every", -1.0}}, "dt_every");
  refuses({{"dt_every", 1.5}}, "dt_every");
  refuses({{"dt", -0.1}}, "dt");
  refuses({{"dt", 1.0}}, "Courant limit");
  refuses({{"safety", 0.0}}, "safety");
  refuses({{"safety", 1.5}}, "safety");
}

}  // namespace
}  // namespace ss

namespace ss {
namespace {

/// The box's collective calls, with the |u|^2 max of each dt replaced by "max".
std::string call_kinds(const std::string& calls) {
  std::string out;
  for (std::size_t p = 0; p < calls.size();) {
    const std::size_t e = calls.find(' ', p);
    const std::string word = calls.substr(p, e - p);
    out += (word.rfind("max", 0) == 0 ? std::string("max") : word) + " ";
    p = e + 1;
  }
  return out;
}

// The order both boxes keep (hydro_box_step): a dt when the one-rank run takes one, the
// four fields after each substep (the divergence between the two-pass method's passes), the
// forcing's exchange; the first dt's maximum is the whole grid's |u|^2 max.
TEST(Hydro3DBox, ItsCollectiveCallsFollowTheOneRankStep) {
  struct Case {
    HydroInit init;
    double dt;
    int dt_every;
    HydroMethod method;
    const char* expected;  // refresh, then three steps
  };
  const Case cases[] = {
      {HydroInit::explosion, 0, 1, HydroMethod::single_pass, "f4 max f4 f4 f4 max f4 f4 f4 max f4 f4 f4 "},
      {HydroInit::explosion, 0, 2, HydroMethod::single_pass, "f4 max f4 f4 f4 f4 f4 f4 max f4 f4 f4 "},
      {HydroInit::explosion, 1e-3, 1, HydroMethod::single_pass, "f4 f4 f4 f4 f4 f4 f4 f4 f4 f4 "},
      {HydroInit::turbulence, 0, 1, HydroMethod::single_pass, "f4 max f4 f4 f4 f4 max f4 f4 f4 f4 max f4 f4 f4 f4 "},
      {HydroInit::decay, 0, 1, HydroMethod::two_pass, "f4 max f1 f4 f1 f4 f1 f4 max f1 f4 f1 f4 f1 f4 max f1 f4 f1 f4 f1 f4 "},
  };
  for (const Case& k : cases) {
    Hydro3DConfig c;
    c.nx = 12, c.ny = 10, c.nz = 9;
    c.init = k.init;
    c.dt = k.dt;
    c.dt_every = k.dt_every;
    c.k = 2;  // the shear wave of decay: below nx / 2
    const Hydro3DSetup s = make_hydro3d_setup(c);
    const BoxPlacement where = place_box(make_decomposition({c.nx, c.ny, c.nz}, 1, std::nullopt, 1), 0, {true, true, true});
    auto box = make_hydro3d_box(s, where, k.method);
    test::RecordingFill fill;
    box->refresh_ghosts(fill);
    box->step(3, fill);
    EXPECT_EQ(call_kinds(fill.calls), k.expected) << to_string(k.init) << " dt " << k.dt << " every " << k.dt_every;
    if (k.dt == 0) {  // the first dt: |u|^2 max of the initial state, as HostHydro3D takes it
      HostHydro3D<float> one(s, k.method);
      const float* const whole[kHydroFields] = {one.field(0).data(), one.field(1).data(), one.field(2).data(),
                                                one.field(3).data()};
      const float u2 = hydro_max_speed(whole, s.grid).u2max;
      unsigned bits = 0;
      std::memcpy(&bits, &u2, sizeof(bits));
      EXPECT_NE(fill.calls.find(fmt::format("max({:08x})", bits)), std::string::npos) << fill.calls;
    }
  }
}

}  // namespace
}  // namespace ss
