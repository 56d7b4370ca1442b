#pragma once
// The halo exchange of a distributed run on the CPU backend: after each (sub)step a box
// packs the interior layers next to each face it shares (halo_plan.hpp), MPI carries
// them to the neighbours (non-blocking sends and receives, one message per face, every
// field in it), and the box unpacks what arrives into its ghost layers.
// The GPU transports (pack on the device, then MPI on pinned host buffers or NCCL) are
// in halo_exchange_device.hpp.
#include <span>
#include <vector>

#include "sim/dist/halo_plan.hpp"
#include "sim/dist/mpi_comm.hpp"

namespace ss::dist {

/// Exchanges the halos of one box over a communicator whose ranks are the decomposition's
/// (CartComm). Move-only; the communicator must outlive it.
class HaloExchange final : public HaloFill {
 public:
  /// `fields`: the most fields one fill() carries.
  HaloExchange(const CartComm& comm, const BoxPlacement& where, const Grid3D& g, int width, bool edges,
               std::size_t fields);
  HaloExchange(const HaloExchange&) = delete;
  HaloExchange& operator=(const HaloExchange&) = delete;
  HaloExchange(HaloExchange&&) = default;
  HaloExchange& operator=(HaloExchange&&) = default;
  /// Host fields of the box's layout (at most `fields`; every rank gives as many).
  /// Collective over the communicator.
  void fill(std::span<float* const> fields) override;
  float max_over_ranks(float local) override;

  /// Wall time spent in fill() since the last reset_timer, in seconds, and the calls.
  double seconds() const { return seconds_; }
  long long calls() const { return calls_; }
  void reset_timer() { seconds_ = 0, calls_ = 0; }
  /// Bytes this box sends per fill().
  long long bytes_sent_per_fill() const;
  const std::vector<HaloFace>& faces() const { return faces_; }

 private:
  MPI_Comm comm_;
  Grid3D grid_;
  std::size_t fields_;
  std::vector<HaloFace> faces_;
  int phases_ = 0;
  std::vector<std::vector<float>> send_, recv_;  ///< per face: every field's cells, field after field
  double seconds_ = 0;
  long long calls_ = 0;
};

}  // namespace ss::dist
