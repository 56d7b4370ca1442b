// GPU boxes under mpirun: every model whose boxes run on the GPU (DistributedSpec::
// gpu_variant, and any other GPU variant its create_box accepts) stepped over N ranks, one
// GPU per rank (local rank modulo the node's GPUs: on a one-GPU machine every rank shares
// device 0), halos through DeviceHaloExchange, and the gathered field compared bit for bit
// with the one-rank GPU run of the same variant and with the one-rank CPU run. Each choice
// word of the model at its lowest and highest order, on a grid whose sides are primes, in
// every decomposition of N that fits (with nccl and peer, the gpu_variant only). The transport
// comes from STENCILSCOPE_TEST_TRANSPORT (staged, the default, nccl or peer). Skips, saying why, without a CUDA device, and for nccl in
// a build without NCCL or when ranks share a GPU (NCCL wants one GPU per rank). elastic3d
// also runs its own distributed cases (sources whose boxes straddle the boxes, a free top,
// receivers where boxes meet), which the model interface's one source cannot say.
#include <gtest/gtest.h>
#include <mpi.h>

#include <array>
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>

#include "../acoustic_distributed_cases.hpp"
#include "../distributed_cases.hpp"
#include "../elastic_distributed_cases.hpp"
#include "sim/core/device.hpp"
#include "sim/dist/gather.hpp"
#include "sim/dist/halo_exchange_device.hpp"
#include "sim/dist/mpi_comm.hpp"
#include "sim/models/acoustic3d/acoustic3d_solver.hpp"

using namespace ss;
using namespace ss::dist;

namespace {

int ranks() { return world_size(); }
bool root() { return world_rank() == 0; }

bool equal_fields(const std::vector<std::vector<float>>& a, const std::vector<std::vector<float>>& b) {
  bool equal = a.size() == b.size();
  for (std::size_t q = 0; equal && q < a.size(); ++q)
    equal = a[q].size() == b[q].size() && std::memcmp(a[q].data(), b[q].data(), a[q].size() * sizeof(float)) == 0;
  return equal;
}

/// The first cell where two fields of the grid `size` (interiors, x fastest) differ, and
/// how many cells of that field differ, for the failure message.
std::string first_difference(const std::vector<std::vector<float>>& a, const std::vector<std::vector<float>>& b,
                             const std::array<int, 3>& size, const Decomposition* d = nullptr) {
  if (a.size() != b.size()) return fmt::format("{} fields against {}", a.size(), b.size());
  for (std::size_t q = 0; q < a.size(); ++q) {
    if (a[q].size() != b[q].size()) return fmt::format("field {}: {} cells against {}", q, a[q].size(), b[q].size());
    std::size_t first = a[q].size(), count = 0;
    for (std::size_t e = 0; e < a[q].size(); ++e)
      if (std::memcmp(&a[q][e], &b[q][e], sizeof(float)) != 0) {
        first = std::min(first, e);
        ++count;
      }
    if (count == 0) continue;
    const std::size_t nx = static_cast<std::size_t>(size[0]), ny = static_cast<std::size_t>(size[1]);
    const std::array<int, 3> at{static_cast<int>(first % nx), static_cast<int>(first / nx % ny),
                                static_cast<int>(first / (nx * ny))};
    std::string where;
    for (int r = 0; d && r < d->ranks; ++r) {
      const Box b = d->box_of(r);
      bool inside = true;
      for (int x = 0; x < 3; ++x) inside = inside && at[x] >= b.lo[x] && at[x] < b.lo[x] + b.n[x];
      if (inside)
        where = fmt::format(" in rank {}'s box (from {},{},{}, {}x{}x{})", r, b.lo[0], b.lo[1], b.lo[2], b.n[0], b.n[1],
                            b.n[2]);
    }
    return fmt::format("field {} first differs at (i {}, j {}, k {}){}: {} against {} ({} of {} cells differ)", q,
                       at[0], at[1], at[2], where, a[q][first], b[q][first], count, a[q].size());
  }
  return "equal";
}

/// This rank's GPU (local rank modulo the node's GPUs) and the transport asked for, or why
/// the test cannot run here (`skip`; every rank decides the same: ranks per node are equal
/// under one mpirun on one host).
struct RankGpu {
  DeviceTransport transport = DeviceTransport::staged;
  std::string skip;
};
RankGpu use_rank_gpu() {
  RankGpu out;
  const int devices = cuda_device_count();
  if (devices == 0) return {out.transport, "no CUDA device: GPU boxes not tested"};
  const NodePlace place = node_place(MPI_COMM_WORLD);
  use_cuda_device(place.local_rank % devices);
  const char* asked = std::getenv("STENCILSCOPE_TEST_TRANSPORT");
  out.transport = parse_device_transport(asked && *asked ? asked : "staged");
  if (out.transport == DeviceTransport::nccl && !nccl_built()) out.skip = "this build has no NCCL";
  else if (out.transport == DeviceTransport::nccl && place.local_ranks > devices)
    out.skip = fmt::format("NCCL needs a GPU per rank: {} ranks share {} GPU(s)", place.local_ranks, devices);
  else if (root())
    std::printf("%d ranks on %d GPU(s), halos %s\n", ranks(), devices, to_string(out.transport));
  return out;
}

}  // namespace

TEST(GpuBoxes, BitwiseEqualToOneGpu) {
  const RankGpu gpu = use_rank_gpu();
  if (!gpu.skip.empty()) GTEST_SKIP() << gpu.skip;
  const DeviceTransport transport = gpu.transport;
  const int steps = 5;
  int runs = 0;
  const double started = MPI_Wtime();
  for (const test::DistributedCase& c : test::distributed_cases()) {
    const ModelInfo& info = c.model->info();
    const DistributedSpec spec = c.model->distributed(c.config);
    if (c.variant != info.fastest_cpu || spec.gpu_variant.empty()) continue;
    const std::vector<std::vector<float>> cpu = root() ? test::one_rank_fields(c, steps) : decltype(cpu){};
    for (const VariantSpec& v : info.variants) {
      if (!v.gpu || !v.live) continue;
      // With NCCL the variant the bench steps only: the transport does not depend on the variant.
      if (transport != DeviceTransport::staged && v.name != spec.gpu_variant) continue;
      try {  // the same answer on every rank: which GPU variants step boxes
        c.model->create_box(c.config, place_box(make_decomposition(c.config.size, 1, std::nullopt, 1), 0, {}), v.name);
      } catch (const Error&) {
        continue;
      }
      std::vector<std::vector<float>> one_gpu;
      if (root()) {
        auto sim = c.model->create(c.config, Backend::gpu, v.name);
        sim->start_steps(steps);
        sim->wait();
        one_gpu = sim->copy_state().fields;
        EXPECT_TRUE(equal_fields(one_gpu, cpu)) << c.name << " " << v.name << ": one GPU against the CPU, "
                                                << first_difference(one_gpu, cpu, c.config.size);
      }
      for (const auto& forced : test::decompositions_to_try(ranks())) {
        Decomposition d;
        try {
          d = make_decomposition(c.config.size, ranks(), forced, spec.ghost_width);
        } catch (const Error&) {
          continue;  // the same on every rank: boxes thinner than the radius are refused
        }
        if (root()) {  // where a run that hangs (an NCCL deadlock) stopped, with the time so far
          std::printf("[%7.1f s] %s %s over %s\n", MPI_Wtime() - started, c.name.c_str(), v.name.c_str(),
                      d.text().c_str());
          std::fflush(stdout);
        }
        const CartComm cart(MPI_COMM_WORLD, d, spec.periodic);
        const BoxPlacement where = place_box(d, cart.rank(), spec.periodic);
        auto box = c.model->create_box(c.config, where, v.name);
        ASSERT_NE(box->device_stream(), nullptr) << c.name << " " << v.name << ": the box is not on the GPU";
        DeviceHaloExchange halo(cart, where, box->grid(), spec.ghost_width, spec.edges, spec.fields,
                                box->device_stream(), transport);
        box->refresh_ghosts(halo);
        box->step(steps, halo);
        box->synchronize();
        const auto gathered = gather_interiors(cart, d, box->interiors());
        ++runs;
        if (!root()) continue;
        EXPECT_TRUE(equal_fields(gathered, one_gpu))
            << c.name << " " << v.name << ", " << ranks() << " GPU ranks as " << d.text() << " ("
            << to_string(transport) << "): " << first_difference(gathered, one_gpu, c.config.size, &d);
      }
    }
  }
  EXPECT_GT(runs, 0) << "no registered model steps boxes on the GPU";
}

// elastic3d's own cases (tests/elastic_distributed_cases.hpp, as the CPU boxes' MPI test;
// cpml left out: its boxes do not run on the GPU): 29x23x19, a random medium, sponge and
// periodic_sides under a free and an absorbing top, periodic, orders 4 and 8, 16 steps; a
// force centred on the first node of the last box (a face, edge or corner between ranks),
// an explosion and a moment tensor on the last node of box 0, a force at depth 1 whose
// source box the surface clips; receivers on every node of the XY plane through the first
// node of the last box (or z 1). Each GPU variant the boxes step (nccl: `steps` at order 8
// only, a communicator per run): u, u^{n-1} and the gathered traces bitwise equal to
// DeviceElastic3D's run of the variant, and that run's to HostElastic3D<float>.
TEST(GpuBoxes, Elastic3DSourceBoxesAcrossRanksEveryRuleAndReceivers) {
  const RankGpu gpu = use_rank_gpu();
  if (!gpu.skip.empty()) GTEST_SKIP() << gpu.skip;
  const int steps = test::kElasticDistSteps;
  const std::array<int, 3> size = test::kElasticDistGrid;
  auto fields_of = [](const ElasticState<float>& st) {
    return std::vector<std::vector<float>>{st.u[0], st.u[1], st.u[2], st.u_prev[0], st.u_prev[1], st.u_prev[2]};
  };
  auto same = [](const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
  };
  int runs = 0;
  for (const test::ElasticDistCase& c : test::elastic_dist_cases()) {
    if (c.config.boundary == ElasticBoundary::cpml) continue;
    const DistributedSpec spec = elastic3d_distributed_spec(make_elastic3d_setup(c.config));
    std::vector<Elastic3DVariant> variants{Elastic3DVariant::steps, Elastic3DVariant::fused};
    if (gpu.transport != DeviceTransport::staged) {
      if (c.config.order != 8) continue;
      variants = {Elastic3DVariant::steps};
    }
    for (const auto& forced : test::decompositions_to_try(ranks())) {
      Decomposition d;
      try {
        d = make_decomposition(size, ranks(), forced, spec.ghost_width);
      } catch (const Error&) {
        continue;  // the same on every rank
      }
      Elastic3DSetup setup = test::elastic_dist_setup(c, d);
      const Box last = d.box_of(d.ranks - 1);
      set_elastic3d_receivers(setup, ReceiverLayout{2, std::max(last.lo[2], 1), ReceiverLayout::Shape::grid, 0, 1});
      std::vector<std::vector<float>> cpu;
      std::vector<float> cpu_traces;
      if (root()) {
        HostElastic3D<float> one(setup);
        one.step(steps);
        cpu = fields_of(one.state());
        cpu_traces = one.traces();
      }
      for (const Elastic3DVariant v : variants) {
        const std::string what =
            fmt::format("{} {}, {} GPU ranks as {} ({})", c.name, to_string(v), ranks(), d.text(), to_string(gpu.transport));
        std::vector<std::vector<float>> one_gpu;
        std::vector<float> one_gpu_traces;
        if (root()) {
          DeviceElastic3D<float> one(setup);
          one.step(v, steps);
          one.synchronize();
          one_gpu = fields_of(one.state());
          one_gpu_traces = one.traces();
          EXPECT_TRUE(equal_fields(one_gpu, cpu))
              << c.name << " " << to_string(v) << ": one GPU against the CPU, " << first_difference(one_gpu, cpu, size);
          EXPECT_TRUE(same(one_gpu_traces, cpu_traces)) << c.name << " " << to_string(v) << ": one GPU's traces";
        }
        const CartComm cart(MPI_COMM_WORLD, d, spec.periodic);
        const BoxPlacement where = place_box(d, cart.rank(), spec.periodic);
        auto box = make_elastic3d_device_box(setup, where, v);
        DeviceHaloExchange halo(cart, where, box->grid(), spec.ghost_width, spec.edges, spec.fields,
                                box->device_stream(), gpu.transport);
        box->refresh_ghosts(halo);
        box->step(steps, halo);
        box->synchronize();
        const auto gathered = gather_interiors(cart, d, box->interiors());
        Seismogram traces;
        try {  // rank 0's refusal comes after the collectives: every rank goes on
          traces = gather_traces(cart, box->traces(0), 0);
        } catch (const Error& e) {
          ADD_FAILURE() << what << ": " << e.what();
        }
        ++runs;
        if (!root()) continue;
        EXPECT_TRUE(equal_fields(gathered, one_gpu)) << what << ": " << first_difference(gathered, one_gpu, size, &d);
        EXPECT_EQ(traces.nodes, setup.receivers) << what;
        EXPECT_TRUE(same(traces.values, one_gpu_traces))
            << what << ": the gathered traces (" << traces.values.size() << " values) against one GPU's ("
            << one_gpu_traces.size() << ")";
        EXPECT_GT(std::count_if(one_gpu_traces.begin(), one_gpu_traces.end(), [](float x) { return x != 0.0f; }), 0)
            << what << ": the wave never reached the receivers";
      }
    }
  }
  EXPECT_GT(runs, 0);
}

// acoustic3d's receivers on GPU boxes (cpml under a free and an absorbing top, the five
// sources of acoustic_distributed_cases.hpp where the boxes meet): a plane of receivers
// through the first node of the last box across the first split axis (a face between
// boxes) and a line along x through that node, recorded on the device by the boxes that
// hold them, gathered (gather_traces) in two batches as the window does, bitwise equal
// to the one-GPU run's seismogram (and that to the CPU's), in every decomposition of N.
TEST(GpuBoxes, Acoustic3DReceiverTracesAreTheOneGpus) {
  const int devices = cuda_device_count();
  if (devices == 0) GTEST_SKIP() << "no CUDA device: GPU boxes' receivers not tested";
  const NodePlace place = node_place(MPI_COMM_WORLD);
  use_cuda_device(place.local_rank % devices);
  const char* asked = std::getenv("STENCILSCOPE_TEST_TRANSPORT");
  const DeviceTransport transport = parse_device_transport(asked && *asked ? asked : "staged");
  if (transport == DeviceTransport::nccl && !nccl_built()) GTEST_SKIP() << "this build has no NCCL";
  if (transport == DeviceTransport::nccl && place.local_ranks > devices)
    GTEST_SKIP() << "NCCL needs a GPU per rank: " << place.local_ranks << " ranks share " << devices << " GPU(s)";
  const int steps = test::kAcousticDistSteps;
  int runs = 0;
  const std::vector<test::AcousticDistCase> all = test::acoustic_dist_cases();
  for (const test::AcousticDistCase& c : {all[3], all[9]}) {  // cpml, free top order 4; absorbing top order 8
    for (const auto& forced : test::decompositions_to_try(ranks())) {
      Decomposition d;
      try {
        d = make_decomposition(test::kAcousticDistGrid, ranks(), forced, radius_of_order(c.config.order));
      } catch (const Error&) {
        continue;
      }
      const Box last = d.box_of(d.ranks - 1);
      int split = 0;
      while (split < 2 && d.dims[split] == 1) ++split;
      const ReceiverLayout plane{split, std::max(last.lo[split], 1),
                                 ReceiverLayout::Shape::grid, 0, 1};
      const ReceiverLayout line{2, std::max(last.lo[2], 1), ReceiverLayout::Shape::line, std::max(last.lo[1], 1), 1};
      for (const ReceiverLayout& layout : {plane, line}) {
        const std::string what = c.name + ", " + describe(layout) + ", " + std::to_string(ranks()) + " GPU ranks as " +
                                 d.text() + " (" + to_string(transport) + ")";
        Acoustic3DSetup setup = test::acoustic_dist_setup(c, d);
        set_acoustic3d_receivers(setup, layout);
        const DistributedSpec spec = acoustic3d_distributed_spec(setup);
        ASSERT_EQ(spec.gpu_variant, "global") << what;
        std::vector<float> one_gpu;
        if (root()) {
          DeviceAcoustic3D<float> one(setup);
          one.step(Acoustic3DVariant::global, steps);
          one_gpu = one.traces();
          HostAcoustic3D<float> cpu(setup);
          cpu.step(steps);
          const std::vector<float> on_cpu = cpu.traces();
          EXPECT_TRUE(one_gpu.size() == on_cpu.size() &&
                      std::memcmp(one_gpu.data(), on_cpu.data(), on_cpu.size() * sizeof(float)) == 0)
              << what << ": one GPU's traces against the CPU's";
        }
        const CartComm cart(MPI_COMM_WORLD, d, spec.periodic);
        const BoxPlacement where = place_box(d, cart.rank(), spec.periodic);
        auto box = make_acoustic3d_device_box(setup, where, Acoustic3DVariant::global);
        DeviceHaloExchange halo(cart, where, box->grid(), spec.ghost_width, spec.edges, spec.fields,
                                box->device_stream(), transport);
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
        ++runs;
        if (!root()) continue;
        // EXPECT only: rank 0 leaving the test here would leave the others in the next collective.
        EXPECT_EQ(s.nodes, setup.receivers) << what;
        EXPECT_EQ(s.rows(), steps / 2) << what;
        s.values.insert(s.values.end(), more.values.begin(), more.values.end());
        EXPECT_EQ(s.values.size(), one_gpu.size()) << what;
        EXPECT_TRUE(s.values.size() == one_gpu.size() &&
                    std::memcmp(s.values.data(), one_gpu.data(), one_gpu.size() * sizeof(float)) == 0)
            << what << ": the gathered traces differ from the one GPU's";
        EXPECT_GT(std::count_if(one_gpu.begin(), one_gpu.end(), [](float v) { return v != 0.0f; }), 0)
            << what << ": the wave never reached the receivers";
      }
    }
  }
  EXPECT_GT(runs, 0);
}

int main(int argc, char** argv) {
  MpiSession mpi(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  if (!root()) {  // one report, from rank 0; the others' failures still fail the job
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  return RUN_ALL_TESTS();
}
