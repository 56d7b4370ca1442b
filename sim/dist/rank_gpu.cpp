#include "sim/dist/rank_gpu.hpp"

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "sim/core/device.hpp"
#include "sim/dist/mpi_comm.hpp"

namespace ss::dist {

DeviceTransport select_rank_gpu(MPI_Comm comm, std::string_view asked) {
  const NodePlace place = node_place(comm);
  const int devices = cuda_device_count();
  if (devices == 0) {
    std::string why;
    cuda_available(&why);
    throw Error("--device gpu: " + (why.empty() ? std::string("no CUDA device") : why));
  }
  use_cuda_device(place.local_rank % devices);
  const bool shared = place.local_ranks > devices;
  if (!asked.empty()) {
    const DeviceTransport t = parse_device_transport(asked);
    if (t == DeviceTransport::nccl && shared)
      throw Error(fmt::format("NCCL needs a GPU per rank: {} ranks share this node's {} GPU{} (--transport staged)",
                              place.local_ranks, devices, devices == 1 ? "" : "s"));
    return t;
  }
  // The copy engines where every rank is on this node and the GPUs reach each other, else
  // NCCL where built and each rank has its GPU, else MPI on pinned buffers: the bench's
  // choice. Every rank finds the same (each counts its node's ranks and asks the same GPUs).
  int ranks = 1;
  check_mpi(MPI_Comm_size(comm, &ranks), "MPI_Comm_size");
  if (place.local_ranks == ranks && cuda_peers_reach(std::min(devices, place.local_ranks)))
    return DeviceTransport::peer;
  return nccl_built() && !shared ? DeviceTransport::nccl : DeviceTransport::staged;
}

}  // namespace ss::dist
