// Built only without the CUDA backend: acoustic3d's GPU boxes answer that there is no device.
#include "sim/core/error.hpp"
#include "sim/models/acoustic3d/acoustic3d_box.hpp"

namespace ss {

std::unique_ptr<BoxSimulation> make_acoustic3d_device_box(const Acoustic3DSetup&, const BoxPlacement&,
                                                          Acoustic3DVariant) {
  throw Error("no CUDA device (this build has no CUDA backend)");
}

}  // namespace ss
