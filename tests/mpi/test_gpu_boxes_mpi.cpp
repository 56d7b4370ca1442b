// GPU boxes under mpirun: every model whose boxes run on the GPU (DistributedSpec::
// gpu_variant, and any other GPU variant its create_box accepts) stepped over N ranks, one
// GPU per rank (local rank modulo the node's GPUs: on a one-GPU machine every rank shares
// device 0), halos through DeviceHaloExchange, and the gathered field compared bit for bit
// with the one-rank GPU run of the same variant and with the one-rank CPU run. Each choice
// word of the model at its lowest and highest order, on a grid whose sides are primes, in
// every decomposition of N that fits (with nccl, the gpu_variant only). The transport comes
// from STENCILSCOPE_TEST_TRANSPORT (staged, the default, or nccl). Skips, saying why, without a CUDA device, and for nccl in
// a build without NCCL or when ranks share a GPU (NCCL wants one GPU per rank).
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>

#include "../acoustic_distributed_cases.hpp"
#include "../distributed_cases.hpp"
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

/// The first cell where two fields differ, for the failure message.
std::string first_difference(const std::vector<std::vector<float>>& a, const std::vector<std::vector<float>>& b) {
  for (std::size_t q = 0; q < std::min(a.size(), b.size()); ++q)
    for (std::size_t e = 0; e < std::min(a[q].size(), b[q].size()); ++e)
      if (std::memcmp(&a[q][e], &b[q][e], sizeof(float)) != 0)
        return fmt::format("field {} cell {}: {} against {}", q, e, a[q][e], b[q][e]);
  return "sizes differ";
}

}  // namespace

TEST(GpuBoxes, BitwiseEqualToOneGpu) {
  const int devices = cuda_device_count();
  if (devices == 0) GTEST_SKIP() << "no CUDA device: GPU boxes not tested";
  const NodePlace place = node_place(MPI_COMM_WORLD);
  use_cuda_device(place.local_rank % devices);
  const char* asked = std::getenv("STENCILSCOPE_TEST_TRANSPORT");
  const DeviceTransport transport = parse_device_transport(asked && *asked ? asked : "staged");
  if (transport == DeviceTransport::nccl && !nccl_built()) GTEST_SKIP() << "this build has no NCCL";
  // Every rank decides the same: ranks per node are equal under one mpirun on one host.
  if (transport == DeviceTransport::nccl && place.local_ranks > devices)
    GTEST_SKIP() << "NCCL needs a GPU per rank: " << place.local_ranks << " ranks share " << devices << " GPU(s)";
  if (root()) std::printf("%d ranks on %d GPU(s), halos %s\n", ranks(), devices, to_string(transport));
  const int steps = 5;
  int runs = 0;
  for (const test::DistributedCase& c : test::distributed_cases()) {
    const ModelInfo& info = c.model->info();
    const DistributedSpec spec = c.model->distributed(c.config);
    if (c.variant != info.fastest_cpu || spec.gpu_variant.empty()) continue;
    const std::vector<std::vector<float>> cpu = root() ? test::one_rank_fields(c, steps) : decltype(cpu){};
    for (const VariantSpec& v : info.variants) {
      if (!v.gpu || !v.live) continue;
      // NCCL makes a communicator per exchange (a fraction of a second each): the variant
      // the bench steps only; the transport does not depend on the variant.
      if (transport == DeviceTransport::nccl && v.name != spec.gpu_variant) continue;
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
                                                << first_difference(one_gpu, cpu);
      }
      for (const auto& forced : test::decompositions_to_try(ranks())) {
        Decomposition d;
        try {
          d = make_decomposition(c.config.size, ranks(), forced, spec.ghost_width);
        } catch (const Error&) {
          continue;  // the same on every rank: boxes thinner than the radius are refused
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
            << to_string(transport) << "): " << first_difference(gathered, one_gpu);
      }
    }
  }
  EXPECT_GT(runs, 0) << "no registered model steps boxes on the GPU";
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
