// Built only without the CUDA backend: hydro3d's GPU boxes answer that there is no device.
#include "sim/core/error.hpp"
#include "sim/models/hydro3d/hydro3d_solver.hpp"

namespace ss {

std::unique_ptr<BoxSimulation> make_hydro3d_device_box(const Hydro3DSetup&, const BoxPlacement&, HydroVariant) {
  throw Error("no CUDA device (this build has no CUDA backend)");
}

}  // namespace ss
