#pragma once
// The halo exchange of a box that lives on the GPU (one rank per GPU): the faces are
// packed on the device (halo_plan.hpp's regions, one small kernel each), then carried
//   staged - by MPI on pinned host buffers (device -> pinned -> MPI -> pinned -> device);
//   nccl   - by NCCL, grouped ncclSend/ncclRecv on the box's stream, GPU to GPU (only in
//            builds where CMake found NCCL: STENCILSCOPE_WITH_NCCL),
// and unpacked on the device, all ordered on the box's stream.
// Compiled with nvcc in CUDA builds with MPI. NOT YET RUN: no model steps a GPU box yet
// and this machine has no GPU (docs/distributed.md: what is verified and what is not).
#include <memory>
#include <span>

#include "sim/dist/halo_plan.hpp"
#include "sim/dist/mpi_comm.hpp"

namespace ss::dist {

enum class DeviceTransport { staged, nccl };

/// True when this build can carry halos through NCCL.
bool nccl_built();

class DeviceHaloExchange final : public HaloFill {
 public:
  /// `stream`: the cudaStream_t the box steps on (as void*, so this header needs no CUDA).
  /// Collective over `comm` (NCCL: the communicator is created here). Throws ss::Error for
  /// nccl in a build without NCCL.
  DeviceHaloExchange(const CartComm& comm, const BoxPlacement& where, const Grid3D& g, int width, bool edges,
                     std::size_t fields, void* stream, DeviceTransport transport);
  ~DeviceHaloExchange() override;
  DeviceHaloExchange(DeviceHaloExchange&&) noexcept;
  DeviceHaloExchange& operator=(DeviceHaloExchange&&) noexcept;
  DeviceHaloExchange(const DeviceHaloExchange&) = delete;
  DeviceHaloExchange& operator=(const DeviceHaloExchange&) = delete;

  /// Device fields of the box's layout (at most `fields`). staged: returns when the ghosts are unpacked
  /// (queued) and the stream has been waited for the MPI step; nccl: only queues.
  void fill(std::span<float* const> device_fields) override;
  /// Host wall time spent in fill() (staged: the whole exchange; nccl: the enqueueing).
  double seconds() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ss::dist
