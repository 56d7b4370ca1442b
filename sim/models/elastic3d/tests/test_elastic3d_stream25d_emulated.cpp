// The streaming kernels (elastic3d_stream25d.cuh, elastic3d_register25d.cuh) run on the
// host: the headers compiled as C++ against emulated/sim/core/cuda_check.cuh (one
// std::thread per CUDA thread, a std::barrier per block for __syncthreads; register25d's
// cp.async copies are plain copies there, done at once), so their indexing, rings, queues,
// halo, slabs, free-surface mirror and sources are checked without a device. One step from
// a live field of the `cpu` variant must give the `cpu` variant's next step bit for bit on
// every node the kernel owns (all but the Clayton-Engquist faces, which a later kernel
// writes). A copy done at once also overwrites a buffer that is still being read, so a
// prefetch into the wrong slot shows here. What this cannot see: a copy read before it has
// landed, races the barrier hides, shared-memory sizes, launch limits
// (tests/device/elastic-tune.sh runs compute-sanitizer for those).
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "sim/models/elastic3d/elastic3d_solver.hpp"
#include "sim/models/elastic3d/elastic3d_register25d.cuh"
#include "sim/models/elastic3d/elastic3d_stream25d.cuh"

namespace ss {

alignas(16) unsigned char elastic_stream_smem[1 << 18];

namespace {

enum class Kernel { stream25d, register25d };

/// Runs `warm` steps of `cpu`, one emulated step of kernel K (TX x TY tile, slabs of `slab`
/// planes; register25d's plane loop unrolled by Unroll, which the host compiler ignores, so
/// this checks that the instantiation builds and keeps the bits) and one more `cpu` step;
/// returns the nodes that differ.
template <Kernel K, typename T, int R, int TX, int TY, int Unroll = 1>
long emulated_step_differences(const Elastic3DSetup& s, int warm, int slab) {
  static_assert(ElasticStreamShape<T, R, TX, TY>::kBytes <= sizeof(elastic_stream_smem));
  static_assert(ElasticRegisterShape<T, R, TX, TY>::kBytes <= sizeof(elastic_stream_smem));
  constexpr unsigned threads_x = TX;
  const Grid3D& g = s.grid;
  HostElastic3D<T> host(s);
  host.step(warm);
  const ElasticState<T> st = host.state();
  const T nan = std::numeric_limits<T>::quiet_NaN();
  std::vector<T> cur[3], prev[3], out[3];
  for (int c = 0; c < 3; ++c) {
    cur[c] = host.displacement(c);  // padded, ghosts written
    prev[c].assign(g.elements(), nan);
    for (int k = 0; k < g.nz; ++k)
      for (int j = 0; j < g.ny; ++j)
        for (int i = 0; i < g.nx; ++i) prev[c][g.index(i, j, k)] = st.u_prev[c][s.node(i, j, k)];
    out[c].assign(g.elements(), nan);
  }
  const PaddedMedium<T> pm = padded_medium<T>(s);
  const std::vector<T> damp = elastic_damping_tables<T>(s), w = source_weights_as<T>(s);
  const ElasticForceStep<T> forces = elastic3d_force_step<T>(s, host.steps_done());
  const ElasticStressStep<T> stress_src = elastic3d_stress_step<T>(s, host.steps_done());
  const ElasticFields3<T> fc{{cur[0].data(), cur[1].data(), cur[2].data()}};
  const ElasticFields3<T> fp{{prev[0].data(), prev[1].data(), prev[2].data()}};
  const ElasticFields3<T> fo{{out[0].data(), out[1].data(), out[2].data()}};
  const ElasticMediumPtrs<T> m{pm.c11.data(), pm.c13.data(), pm.c33.data(), pm.c44.data(), pm.c66.data(), pm.q.data()};
  const bool free_top = ghost_rule_of(s).free_top;
  const unsigned bx = blocks_for(g.nx, TX), by = blocks_for(g.ny, TY), bz = blocks_for(g.nz, slab);
  for (unsigned z = 0; z < bz; ++z)
    for (unsigned y = 0; y < by; ++y)
      for (unsigned x = 0; x < bx; ++x) {
        std::memset(elastic_stream_smem, 0xff, sizeof(elastic_stream_smem));  // NaN in every slot not loaded
        std::barrier<> block(threads_x * TY);
        emulated_block_barrier = &block;
        std::vector<std::thread> threads;
        for (unsigned ty = 0; ty < TY; ++ty)
          for (unsigned tx = 0; tx < threads_x; ++tx)
            threads.emplace_back([&, tx, ty] {
              threadIdx = {tx, ty, 0};
              blockIdx = {x, y, z};
              if constexpr (K == Kernel::stream25d)
                elastic3d_stream25d<T, R, TX, TY>(fc, fp, m, damp.data(), fo, g, free_top, slab, stress_src, forces,
                                                  w.data());
              else
                elastic3d_register25d<T, R, TX, TY, Unroll>(fc, fp, m, damp.data(), fo, g, free_top, slab, stress_src,
                                                    forces, w.data());
            });
        for (std::thread& t : threads) t.join();
      }
  host.step(1);
  long differ = 0;
  for (int c = 0; c < 3; ++c)
    for (int k = free_top ? 0 : 1; k < g.nz - 1; ++k)
      for (int j = 1; j < g.ny - 1; ++j)
        for (int i = 1; i < g.nx - 1; ++i) {
          const std::size_t e = g.index(i, j, k);
          if (std::memcmp(&out[c][e], &host.displacement(c)[e], sizeof(T)) != 0) ++differ;
        }
  return differ;
}

SourceSpec source(SourceKind kind, std::array<int, 3> node) {
  SourceSpec s;
  s.kind = kind, s.node = node, s.f0_hz = 35;
  return s;
}

/// 37 x 29 x 23 (not a multiple of either tile), layered VTI, free top: a moment tensor
/// with all six components two nodes under the surface and a force.
Elastic3DSetup free_top_case(int order) {
  Elastic3DConfig c;
  c.nx = 37, c.ny = 29, c.nz = 23, c.order = order, c.f0 = 35;
  c.top = ElasticTop::free, c.medium = ElasticMedium::layered, c.anisotropy = Anisotropy::thomsen;
  SourceSpec a = source(SourceKind::moment, {10, 5, 2}), b = source(SourceKind::force, {30, 20, 12});
  a.moment = {1, -0.5, 0.3, 0.7, -0.4, 0.6};
  b.direction = {1, -2, 0.5};
  c.sources = {a, b};
  return make_elastic3d_setup(c);
}

/// 20 x 11 x 70 (narrower than a tile), absorbing top: an explosion across the slab
/// boundary at k = 36 and a force near the bottom.
Elastic3DSetup absorbing_top_case(int order) {
  Elastic3DConfig c;
  c.nx = 20, c.ny = 11, c.nz = 70, c.order = order, c.f0 = 35;
  c.top = ElasticTop::absorbing;
  SourceSpec b = source(SourceKind::force, {3, 3, 62});
  b.direction = {0.3, 1, -1};
  c.sources = {source(SourceKind::explosion, {12, 6, 36}), b};
  return make_elastic3d_setup(c);
}

/// 20 x 11 x 70, free top: a moment tensor one node under the surface.
Elastic3DSetup shallow_moment_case(int order) {
  Elastic3DConfig c;
  c.nx = 20, c.ny = 11, c.nz = 70, c.order = order, c.f0 = 35;
  c.top = ElasticTop::free;
  SourceSpec a = source(SourceKind::moment, {9, 4, 1});
  a.moment = {0.2, 0.1, -1, 0.5, 1, -0.8};
  c.sources = {a};
  return make_elastic3d_setup(c);
}

/// (kernel, order).
class Elastic3DStreamingEmulated : public ::testing::TestWithParam<std::tuple<Kernel, int>> {};

TEST_P(Elastic3DStreamingEmulated, FreeTopBothTilesAndThinSlabsFloatAndDouble) {
  const auto [kernel, order] = GetParam();
  const Elastic3DSetup s = free_top_case(order);
  dispatch_radius(order, [&]<int R>() {
    auto check = [&]<Kernel K>() {
      EXPECT_EQ((emulated_step_differences<K, float, R, 32, 8>(s, 30, 23)), 0);
      EXPECT_EQ((emulated_step_differences<K, float, R, 32, 16>(s, 30, 23)), 0);
      if constexpr (K == Kernel::register25d) {  // STENCILSCOPE_ELASTIC_UNROLL=2
        EXPECT_EQ((emulated_step_differences<K, float, R, 32, 16, 2>(s, 30, 23)), 0);
      }
      EXPECT_EQ((emulated_step_differences<K, float, R, 32, 8>(s, 30, 5)), 0);  // slabs thinner than 2R + 1
      EXPECT_EQ((emulated_step_differences<K, double, R, 32, 8>(s, 30, 23)), 0);
    };
    kernel == Kernel::stream25d ? check.template operator()<Kernel::stream25d>()
                                : check.template operator()<Kernel::register25d>();
  });
}

TEST_P(Elastic3DStreamingEmulated, AbsorbingTopAcrossSlabsFloatAndDouble) {
  const auto [kernel, order] = GetParam();
  const Elastic3DSetup s = absorbing_top_case(order);
  dispatch_radius(order, [&]<int R>() {
    auto check = [&]<Kernel K>() {
      EXPECT_EQ((emulated_step_differences<K, float, R, 32, 8>(s, 25, 18)), 0);
      EXPECT_EQ((emulated_step_differences<K, double, R, 32, 8>(s, 25, 18)), 0);
      EXPECT_EQ((emulated_step_differences<K, float, R, 32, 16>(s, 25, 1)), 0);  // one plane per slab
    };
    kernel == Kernel::stream25d ? check.template operator()<Kernel::stream25d>()
                                : check.template operator()<Kernel::register25d>();
  });
}

TEST_P(Elastic3DStreamingEmulated, MomentUnderTheSurfaceSlabsOf18And3) {
  const auto [kernel, order] = GetParam();
  const Elastic3DSetup s = shallow_moment_case(order);
  dispatch_radius(order, [&]<int R>() {
    auto check = [&]<Kernel K>() {
      EXPECT_EQ((emulated_step_differences<K, float, R, 32, 8>(s, 25, 18)), 0);
      EXPECT_EQ((emulated_step_differences<K, float, R, 32, 8>(s, 25, 3)), 0);
      EXPECT_EQ((emulated_step_differences<K, float, R, 32, 16>(s, 25, 3)), 0);  // register25d: one barrier a plane
    };
    kernel == Kernel::stream25d ? check.template operator()<Kernel::stream25d>()
                                : check.template operator()<Kernel::register25d>();
  });
}

INSTANTIATE_TEST_SUITE_P(KernelsAndOrders, Elastic3DStreamingEmulated,
                         ::testing::Combine(::testing::Values(Kernel::stream25d, Kernel::register25d),
                                            ::testing::Values(2, 4, 6, 8)),
                         [](const auto& info) {
                           return std::string(std::get<0>(info.param) == Kernel::stream25d ? "stream25d"
                                                                                           : "register25d") +
                                  "_order" + std::to_string(std::get<1>(info.param));
                         });

}  // namespace
}  // namespace ss
