// heat3d on the host: the `cpu` variant against the independent double reference
// for every boundary and order, and the reference against the exact solution.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "sim/core/device.hpp"
#include "sim/core/error.hpp"
#include "sim/models/heat3d/heat3d_solver.hpp"

namespace ss {
namespace {

Heat3DSetup setup_of(int nx, int ny, int nz, int order, Boundary b, InitialCondition ic) {
  Heat3DConfig c;
  c.nx = nx;
  c.ny = ny;
  c.nz = nz;
  c.order = order;
  c.boundary = b;
  c.initial = ic;
  c.fixed_value = -0.5;
  return make_heat3d_setup(c);
}

class CpuVsReference : public ::testing::TestWithParam<std::tuple<int, Boundary>> {};

TEST_P(CpuVsReference, FloatAndDouble) {
  const auto [order, b] = GetParam();
  const Heat3DSetup s = setup_of(19, 13, 11, order, b, b == Boundary::analytic ? InitialCondition::analytic
                                                                               : InitialCondition::hot_spots);
  const int steps = 5;
  const std::vector<double> ref = heat3d_reference(s, steps);
  HostHeat3D<double> d(s);
  d.poison_scratch();
  d.step(steps);
  EXPECT_LT(compare_to_reference(extract_interior3d(d.field(), s.grid), ref).rel_l2, 1e-13);
  HostHeat3D<float> f(s);
  f.poison_scratch();
  f.step(steps);
  const ErrorNorms e = compare_to_reference(extract_interior3d(f.field(), s.grid), ref);
  EXPECT_TRUE(e.finite);
  EXPECT_LT(e.rel_l2, 1e-6);
  EXPECT_TRUE(f.all_finite());
}

INSTANTIATE_TEST_SUITE_P(OrdersAndBoundaries, CpuVsReference,
                         ::testing::Combine(::testing::Values(2, 4, 6, 8),
                                            ::testing::Values(Boundary::analytic, Boundary::periodic, Boundary::fixed,
                                                              Boundary::insulated)),
                         [](const auto& info) {
                           return "order" + std::to_string(std::get<0>(info.param)) + "_" +
                                  std::string(to_string(std::get<1>(info.param)));
                         });

// reset() fills the ghost frame from the boundary, so the first step reads the
// boundary like every later one (the reference does the same at t = 0, and the
// GPU stream25d variant stages ghosts from the interior at every step).
TEST(Heat3DCpu, ResetFillsTheGhostFrameFromTheBoundary) {
  for (Boundary b : {Boundary::periodic, Boundary::fixed, Boundary::insulated}) {
    const Heat3DSetup s = setup_of(12, 10, 9, 8, b, InitialCondition::hot_spots);
    const Grid3D& g = s.grid;
    HostHeat3D<double> h(s);
    for (int pass = 0; pass < 2; ++pass) {
      const std::vector<double>& f = h.field();
      for (int m = 1; m <= kGhost; ++m) {
        const std::string what = std::string(to_string(b)) + ", ghost " + std::to_string(m) + ", pass " + std::to_string(pass);
        if (b == Boundary::fixed) {
          EXPECT_EQ(f[g.index(-m, 3, 4)], -0.5) << what;
          EXPECT_EQ(f[g.index(5, g.ny - 1 + m, 4)], -0.5) << what;
          EXPECT_EQ(f[g.index(5, 3, -m)], -0.5) << what;
        } else {
          const bool wrap = b == Boundary::periodic;
          EXPECT_EQ(f[g.index(-m, 3, 4)], f[g.index(wrap ? g.nx - m : m - 1, 3, 4)]) << what;
          EXPECT_EQ(f[g.index(5, g.ny - 1 + m, 4)], f[g.index(5, wrap ? m - 1 : g.ny - m, 4)]) << what;
          EXPECT_EQ(f[g.index(5, 3, -m)], f[g.index(5, 3, wrap ? g.nz - m : m - 1)]) << what;
        }
      }
      h.step(2);
      h.reset();  // again after stepping
    }
  }
}

// The default dt changes with the order, and with it the time (steps x dt) of
// the field: after set_order the analytic ghosts are those of the new time, the
// same as a solver of the new order loaded with the field at that step.
TEST(Heat3DCpu, SetOrderMovesTheGhostsToTheNewTime) {
  const Heat3DSetup s = setup_of(12, 10, 9, 8, Boundary::analytic, InitialCondition::analytic);
  HostHeat3D<double> h(s);
  h.step(3);
  h.set_order(4);
  ASSERT_NE(h.setup().dt, s.dt);
  HostHeat3D<double> fresh(h.setup());
  const std::vector<double> interior = h.interior();
  fresh.load_interior(interior.data(), 3);
  const Grid3D& g = s.grid;
  for (int m = 1; m <= kGhost; ++m) {
    EXPECT_EQ(h.field()[g.index(-m, 3, 4)], fresh.field()[g.index(-m, 3, 4)]) << "x ghost " << m;
    EXPECT_EQ(h.field()[g.index(5, g.ny - 1 + m, 4)], fresh.field()[g.index(5, g.ny - 1 + m, 4)]) << "y ghost " << m;
    EXPECT_EQ(h.field()[g.index(5, 3, -m)], fresh.field()[g.index(5, 3, -m)]) << "z ghost " << m;
  }
  h.step(2);
  fresh.step(2);
  EXPECT_EQ(h.interior(), fresh.interior());
}

// Against the exact solution at a fixed time: explicit Euler dominates at this
// resolution, so the error is small and halves with dt.
TEST(Heat3DCpu, ReferenceFollowsTheExactSolutionAtFirstOrderInTime) {
  Heat3DConfig c;
  c.nx = c.ny = c.nz = 24;
  c.order = 8;
  c.boundary = Boundary::analytic;
  const double dt0 = make_heat3d_setup(c).dt_limit / 4;
  double err[2];
  for (int r = 0; r < 2; ++r) {
    c.dt = dt0 / (1 << r);
    const Heat3DSetup s = make_heat3d_setup(c);
    const int steps = 16 << r;
    const std::vector<double> ref = heat3d_reference(s, steps);
    const Grid3D& g = s.grid;
    double worst = 0;
    for (int k = 0; k < g.nz; ++k)
      for (int j = 0; j < g.ny; ++j)
        for (int i = 0; i < g.nx; ++i) {
          const double exact = s.analytic.value(s.coord(i), s.coord(j), s.coord(k), steps * s.dt, c.alpha);
          worst = std::max(worst, std::abs(ref[(static_cast<std::size_t>(k) * g.ny + j) * g.nx + i] - exact));
        }
    err[r] = worst;
  }
  EXPECT_LT(err[0], 1e-2);
  EXPECT_NEAR(err[0] / err[1], 2.0, 0.3) << err[0] << " -> " << err[1];
}

TEST(Heat3DCpu, InsulatedConservesHeat) {
  const Heat3DSetup s = setup_of(16, 12, 10, 4, Boundary::insulated, InitialCondition::hot_disc);
  HostHeat3D<double> h(s);
  auto total = [&] {
    double sum = 0;
    for (double v : extract_interior3d(h.field(), s.grid)) sum += v;
    return sum;
  };
  const double before = total();
  h.step(10);
  EXPECT_NEAR(total(), before, 1e-9 * std::abs(before));
}

TEST(Heat3DCpu, DtAboveTheLimitIsAnError) {
  Heat3DConfig c;
  c.nx = c.ny = c.nz = 16;
  c.dt = 1.0;
  EXPECT_THROW(make_heat3d_setup(c), Error);
  EXPECT_THROW(parse_heat3d_variant("stream"), Error);
}

// stream25d's slab plan (host only): one slab while the tiles fill the device,
// more where they leave SMs idle, never below 16 planes.
// The lean kernel where the SM binds (the H200, about 37 GB/s of DRAM per SM), the classic
// one where DRAM does (the H100 SXM, about 25; no device, 0).
TEST(Stream25dLean, TheKernelFollowsTheDevice) {
  EXPECT_FALSE(heat3d_stream25d_lean(0));
  EXPECT_FALSE(heat3d_stream25d_lean(25.4));
  EXPECT_FALSE(heat3d_stream25d_lean(kSmBoundPeakGbpsPerSm));
  EXPECT_TRUE(heat3d_stream25d_lean(36.7));
  // The tile order follows the same line: from the middle where the SMs bind (the H200).
  EXPECT_FALSE(heat3d_stream25d_tiles_from_middle(25.4));
  EXPECT_FALSE(heat3d_stream25d_tiles_from_middle(kSmBoundPeakGbpsPerSm));
  EXPECT_TRUE(heat3d_stream25d_tiles_from_middle(36.7));
}

// The kernels' 0/1 switches (STENCILSCOPE_TILES_FROM_MIDDLE, STENCILSCOPE_ALTERNATE, ...):
// "1" and "0" force either way, anything else (and nothing) leaves the device's choice.
TEST(DeviceSwitch, TheEnvironmentForcesEitherWayAndOtherValuesAreIgnored) {
  const char* name = "STENCILSCOPE_TEST_SWITCH";
  ::unsetenv(name);
  EXPECT_TRUE(switch_from_env(name, true));
  EXPECT_FALSE(switch_from_env(name, false));
  ::setenv(name, "1", 1);
  EXPECT_TRUE(switch_from_env(name, false));
  ::setenv(name, "0", 1);
  EXPECT_FALSE(switch_from_env(name, true));
  ::setenv(name, "yes", 1);
  EXPECT_TRUE(switch_from_env(name, true));
  EXPECT_FALSE(switch_from_env(name, false));
  ::unsetenv(name);
}

TEST(Stream25dFaces, TheWritersAreNamed) {
  EXPECT_EQ(parse_heat3d_face_writers("auto"), Heat3DFaceWriters::automatic);
  EXPECT_EQ(parse_heat3d_face_writers("producers"), Heat3DFaceWriters::producers);
  EXPECT_EQ(parse_heat3d_face_writers("kernel"), Heat3DFaceWriters::kernel);
  EXPECT_EQ(parse_heat3d_face_writers(""), std::nullopt);
  EXPECT_EQ(parse_heat3d_face_writers("Kernel"), std::nullopt);
  EXPECT_EQ(parse_heat3d_face_writers("0"), std::nullopt);
}

// Producers where each keeps up with a tile block (512^3 on 132 SMs: 128 tiles, 4 idle),
// the face kernel where they would not (256^3: each producer has twice a tile's cells).
TEST(Stream25dFaces, ProducersOnlyWhereTheyKeepUp) {
  auto cells = [](long long n) { return (2 * n * 4 + 2 * 4 * n) * n; };  // FaceGhosts<float, 4>
  EXPECT_EQ(stream25d_face_producers(cells(512), 512LL * 512 * 512, 128, 4), 4);
  EXPECT_EQ(stream25d_face_producers(cells(256), 256LL * 256 * 256, 128, 4), 0);
  EXPECT_EQ(stream25d_face_producers(cells(512), 512LL * 512 * 512, 128, 0), 0);  // no idle SM
  EXPECT_EQ(stream25d_face_producers(cells(512), 512LL * 512 * 512, 0, 4), 0);
  // at the limit: 1.5 a tile's points per producer, and just past it
  EXPECT_EQ(stream25d_face_producers(1500, 1000, 1, 1), 1);
  EXPECT_EQ(stream25d_face_producers(1501, 1000, 1, 1), 0);
  // large grids: no overflow in the products (4096^3: about 7e10 points)
  EXPECT_EQ(stream25d_face_producers(cells(4096), 4096LL * 4096 * 4096, 128, 4), 4);
}

TEST(Stream25dSlabs, OneSlabWhenTheTilesFillTheDevice) {
  EXPECT_EQ(stream25d_slab_planes(128, 512, 132), 512);  // 512^3 on an H100: 128 tiles
  EXPECT_EQ(stream25d_slab_planes(500, 512, 132), 512);  // more tiles than blocks: waves anyway
  EXPECT_EQ(stream25d_slab_planes(4, 10, 132), 10);       // fewer planes than the shortest slab
}

TEST(Stream25dSlabs, SplitsWhenTheTilesLeaveTheDeviceIdle) {
  EXPECT_EQ(stream25d_slab_planes(32, 256, 132), 64);  // 256^3: 4 slabs, 128 blocks in one wave
  // 384 x 384 x 512: 72 tiles; one slab would leave 60 of 132 SMs idle.
  const int len = stream25d_slab_planes(72, 512, 132);
  EXPECT_LT(len, 128);
  EXPECT_GE(len, 16);
  const long long blocks = 72LL * ((512 + len - 1) / len);
  const long long waves = (blocks + 131) / 132;
  EXPECT_LT(waves * (len + kStream25SlabStart), 512 + kStream25SlabStart);  // cheaper than one slab
  for (int nz : {1, 15, 16, 17, 100, 1000, 4097})
    for (long long columns : {1LL, 7LL, 132LL, 1000LL}) {
      const int l = stream25d_slab_planes(columns, nz, 132);
      EXPECT_GE(l, std::min(nz, 16)) << nz << " " << columns;
      EXPECT_LE(l, nz) << nz << " " << columns;
    }
}

}  // namespace
}  // namespace ss
