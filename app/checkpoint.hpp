#pragma once
// Checkpoints in HDF5: a running simulation's state (every field it steps, its step count
// and time) together with its scene (the TOML text of scene_file.hpp), written at any step
// and resumed bit for bit on either backend (`export --checkpoint`, `--resume`).
//
// Layout (version 1): root attributes `stencilscope_checkpoint` (1), `model`, `steps`,
// `time`, `scene` (TOML text); datasets /fields/0, /fields/1, ... of float32 with the
// shape (ny, nx) or (nz, ny, nx), x fastest, as numpy and h5py read them.
#include <array>
#include <string>

#include "sim/core/model.hpp"

namespace ss::app {

/// True when this build has HDF5 (checkpoints work); false: they throw saying so.
constexpr bool checkpoints_built() {
#ifdef STENCILSCOPE_HAVE_HDF5
  return true;
#else
  return false;
#endif
}

/// A checkpoint as read back.
struct Checkpoint {
  std::string model;
  std::string scene;  ///< the scene's TOML text (parse_scene reads it)
  double time = 0;
  SimState state;     ///< steps_done and the fields, interiors x fastest
};

/// Writes `state` (of a `dims`-D grid `size`) and `scene` to `path`, replacing it; throws
/// ss::Error naming the path when it cannot.
void write_checkpoint(const std::string& path, const std::string& model, const std::array<int, 3>& size, int dims,
                      const std::string& scene, const SimState& state, double time);

/// Reads a checkpoint; throws ss::Error naming the path and what is missing or wrong.
Checkpoint read_checkpoint(const std::string& path);

}  // namespace ss::app
