// Distributed runs over real MPI ranks (CTest runs this under mpirun -np 2, 3 and 4 on
// the CPU backend): the Cartesian communicator numbers ranks as the decomposition does,
// the halo exchange fills every ghost face with its neighbour's cells (periodic or not),
// and every distributable model in every boundary rule, on a grid whose sides no rank
// count divides, gathers to rank 0 bitwise equal to the one-rank run, for each
// decomposition of the rank count that fits; so do the wave models' receiver traces. Only
// rank 0 checks and prints.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <array>
#include <cstring>

#include "../acoustic_distributed_cases.hpp"
#include "../distributed_cases.hpp"
#include "../elastic_distributed_cases.hpp"
#include "sim/dist/gather.hpp"
#include "sim/dist/halo_exchange.hpp"
#include "sim/dist/mpi_comm.hpp"
#ifdef STENCILSCOPE_TEST_CUDA
#include <cuda_runtime.h>

#include "sim/dist/halo_exchange_device.hpp"
#endif

using namespace ss;
using namespace ss::dist;

namespace {

int ranks() { return world_size(); }
bool root() { return world_rank() == 0; }

/// The value a test field holds at global cell (i, j, k), wrapped into the grid.
float cell_value(const std::array<int, 3>& g, int i, int j, int k) {
  i = (i + g[0]) % g[0], j = (j + g[1]) % g[1], k = (k + g[2]) % g[2];
  return static_cast<float>((static_cast<long>(k) * g[1] + j) * g[0] + i);
}

}  // namespace

TEST(CartComm, NumbersRanksAsTheDecomposition) {
  for (const auto& forced : test::decompositions_to_try(ranks())) {
    const Decomposition d = make_decomposition(test::kUnevenGrid, ranks(), forced, 1);
    const CartComm cart(MPI_COMM_WORLD, d, {true, false, true});
    EXPECT_EQ(cart.rank(), world_rank());
    for (int axis = 0; axis < 3; ++axis) {
      int low = 0, high = 0;
      ASSERT_EQ(MPI_Cart_shift(cart.get(), 2 - axis, 1, &low, &high), MPI_SUCCESS);  // MPI's dims are z, y, x
      const bool wraps = axis != 1;
      EXPECT_EQ(low < 0 ? -1 : low, d.neighbour(cart.rank(), axis, -1, wraps)) << d.text() << " axis " << axis;
      EXPECT_EQ(high < 0 ? -1 : high, d.neighbour(cart.rank(), axis, +1, wraps)) << d.text() << " axis " << axis;
    }
  }
}

TEST(HaloExchange, GhostFacesHoldTheNeighboursCells) {
  const std::array<int, 3> g = test::kUnevenGrid;
  for (bool periodic : {false, true})
    for (bool edges : {false, true})
      for (const auto& forced : test::decompositions_to_try(ranks())) {
        const int width = 2;
        Decomposition d;
        try {
          d = make_decomposition(g, ranks(), forced, width);
        } catch (const Error&) {
          continue;  // the same on every rank: boxes thinner than the width (1x1x8 on 13 planes)
        }
        const std::array<bool, 3> wraps{periodic, periodic, periodic};
        const CartComm cart(MPI_COMM_WORLD, d, wraps);
        const BoxPlacement p = place_box(d, cart.rank(), wraps);
        const Grid3D grid = Grid3D::make_box(p.box.n[0], p.box.n[1], p.box.n[2]);
        std::vector<float> a(grid.elements(), -1.0f), b(grid.elements(), -2.0f);
        for (int k = 0; k < p.box.n[2]; ++k)
          for (int j = 0; j < p.box.n[1]; ++j)
            for (int i = 0; i < p.box.n[0]; ++i) {
              const float v = cell_value(g, p.box.lo[0] + i, p.box.lo[1] + j, p.box.lo[2] + k);
              a[grid.index(i, j, k)] = v;
              b[grid.index(i, j, k)] = -v;
            }
        // A periodic axis that is not split wraps onto the box itself, through the exchange.
        HaloExchange halo(cart, p, grid, width, edges, 2);
        float* const fields[] = {a.data(), b.data()};
        halo.fill(fields);
        EXPECT_EQ(halo.calls(), 1);
        for (const HaloFace& f : halo.faces()) {
          const HaloRegion& r = f.recv;
          for (int k = r.lo[2]; k < r.lo[2] + r.n[2]; ++k)
            for (int j = r.lo[1]; j < r.lo[1] + r.n[1]; ++j)
              for (int i = r.lo[0]; i < r.lo[0] + r.n[0]; ++i) {
                const std::array<int, 3> at{p.box.lo[0] + i, p.box.lo[1] + j, p.box.lo[2] + k};
                bool outside = false;
                for (int axis = 0; axis < 3; ++axis) outside = outside || at[axis] < 0 || at[axis] >= g[axis];
                if (outside && !periodic) continue;  // an edge past the domain: the boundary step's, not written here
                const float v = cell_value(g, at[0], at[1], at[2]);
                ASSERT_EQ(a[grid.index(i, j, k)], v) << d.text() << " rank " << cart.rank() << " face " << f.axis
                                                     << "," << f.dir << " cell " << i << "," << j << "," << k
                                                     << (periodic ? " periodic" : "") << (edges ? " edges" : "");
                ASSERT_EQ(b[grid.index(i, j, k)], -v);
              }
        }
      }
}

TEST(Gather, PutsEveryBoxWhereItBelongs) {
  const std::array<int, 3> g = test::kUnevenGrid;
  for (const auto& forced : test::decompositions_to_try(ranks())) {
    const Decomposition d = make_decomposition(g, ranks(), forced, 1);
    const CartComm cart(MPI_COMM_WORLD, d, {false, false, false});
    const Box b = d.box_of(cart.rank());
    std::vector<float> mine;
    for (int k = 0; k < b.n[2]; ++k)
      for (int j = 0; j < b.n[1]; ++j)
        for (int i = 0; i < b.n[0]; ++i) mine.push_back(cell_value(g, b.lo[0] + i, b.lo[1] + j, b.lo[2] + k));
    const auto all = gather_interiors(cart, d, {mine});
    if (!root()) continue;
    ASSERT_EQ(all.size(), 1u);
    for (std::size_t e = 0; e < all[0].size(); ++e) ASSERT_EQ(all[0][e], static_cast<float>(e)) << d.text();
  }
}

TEST(Gather, OneSliceFromTheBoxesItCuts) {
  const std::array<int, 3> g = test::kUnevenGrid;
  for (const auto& forced : test::decompositions_to_try(ranks())) {
    const Decomposition d = make_decomposition(g, ranks(), forced, 1);
    const CartComm cart(MPI_COMM_WORLD, d, {false, false, false});
    const Box b = d.box_of(cart.rank());
    std::vector<float> mine;
    for (int k = 0; k < b.n[2]; ++k)
      for (int j = 0; j < b.n[1]; ++j)
        for (int i = 0; i < b.n[0]; ++i) mine.push_back(cell_value(g, b.lo[0] + i, b.lo[1] + j, b.lo[2] + k));
    for (int axis = 0; axis < 3; ++axis)
      for (int position : {0, g[static_cast<std::size_t>(axis)] / 2, g[static_cast<std::size_t>(axis)] - 1}) {
        const std::vector<float> slice = gather_slice(cart, d, axis, position, mine);
        if (!root()) continue;
        const int ua = axis == 0 ? 1 : 0, va = axis == 2 ? 1 : 2;
        ASSERT_EQ(slice.size(), static_cast<std::size_t>(g[ua]) * g[va]);
        for (int v = 0; v < g[va]; ++v)
          for (int u = 0; u < g[ua]; ++u) {
            std::array<int, 3> c{};
            c[static_cast<std::size_t>(axis)] = position;
            c[static_cast<std::size_t>(ua)] = u;
            c[static_cast<std::size_t>(va)] = v;
            ASSERT_EQ(slice[static_cast<std::size_t>(v) * g[ua] + u], cell_value(g, c[0], c[1], c[2]))
                << d.text() << " axis " << axis << " at " << position;
          }
      }
  }
}

TEST(Distributed, EveryModelBitwiseEqualToOneRank) {
  const int steps = 4;
  int runs = 0;
  for (const test::DistributedCase& c : test::distributed_cases()) {
    const std::vector<std::vector<float>> expected = root() ? test::one_rank_fields(c, steps) : decltype(expected){};
    const DistributedSpec spec = c.model->distributed(c.config);
    for (const auto& forced : test::decompositions_to_try(ranks())) {
      Decomposition d;
      try {
        d = make_decomposition(c.config.size, ranks(), forced, spec.ghost_width);
      } catch (const Error&) {
        continue;  // the same on every rank: boxes thinner than the radius are refused
      }
      const CartComm cart(MPI_COMM_WORLD, d, spec.periodic);
      const BoxPlacement where = place_box(d, cart.rank(), spec.periodic);
      auto box = c.model->create_box(c.config, where, c.variant);
      HaloExchange halo(cart, where, box->grid(), spec.ghost_width, spec.edges, spec.fields);
      box->refresh_ghosts(halo);
      box->step(steps, halo);
      const auto gathered = gather_interiors(cart, d, box->interiors());
      ++runs;
      if (!root()) continue;
      bool equal = gathered.size() == expected.size();
      for (std::size_t q = 0; equal && q < gathered.size(); ++q)
        equal = std::memcmp(gathered[q].data(), expected[q].data(), expected[q].size() * sizeof(float)) == 0;
      EXPECT_TRUE(equal) << c.name << ", " << ranks() << " ranks as " << d.text();
    }
  }
  EXPECT_GT(runs, 0) << "no registered model runs distributed";
}

// A wave model's own cases (tests/*_distributed_cases.hpp) box by box across the ranks, in
// every decomposition of the rank count that fits: the fields gathered to rank 0 bitwise
// equal to the whole grid's `cpu` run. Returns the runs made.
template <typename Case, typename SpecOf, typename SetupOf, typename OneRank, typename BoxOf>
int check_cases_across_ranks(const std::vector<Case>& cases, const std::array<int, 3>& grid, int steps, SpecOf spec_of,
                             SetupOf setup_of, OneRank one_rank, BoxOf box_of) {
  int runs = 0;
  for (const Case& c : cases) {
    const DistributedSpec spec = spec_of(c);
    for (const auto& forced : test::decompositions_to_try(ranks())) {
      Decomposition d;
      try {
        d = make_decomposition(grid, ranks(), forced, spec.ghost_width);
      } catch (const Error&) {
        continue;
      }
      const auto setup = setup_of(c, d);
      const auto expected = root() ? one_rank(setup, steps) : std::vector<std::vector<float>>{};
      const CartComm cart(MPI_COMM_WORLD, d, spec.periodic);
      const BoxPlacement where = place_box(d, cart.rank(), spec.periodic);
      auto box = box_of(setup, where);
      HaloExchange halo(cart, where, box->grid(), spec.ghost_width, spec.edges, spec.fields);
      box->refresh_ghosts(halo);
      box->step(steps, halo);
      const auto gathered = gather_interiors(cart, d, box->interiors());
      ++runs;
      if (!root()) continue;
      bool equal = gathered.size() == expected.size();
      for (std::size_t q = 0; equal && q < gathered.size(); ++q)
        equal = std::memcmp(gathered[q].data(), expected[q].data(), expected[q].size() * sizeof(float)) == 0;
      EXPECT_TRUE(equal) << c.name << ", " << ranks() << " ranks as " << d.text();
    }
  }
  return runs;
}

// acoustic3d with five sources where the boxes meet (tests/acoustic_distributed_cases.hpp),
// every boundary rule, orders 4 and 8: p and p_prev.
TEST(Distributed, Acoustic3DSourcesAcrossRanksAndEveryRule) {
  const int runs = check_cases_across_ranks(
      test::acoustic_dist_cases(), test::kAcousticDistGrid, test::kAcousticDistSteps,
      [](const test::AcousticDistCase& c) { return acoustic3d_distributed_spec(make_acoustic3d_setup(c.config)); },
      [](const test::AcousticDistCase& c, const Decomposition& d) { return test::acoustic_dist_setup(c, d); },
      [](const Acoustic3DSetup& s, int steps) { return test::acoustic_one_rank(s, steps); },
      [](const Acoustic3DSetup& s, const BoxPlacement& w) { return make_acoustic3d_box(s, w); });
  EXPECT_GT(runs, 0);
}

// elastic3d with a force, an explosion and a moment tensor whose source boxes straddle the
// ranks (tests/elastic_distributed_cases.hpp), every boundary rule, orders 4 and 8: u and
// u^{n-1}.
TEST(Distributed, Elastic3DSourceBoxesAcrossRanksAndEveryRule) {
  const int runs = check_cases_across_ranks(
      test::elastic_dist_cases(), test::kElasticDistGrid, test::kElasticDistSteps,
      [](const test::ElasticDistCase& c) { return elastic3d_distributed_spec(make_elastic3d_setup(c.config)); },
      [](const test::ElasticDistCase& c, const Decomposition& d) { return test::elastic_dist_setup(c, d); },
      [](const Elastic3DSetup& s, int steps) { return test::elastic_one_rank(s, steps); },
      [](const Elastic3DSetup& s, const BoxPlacement& w) { return make_elastic3d_box(s, w); });
  EXPECT_GT(runs, 0);
}

namespace {

/// Receivers on the planes through the first node of the last box: on an XY plane and a YZ
/// plane (every node: the faces between boxes, and where three or four boxes meet), and a
/// line along x through that node (it crosses every x-split). Node 0 of an axis that is not
/// split is moved to 1 (acoustic3d's p is 0 on a free top).
std::vector<ReceiverLayout> receivers_where_boxes_meet(const Decomposition& d) {
  const Box last = d.box_of(d.ranks - 1);
  const int x = std::max(last.lo[0], 1), y = std::max(last.lo[1], 1), z = std::max(last.lo[2], 1);
  ReceiverLayout xy{2, z, ReceiverLayout::Shape::grid, 0, 1};
  ReceiverLayout yz{0, x, ReceiverLayout::Shape::grid, 0, 1};
  ReceiverLayout line{1, y, ReceiverLayout::Shape::line, z, 1};
  return {xy, yz, line};
}

/// Steps `box` in two batches, gathering the traces after each (the second from the row the
/// first ended at, as the window does), and checks them against the one-rank `traces`.
template <typename Box3D, typename Setup>
void expect_gathered_traces(Box3D& box, HaloExchange& halo, const CartComm& cart, const Setup& setup, int steps,
                            const std::vector<float>& traces, const std::string& what) {
  // Rank 0's refusal comes after the collectives: a failure here, and every rank goes on.
  auto gather = [&](int from_row) {
    try {
      return gather_traces(cart, box->traces(from_row), from_row);
    } catch (const Error& e) {
      ADD_FAILURE() << what << ": " << e.what();
      return Seismogram{};
    }
  };
  box->refresh_ghosts(halo);
  box->step(steps / 2, halo);
  Seismogram s = gather(0);
  box->step(steps - steps / 2, halo);
  const Seismogram more = gather(steps / 2);
  if (!root()) return;
  ASSERT_EQ(s.nodes, setup.receivers) << what;
  EXPECT_EQ(s.rows(), steps / 2) << what;
  s.values.insert(s.values.end(), more.values.begin(), more.values.end());
  ASSERT_EQ(s.values.size(), traces.size()) << what;
  EXPECT_EQ(std::memcmp(s.values.data(), traces.data(), traces.size() * sizeof(float)), 0) << what;
  EXPECT_GT(std::count_if(traces.begin(), traces.end(), [](float v) { return v != 0.0f; }), 0)
      << what << ": the wave never reached the receivers";
}

}  // namespace

// The receivers of acoustic3d and elastic3d recorded by the boxes that hold them and
// gathered to rank 0 (gather_traces): every receiver in the run's order, each value the one
// rank's, for receivers on the faces between boxes and where several boxes meet, in every
// decomposition of the rank count that fits.
TEST(Gather, ReceiverTracesOnFacesAndCornersAreTheOneRanks) {
  int runs = 0;
  const test::AcousticDistCase acoustic = test::acoustic_dist_cases()[3];  // cpml under a free top, order 4
  const test::ElasticDistCase elastic = test::elastic_dist_cases()[0];     // sponge under a free top, order 4
  for (const auto& forced : test::decompositions_to_try(ranks())) {
    Decomposition d;
    try {
      d = make_decomposition(test::kAcousticDistGrid, ranks(), forced, 2);
    } catch (const Error&) {
      continue;
    }
    for (const ReceiverLayout& layout : receivers_where_boxes_meet(d)) {
      const std::string what = describe(layout) + ", " + std::to_string(ranks()) + " ranks as " + d.text();
      {
        Acoustic3DSetup setup = test::acoustic_dist_setup(acoustic, d);
        set_acoustic3d_receivers(setup, layout);
        const DistributedSpec spec = acoustic3d_distributed_spec(setup);
        std::vector<float> traces;
        if (root()) {
          HostAcoustic3D<float> one(setup);
          one.step(test::kAcousticDistSteps);
          traces = one.traces();
        }
        const CartComm cart(MPI_COMM_WORLD, d, spec.periodic);
        const BoxPlacement where = place_box(d, cart.rank(), spec.periodic);
        auto box = make_acoustic3d_box(setup, where);
        HaloExchange halo(cart, where, box->grid(), spec.ghost_width, spec.edges, spec.fields);
        expect_gathered_traces(box, halo, cart, setup, test::kAcousticDistSteps, traces, "acoustic3d, " + what);
      }
      {
        Elastic3DSetup setup = test::elastic_dist_setup(elastic, d);
        set_elastic3d_receivers(setup, layout);
        const DistributedSpec spec = elastic3d_distributed_spec(setup);
        std::vector<float> traces;
        if (root()) {
          HostElastic3D<float> one(setup);
          one.step(test::kElasticDistSteps);
          traces = one.traces();
        }
        const CartComm cart(MPI_COMM_WORLD, d, spec.periodic);
        const BoxPlacement where = place_box(d, cart.rank(), spec.periodic);
        auto box = make_elastic3d_box(setup, where);
        HaloExchange halo(cart, where, box->grid(), spec.ghost_width, spec.edges, spec.fields);
        expect_gathered_traces(box, halo, cart, setup, test::kElasticDistSteps, traces, "elastic3d, " + what);
      }
      ++runs;
    }
  }
  EXPECT_GT(runs, 0);
}

#ifdef STENCILSCOPE_TEST_CUDA
// The GPU transports against the host exchange, bit for bit: the same field on the device,
// exchanged staged, by the copy engines (peer), and through NCCL where built and each rank
// has its own GPU. Skipped
// without a CUDA device (every rank of one machine sees the same), as on the CPU-only CI.
TEST(DeviceHaloExchange, StagedPeerAndNcclFillAsTheHostExchange) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) GTEST_SKIP() << "no CUDA device";
  ASSERT_EQ(cudaSetDevice(world_rank() % devices), cudaSuccess);
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  std::vector<DeviceTransport> transports{DeviceTransport::staged, DeviceTransport::peer};
  if (nccl_built() && ranks() <= devices) transports.push_back(DeviceTransport::nccl);
  const std::array<int, 3> g = test::kUnevenGrid;
  for (DeviceTransport transport : transports)
    for (bool periodic : {false, true})
      for (bool edges : {false, true})
        for (const auto& forced : test::decompositions_to_try(ranks())) {
          const int width = 3;
          const Decomposition d = make_decomposition(g, ranks(), forced, width);
          const std::array<bool, 3> wraps{periodic, periodic, periodic};
          const CartComm cart(MPI_COMM_WORLD, d, wraps);
          const BoxPlacement p = place_box(d, cart.rank(), wraps);
          const Grid3D grid = Grid3D::make_box(p.box.n[0], p.box.n[1], p.box.n[2]);
          std::vector<float> host(grid.elements());
          for (std::size_t e = 0; e < host.size(); ++e) host[e] = static_cast<float>(e % 9973) + 0.25f * cart.rank();
          std::vector<float> from_gpu(host.size());
          float* dev = nullptr;
          ASSERT_EQ(cudaMalloc(&dev, host.size() * sizeof(float)), cudaSuccess);
          ASSERT_EQ(cudaMemcpy(dev, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
          {
            DeviceHaloExchange gpu(cart, p, grid, width, edges, 1, stream, transport);
            float* const fields[] = {dev};
            gpu.fill(fields);
          }
          ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
          ASSERT_EQ(cudaMemcpy(from_gpu.data(), dev, host.size() * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
          cudaFree(dev);
          HaloExchange cpu(cart, p, grid, width, edges, 1);
          float* const fields[] = {host.data()};
          cpu.fill(fields);
          EXPECT_EQ(std::memcmp(host.data(), from_gpu.data(), host.size() * sizeof(float)), 0)
              << to_string(transport) << " " << d.text() << (periodic ? " periodic" : "")
              << (edges ? " edges" : "") << " rank " << cart.rank();
        }
  cudaStreamDestroy(stream);
}
#endif

int main(int argc, char** argv) {
  MpiSession mpi(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  if (!root()) {  // one report, from rank 0; the others' failures still fail the job
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  if (root()) std::printf("running on %d MPI ranks\n", ranks());
  return RUN_ALL_TESTS();
}
