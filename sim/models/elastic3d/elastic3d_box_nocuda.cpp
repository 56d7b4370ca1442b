// Built only without the CUDA backend: elastic3d's GPU boxes answer that there is no device.
#include "sim/core/error.hpp"
#include "sim/models/elastic3d/elastic3d_box.hpp"

namespace ss {

std::unique_ptr<BoxSimulation> make_elastic3d_device_box(const Elastic3DSetup&, const BoxPlacement&,
                                                         Elastic3DVariant) {
  throw Error("no CUDA device (this build has no CUDA backend)");
}

}  // namespace ss
