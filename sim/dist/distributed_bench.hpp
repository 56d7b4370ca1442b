#pragma once
// `mpirun -np N stencilscope bench MODEL`: one table, printed by rank 0, for a run of any
// model that describes itself as distributable (Model::distributed): a one-rank run made
// in the same command (the model's CPU variant on rank 0 alone, or its GPU box variant on
// rank 0's GPU) and the N-rank run (each rank its box, halos through MPI on host buffers,
// or between GPUs staged through pinned host memory or by NCCL), with the global size, the decomposition, GCells/s in
// total and per rank, the halo-exchange time per step, the scaling efficiency and, for
// strong scaling, whether the gathered field is bitwise equal to the one-rank run's.
#include <array>
#include <optional>
#include <string>

#include "sim/core/model.hpp"

namespace ss::dist {

enum class Scaling { strong, weak };
/// "strong" or "weak"; throws ss::Error naming the word.
Scaling parse_scaling(std::string_view word);

struct DistributedBenchRequest {
  /// config.size: the global grid (strong) or each rank's box (weak: the global grid is
  /// the box times the ranks per axis); steps, repeats, the parameters given.
  BenchRequest bench;
  std::optional<std::array<int, 3>> decomp;  ///< --decomp AxBxC; empty: chosen (choose_dims)
  Scaling scaling = Scaling::strong;
  /// gpu: every rank steps its box on a GPU (local rank modulo the node's devices) with the
  /// model's DistributedSpec::gpu_variant, and the one-rank run is that variant on rank 0's GPU.
  Backend backend = Backend::cpu;
  /// GPU halos: "staged" or "nccl"; empty: nccl where built and every rank of a node has a
  /// GPU of its own, else staged.
  std::string transport;
};

/// The checks every rank makes on the request (a model that does not distribute, a
/// decomposition that does not fit: more ranks than cells along an axis, a box thinner
/// than the stencil radius, a --decomp that is not the rank count). Throws ss::Error.
void check_distributed_request(const Model& model, const DistributedBenchRequest& request, int ranks);

/// Runs the table over MPI_COMM_WORLD. Rank 0 gets the report, the others an empty one.
/// Errors every rank agrees on are CollectiveError; anything else is one rank's failure.
BenchReport run_distributed_bench(const Model& model, const DistributedBenchRequest& request);

}  // namespace ss::dist
