#pragma once
// The GPU of one rank of a distributed run, and how its halos travel: for the distributed
// bench (sim/dist/distributed_bench.cpp) and the runs watched from rank 0
// (sim/dist/distributed_simulation.hpp).
#include <mpi.h>

#include <string_view>

#include "sim/dist/halo_exchange_device.hpp"

namespace ss::dist {

/// Makes this rank's GPU current: local rank (among the ranks of `comm` on this node)
/// modulo the node's devices, so that several ranks share one when there are more ranks
/// than GPUs. Returns the transport `asked` names (parse_device_transport; NCCL is refused
/// when ranks share a GPU), or, when it is empty, the bench's default: peer where every rank
/// of `comm` is on this node and its GPUs reach each other, else nccl where the build has it
/// and every rank has its own GPU, else staged. Collective over `comm`. Throws ss::Error (one
/// line) without a CUDA device.
DeviceTransport select_rank_gpu(MPI_Comm comm, std::string_view asked);

}  // namespace ss::dist
