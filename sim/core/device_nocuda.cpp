// Built only without the CUDA backend (STENCILSCOPE_CUDA=OFF or no nvcc): the
// device API answers that there is no device, so every caller takes its CPU path.
#include "sim/core/device.hpp"
#include "sim/core/device_read.hpp"
#include "sim/core/error.hpp"

namespace ss {

namespace {
constexpr const char* kNoCuda = "no CUDA device (this build has no CUDA backend)";
}

std::vector<DeviceInfo> cuda_devices(std::string* why) {
  if (why) *why = kNoCuda;
  return {};
}
bool cuda_available(std::string* why) { return !cuda_devices(why).empty(); }
std::string cuda_device_name() { return {}; }
void check_device_memory(std::size_t, const char*) { throw Error(kNoCuda); }
double measure_copy_gbps(std::size_t, int) { throw Error(kNoCuda); }
void copy_device_to_host(void*, const void*, std::size_t, void*) { throw Error(kNoCuda); }

}  // namespace ss
