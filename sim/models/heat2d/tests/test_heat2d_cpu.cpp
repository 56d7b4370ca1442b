// The CPU backend and the double reference: against each other, against the exact
// solution, per boundary type, and at the edge of stability.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numeric>

#include "sim/core/device.hpp"
#include "sim/core/error.hpp"
#include "sim/models/heat2d/heat2d_solver.hpp"

namespace ss {
namespace {

Heat2DSetup setup_of(int nx, int ny, int order, Boundary b, InitialCondition ic = InitialCondition::analytic) {
  Heat2DConfig c;
  c.nx = nx;
  c.ny = ny;
  c.order = order;
  c.boundary = b;
  c.initial = ic;
  c.fixed_value = 0.25;
  return make_heat2d_setup(c);
}

template <typename T>
double interior_sum(const HostHeat2D<T>& h) {
  const auto in = extract_interior(h.field(), h.setup().grid);
  return std::accumulate(in.begin(), in.end(), 0.0);
}

class CpuAgainstReference : public ::testing::TestWithParam<std::tuple<int, Boundary>> {};

TEST_P(CpuAgainstReference, FloatAndDoubleAgreeWithTheReference) {
  const auto [order, boundary] = GetParam();
  const Heat2DSetup s = setup_of(67, 45, order, boundary, InitialCondition::hot_spots);
  const int steps = 25;
  const std::vector<double> ref = heat2d_reference(s, steps);

  HostHeat2D<double> d(s);
  d.poison_scratch();
  d.step(steps);
  const ErrorNorms ed = compare_to_reference(extract_interior(d.field(), s.grid), ref);
  EXPECT_TRUE(ed.finite);
  EXPECT_LT(ed.rel_l2, 1e-13);
  EXPECT_LT(ed.rel_linf, 1e-12);

  HostHeat2D<float> f(s);
  f.poison_scratch();
  f.step(steps);
  const ErrorNorms ef = compare_to_reference(extract_interior(f.field(), s.grid), ref);
  EXPECT_TRUE(ef.finite);
  EXPECT_LT(ef.rel_l2, 1e-6);
  EXPECT_GT(ef.rel_l2, 0.0);  // float really ran in float
}

INSTANTIATE_TEST_SUITE_P(AllOrdersAllBoundaries, CpuAgainstReference,
                         ::testing::Combine(::testing::Values(2, 4, 6, 8),
                                            ::testing::Values(Boundary::analytic, Boundary::periodic, Boundary::fixed,
                                                              Boundary::insulated)),
                         [](const auto& info) {
                           return "order" + std::to_string(std::get<0>(info.param)) + "_" +
                                  std::string(to_string(std::get<1>(info.param)));
                         });

TEST(Heat2DAnalytic, ReferenceConvergesToTheExactSolution) {
  // dt is a fixed fraction of the limit (so dt ~ h^2): the error falls at least as h^2.
  auto error_at = [](int n) {
    Heat2DConfig c;
    c.nx = c.ny = n;
    c.order = 8;
    c.alpha = 0.01;
    Heat2DSetup s = make_heat2d_setup(c);
    const double t_end = 0.05;
    const int steps = static_cast<int>(std::ceil(t_end / s.dt));
    s.dt = t_end / steps;
    const auto ref = heat2d_reference(s, steps);
    double e2 = 0, n2 = 0;
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        const double exact = s.analytic.value(s.x_of(i), s.y_of(j), t_end, c.alpha);
        e2 += std::pow(ref[j * n + i] - exact, 2);
        n2 += exact * exact;
      }
    return std::sqrt(e2 / n2);
  };
  const double e32 = error_at(32), e64 = error_at(64);
  // Explicit Euler's error dominates (dt ~ h^2): about lambda^2 dt t / 2 = 5e-3 for
  // the fast mode at n = 32, and a quarter of that at n = 64.
  EXPECT_LT(e32, 3e-3) << e32 << " " << e64;
  EXPECT_LT(e64, e32 / 3.5) << e32 << " -> " << e64;
}

TEST(Heat2DBoundary, PeriodicConservesHeatAndWrapsGhosts) {
  const Heat2DSetup s = setup_of(40, 24, 8, Boundary::periodic, InitialCondition::hot_spots);
  HostHeat2D<double> h(s);
  const double before = interior_sum(h);
  h.step(60);
  EXPECT_NEAR(interior_sum(h), before, 1e-10 * std::abs(before));
  const Grid2D& g = s.grid;
  for (int k = 1; k <= kGhost; ++k) {
    EXPECT_EQ(h.field()[g.index(-k, 7)], h.field()[g.index(g.nx - k, 7)]);
    EXPECT_EQ(h.field()[g.index(g.nx - 1 + k, 7)], h.field()[g.index(k - 1, 7)]);
    EXPECT_EQ(h.field()[g.index(5, -k)], h.field()[g.index(5, g.ny - k)]);
    EXPECT_EQ(h.field()[g.index(5, g.ny - 1 + k)], h.field()[g.index(5, k - 1)]);
  }
}

TEST(Heat2DBoundary, InsulatedConservesHeatAndMirrorsGhosts) {
  const Heat2DSetup s = setup_of(33, 29, 6, Boundary::insulated, InitialCondition::hot_disc);
  HostHeat2D<double> h(s);
  const double before = interior_sum(h);
  h.step(80);
  EXPECT_NEAR(interior_sum(h), before, 1e-10 * std::abs(before));
  const Grid2D& g = s.grid;
  for (int k = 1; k <= kGhost; ++k) {
    EXPECT_EQ(h.field()[g.index(-k, 3)], h.field()[g.index(k - 1, 3)]);
    EXPECT_EQ(h.field()[g.index(g.nx - 1 + k, 3)], h.field()[g.index(g.nx - k, 3)]);
    EXPECT_EQ(h.field()[g.index(9, -k)], h.field()[g.index(9, k - 1)]);
  }
}

TEST(Heat2DBoundary, FixedRelaxesToTheFixedValue) {
  const Heat2DSetup s = setup_of(16, 16, 8, Boundary::fixed, InitialCondition::hot_disc);
  HostHeat2D<double> h(s);
  auto distance = [&] {
    const auto in = extract_interior(h.field(), s.grid);
    double d = 0;
    for (double v : in) d = std::max(d, std::abs(v - 0.25));
    return d;
  };
  const double d0 = distance();
  h.step(100);
  const double d1 = distance();
  h.step(static_cast<int>(1.0 / s.dt));  // a diffusion time L^2 / alpha
  const double d2 = distance();
  EXPECT_LT(d1, d0);
  EXPECT_LT(d2, 1e-3);
  EXPECT_EQ(h.field()[s.grid.index(-1, 4)], 0.25);
  EXPECT_EQ(h.field()[s.grid.index(4, s.grid.ny)], 0.25);
}

TEST(Heat2DBoundary, AnalyticGhostsHoldTheExactSolution) {
  const Heat2DSetup s = setup_of(50, 30, 4, Boundary::analytic);
  HostHeat2D<double> h(s);
  h.step(7);
  const double t = 7 * s.dt;
  const Grid2D& g = s.grid;
  for (int k = 1; k <= kGhost; ++k) {
    EXPECT_NEAR(h.field()[g.index(-k, 11)], s.analytic.value(s.x_of(-k), s.y_of(11), t, 1.0), 1e-14);
    EXPECT_NEAR(h.field()[g.index(g.nx - 1 + k, 2)], s.analytic.value(s.x_of(g.nx - 1 + k), s.y_of(2), t, 1.0), 1e-14);
    EXPECT_NEAR(h.field()[g.index(13, g.ny - 1 + k)], s.analytic.value(s.x_of(13), s.y_of(g.ny - 1 + k), t, 1.0),
                1e-14);
  }
}

// The Nyquist checkerboard is an eigenmode of the periodic operator: its factor per
// step is 1 - 2 dt / dt_limit, so it grows just above the limit and decays below.
TEST(Heat2DStability, LimitIsSharp) {
  for (int order : {2, 4, 6, 8}) {
    for (double fraction : {0.95, 1.05}) {
      Heat2DSetup s = setup_of(16, 16, order, Boundary::periodic);
      s.dt = fraction * s.dt_limit;  // bypass the check on purpose
      HostHeat2D<double> h(s);
      for (int j = 0; j < 16; ++j)
        for (int i = 0; i < 16; ++i) h.mutable_field()[s.grid.index(i, j)] = (i + j) % 2 ? 1.0 : -1.0;
      h.refresh_ghosts();
      h.step(50);
      const double amp = std::abs(h.field()[s.grid.index(3, 3)]);
      const double expected = std::pow(std::abs(1 - 2 * fraction), 50);
      EXPECT_NEAR(amp, expected, 1e-9 * expected) << "order " << order << " fraction " << fraction;
    }
  }
}

TEST(Heat2DSetup, RefusesDtAboveTheLimitAndNamesIt) {
  Heat2DConfig c;
  c.nx = c.ny = 64;
  const Heat2DSetup ok = make_heat2d_setup(c);
  EXPECT_DOUBLE_EQ(ok.dt, kDefaultDtFraction * ok.dt_limit);
  c.dt = ok.dt_limit * 1.01;
  try {
    make_heat2d_setup(c);
    FAIL() << "dt above the limit was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("stability limit"), std::string::npos) << e.what();
  }
  c.dt = ok.dt_limit;
  EXPECT_NO_THROW(make_heat2d_setup(c));
}

TEST(Heat2DSetup, RejectsBadInput) {
  auto with = [](auto edit) {
    Heat2DConfig c;
    c.nx = c.ny = 64;
    edit(c);
    return c;
  };
  EXPECT_THROW(make_heat2d_setup(with([](Heat2DConfig& c) { c.nx = 4; })), Error);
  EXPECT_THROW(make_heat2d_setup(with([](Heat2DConfig& c) { c.order = 5; })), Error);
  EXPECT_THROW(make_heat2d_setup(with([](Heat2DConfig& c) { c.alpha = -1; })), Error);
  EXPECT_THROW(make_heat2d_setup(with([](Heat2DConfig& c) { c.dt = -1e-3; })), Error);
  EXPECT_THROW(make_heat2d_setup(with([](Heat2DConfig& c) { c.dt = std::nan(""); })), Error);
  EXPECT_THROW(parse_heat2d_variant("fastest"), Error);
  EXPECT_THROW(parse_boundary("open"), Error);
}

TEST(Heat2DHost, PaintSetsTheDiscAndItsGhostImages) {
  const Heat2DSetup s = setup_of(32, 32, 8, Boundary::periodic, InitialCondition::hot_disc);
  HostHeat2D<float> h(s);
  h.paint({1.0, 16.0, 3.0, -2.0});  // touches the left edge
  const Grid2D& g = s.grid;
  EXPECT_EQ(h.field()[g.index(0, 16)], -2.0f);
  EXPECT_EQ(h.field()[g.index(2, 16)], -2.0f);
  EXPECT_NE(h.field()[g.index(5, 16)], -2.0f);
  EXPECT_EQ(h.field()[g.index(g.nx, 16)], -2.0f);  // ghost image of (0, 16)
  EXPECT_TRUE(h.all_finite());
  h.mutable_field()[g.index(4, 4)] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_FALSE(h.all_finite());
}

TEST(Heat2DHost, LoadedInteriorContinuesBitForBit) {
  // The analytic ghosts depend on time, so this also checks that the step count carries over.
  const Heat2DSetup s = setup_of(45, 38, 8, Boundary::analytic, InitialCondition::hot_spots);
  HostHeat2D<float> a(s), b(s);
  a.step(5);
  b.load_interior(extract_interior(a.field(), s.grid).data(), a.steps_done());
  EXPECT_EQ(b.steps_done(), 5);
  a.step(7);
  b.step(7);
  EXPECT_EQ(extract_interior(a.field(), s.grid), extract_interior(b.field(), s.grid));
  EXPECT_EQ(a.field()[s.grid.index(-2, 10)], b.field()[s.grid.index(-2, 10)]);
}

// set_order changes the default dt, so the field's time (steps x dt) moves: the
// analytic ghosts must be those of the new time, as in a solver started there.
TEST(Heat2DHost, SetOrderMovesTheGhostsToTheNewTime) {
  const Heat2DSetup s = setup_of(23, 17, 8, Boundary::analytic, InitialCondition::hot_spots);
  HostHeat2D<double> h(s);
  h.step(3);
  h.set_order(4);
  ASSERT_NE(h.setup().dt, s.dt);
  HostHeat2D<double> fresh(h.setup());
  fresh.load_interior(extract_interior(h.field(), s.grid).data(), 3);
  const Grid2D& g = s.grid;
  for (int m = 1; m <= kGhost; ++m) {
    EXPECT_EQ(h.field()[g.index(-m, 5)], fresh.field()[g.index(-m, 5)]) << "x ghost " << m;
    EXPECT_EQ(h.field()[g.index(7, g.ny - 1 + m)], fresh.field()[g.index(7, g.ny - 1 + m)]) << "y ghost " << m;
  }
  h.step(2);
  fresh.step(2);
  EXPECT_EQ(extract_interior(h.field(), g), extract_interior(fresh.field(), g));
}

TEST(Heat2DReference, SetOrderMovesTheGhostsToTheNewTime) {
  const Heat2DSetup s = setup_of(23, 17, 8, Boundary::analytic, InitialCondition::hot_spots);
  ReferenceHeat2D r(s);
  r.step(3);
  r.set_order(2);
  ASSERT_NE(r.setup().dt, s.dt);
  ReferenceHeat2D fresh(r.setup());
  const std::vector<double> mid = r.interior();
  fresh.load_interior(mid.data(), 3);
  r.step(2);
  fresh.step(2);
  EXPECT_EQ(r.interior(), fresh.interior());
}

TEST(Heat2DReference, SteppingInPiecesAndCarryingTheFieldChangeNothing) {
  const Heat2DSetup s = setup_of(37, 29, 6, Boundary::analytic, InitialCondition::hot_spots);
  const std::vector<double> whole = heat2d_reference(s, 12);
  ReferenceHeat2D r(s);
  r.step(5);
  r.step(7);
  EXPECT_EQ(r.interior(), whole);
  ReferenceHeat2D a(s), b(s);
  a.step(5);
  const std::vector<double> mid = a.interior();
  b.load_interior(mid.data(), a.steps_done());  // analytic ghosts: the time must carry over
  b.step(7);
  EXPECT_EQ(b.interior(), whole);
  b.reset();
  EXPECT_EQ(b.steps_done(), 0);
  EXPECT_NE(b.interior(), whole);
}

// The GPU stream variant's strip height follows the device's DRAM bandwidth per SM
// (cuda_peak_gbps_per_sm): 12 rows where DRAM binds (an H100 SXM, about 25 GB/s per SM, or
// no device), 20 where the SM binds (an H200, about 37); docs/perf.md, session 22.
TEST(Heat2DStream, TheStripHeightFollowsTheDevice) {
  EXPECT_EQ(heat2d_stream_strip_rows(0), kStreamStripRows);
  EXPECT_EQ(heat2d_stream_strip_rows(25.4), 12);
  EXPECT_EQ(heat2d_stream_strip_rows(kSmBoundPeakGbpsPerSm), 12);
  EXPECT_EQ(heat2d_stream_strip_rows(36.7), 20);
  EXPECT_EQ(heat2d_stream_strip_rows(36.7), kStreamStripRowsSmBound);
}

}  // namespace
}  // namespace ss
