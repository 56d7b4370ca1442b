// elastic3d on the host: the physics (Stokes' solution of a point force, spatial
// convergence orders, VTI qP speeds, energy, the sponge's reflection), the `cpu` variant
// against the independent double reference, the setup and bad input. Measured figures are
// printed as "[ MEASURED ]" lines.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
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
    default:
      c.boundary = ElasticBoundary::periodic, c.medium = ElasticMedium::random, c.src_x = 1;
      c.force_dir = {0, 1, 0};
      break;
  }
  return c;
}

std::string kind_name(int kind) {
  return kind == 0 ? "free_explosion" : kind == 1 ? "absorbing_layered_vti" : "periodic_random";
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
                         ::testing::Combine(::testing::Values(2, 4, 6, 8), ::testing::Values(0, 1, 2)),
                         [](const auto& info) {
                           return "order" + std::to_string(std::get<0>(info.param)) + "_" + kind_name(std::get<1>(info.param));
                         });

}  // namespace
}  // namespace ss
