// The padded 3D layout and the boundary step, per boundary type, on the host.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/core/ghost3d.hpp"
#include "sim/models/heat3d/heat3d.hpp"

namespace ss {
namespace {

TEST(Grid3D, LayoutIsAlignedAndPadded) {
  for (int nx : {8, 31, 32, 67, 256}) {
    const Grid3D g = Grid3D::make(nx, 45, 38);
    EXPECT_EQ(g.x0 % kRowAlign, 0);
    EXPECT_EQ(g.pitch % kRowAlign, 0);
    EXPECT_GE(g.x0, kGhost);
    EXPECT_GE(g.pitch, g.x0 + nx + 2 * kGhost);  // slack for 16-byte windows past the ghosts
    EXPECT_EQ(g.index(0, 0, 0) % kRowAlign, 0u);
    EXPECT_EQ(g.index(0, 1, 0) - g.index(0, 0, 0), static_cast<std::size_t>(g.pitch));
    EXPECT_EQ(g.index(0, 0, 1) - g.index(0, 0, 0), g.plane());
    EXPECT_EQ(g.index(-kGhost, -kGhost, -kGhost), static_cast<std::size_t>(g.x0 - kGhost));
    EXPECT_LT(g.index(nx + kGhost - 1, 45 + kGhost - 1, 38 + kGhost - 1), g.elements());
    EXPECT_EQ(g.points(), static_cast<std::size_t>(nx) * 45 * 38);
  }
}

TEST(Grid3D, RejectsSmallSides) {
  EXPECT_THROW(Grid3D::make(7, 64, 64), Error);
  EXPECT_THROW(Grid3D::make(64, 64, 4), Error);
}

// A field whose interior holds a distinct value per cell, ghosts NaN.
std::vector<double> numbered(const Grid3D& g) {
  std::vector<double> f(g.elements(), std::numeric_limits<double>::quiet_NaN());
  for (int k = 0; k < g.nz; ++k)
    for (int j = 0; j < g.ny; ++j)
      for (int i = 0; i < g.nx; ++i) f[g.index(i, j, k)] = 1 + i + 100.0 * j + 10000.0 * k;
  return f;
}

class GhostFaces : public ::testing::TestWithParam<Boundary> {};

TEST_P(GhostFaces, EveryFaceCellTakesItsImage) {
  const Boundary b = GetParam();
  const Grid3D g = Grid3D::make(11, 9, 10);
  std::vector<double> f = numbered(g);
  const std::vector<double> interior = f;
  const double fixed = -2.5;
  fill_ghosts3d_host(f.data(), g, simple_ghost_rule3d<double>(b, fixed));
  auto expect = [&](int gi, int gj, int gk, int si, int sj, int sk) {
    const double want = b == Boundary::fixed ? fixed : interior[g.index(si, sj, sk)];
    EXPECT_EQ(f[g.index(gi, gj, gk)], want) << "ghost (" << gi << "," << gj << "," << gk << ")";
  };
  const bool wrap = b == Boundary::periodic;
  auto src = [&](int gidx, int n) { return wrap ? (gidx < 0 ? gidx + n : gidx - n) : (gidx < 0 ? -1 - gidx : 2 * n - 1 - gidx); };
  for (int m = 1; m <= kGhost; ++m) {
    for (int k = 0; k < g.nz; ++k)
      for (int j = 0; j < g.ny; ++j)
        for (int gi : {-m, g.nx - 1 + m}) expect(gi, j, k, src(gi, g.nx), j, k);
    for (int k = 0; k < g.nz; ++k)
      for (int i = 0; i < g.nx; ++i)
        for (int gj : {-m, g.ny - 1 + m}) expect(i, gj, k, i, src(gj, g.ny), k);
    for (int j = 0; j < g.ny; ++j)
      for (int i = 0; i < g.nx; ++i)
        for (int gk : {-m, g.nz - 1 + m}) expect(i, j, gk, i, j, src(gk, g.nz));
  }
  // The interior is untouched, and edges of the ghost frame are left alone.
  for (int k = 0; k < g.nz; ++k)
    for (int j = 0; j < g.ny; ++j)
      for (int i = 0; i < g.nx; ++i) ASSERT_EQ(f[g.index(i, j, k)], interior[g.index(i, j, k)]);
  EXPECT_TRUE(std::isnan(f[g.index(-1, -1, 0)]));
  EXPECT_TRUE(std::isnan(f[g.index(g.nx, 0, -1)]));
}

INSTANTIATE_TEST_SUITE_P(Boundaries, GhostFaces,
                         ::testing::Values(Boundary::periodic, Boundary::fixed, Boundary::insulated),
                         [](const auto& info) { return std::string(to_string(info.param)); });

TEST(GhostFaces, AnalyticHoldsTheExactSolution) {
  Heat3DConfig c;
  c.nx = 12;
  c.ny = 10;
  c.nz = 9;
  c.boundary = Boundary::analytic;
  const Heat3DSetup s = make_heat3d_setup(c);
  const std::vector<double> tables = analytic_tables3d<double>(s);
  std::vector<double> f = numbered(s.grid);
  const double t = 3 * s.dt;
  fill_ghosts3d_host(f.data(), s.grid, make_ghost_rule3d<double>(s, t, tables.data()));
  const Grid3D& g = s.grid;
  auto exact = [&](int i, int j, int k) { return s.analytic.value(s.coord(i), s.coord(j), s.coord(k), t, c.alpha); };
  for (int m = 1; m <= kGhost; ++m) {
    EXPECT_NEAR(f[g.index(-m, 3, 4)], exact(-m, 3, 4), 1e-14);
    EXPECT_NEAR(f[g.index(g.nx - 1 + m, 3, 4)], exact(g.nx - 1 + m, 3, 4), 1e-14);
    EXPECT_NEAR(f[g.index(5, -m, 2)], exact(5, -m, 2), 1e-14);
    EXPECT_NEAR(f[g.index(5, g.ny - 1 + m, 2)], exact(5, g.ny - 1 + m, 2), 1e-14);
    EXPECT_NEAR(f[g.index(7, 1, -m)], exact(7, 1, -m), 1e-14);
    EXPECT_NEAR(f[g.index(7, 1, g.nz - 1 + m)], exact(7, 1, g.nz - 1 + m), 1e-14);
  }
}

}  // namespace
}  // namespace ss
