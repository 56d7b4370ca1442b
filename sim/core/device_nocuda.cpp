// Built only without the CUDA backend (STENCILSCOPE_CUDA=OFF or no nvcc): the
// device API answers that there is no device, so every caller takes its CPU path.
#include "sim/core/device.hpp"
#include "sim/core/device_read.hpp"
#include "sim/core/error.hpp"
#include "sim/core/staging.hpp"

namespace ss {

namespace {
constexpr const char* kNoCuda = "no CUDA device (this build has no CUDA backend)";
}

std::vector<DeviceInfo> cuda_devices(std::string* why) {
  if (why) *why = kNoCuda;
  return {};
}
bool cuda_available(std::string* why) { return !cuda_devices(why).empty(); }
int cuda_device_count() { return 0; }
bool cuda_peers_reach(int) { return false; }
void use_cuda_device(int) { throw Error(kNoCuda); }
std::string cuda_device_name() { return {}; }
double cuda_peak_gbps_per_sm() { return 0; }
void check_device_memory(std::size_t, const char*) { throw Error(kNoCuda); }
double measure_copy_gbps(std::size_t, int) { throw Error(kNoCuda); }
void copy_device_to_host(void*, const void*, std::size_t, void*) { throw Error(kNoCuda); }

// staging.hpp: nothing can be created, so nothing else is reached.
GpuStream::GpuStream() { throw Error(kNoCuda); }
GpuStream::~GpuStream() = default;
GpuStream::GpuStream(GpuStream&&) noexcept = default;
GpuStream& GpuStream::operator=(GpuStream&&) noexcept = default;
void GpuStream::synchronize() const { throw Error(kNoCuda); }
GpuEvent::GpuEvent() { throw Error(kNoCuda); }
GpuEvent::~GpuEvent() = default;
GpuEvent::GpuEvent(GpuEvent&&) noexcept = default;
GpuEvent& GpuEvent::operator=(GpuEvent&&) noexcept = default;
void GpuEvent::record(void*) { throw Error(kNoCuda); }
bool GpuEvent::done() const { return true; }
void GpuEvent::synchronize() const {}
void GpuEvent::order_before(void*) const { throw Error(kNoCuda); }
double elapsed_ms(const GpuEvent&, const GpuEvent&) { throw Error(kNoCuda); }
DeviceFloats::~DeviceFloats() = default;
DeviceFloats::DeviceFloats(DeviceFloats&&) noexcept = default;
DeviceFloats& DeviceFloats::operator=(DeviceFloats&&) noexcept = default;
void DeviceFloats::reserve(std::size_t) { throw Error(kNoCuda); }
PinnedFloats::~PinnedFloats() = default;
PinnedFloats::PinnedFloats(PinnedFloats&&) noexcept = default;
PinnedFloats& PinnedFloats::operator=(PinnedFloats&&) noexcept = default;
void PinnedFloats::reserve(std::size_t) { throw Error(kNoCuda); }
void gather_view_async(const FieldView&, float*, void*) { throw Error(kNoCuda); }
void copy_to_host_async(float*, const float*, std::size_t, void*) { throw Error(kNoCuda); }

}  // namespace ss
