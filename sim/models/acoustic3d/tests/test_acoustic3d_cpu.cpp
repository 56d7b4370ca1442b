// acoustic3d on the host: the physics (the 3D Green's function, spatial convergence
// orders, the sponge's reflection, the free surface, energy), the `cpu` variant against
// the independent double reference, and bad input. Measured figures are printed as
// "[ MEASURED ]" lines.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <numbers>
#include <string>

#include <fmt/format.h>

#include "sim/bench/report.hpp"  // ErrorNorms, compare_to_reference
#include "sim/core/error.hpp"
#include "sim/core/model.hpp"
#include "sim/core/npy.hpp"
#include "sim/models/acoustic3d/acoustic3d_solver.hpp"

namespace ss {
namespace {

constexpr double pi = std::numbers::pi;

Acoustic3DConfig cube(int n, int order = 8) {
  Acoustic3DConfig c;
  c.nx = c.ny = c.nz = n;
  c.order = order;
  return c;
}

/// The time of trace row r of a solver started at rest.
double row_time(const Acoustic3DSetup& s, long first, int r) { return (first + r + 1) * s.dt; }

/// The analytic 3D Green's function of the model's source at distance r_cells:
/// p = A ricker(t - r/v) / (4 pi v^2 r) with A = 4 pi vp^2 h, so p = (h / r) ricker(t - r/v) when v = vp.
double green(const Acoustic3DSetup& s, double r_cells, double t) {
  const double v = s.config.vp, r = r_cells * s.config.h;
  return s.source_strength * s.ricker(t - r / v) / (4 * pi * v * v * r);
}

template <typename T>
std::vector<double> trace_at(const std::vector<T>& traces, int nx, int i) {
  std::vector<double> out;
  for (std::size_t r = 0; r * nx < traces.size(); ++r) out.push_back(traces[r * nx + i]);
  return out;
}

// ---- the 3D Green's function ---------------------------------------------

// Homogeneous periodic box, a point Ricker source at the centre: up to the time the first
// periodic image can reach the farthest receiver the traces are the free-space Green's
// function. 14 Hz with vp 2000 m/s and h 10 m: 5.7 nodes per wavelength at 2.5 f0 (35 Hz),
// the highest frequency with energy in the wavelet.
TEST(Acoustic3DPhysics, GreensFunctionAtThreeDistances) {
  Acoustic3DConfig c = cube(64);
  c.boundary = AcousticBoundary::periodic;
  c.f0 = 14;
  const Acoustic3DSetup s = make_acoustic3d_setup(c);
  ASSERT_GE(s.vmin / (2.5 * c.f0 * c.h), 5.0);
  const int rmax = 10;
  const double window = (c.nx - rmax) * c.h / c.vp;  // before any periodic image
  ASSERT_GT(window, rmax * c.h / c.vp + 3.0 / c.f0) << "the whole wavelet must arrive inside the window";
  const int steps = static_cast<int>(window / s.dt);
  HostAcoustic3D<float> sim(s);
  sim.step(steps);
  ASSERT_EQ(sim.trace_rows(), steps);
  for (int r : {4, 7, rmax}) {
    const std::vector<double> num = trace_at(sim.traces(), c.nx, s.src[0] + r);
    double diff = 0, norm = 0, t_num = 0, peak = 0;
    for (int n = 0; n < steps; ++n) {
      const double t = row_time(s, 0, n), exact = green(s, r, t);
      diff += (num[n] - exact) * (num[n] - exact);
      norm += exact * exact;
      if (num[n] > peak) peak = num[n], t_num = t;
    }
    const double misfit = std::sqrt(diff / norm);
    const double t_exact = 1.5 / c.f0 + r * c.h / c.vp;  // the Ricker's peak, delayed by r / v
    std::printf("[ MEASURED ] Green's function at r = %d cells: L2 misfit %.3f %%, peak %.4f Pa (exact %.4f), "
                "peak time %.5f s (exact %.5f, dt %.5f)\n",
                r, 100 * misfit, peak, green(s, r, t_exact), t_num, t_exact, s.dt);
    EXPECT_LT(misfit, 0.03) << "r = " << r;
    EXPECT_LE(std::abs(t_num - t_exact), 1.01 * s.dt) << "r = " << r;
    EXPECT_NEAR(peak, green(s, r, t_exact), 0.03 * green(s, r, t_exact)) << "r = " << r;
  }
}

// ---- spatial convergence -------------------------------------------------

// A plane wave cos(k.x - w t) in a periodic box. With the same dt at both resolutions the
// time discretisation is the same, and w is taken from leapfrog's own dispersion relation
// with the exact Laplacian, 2 (1 - cos(w dt)) = (v |k| dt)^2: what remains of the error is
// the spatial one, which falls as h^order.
double plane_wave_error(int n, int order, double dt, int steps) {
  Acoustic3DConfig c = cube(n, order);
  c.boundary = AcousticBoundary::periodic;
  c.source = false;
  c.vp = 1.0;
  c.h = 1.0 / n;
  c.dt = dt;
  const Acoustic3DSetup s = make_acoustic3d_setup(c);
  const double kx = 2 * pi, ky = 4 * pi, kz = 2 * pi;  // (1, 2, 1) waves across the unit box
  const double k2 = kx * kx + ky * ky + kz * kz;
  const double w = std::acos(1 - 0.5 * k2 * dt * dt) / dt;
  auto exact = [&](int i, int j, int k, double t) { return std::cos(kx * i * c.h + ky * j * c.h + kz * k * c.h - w * t); };
  std::vector<double> p(s.grid.points()), p_prev(s.grid.points());
  for (int k = 0; k < n; ++k)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        const std::size_t e = (static_cast<std::size_t>(k) * n + j) * n + i;
        p[e] = exact(i, j, k, 0.0);
        p_prev[e] = exact(i, j, k, -dt);
      }
  HostAcoustic3D<double> sim(s);
  sim.load_interior(p.data(), p_prev.data(), 0);
  sim.step(steps);
  const std::vector<double> out = sim.interior();
  double worst = 0;
  for (int k = 0; k < n; ++k)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i)
        worst = std::max(worst, std::abs(out[(static_cast<std::size_t>(k) * n + j) * n + i] - exact(i, j, k, steps * dt)));
  return worst;
}

TEST(Acoustic3DPhysics, SpatialConvergenceOrders) {
  const int coarse = 16, fine = 32;
  // One dt for both grids: half the order-8 limit of the fine grid.
  const double dt = 0.5 * acoustic3d_dt_limit(8, 1.0, 1.0 / fine);
  const int steps = static_cast<int>(0.25 / dt);
  for (int order : {2, 4, 6, 8}) {
    const double e0 = plane_wave_error(coarse, order, dt, steps), e1 = plane_wave_error(fine, order, dt, steps);
    const double measured = std::log2(e0 / e1);
    std::printf("[ MEASURED ] order %d: max error %.3e at %d^3, %.3e at %d^3: measured order %.2f\n", order, e0, coarse,
                e1, fine, measured);
    EXPECT_NEAR(measured, order, 0.3) << "order " << order;
  }
}

// ---- boundaries ----------------------------------------------------------

// The sponge on every face of a 48^3 box against the same source and receiver in a 72^3
// periodic box, where nothing comes back within the window: what differs is what the
// sponge sends back.
TEST(Acoustic3DPhysics, SpongeReflectsLittle) {
  const double f0 = 16;  // 5 nodes per wavelength at 2.5 f0
  // Order 4: what the sponge sends back does not depend on the order, and both runs share
  // the scheme's own errors; order 4 halves the test's time.
  Acoustic3DConfig small = cube(48, 4);
  small.f0 = f0;
  small.top = TopBoundary::absorbing;
  small.sponge_width = 16;
  Acoustic3DConfig big = cube(72, 4);
  big.f0 = f0;
  big.boundary = AcousticBoundary::periodic;
  const Acoustic3DSetup ss = make_acoustic3d_setup(small), sb = make_acoustic3d_setup(big);
  ASSERT_EQ(ss.dt, sb.dt);
  const int r = 4;
  // Until the first periodic image reaches the big box's receiver (72 - r cells away);
  // the outer faces of the small box, 24 cells from the source, echo within it.
  const int steps = static_cast<int>((big.nx - r - 2) * big.h / big.vp / sb.dt);
  ASSERT_GT(steps * sb.dt, (24.0 + 24.0 - r) * small.h / small.vp + 1.5 / f0) << "the echo's main lobe is in the window";
  HostAcoustic3D<float> a(ss), b(sb);
  a.step(steps);
  b.step(steps);
  const std::vector<double> ta = trace_at(a.traces(), small.nx, ss.src[0] + r), tb = trace_at(b.traces(), big.nx, sb.src[0] + r);
  double direct = 0, echo = 0;
  for (int n = 0; n < steps; ++n) {
    direct = std::max(direct, std::abs(tb[n]));
    echo = std::max(echo, std::abs(ta[n] - tb[n]));
  }
  std::printf("[ MEASURED ] sponge of 16 cells (Cerjan a = %.3f): reflected %.3f %% of the direct amplitude\n", kCerjanA,
              100 * echo / direct);
  EXPECT_LT(echo, 0.02 * direct);
  EXPECT_GT(direct, 0.1);  // the direct wave did arrive (about h / r = 0.25 Pa)
}

// ---- CPML ----------------------------------------------------------------

/// The largest |difference| between the receiver 4 nodes from the source in `small` and
/// the same receiver in a 72^3 periodic box (where nothing comes back within the window),
/// over the largest |p| there: what the faces of `small` send back, relative to the direct
/// wave. Order 4, f0 16 Hz: 5 nodes per wavelength at 2.5 f0. The big run is shared.
double reflection_against_big_box(const Acoustic3DConfig& small) {
  static const std::vector<double> big_trace = [] {
    Acoustic3DConfig big = cube(72, 4);
    big.f0 = 16;
    big.boundary = AcousticBoundary::periodic;
    const Acoustic3DSetup sb = make_acoustic3d_setup(big);
    const int steps = static_cast<int>((big.nx - 4 - 2) * big.h / big.vp / sb.dt);
    HostAcoustic3D<float> b(sb);
    b.step(steps);
    return trace_at(b.traces(), big.nx, sb.src[0] + 4);
  }();
  const Acoustic3DSetup ss = make_acoustic3d_setup(small);
  const int steps = static_cast<int>(big_trace.size());
  EXPECT_GT(steps * ss.dt, (small.nx - 4) * small.h / small.vp + 1.5 / small.f0) << "the echo is in the window";
  HostAcoustic3D<float> a(ss);
  a.step(steps);
  const std::vector<double> ta = trace_at(a.traces(), small.nx, ss.src[0] + 4);
  double direct = 0, echo = 0;
  for (int n = 0; n < steps; ++n) {
    direct = std::max(direct, std::abs(big_trace[n]));
    echo = std::max(echo, std::abs(ta[n] - big_trace[n]));
  }
  EXPECT_GT(direct, 0.1);  // the direct wave did arrive (about h / r = 0.25 Pa)
  return echo / direct;
}

/// The 48^3 box with the CPML on all six faces, `width` nodes wide.
Acoustic3DConfig cpml_box(int width) {
  Acoustic3DConfig c = cube(48, 4);
  c.f0 = 16;
  c.boundary = AcousticBoundary::cpml;
  c.top = TopBoundary::absorbing;
  c.cpml_width = width;
  return c;
}

// The CPML on every face of a 48^3 box, as the sponge test above measures the sponge: at
// the default width (16) at most 0.1 % of the direct amplitude (the goal).
TEST(Acoustic3DPhysics, CpmlOfTheDefaultWidthReflectsAtMostATenthOfAPercent) {
  const double r = reflection_against_big_box(cpml_box(kDefaultCpmlWidth));
  std::printf("[ MEASURED ] CPML of %d nodes (R %.0e, N %d): reflected %.4f %% of the direct amplitude\n",
              kDefaultCpmlWidth, kDefaultCpmlReflection, kCpmlPower, 100 * r);
  EXPECT_LT(r, 1e-3);
}

// Narrower layers reflect more, and still far less than the sponge of 16.
TEST(Acoustic3DPhysics, NarrowerCpmlReflectsMore) {
  double previous = 1;
  for (int width : {8, 12}) {
    const double r = reflection_against_big_box(cpml_box(width));
    std::printf("[ MEASURED ] CPML of %d nodes (R %.0e, N %d): reflected %.4f %% of the direct amplitude\n", width,
                kDefaultCpmlReflection, kCpmlPower, 100 * r);
    EXPECT_LT(r, 0.005) << "width " << width;
    EXPECT_LT(r, previous) << "width " << width;
    previous = r;
  }
}

// A free top over CPML faces: p stays exactly 0 on the surface plane, and a long run
// (3000 steps, a random medium, a pulse near the surface, no source) decays and stays
// bounded: no late-time growth in the layers.
TEST(Acoustic3DPhysics, CpmlUnderAFreeTopStaysBoundedOverALongRun) {
  Acoustic3DConfig c = cube(16, 4);
  c.medium = Medium::random;
  c.boundary = AcousticBoundary::cpml;
  c.top = TopBoundary::free;
  c.cpml_width = 5;
  c.source = false;
  const Acoustic3DSetup s = make_acoustic3d_setup(c);
  HostAcoustic3D<float> sim(s);
  sim.paint({8, 8, 3, 3, 1.0});
  const Grid3D& g = s.grid;
  auto largest = [&] {
    double m = 0;
    for (float v : sim.interior()) m = std::max(m, static_cast<double>(std::abs(v)));
    return m;
  };
  const double p0 = largest();
  double late = 0, last = 0;
  for (int chunk = 0; chunk < 30; ++chunk) {
    sim.step(100);
    last = largest();
    if (chunk >= 10) late = std::max(late, last);
    for (int j = 0; j < g.ny; ++j)
      for (int i = 0; i < g.nx; ++i) ASSERT_EQ(sim.pressure()[g.index(i, j, 0)], 0.0f) << i << " " << j;
  }
  std::printf("[ MEASURED ] CPML of 5 nodes under a free top, 3000 steps: largest |p| %.2e of the initial after 1000 "
              "steps, %.2e at the end\n",
              late / p0, last / p0);
  EXPECT_TRUE(std::isfinite(last));
  EXPECT_LT(late, 1e-2 * p0);
  EXPECT_LE(last, late);
}

// p = 0 on the free surface, exactly, at every step; the surface reflection is the wave of
// an image source of opposite sign above it: the trace minus the direct Green's function is
// negative where that image's wave peaks.
TEST(Acoustic3DPhysics, FreeSurfaceStaysZeroAndReflectsWithOppositePolarity) {
  Acoustic3DConfig c = cube(48);
  c.f0 = 16;
  c.sponge_width = 16;
  c.top = TopBoundary::free;
  c.src_z = 6;
  const Acoustic3DSetup s = make_acoustic3d_setup(c);
  const int r = 4;
  const double r_image = std::hypot(r, 2.0 * c.src_z);
  const double t_image = 1.5 / c.f0 + r_image * c.h / c.vp;
  const int steps = static_cast<int>((t_image + 0.5 / c.f0) / s.dt);
  HostAcoustic3D<float> sim(s);
  const Grid3D& g = s.grid;
  for (int chunk = 0; chunk < steps; chunk += 20) {
    sim.step(std::min(20, steps - chunk));
    for (int j = 0; j < g.ny; ++j)
      for (int i = 0; i < g.nx; ++i) ASSERT_EQ(sim.pressure()[g.index(i, j, 0)], 0.0f) << i << " " << j;
  }
  const std::vector<double> trace = trace_at(sim.traces(), c.nx, s.src[0] + r);
  const int n_image = static_cast<int>(std::lround(t_image / s.dt)) - 1;
  const double reflected = trace[n_image] - green(s, r, row_time(s, 0, n_image));
  const double image_exact = -green(s, r_image, row_time(s, 0, n_image));
  std::printf("[ MEASURED ] free surface: reflection %.4f Pa at its peak, image source predicts %.4f Pa\n", reflected,
              image_exact);
  EXPECT_LT(reflected, 0);
  EXPECT_NEAR(reflected, image_exact, 0.15 * std::abs(image_exact));
}

// A paint adds the same Gaussian pulse to p and p_prev (a pulse at rest), never on the
// free surface.
TEST(Acoustic3DPhysics, PaintAddsAPulseAtRestOffTheFreeSurface) {
  const Acoustic3DSetup s = make_acoustic3d_setup(cube(16));
  HostAcoustic3D<float> sim(s);
  sim.paint({8.5, 8.5, 1.5, 3.0, 2.0});
  const Grid3D& g = s.grid;
  EXPECT_EQ(sim.interior(), sim.previous_interior());
  EXPECT_NEAR(sim.pressure()[g.index(8, 8, 1)], 2.0, 1e-6);  // the centre node
  EXPECT_NEAR(sim.pressure()[g.index(10, 8, 1)], 2.0 * std::exp(-4.0 / (2 * 1.5 * 1.5)), 1e-6);
  EXPECT_EQ(sim.pressure()[g.index(14, 8, 1)], 0.0f);  // outside the sphere
  for (int j = 0; j < g.ny; ++j)
    for (int i = 0; i < g.nx; ++i) EXPECT_EQ(sim.pressure()[g.index(i, j, 0)], 0.0f);
  sim.step(5);
  for (int j = 0; j < g.ny; ++j)
    for (int i = 0; i < g.nx; ++i) EXPECT_EQ(sim.pressure()[g.index(i, j, 0)], 0.0f);
}

// The traces written as .npy read back with shape (steps, nx) and the same values.
TEST(Acoustic3DPhysics, TracesRoundTripThroughNpy) {
  Acoustic3DConfig c = cube(16);
  c.f0 = 60;
  const Acoustic3DSetup s = make_acoustic3d_setup(c);
  HostAcoustic3D<float> sim(s);
  sim.step(12);
  const std::string path = (std::filesystem::temp_directory_path() / "acoustic3d_test_traces.npy").string();
  write_traces_npy(path, sim.traces(), c.nx);
  const NpyArray a = read_npy(path);
  EXPECT_EQ(a.shape, (std::vector<std::size_t>{12, 16}));
  EXPECT_EQ(a.values, sim.traces());
  EXPECT_NE(a.values[11 * 16 + s.src[0]], 0.0f);  // the source node's trace has started
  std::filesystem::remove(path);
}

// ---- energy --------------------------------------------------------------

// A pulse at rest in a periodic box without source: leapfrog conserves its discrete energy
// (weighted by 1/v^2, so also in a heterogeneous medium) up to float rounding; inside a
// sponge the energy only falls.
TEST(Acoustic3DPhysics, EnergyIsConservedInAPeriodicBoxAndFallsInASponge) {
  for (AcousticBoundary b : {AcousticBoundary::periodic, AcousticBoundary::sponge}) {
    Acoustic3DConfig c = cube(24, 8);
    c.medium = Medium::random;
    c.boundary = b;
    c.sponge_width = 8;
    c.source = false;
    const Acoustic3DSetup s = make_acoustic3d_setup(c);
    HostAcoustic3D<float> sim(s);
    sim.paint({12, 12, 12, 5, 1.0});
    auto energy = [&] {
      return acoustic3d_energy(s, sim.interior(), sim.previous_interior());
    };
    const double e0 = energy();
    ASSERT_GT(e0, 0);
    double drift = 0, last = e0;
    bool falls = true;
    for (int k = 0; k < 15; ++k) {
      sim.step(20);
      const double e = energy();
      drift = std::max(drift, std::abs(e - e0) / e0);
      falls = falls && e <= last * (1 + 1e-6);
      last = e;
    }
    if (b == AcousticBoundary::periodic) {
      std::printf("[ MEASURED ] energy over 300 steps, periodic random medium: largest relative drift %.2e\n", drift);
      EXPECT_LT(drift, 1e-4);
    } else {
      std::printf("[ MEASURED ] energy over 300 steps in a sponge: %.3e of the initial left\n", last / e0);
      EXPECT_TRUE(falls);
      EXPECT_LT(last, 0.5 * e0);
    }
  }
}

// ---- the cpu variant against the reference ---------------------------------

std::string kind_name(int kind) {
  constexpr const char* names[] = {"sponge_free", "sponge_absorbing_layered", "periodic_random", "cpml_free_layered",
                                   "cpml_absorbing_random"};
  return names[kind];
}

class CpuVsReference : public ::testing::TestWithParam<std::tuple<int, int>> {};

TEST_P(CpuVsReference, FloatAndDouble) {
  const auto [order, setup_kind] = GetParam();
  Acoustic3DConfig c;
  c.nx = 29, c.ny = 23, c.nz = 19, c.order = order;
  c.f0 = 40;  // a short wavelet: the source is well on within the steps below
  c.dt = 0;
  switch (setup_kind) {
    case 0: c.boundary = AcousticBoundary::sponge, c.top = TopBoundary::free, c.src_z = 2; break;
    case 1: c.boundary = AcousticBoundary::sponge, c.top = TopBoundary::absorbing, c.medium = Medium::layered; break;
    case 2: c.boundary = AcousticBoundary::periodic, c.medium = Medium::random, c.src_x = 1; break;
    case 3: c.boundary = AcousticBoundary::cpml, c.top = TopBoundary::free, c.medium = Medium::layered, c.src_z = 2; break;
    default:  // near a corner: the wave is well into three layers within the steps
      c.boundary = AcousticBoundary::cpml, c.top = TopBoundary::absorbing, c.medium = Medium::random;
      c.src_x = 4, c.src_y = 4, c.src_z = 15;
      break;
  }
  const Acoustic3DSetup s = make_acoustic3d_setup(c);
  const int steps = 40;
  std::vector<double> ref_traces;
  const std::vector<double> ref = acoustic3d_reference(s, steps, &ref_traces);
  HostAcoustic3D<double> d(s);
  d.poison_scratch();
  d.step(steps);
  EXPECT_LT(compare_to_reference(d.interior(), ref).rel_l2, 1e-12);
  HostAcoustic3D<float> f(s);
  f.poison_scratch();
  f.step(steps);
  const ErrorNorms e = compare_to_reference(f.interior(), ref);
  EXPECT_TRUE(e.finite);
  EXPECT_GT(e.ref_l2, 0);
  EXPECT_LT(e.rel_l2, 1e-4);
  // The traces are p on the receiver line after every step.
  ASSERT_EQ(f.traces().size(), ref_traces.size());
  EXPECT_LT(compare_to_reference(f.traces(), ref_traces).rel_l2, 1e-4);
  const Grid3D& g = s.grid;
  for (int i = 0; i < g.nx; ++i)
    EXPECT_EQ(f.traces()[static_cast<std::size_t>(steps - 1) * g.nx + i], f.pressure()[g.index(i, s.src[1], s.src[2])]);
}

INSTANTIATE_TEST_SUITE_P(OrdersAndBoundaries, CpuVsReference,
                         ::testing::Combine(::testing::Values(2, 4, 6, 8), ::testing::Values(0, 1, 2, 3, 4)),
                         [](const auto& info) {
                           return "order" + std::to_string(std::get<0>(info.param)) + "_" + kind_name(std::get<1>(info.param));
                         });

// ---- setup ---------------------------------------------------------------

TEST(Acoustic3DSetup, StabilityLimitAndAutomaticDt) {
  // Order 2: dt <= h / (v sqrt(3)), the classic 3D Courant limit.
  EXPECT_NEAR(acoustic3d_dt_limit(2, 2000, 10), 10 / (2000 * std::sqrt(3.0)), 1e-15);
  for (int order : {2, 4, 6, 8}) {
    Acoustic3DConfig c = cube(16, order);
    c.medium = Medium::layered;
    const Acoustic3DSetup s = make_acoustic3d_setup(c);
    EXPECT_NEAR(s.vmax, 1.75 * c.vp, 1e-9);
    EXPECT_EQ(s.dt, kAcousticDtFraction * acoustic3d_dt_limit(8, s.vmax, c.h)) << "the same dt at every order";
    EXPECT_LT(s.dt, s.dt_limit);
  }
}

TEST(Acoustic3DSetup, MediaAreAsDocumented) {
  Acoustic3DConfig c = cube(16);
  c.medium = Medium::layered;
  const std::vector<float> layered = acoustic3d_medium(c);
  EXPECT_EQ(layered[0], 2000.0f);                                             // top layer
  EXPECT_EQ(layered[static_cast<std::size_t>(15) * 16 * 16], 3500.0f);       // bottom layer
  c.medium = Medium::random;
  const std::vector<float> a = acoustic3d_medium(c);
  c.seed = 2;
  const std::vector<float> b = acoustic3d_medium(c);
  EXPECT_NE(a, b);
  const auto [lo, hi] = std::minmax_element(a.begin(), a.end());
  EXPECT_GE(*lo, 0.9f * 2000 - 1e-3f);
  EXPECT_LE(*hi, 1.1f * 2000 + 1e-3f);
  EXPECT_GT(*hi - *lo, 0.1f * 2000) << "the perturbation is used";
  // Smooth: neighbouring nodes differ by far less than the whole range.
  double step = 0;
  for (std::size_t e = 1; e < a.size(); ++e)
    if (e % 16) step = std::max(step, static_cast<double>(std::abs(a[e] - a[e - 1])));
  EXPECT_LT(step, 0.25 * (*hi - *lo));
}

TEST(Acoustic3DSetup, VelocityFromNpy) {
  const std::string path = (std::filesystem::temp_directory_path() / "acoustic3d_test_velocity.npy").string();
  const int nx = 10, ny = 9, nz = 8;
  std::vector<float> v(static_cast<std::size_t>(nx) * ny * nz, 1500.0f);
  v[(static_cast<std::size_t>(3) * ny + 2) * nx + 1] = 3000.0f;
  write_npy(path, v.data(), {static_cast<std::size_t>(nz), static_cast<std::size_t>(ny), static_cast<std::size_t>(nx)});
  Acoustic3DConfig c;
  c.nx = nx, c.ny = ny, c.nz = nz;
  c.sponge_width = 2;
  c.velocity = load_velocity_npy(path, nx, ny, nz);
  const Acoustic3DSetup s = make_acoustic3d_setup(c);
  EXPECT_EQ(s.velocity_at(1, 2, 3), 3000.0f);
  EXPECT_EQ(s.vmax, 3000.0);
  try {
    load_velocity_npy(path, nx, nz, ny);
    ADD_FAILURE() << "a wrong shape was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("(8, 9, 10)"), std::string::npos) << e.what();
  }
  v[(static_cast<std::size_t>(5) * ny + 4) * nx + 7] = -1.0f;
  write_npy(path, v.data(), {static_cast<std::size_t>(nz), static_cast<std::size_t>(ny), static_cast<std::size_t>(nx)});
  try {
    load_velocity_npy(path, nx, ny, nz);
    ADD_FAILURE() << "a negative velocity was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("(x 7, y 4, z 5)"), std::string::npos) << e.what();
  }
  std::filesystem::remove(path);
}

// ---- bad input -------------------------------------------------------------

std::string error_of(const Acoustic3DConfig& c) {
  try {
    make_acoustic3d_setup(c);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Acoustic3DSetup, BadInputIsRefusedNamingTheValue) {
  Acoustic3DConfig c = cube(64);
  const double limit = make_acoustic3d_setup(c).dt_limit;
  c.dt = 1.5 * limit;
  std::string e = error_of(c);
  EXPECT_NE(e.find("stability limit"), std::string::npos) << e;
  EXPECT_NE(e.find(fmt::format("{:.6g}", limit)), std::string::npos) << e;

  c = cube(64);
  c.sponge_width = 22;  // a third of 64 is 21
  e = error_of(c);
  EXPECT_NE(e.find("sponge width 22"), std::string::npos) << e;

  c = cube(64);
  c.boundary = AcousticBoundary::cpml;
  c.cpml_width = 22;
  e = error_of(c);
  EXPECT_NE(e.find("cpml width 22"), std::string::npos) << e;
  c.cpml_width = 21;
  EXPECT_EQ(error_of(c), "");
  c.cpml_reflection = 1.5;
  e = error_of(c);
  EXPECT_NE(e.find("cpml reflection"), std::string::npos) << e;

  c = cube(64);
  c.src_x = 64;
  e = error_of(c);
  EXPECT_NE(e.find("src_x = 64"), std::string::npos) << e;
  c = cube(64);
  c.src_y = -2;
  e = error_of(c);
  EXPECT_NE(e.find("src_y = -2"), std::string::npos) << e;
  c = cube(64);
  c.src_z = 1;  // the first node below the free surface
  EXPECT_EQ(error_of(c), "");

  // The same checks through the model interface, as the app and the command line meet them.
  const Model& m = find_model("acoustic3d");
  EXPECT_THROW(make_config(m, {32, 32, 32}, 8, {{"dt", 1.0}}), Error);
  EXPECT_THROW(make_config(m, {32, 32, 32}, 8, {{"sponge_width", 11.0}}), Error);
  EXPECT_NO_THROW(make_config(m, {32, 32, 32}, 8, {{"sponge_width", 10.0}}));
  EXPECT_THROW(make_config(m, {32, 32, 32}, 8, {{"boundary", std::string("cpml")}, {"cpml_width", 11.0}}), Error);
  EXPECT_NO_THROW(make_config(m, {32, 32, 32}, 8, {{"boundary", std::string("cpml")}, {"cpml_width", 10.0}}));
  EXPECT_THROW(make_config(m, {32, 32, 32}, 8, {{"src_z", 40.0}}), Error);
}

// stream25d's shape on the GPU is chosen at run time (tuning): the words round-trip, a bad
// one is refused naming the accepted ones, and the environment variable picks one.
TEST(Acoustic3DStreamShape, WordsRoundTripAndTheEnvironmentChooses) {
  for (Acoustic3DStreamShape s : kAllAcoustic3DStreamShapes) EXPECT_EQ(parse_acoustic3d_stream_shape(to_string(s)), s);
  try {
    parse_acoustic3d_stream_shape("packed32");
    FAIL() << "packed32 was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("packed16-ring8"), std::string::npos) << e.what();
  }
  const char* old = std::getenv("STENCILSCOPE_ACOUSTIC25");
  const std::string saved = old ? old : "";
  unsetenv("STENCILSCOPE_ACOUSTIC25");
  EXPECT_EQ(acoustic3d_stream_shape_from_env(), Acoustic3DStreamShape::packed16);
  setenv("STENCILSCOPE_ACOUSTIC25", "packed8", 1);
  EXPECT_EQ(acoustic3d_stream_shape_from_env(), Acoustic3DStreamShape::packed8);
  setenv("STENCILSCOPE_ACOUSTIC25", "wide", 1);
  try {
    acoustic3d_stream_shape_from_env();
    FAIL() << "wide was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("STENCILSCOPE_ACOUSTIC25"), std::string::npos) << e.what();
  }
  if (old) setenv("STENCILSCOPE_ACOUSTIC25", saved.c_str(), 1);
  else unsetenv("STENCILSCOPE_ACOUSTIC25");
}

// The packed stream25d's slabs: one wave of whole columns when the tiles fill the device,
// more slabs (never shorter than 16 planes, or nz) when they leave SMs idle.
TEST(Acoustic3DStreamShape, SlabsFillTheDeviceInFewWaves) {
  EXPECT_EQ(acoustic3d_stream_slab_planes(128, 512, 132), 512);  // 512^3, 16-row tiles of 128 columns, an H100
  EXPECT_EQ(acoustic3d_stream_slab_planes(32, 256, 132), 64);    // 256^3: 4 slabs, 128 blocks in one wave
  EXPECT_EQ(acoustic3d_stream_slab_planes(4, 10, 132), 10);      // fewer planes than the shortest slab
  EXPECT_EQ(acoustic3d_stream_slab_planes(1, 23, 1), 23);
  for (long long columns : {1LL, 7LL, 72LL, 500LL})
    for (int nz : {1, 9, 16, 23, 200, 512}) {
      const int len = acoustic3d_stream_slab_planes(columns, nz, 132);
      EXPECT_GE(len, std::min(nz, 16)) << columns << " " << nz;
      EXPECT_LE(len, nz) << columns << " " << nz;
    }
}

}  // namespace
}  // namespace ss
