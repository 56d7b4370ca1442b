// acoustic3d GPU variants bit for bit against the `cpu` variant and against the double
// reference, for every order, boundary and medium, on sizes that are not multiples of any
// tile, with the output buffer poisoned with NaN first. Skips without a device.
#include <gtest/gtest.h>

#include <cstring>

#include "sim/bench/report.hpp"  // ErrorNorms, compare_to_reference
#include "sim/core/device.hpp"
#include "sim/models/acoustic3d/acoustic3d_solver.hpp"

namespace ss {
namespace {

#define SKIP_WITHOUT_DEVICE()                         \
  do {                                                \
    std::string why_;                                 \
    if (!cuda_available(&why_)) GTEST_SKIP() << why_; \
  } while (0)

template <typename T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

Acoustic3DConfig odd_config(int order, int kind) {
  Acoustic3DConfig c;
  c.nx = 37, c.ny = 29, c.nz = 23, c.order = order;
  c.f0 = 40;  // a short wavelet: the field is well away from zero within the steps
  switch (kind) {
    case 0: c.boundary = AcousticBoundary::sponge, c.top = TopBoundary::free, c.src_z = 3; break;
    case 1: c.boundary = AcousticBoundary::sponge, c.top = TopBoundary::absorbing, c.medium = Medium::layered; break;
    case 2: c.boundary = AcousticBoundary::periodic, c.medium = Medium::random, c.src_x = 1, c.src_y = 27; break;
    // CPML (7 nodes wide here: a third of nz) under a free top, and on all six faces; the
    // source near a corner so the wave reaches the layers within the steps.
    case 3: c.boundary = AcousticBoundary::cpml, c.top = TopBoundary::free, c.medium = Medium::layered, c.src_z = 3; break;
    default:
      c.boundary = AcousticBoundary::cpml, c.top = TopBoundary::absorbing, c.medium = Medium::random;
      c.src_x = 4, c.src_y = 25, c.src_z = 5;
      break;
  }
  return c;
}

// A GPU run: a variant, and for stream25d its shape.
struct GpuRun {
  Acoustic3DVariant variant;
  Acoustic3DStreamShape shape;
};
// Every variant, stream25d in every shape (tests/device/acoustic-tune.sh sweeps them for speed).
std::vector<GpuRun> every_gpu_run() {
  std::vector<GpuRun> runs{{Acoustic3DVariant::global, Acoustic3DStreamShape::packed16}};
  for (Acoustic3DStreamShape shape : kAllAcoustic3DStreamShapes) runs.push_back({Acoustic3DVariant::stream25d, shape});
  return runs;
}

template <typename T>
void check_case(const Acoustic3DSetup& s, int steps, double tolerance) {
  const std::vector<double> ref = acoustic3d_reference(s, steps);
  HostAcoustic3D<T> host(s);
  host.poison_scratch();
  host.step(steps);
  const std::vector<T> cpu = host.interior();
  DeviceAcoustic3D<T> gpu(s);
  const Grid3D& g = s.grid;
  for (const auto [v, shape] : every_gpu_run()) {
    gpu.set_stream_shape(shape);
    gpu.reset();
    // Every buffer the steps write is poisoned first: one step at a time, each writing
    // over NaN (interior, ghosts and padding).
    for (int k = 0; k < steps; ++k) {
      gpu.poison_scratch();
      gpu.step(v, 1);
    }
    const std::vector<T> field = gpu.download();
    const std::vector<T> out = extract_interior3d(field, g);
    const std::string what = std::string(to_string(v)) +
                             (v == Acoustic3DVariant::stream25d ? " (" + std::string(to_string(shape)) + ")" : "") + ", order " + std::to_string(s.config.order) + ", " +
                             std::string(to_string(s.config.boundary)) + " (top " + std::string(to_string(s.config.top)) +
                             "), " + std::string(to_string(s.config.medium));
    const ErrorNorms e = compare_to_reference(out, ref);
    EXPECT_TRUE(e.finite) << what;
    EXPECT_GT(e.ref_l2, 0) << what;
    EXPECT_LT(e.rel_l2, tolerance) << what;
    EXPECT_TRUE(same_bits(out, cpu)) << what << " differs from cpu";
    // The boundary step ran after the last step (the buffer held NaN before it).
    for (int m = 1; m <= kGhost; ++m) {
      EXPECT_EQ(field[g.index(-m, g.ny / 2, g.nz / 3)], host.pressure()[g.index(-m, g.ny / 2, g.nz / 3)]) << what;
      EXPECT_EQ(field[g.index(g.nx / 3, g.ny - 1 + m, 1)], host.pressure()[g.index(g.nx / 3, g.ny - 1 + m, 1)]) << what;
      EXPECT_EQ(field[g.index(2, g.ny / 2, -m)], host.pressure()[g.index(2, g.ny / 2, -m)]) << what;
    }
    EXPECT_TRUE(same_bits(gpu.traces(), host.traces())) << what << ": traces";
    EXPECT_TRUE(same_bits(gpu.cpml_memory(), host.cpml_memory())) << what << ": CPML memory variables";
  }
}

std::string kind_name(int kind) {
  constexpr const char* names[] = {"sponge_free", "sponge_absorbing_layered", "periodic_random", "cpml_free_layered",
                                   "cpml_absorbing_random"};
  return names[kind];
}

class Acoustic3DGpu : public ::testing::TestWithParam<std::tuple<int, int>> {};

TEST_P(Acoustic3DGpu, OddSizeFloatBitwiseEqualToCpuAndNearTheReference) {
  SKIP_WITHOUT_DEVICE();
  const auto [order, kind] = GetParam();
  check_case<float>(make_acoustic3d_setup(odd_config(order, kind)), 30, 1e-4);
}

TEST_P(Acoustic3DGpu, OddSizeDoubleBitwiseEqualToCpu) {
  SKIP_WITHOUT_DEVICE();
  const auto [order, kind] = GetParam();
  check_case<double>(make_acoustic3d_setup(odd_config(order, kind)), 20, 1e-12);
}

INSTANTIATE_TEST_SUITE_P(OrdersAndBoundaries, Acoustic3DGpu,
                         ::testing::Combine(::testing::Values(2, 4, 6, 8), ::testing::Values(0, 1, 2, 3, 4)),
                         [](const auto& info) {
                           return "order" + std::to_string(std::get<0>(info.param)) + "_" + kind_name(std::get<1>(info.param));
                         });

// Paint, an order change, a load and a variant switch mid-run: the GPU follows the CPU bit for bit.
TEST(Acoustic3DGpuLive, PaintOrderLoadAndSwitchesFollowTheCpu) {
  SKIP_WITHOUT_DEVICE();
  const Acoustic3DSetup s = make_acoustic3d_setup(odd_config(8, 0));
  HostAcoustic3D<float> host(s);
  DeviceAcoustic3D<float> gpu(s);
  const Sphere ball{12.5, 9.5, 7.5, 4.0, 2.0};
  host.step(5);
  gpu.step(Acoustic3DVariant::stream25d, 5);
  host.paint(ball);
  gpu.paint(ball);
  host.set_order(4);
  gpu.set_order(4);
  host.step(4);
  gpu.step(Acoustic3DVariant::global, 2);
  gpu.step(Acoustic3DVariant::stream25d, 2);
  EXPECT_TRUE(same_bits(host.interior(), extract_interior3d(gpu.download(), s.grid)));
  // A CPU state loaded into the GPU steps to the same bits.
  DeviceAcoustic3D<float> other(s);
  other.set_order(4);
  other.load_interior(host.interior().data(), host.previous_interior().data(), host.steps_done());
  host.step(3);
  other.step(Acoustic3DVariant::stream25d, 3);
  std::vector<float> p(s.grid.points()), p_prev(s.grid.points());
  other.copy_interiors_to_host(p.data(), p_prev.data());
  EXPECT_TRUE(same_bits(p, host.interior()));
  EXPECT_TRUE(same_bits(p_prev, host.previous_interior()));
  // other records from its load on: the host's last 3 rows.
  const std::vector<float> tail(host.traces().end() - 3 * s.grid.nx, host.traces().end());
  EXPECT_EQ(other.first_trace_step(), host.steps_done() - 3);
  EXPECT_TRUE(same_bits(other.traces(), tail));
}

TEST(Acoustic3DGpuLarge, TallThinAndFlatGrids) {
  SKIP_WITHOUT_DEVICE();
  Acoustic3DConfig c = odd_config(8, 2);
  c.nx = 9, c.ny = 10, c.nz = 200, c.src_x = 4, c.src_y = 5;
  check_case<float>(make_acoustic3d_setup(c), 10, 1e-4);
  c = odd_config(6, 1);
  c.nx = 130, c.ny = 67, c.nz = 9;
  c.sponge_width = 3;
  check_case<float>(make_acoustic3d_setup(c), 10, 1e-4);
}

// The packed shapes over several slabs and tiles in x and y (a slab boundary inside the
// grid, a last tile of a few columns), and a boundary step that after its first whole run
// rewrites only the top: a poisoned buffer gets a whole step again (check_case poisons
// every step; here only the first).
TEST(Acoustic3DGpuLarge, PackedShapesAcrossSlabsAndTiles) {
  SKIP_WITHOUT_DEVICE();
  Acoustic3DConfig c = odd_config(8, 0);
  c.nx = 133, c.ny = 35, c.nz = 71, c.src_x = 130, c.src_y = 33, c.src_z = 2;
  const Acoustic3DSetup s = make_acoustic3d_setup(c);
  check_case<float>(s, 20, 1e-4);
  HostAcoustic3D<float> host(s);
  host.step(12);
  for (Acoustic3DStreamShape shape : kAllAcoustic3DStreamShapes) {
    DeviceAcoustic3D<float> gpu(s);
    gpu.set_stream_shape(shape);
    gpu.poison_scratch();
    gpu.step(Acoustic3DVariant::stream25d, 12);
    const std::vector<float> field = gpu.download();
    EXPECT_TRUE(same_bits(extract_interior3d(field, s.grid), host.interior())) << to_string(shape);
    const Grid3D& g = s.grid;
    for (int m = 1; m <= kGhost; ++m) {
      EXPECT_EQ(field[g.index(g.nx - 1 + m, 5, 40)], 0.0f) << to_string(shape);
      EXPECT_EQ(field[g.index(7, -m, 40)], 0.0f) << to_string(shape);
      EXPECT_EQ(field[g.index(7, 9, g.nz - 1 + m)], 0.0f) << to_string(shape);
      EXPECT_EQ(field[g.index(7, 9, -m)], -field[g.index(7, 9, m)]) << to_string(shape);
    }
  }
}

}  // namespace
}  // namespace ss
