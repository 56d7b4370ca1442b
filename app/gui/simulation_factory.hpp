#pragma once
// How the app makes the simulation it shows. By default the model's own (Model::create):
// one field on this process. Under `mpirun -np N` (N > 1) main gives rank 0 one that splits
// the field over the ranks (sim/dist/distributed_simulation.hpp); app/gui never links MPI.
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "sim/core/model.hpp"

namespace ss::app {

struct SimulationFactory {
  using Check = std::function<void(const Model&, const ModelConfig&, Backend, std::string_view variant,
                                   std::string_view transport)>;
  using Create = std::function<std::unique_ptr<Simulation>(const Model&, const ModelConfig&, Backend,
                                                           std::string_view variant, std::string_view transport)>;
  using Variant = std::function<std::string(const Model&, const ModelConfig&, Backend)>;
  /// Throws ss::Error (one line) when `create` would refuse this configuration; asked
  /// before the running simulation is dropped, so that a refusal keeps it.
  Check check;
  Create create;
  /// The variant a run of a model steps on `backend` when none was chosen (under mpirun on
  /// the GPU: the one its GPU boxes step); empty: the model's fastest on that backend.
  Variant default_variant;
  /// What the panels say about the run ("3 MPI ranks: the window is rank 0's; ...").
  std::string note;
  /// How halos between GPUs travel under mpirun (--transport; empty: the default), handed to
  /// `check` and `create`.
  std::string transport;

  /// True when it replaces Model::create.
  explicit operator bool() const { return static_cast<bool>(create); }
};

}  // namespace ss::app
