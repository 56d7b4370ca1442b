// Built only without the CUDA backend: the elastic 3D device class answers that there is
// no device, so every caller takes its CPU path.
#include "sim/core/error.hpp"
#include "sim/models/elastic3d/elastic3d_solver.hpp"

namespace ss {

namespace {
constexpr const char* kNoCuda = "no CUDA device (this build has no CUDA backend)";
}

template <typename T>
struct DeviceElastic3D<T>::Impl {};
template <typename T>
DeviceElastic3D<T>::DeviceElastic3D(const Elastic3DSetup&) {
  throw Error(kNoCuda);
}
template <typename T> DeviceElastic3D<T>::~DeviceElastic3D() = default;
template <typename T> DeviceElastic3D<T>::DeviceElastic3D(DeviceElastic3D&&) noexcept = default;
template <typename T> DeviceElastic3D<T>& DeviceElastic3D<T>::operator=(DeviceElastic3D&&) noexcept = default;
template <typename T> void DeviceElastic3D<T>::reset() { throw Error(kNoCuda); }
template <typename T> void DeviceElastic3D<T>::step(Elastic3DVariant, int) { throw Error(kNoCuda); }
template <typename T> double DeviceElastic3D<T>::timed_steps(Elastic3DVariant, int) { throw Error(kNoCuda); }
template <typename T> void DeviceElastic3D<T>::step_timed_async(Elastic3DVariant, int) { throw Error(kNoCuda); }
template <typename T> std::optional<double> DeviceElastic3D<T>::finished_batch_ms() { throw Error(kNoCuda); }
template <typename T> bool DeviceElastic3D<T>::idle() const { throw Error(kNoCuda); }
template <typename T> void DeviceElastic3D<T>::synchronize() { throw Error(kNoCuda); }
template <typename T> void DeviceElastic3D<T>::poison_scratch() { throw Error(kNoCuda); }
template <typename T> std::vector<T> DeviceElastic3D<T>::download(int) const { throw Error(kNoCuda); }
template <typename T> ElasticState<T> DeviceElastic3D<T>::state() const { throw Error(kNoCuda); }
template <typename T> void DeviceElastic3D<T>::load(const ElasticState<T>&, long) { throw Error(kNoCuda); }
template <typename T> void DeviceElastic3D<T>::set_order(int) { throw Error(kNoCuda); }
template <typename T> void DeviceElastic3D<T>::paint(const Sphere&) { throw Error(kNoCuda); }
template <typename T> const float* DeviceElastic3D<T>::device_view_volume(int) { throw Error(kNoCuda); }
template <typename T> void* DeviceElastic3D<T>::native_stream() const { throw Error(kNoCuda); }
template <typename T> void DeviceElastic3D<T>::copy_slice_to_host(SliceAxis, int, int, float*) { throw Error(kNoCuda); }
template <typename T> std::vector<T> DeviceElastic3D<T>::traces() const { throw Error(kNoCuda); }
template <typename T> std::vector<T> DeviceElastic3D<T>::cpml_memory() const { throw Error(kNoCuda); }
template <typename T> long DeviceElastic3D<T>::first_trace_step() const { throw Error(kNoCuda); }
template <typename T> void DeviceElastic3D<T>::set_sources(const std::vector<SourceSpec>&) { throw Error(kNoCuda); }
template <typename T> void DeviceElastic3D<T>::set_receivers(const ReceiverLayout&) { throw Error(kNoCuda); }
template <typename T> const Elastic3DSetup& DeviceElastic3D<T>::setup() const { throw Error(kNoCuda); }
template <typename T> long DeviceElastic3D<T>::steps_done() const { throw Error(kNoCuda); }
template class DeviceElastic3D<float>;
template class DeviceElastic3D<double>;

}  // namespace ss
