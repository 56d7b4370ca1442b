// Built only without the CUDA backend: DeviceHaloExchange cannot be made, so a distributed
// run on the GPU stops with one line (a model's GPU box has already said the same).
#include "sim/dist/halo_exchange_device.hpp"

namespace ss::dist {

bool nccl_built() { return false; }

struct DeviceHaloExchange::Impl {};

DeviceHaloExchange::DeviceHaloExchange(const CartComm&, const BoxPlacement&, const Grid3D&, int, bool, std::size_t,
                                       void*, DeviceTransport) {
  throw Error("no CUDA device (this build has no CUDA backend)");
}
DeviceHaloExchange::~DeviceHaloExchange() = default;
DeviceHaloExchange::DeviceHaloExchange(DeviceHaloExchange&&) noexcept = default;
DeviceHaloExchange& DeviceHaloExchange::operator=(DeviceHaloExchange&&) noexcept = default;
void DeviceHaloExchange::fill(std::span<float* const>) {}
double DeviceHaloExchange::seconds() const { return 0; }
void DeviceHaloExchange::reset_timer() {}
float DeviceHaloExchange::max_over_ranks(float local) { return local; }

}  // namespace ss::dist
