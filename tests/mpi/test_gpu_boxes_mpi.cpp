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

#include <array>
#include <cstdlib>
#include <cstring>
#include <string>

#include "../distributed_cases.hpp"
#include "sim/core/device.hpp"
#include "sim/dist/gather.hpp"
#include "sim/dist/halo_exchange_device.hpp"
#include "sim/dist/mpi_comm.hpp"

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

/// The first cell where two fields of a grid of `size` differ (its global i, j, k: which box
/// and how far from its faces), and how many differ, for the failure message.
std::string first_difference(const std::vector<std::vector<float>>& a, const std::vector<std::vector<float>>& b,
                             const std::array<int, 3>& size) {
  for (std::size_t q = 0; q < std::min(a.size(), b.size()); ++q)
    for (std::size_t e = 0; e < std::min(a[q].size(), b[q].size()); ++e)
      if (std::memcmp(&a[q][e], &b[q][e], sizeof(float)) != 0) {
        std::size_t count = 0;
        for (std::size_t r = e; r < std::min(a[q].size(), b[q].size()); ++r)
          count += std::memcmp(&a[q][r], &b[q][r], sizeof(float)) != 0;
        const std::size_t nx = static_cast<std::size_t>(size[0]), ny = static_cast<std::size_t>(size[1]);
        return fmt::format("field {} cell {} (i {}, j {}, k {}): {:.9g} against {:.9g}; {} cells of this field differ", q,
                           e, e % nx, e / nx % ny, e / (nx * ny), a[q][e], b[q][e], count);
      }
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
  const double started = MPI_Wtime();
  for (const test::DistributedCase& c : test::distributed_cases()) {
    const ModelInfo& info = c.model->info();
    const DistributedSpec spec = c.model->distributed(c.config);
    if (c.variant != info.fastest_cpu || spec.gpu_variant.empty()) continue;
    const std::vector<std::vector<float>> cpu = root() ? test::one_rank_fields(c, steps) : decltype(cpu){};
    for (const VariantSpec& v : info.variants) {
      if (!v.gpu || !v.live) continue;
      // With NCCL the variant the bench steps only: the transport does not depend on the variant.
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
            << to_string(transport) << "): " << first_difference(gathered, one_gpu, c.config.size);
      }
    }
  }
  EXPECT_GT(runs, 0) << "no registered model steps boxes on the GPU";
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
