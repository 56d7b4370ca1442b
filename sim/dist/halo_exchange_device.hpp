#pragma once
// The halo exchange of a box that lives on the GPU (one rank per GPU): the faces are
// packed on the device (halo_plan.hpp's regions, one small kernel each), then carried
//   staged - by MPI on pinned host buffers (device -> pinned -> MPI -> pinned -> device);
//   nccl   - by NCCL, grouped ncclSend/ncclRecv on the box's stream, GPU to GPU (only in
//            builds where CMake found NCCL: STENCILSCOPE_WITH_NCCL),
// and unpacked on the device, all ordered on the box's stream; or
//   peer   - by the copy engines, GPU to GPU on one node through CUDA IPC: the faces along y
//            and z are copied straight from the field into the neighbour's ghosts (no pack,
//            no kernel, so the copy runs beside a kernel that holds every SM); the x faces
//            (rows of R values) are packed, copied and unpacked. The two ranks of a face hand
//            each other the turn through flags in device memory (stream memory operations:
//            cuStreamWriteValue32 into the neighbour's flag, cuStreamWaitValue32 on one's own).
// Compiled with nvcc in CUDA builds with MPI. heat3d's GPU boxes use it; written on a
// machine without a GPU (docs/distributed.md: what is verified and what is not).
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "sim/dist/halo_plan.hpp"
#include "sim/dist/mpi_comm.hpp"

namespace ss::dist {

enum class DeviceTransport { staged, nccl, peer };

inline const char* to_string(DeviceTransport t) {
  return t == DeviceTransport::nccl ? "nccl" : t == DeviceTransport::peer ? "peer" : "staged";
}
/// "staged", "nccl" or "peer"; throws ss::Error naming the word.
inline DeviceTransport parse_device_transport(std::string_view word) {
  if (word == "staged") return DeviceTransport::staged;
  if (word == "nccl") return DeviceTransport::nccl;
  if (word == "peer") return DeviceTransport::peer;
  throw Error("unknown --transport '" + std::string(word) + "' (choose staged, nccl or peer)");
}

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
  /// (queued) and the stream has been waited for the MPI step; nccl and peer: only queue.
  /// peer: a field pointer seen for the first time is shared with the neighbours (a
  /// collective among them), and the neighbour's field of the same place in the order of
  /// first appearance receives the ghosts: every rank must fill the same sequence of its own
  /// buffers (as every box does: the ranks step in lockstep), and a field once filled must
  /// stay allocated as long as the exchange lives (a box that reallocates its fields makes
  /// a new exchange, as the window's rebuilds and order changes do). The ghosts written into a
  /// neighbour's field may land as soon as everything the neighbour queued on its stream
  /// before its own fill of the same turn has run.
  void fill(std::span<float* const> device_fields) override;
  /// Time the box's stream spent in the fills since the last reset_timer, in seconds: from
  /// an event recorded before each fill's first pack to one after its last unpack (CUDA
  /// events on the stream: the transfer and, staged, the host's MPI step between the
  /// copies; not the compute queued before). Waits for the stream.
  double seconds() const;
  void reset_timer();
  float max_over_ranks(float local) override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ss::dist
