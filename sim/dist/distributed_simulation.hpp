#pragma once
// A run over several MPI ranks, watched from rank 0: the window and `record` under
// `mpirun -np N`. Rank 0 holds a Simulation (create_distributed_simulation) whose every
// call that touches the field is broadcast as a small command; the other ranks never open
// a window: they run serve_distributed_simulation(), a loop that receives the commands and
// runs them on their box. Every rank, rank 0 included, steps one box of the grid
// (BoxSimulation and the host HaloExchange; on the GPU backend a GPU box on the rank's own
// GPU and a DeviceHaloExchange on its stream), so the field is the one-rank run's bit for
// bit. Only what rank 0 shows travels to it: the slices of the views (gather_slice), each
// rank's step and exchange time with each batch, min/max/mean for the plots, the rows of
// the receivers' traces rank 0 does not have yet when it asks for the seismogram (each box
// records the receivers it holds at every step, with no collective); the whole state only
// when asked for (a checkpoint, A/B).
//
// Errors: a refusal every rank meets (a model or variant that does not split, a box
// thinner than the stencil radius, a quantity or a paint the boxes cannot give) is agreed
// on (agree()) and thrown on rank 0 as a CollectiveError; the run stays usable and the other
// ranks go on serving. Any other failure, on any rank, prints one line with its rank and
// ends the job (MPI_Abort): no rank waits forever. When rank 0 leaves (the window closed,
// the recording done, or an error), its DistributedService tells the others to leave with
// the same exit status.
#include <mpi.h>

#include <memory>
#include <string_view>

#include "sim/core/model.hpp"

namespace ss::dist {

/// Rank 0's end of the command channel: a duplicate of MPI_COMM_WORLD, made together with
/// the other ranks' serve_distributed_simulation(). Its destructor tells them to leave,
/// with status 1 when finish() was not called (rank 0 is leaving through an error).
/// Neither copied nor moved: the simulations hold its communicator.
class DistributedService {
 public:
  /// Collective over MPI_COMM_WORLD with serve_distributed_simulation() on the other ranks.
  DistributedService();
  ~DistributedService();
  DistributedService(const DistributedService&) = delete;
  DistributedService& operator=(const DistributedService&) = delete;
  /// Tells the other ranks to leave with exit status `status` (the first call counts).
  void finish(int status);
  /// The communicator commands travel on.
  MPI_Comm comm() const { return comm_; }
  int ranks() const { return ranks_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  int ranks_ = 1;
  bool finished_ = false;
};

/// What create_distributed_simulation would refuse, checked on rank 0 alone (no MPI
/// traffic), so that the app can keep its running simulation: a 2D model, a model or
/// variant that does not split, boxes that give no views (DistributedSpec::boxes_show; on
/// the GPU backend gpu_boxes_show), a GPU run without GPU boxes or without a CUDA device on
/// rank 0, a `transport` that is not a GPU one of this build, a decomposition over `ranks`
/// that does not fit. Throws ss::Error with one line.
void check_distributed_simulation(const Model& model, const ModelConfig& config, Backend backend,
                                  std::string_view variant, int ranks, std::string_view transport = {});

/// The variant a run of `config` over several ranks steps when none was chosen: the model's
/// CPU variant, or on the GPU backend the one its GPU boxes step (DistributedSpec::
/// gpu_variant; the model's fastest GPU variant where it has no GPU boxes, which
/// check_distributed_simulation then refuses).
std::string distributed_variant(const Model& model, const ModelConfig& config, Backend backend);

/// Rank 0: a Simulation of `config` (validated) whose field is split over every rank of
/// the service, each stepping its box with `variant`: the model's fastest CPU variant on the
/// CPU backend; on the GPU backend a GPU variant its GPU boxes step (distributed_variant),
/// each rank on its own GPU (select_rank_gpu: local rank modulo the node's GPUs) with halos
/// through `transport` (parse_device_transport's words; empty: select_rank_gpu's default,
/// the bench's). At most one lives at a time. Throws CollectiveError
/// on a refusal every rank met (a rank without a CUDA device among them).
std::unique_ptr<Simulation> create_distributed_simulation(DistributedService& service, const Model& model,
                                                          const ModelConfig& config, Backend backend,
                                                          std::string_view variant, std::string_view transport = {});

/// The ranks other than 0: runs rank 0's commands on this rank's box until rank 0 says the
/// run is over, and returns the exit status it gave. Failures other than agreed refusals
/// propagate (main ends the job with MPI_Abort).
int serve_distributed_simulation();

}  // namespace ss::dist
