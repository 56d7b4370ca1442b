// elastic3d GPU variants bit for bit against the `cpu` variant and near the double
// reference, for every order, boundary and medium, on sizes that are not multiples of
// any tile, with every buffer a step writes poisoned with NaN first. Skips without a device.
#include <gtest/gtest.h>

#include <cstring>

#include "sim/bench/report.hpp"  // ErrorNorms, compare_to_reference
#include "sim/core/device.hpp"
#include "sim/models/elastic3d/elastic3d_solver.hpp"

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

template <typename T>
std::vector<T> flat(const ElasticState<T>& s) {
  std::vector<T> out;
  for (const auto& c : s.u) out.insert(out.end(), c.begin(), c.end());
  return out;
}

Elastic3DConfig odd_config(int order, int kind) {
  Elastic3DConfig c;
  c.nx = 37, c.ny = 29, c.nz = 23, c.order = order;
  c.f0 = 35;  // a short wavelet: the field is well away from zero within the steps
  switch (kind) {
    case 0:  // free surface, explosion near it, isotropic
      c.boundary = ElasticBoundary::sponge, c.top = ElasticTop::free, c.src_z = 3;
      c.source_kind = ElasticSource::explosion;
      break;
    case 1:  // absorbing everywhere, layered VTI, oblique force
      c.boundary = ElasticBoundary::sponge, c.top = ElasticTop::absorbing, c.medium = ElasticMedium::layered;
      c.anisotropy = Anisotropy::thomsen, c.force_dir = {1, 0.5, 2}, c.rec_z = 5;
      break;
    case 2:  // periodic random, source at the edge
      c.boundary = ElasticBoundary::periodic, c.medium = ElasticMedium::random, c.src_x = 1, c.src_y = 27;
      c.force_dir = {0, 1, 0};
      break;
    case 3:  // CPML (7 nodes: a third of nz) under a free top, explosion near the surface
      c.boundary = ElasticBoundary::cpml, c.top = ElasticTop::free, c.src_z = 3;
      c.source_kind = ElasticSource::explosion;
      break;
    default:  // CPML on all six faces, layered VTI, oblique force near a corner
      c.boundary = ElasticBoundary::cpml, c.top = ElasticTop::absorbing, c.medium = ElasticMedium::layered;
      c.anisotropy = Anisotropy::thomsen, c.force_dir = {1, 0.5, 2}, c.rec_z = 5;
      c.src_x = 5, c.src_y = 24, c.src_z = 18;
      break;
  }
  return c;
}

template <typename T>
void check_case(const Elastic3DSetup& s, int steps, double tolerance) {
  const std::vector<double> ref = flat(elastic3d_reference(s, steps));
  HostElastic3D<T> host(s);
  host.step(steps);
  const std::vector<T> cpu = flat(host.state());
  DeviceElastic3D<T> gpu(s);
  const Grid3D& g = s.grid;
  for (Elastic3DVariant v : kGpuElastic3DVariants) {
    gpu.reset();
    for (int k = 0; k < steps; ++k) {
      gpu.poison_scratch();
      gpu.step(v, 1);
    }
    const std::vector<T> out = flat(gpu.state());
    const std::string what = std::string(to_string(v)) + ", order " + std::to_string(s.config.order) + ", " +
                             std::string(to_string(s.config.boundary)) + " (top " + std::string(to_string(s.config.top)) +
                             "), " + std::string(to_string(s.config.medium));
    const ErrorNorms e = compare_to_reference(out, ref);
    EXPECT_TRUE(e.finite) << what;
    EXPECT_GT(e.ref_l2, 0) << what;
    EXPECT_LT(e.rel_l2, tolerance) << what;
    EXPECT_TRUE(same_bits(out, cpu)) << what << " differs from cpu";
    // The ghosts written after the last step (the buffer held NaN before it).
    for (int c = 0; c < 3; ++c) {
      const std::vector<T> field = gpu.download(c);
      for (int m = 1; m <= kGhost; ++m) {
        EXPECT_EQ(field[g.index(-m, g.ny / 2, g.nz / 3)], host.displacement(c)[g.index(-m, g.ny / 2, g.nz / 3)]) << what;
        EXPECT_EQ(field[g.index(2, g.ny / 2, -m)], host.displacement(c)[g.index(2, g.ny / 2, -m)]) << what;
      }
    }
    EXPECT_TRUE(same_bits(gpu.traces(), host.traces())) << what << ": traces";
    EXPECT_TRUE(same_bits(gpu.cpml_memory(), host.cpml_memory())) << what << ": CPML memory variables";
  }
}

std::string kind_name(int kind) {
  constexpr const char* names[] = {"free_explosion", "absorbing_layered_vti", "periodic_random", "cpml_free_explosion",
                                   "cpml_absorbing_layered_vti"};
  return names[kind];
}

class Elastic3DGpu : public ::testing::TestWithParam<std::tuple<int, int>> {};

TEST_P(Elastic3DGpu, OddSizeFloatBitwiseEqualToCpuAndNearTheReference) {
  SKIP_WITHOUT_DEVICE();
  const auto [order, kind] = GetParam();
  check_case<float>(make_elastic3d_setup(odd_config(order, kind)), 100, 1e-4);
}

TEST_P(Elastic3DGpu, OddSizeDoubleBitwiseEqualToCpu) {
  SKIP_WITHOUT_DEVICE();
  const auto [order, kind] = GetParam();
  check_case<double>(make_elastic3d_setup(odd_config(order, kind)), 100, 1e-12);
}

INSTANTIATE_TEST_SUITE_P(OrdersAndBoundaries, Elastic3DGpu,
                         ::testing::Combine(::testing::Values(2, 4, 6, 8), ::testing::Values(0, 1, 2, 3, 4)),
                         [](const auto& info) {
                           return "order" + std::to_string(std::get<0>(info.param)) + "_" + kind_name(std::get<1>(info.param));
                         });

// The streaming kernels' own edges (stream25d and register25d): a grid narrower than one
// tile along x and between one and two tiles along y, tall enough for several slabs
// (20 x 11 x 70: four slabs of 18 planes on any device unless STENCILSCOPE_ELASTIC_SLAB is
// set), with sources whose boxes cross the tile's halo, a slab boundary and the free surface: under a free top a moment tensor with
// all six components (sigma_xz and sigma_yz mirrored above the top) and a force; under an
// absorbing top an explosion across the slab boundary at k = 36 and a force near the
// bottom. Every order, both precisions, NaN-poisoned scratch: both bitwise equal to `steps`
// and to `cpu`, traces included. The tile and register25d's form are read from the
// environment once per process: tests/device/elastic-register.sh runs the float cases again
// with STENCILSCOPE_ELASTIC_TILE=32x16.
template <typename T>
void check_stream25d_case(int order, bool free_top) {
  Elastic3DConfig c;
  c.nx = 20, c.ny = 11, c.nz = 70, c.order = order, c.f0 = 35;
  c.boundary = ElasticBoundary::sponge;
  c.top = free_top ? ElasticTop::free : ElasticTop::absorbing;
  c.medium = ElasticMedium::layered, c.anisotropy = Anisotropy::thomsen, c.rec_z = 3;
  SourceSpec a, b;
  a.f0_hz = b.f0_hz = 35;
  if (free_top) {
    a.kind = SourceKind::moment, a.node = {10, 5, 2}, a.moment = {1, -0.5, 0.3, 0.7, -0.4, 0.6};
    b.kind = SourceKind::force, b.node = {6, 8, 40}, b.direction = {1, -2, 0.5};
  } else {
    a.kind = SourceKind::explosion, a.node = {12, 6, 36};
    b.kind = SourceKind::force, b.node = {3, 3, 62}, b.direction = {0.3, 1, -1};
  }
  c.sources = {a, b};
  const Elastic3DSetup s = make_elastic3d_setup(c);
  ASSERT_TRUE(elastic3d_stream25d_runs(s));
  constexpr int kSteps = 40;
  HostElastic3D<T> host(s);
  host.step(kSteps);
  const std::vector<T> cpu = flat(host.state());
  DeviceElastic3D<T> gpu(s);
  std::vector<T> by_steps;
  for (Elastic3DVariant v : {Elastic3DVariant::steps, Elastic3DVariant::stream25d, Elastic3DVariant::register25d}) {
    gpu.reset();
    for (int k = 0; k < kSteps; ++k) {
      gpu.poison_scratch();
      gpu.step(v, 1);
    }
    const std::vector<T> out = flat(gpu.state());
    const std::string what = std::string(to_string(v)) + ", order " + std::to_string(order) + (free_top ? ", free top" : ", absorbing top");
    EXPECT_TRUE(same_bits(out, cpu)) << what << " differs from cpu";
    EXPECT_TRUE(same_bits(gpu.traces(), host.traces())) << what << ": traces";
    if (v == Elastic3DVariant::steps) by_steps = out;
    else EXPECT_TRUE(same_bits(out, by_steps)) << what << " differs from steps";
  }
}

class Elastic3DStream25d : public ::testing::TestWithParam<std::tuple<int, bool>> {};

TEST_P(Elastic3DStream25d, SlabsNarrowTilesAndSourcesFloatBitwiseEqualToStepsAndCpu) {
  SKIP_WITHOUT_DEVICE();
  check_stream25d_case<float>(std::get<0>(GetParam()), std::get<1>(GetParam()));
}

TEST_P(Elastic3DStream25d, SlabsNarrowTilesAndSourcesDoubleBitwiseEqualToStepsAndCpu) {
  SKIP_WITHOUT_DEVICE();
  check_stream25d_case<double>(std::get<0>(GetParam()), std::get<1>(GetParam()));
}

INSTANTIATE_TEST_SUITE_P(OrdersAndTops, Elastic3DStream25d,
                         ::testing::Combine(::testing::Values(2, 4, 6, 8), ::testing::Bool()),
                         [](const auto& info) {
                           return "order" + std::to_string(std::get<0>(info.param)) +
                                  (std::get<1>(info.param) ? "_free_top" : "_absorbing_top");
                         });

// Paint, an order change, a load and variant switches mid-run: the GPU follows the CPU bit for bit.
TEST(Elastic3DGpuLive, PaintOrderLoadAndSwitchesFollowTheCpu) {
  SKIP_WITHOUT_DEVICE();
  const Elastic3DSetup s = make_elastic3d_setup(odd_config(8, 0));
  HostElastic3D<float> host(s);
  DeviceElastic3D<float> gpu(s);
  const Sphere ball{12.5, 9.5, 7.5, 4.0, 2.0};
  host.step(5);
  gpu.step(Elastic3DVariant::fused, 5);
  host.paint(ball);
  gpu.paint(ball);
  host.set_order(4);
  gpu.set_order(4);
  host.step(4);
  gpu.step(Elastic3DVariant::steps, 1);
  gpu.step(Elastic3DVariant::stream25d, 1);
  gpu.step(Elastic3DVariant::register25d, 1);
  gpu.step(Elastic3DVariant::fused, 1);
  EXPECT_TRUE(same_bits(flat(host.state()), flat(gpu.state())));
  DeviceElastic3D<float> other(s);
  other.set_order(4);
  other.load(host.state(), host.steps_done());
  host.step(3);
  other.step(Elastic3DVariant::stream25d, 2);
  other.step(Elastic3DVariant::register25d, 1);
  EXPECT_TRUE(same_bits(flat(other.state()), flat(host.state())));
  const std::vector<float> tail(host.traces().end() - 3 * 3 * s.grid.nx, host.traces().end());
  EXPECT_EQ(other.first_trace_step(), host.steps_done() - 3);
  EXPECT_TRUE(same_bits(other.traces(), tail));
  // The derived views (magnitude, divergence, curl) match the host's.
  for (int q : {kViewMagnitude, kViewDivergence, kViewCurl, kViewVp}) {
    std::vector<float> slice(static_cast<std::size_t>(s.grid.nx) * s.grid.ny);
    other.copy_slice_to_host(SliceAxis::xy, 4, q, slice.data());
    const std::vector<float>& vol = q == kViewVp ? host.vp()
                                    : host.derived(q == kViewMagnitude ? ElasticDerived::magnitude
                                                   : q == kViewDivergence ? ElasticDerived::divergence
                                                                          : ElasticDerived::curl);
    std::vector<float> want;
    extract_slice(vol, s.grid, SliceAxis::xy, 4, want);
    EXPECT_TRUE(same_bits(slice, want)) << "quantity " << q;
  }
}

}  // namespace
}  // namespace ss
