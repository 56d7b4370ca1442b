// Slices of a padded 3D field against the field itself (every axis, odd sizes, first,
// middle and last positions), and a sphere painted into heat 3D seen in the three
// slices through its centre and nowhere else.
#include <gtest/gtest.h>

#include <cmath>

#include "sim/core/error.hpp"
#include "sim/models/heat3d/heat3d_solver.hpp"
#include "sim/core/slice3d.hpp"

namespace ss {
namespace {

/// A field whose every interior cell holds a value naming its (i, j, k); ghosts and padding hold -1.
std::vector<double> labelled_field(const Grid3D& g) {
  std::vector<double> f(g.elements(), -1.0);
  for (int k = 0; k < g.nz; ++k)
    for (int j = 0; j < g.ny; ++j)
      for (int i = 0; i < g.nx; ++i) f[g.index(i, j, k)] = i + 1000.0 * j + 1e6 * k;
  return f;
}

/// (i, j, k) of cell (u, v) of the slice at `pos` along `axis`.
std::array<int, 3> cell_of(SliceAxis axis, int pos, int u, int v) {
  switch (axis) {
    case SliceAxis::xy: return {u, v, pos};
    case SliceAxis::xz: return {u, pos, v};
    case SliceAxis::yz: return {pos, u, v};
  }
  return {};
}

TEST(Slice3D, ExtractedSlicesAreTheFieldsCellsOnEveryAxisOfAnOddGrid) {
  const Grid3D g = Grid3D::make(67, 45, 38);
  const std::vector<double> f = labelled_field(g);
  const int expected_nu[3] = {67, 67, 45}, expected_nv[3] = {45, 38, 38}, expected_depth[3] = {38, 45, 67};
  for (SliceAxis axis : kAllSliceAxes) {
    const int a = static_cast<int>(axis);
    const int depth = slice_depth(g, axis);
    EXPECT_EQ(depth, expected_depth[a]);
    for (int pos : {0, depth / 2, depth - 1}) {
      std::vector<double> out(3, 123.0);  // resized by extract_slice
      extract_slice(f, g, axis, pos, out);
      ASSERT_EQ(out.size(), static_cast<std::size_t>(expected_nu[a]) * expected_nv[a]);
      int wrong = 0;
      for (int v = 0; v < expected_nv[a]; ++v)
        for (int u = 0; u < expected_nu[a]; ++u) {
          const auto c = cell_of(axis, pos, u, v);
          const double want = c[0] + 1000.0 * c[1] + 1e6 * c[2];
          if (out[static_cast<std::size_t>(v) * expected_nu[a] + u] != want && ++wrong <= 3)
            ADD_FAILURE() << to_string(axis) << " at " << pos << ", (u, v) = (" << u << ", " << v << ")";
        }
      EXPECT_EQ(wrong, 0) << to_string(axis) << " at " << pos;
    }
  }
}

TEST(Slice3D, PositionsOutsideTheInteriorAreRefusedWithTheRange) {
  const Grid3D g = Grid3D::make(67, 45, 38);
  try {
    slice_view(g, SliceAxis::xz, 45);
    FAIL() << "y = 45 is outside 0..44";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("0..44"), std::string::npos) << e.what();
  }
  EXPECT_THROW(slice_view(g, SliceAxis::yz, -1), Error);
  std::vector<float> out;
  EXPECT_THROW(extract_slice(std::vector<float>(10), g, SliceAxis::xy, 0, out), Error);
}

TEST(Slice3D, SliceCoordinatesMapToTheCellLayerOfTheSlice) {
  EXPECT_EQ(slice_to_volume(SliceAxis::xy, 7, 1.5, 2.5), (std::array<double, 3>{1.5, 2.5, 7.5}));
  EXPECT_EQ(slice_to_volume(SliceAxis::xz, 7, 1.5, 2.5), (std::array<double, 3>{1.5, 7.5, 2.5}));
  EXPECT_EQ(slice_to_volume(SliceAxis::yz, 7, 1.5, 2.5), (std::array<double, 3>{7.5, 1.5, 2.5}));
}

Heat3DSetup odd_setup() {
  Heat3DConfig c;
  c.nx = 67;
  c.ny = 45;
  c.nz = 38;
  c.order = 4;
  c.boundary = Boundary::fixed;
  c.initial = InitialCondition::analytic;
  return make_heat3d_setup(c);
}

/// Cells of `slice` (nu wide) equal to `value`.
int count_value(const std::vector<float>& slice, float value) {
  int n = 0;
  for (float x : slice) n += x == value;
  return n;
}

TEST(Slice3D, APaintedSphereShowsAsADiscInTheThreeSlicesThroughItsCentre) {
  const Heat3DSetup s = odd_setup();
  HostHeat3D<float> sim(s);
  sim.step(2);
  const Sphere ball{20.5, 30.5, 10.5, 4.0, 7.0};  // centred on cell (20, 30, 10)
  sim.paint(ball);
  // The disc of radius 4 through a cell centre: the lattice points with di^2 + dj^2 <= 16.
  int disc = 0;
  for (int a = -4; a <= 4; ++a)
    for (int b = -4; b <= 4; ++b) disc += a * a + b * b <= 16;
  std::vector<float> slice;
  const int through_centre[3] = {10, 30, 20};
  for (SliceAxis axis : kAllSliceAxes) {
    const int a = static_cast<int>(axis);
    extract_slice(sim.field(), s.grid, axis, through_centre[a], slice);
    EXPECT_EQ(count_value(slice, 7.0f), disc) << to_string(axis);
    const SliceView view = slice_view(s.grid, axis, through_centre[a]);
    const int cu = a == 2 ? 30 : 20, cv = a == 0 ? 30 : 10;
    EXPECT_EQ(slice[static_cast<std::size_t>(cv) * view.nu + cu], 7.0f) << to_string(axis) << ": the centre";
    // Five layers off the centre the sphere is gone.
    extract_slice(sim.field(), s.grid, axis, through_centre[a] + 5, slice);
    EXPECT_EQ(count_value(slice, 7.0f), 0) << to_string(axis) << " off the sphere";
  }
  // The whole sphere: cells within the radius, counted independently.
  int ball_cells = 0, painted = 0;
  for (int k = 0; k < s.grid.nz; ++k)
    for (int j = 0; j < s.grid.ny; ++j)
      for (int i = 0; i < s.grid.nx; ++i) {
        const double d2 = (i - 20) * (i - 20) + (j - 30) * (j - 30) + (k - 10) * (k - 10);
        ball_cells += d2 <= 16;
        painted += sim.field()[s.grid.index(i, j, k)] == 7.0f;
      }
  EXPECT_EQ(painted, ball_cells);
}

TEST(Slice3D, ASphereAtTheEdgeIsClippedAndTheGhostsFollow) {
  const Heat3DSetup s = odd_setup();
  HostHeat3D<float> sim(s);
  sim.paint({0.5, 0.5, 0.5, 3.0, 5.0});  // centred on the corner cell
  EXPECT_EQ(sim.field()[s.grid.index(0, 0, 0)], 5.0f);
  EXPECT_TRUE(sim.all_finite());
  // Fixed boundary: the ghosts keep the fixed value, not the paint.
  EXPECT_EQ(sim.field()[s.grid.index(-1, 0, 0)], static_cast<float>(s.config.fixed_value));
  const CellBox box = sphere_cells({-20, -20, -20, 3, 1}, s.grid);
  EXPECT_TRUE(box.empty());
}

TEST(Slice3D, OrderChangesKeepTheFieldAndTheInteriorRoundTrips) {
  const Heat3DSetup s = odd_setup();
  HostHeat3D<float> a(s);
  a.step(3);
  const std::vector<float> interior = a.interior();
  ASSERT_EQ(interior.size(), s.grid.points());
  EXPECT_EQ(interior[(static_cast<std::size_t>(5) * 45 + 4) * 67 + 3], a.field()[s.grid.index(3, 4, 5)]);
  HostHeat3D<float> b(s);
  b.load_interior(interior.data(), 3);
  EXPECT_EQ(b.steps_done(), 3);
  a.step(2);
  b.step(2);
  EXPECT_EQ(a.interior(), b.interior()) << "a loaded field steps as the original";
  a.set_order(8);
  EXPECT_EQ(a.setup().config.order, 8);
  EXPECT_EQ(a.steps_done(), 5);
  EXPECT_THROW(a.set_order(3), Error);
  EXPECT_EQ(a.setup().config.order, 8);
}

}  // namespace
}  // namespace ss
