// Built only without the CUDA backend: the acoustic 3D device class answers that there
// is no device, so every caller takes its CPU path.
#include "sim/core/error.hpp"
#include "sim/models/acoustic3d/acoustic3d_solver.hpp"

namespace ss {

namespace {
constexpr const char* kNoCuda = "no CUDA device (this build has no CUDA backend)";
}

template <typename T>
struct DeviceAcoustic3D<T>::Impl {};
template <typename T>
DeviceAcoustic3D<T>::DeviceAcoustic3D(const Acoustic3DSetup&) {
  throw Error(kNoCuda);
}
template <typename T> DeviceAcoustic3D<T>::~DeviceAcoustic3D() = default;
template <typename T> DeviceAcoustic3D<T>::DeviceAcoustic3D(DeviceAcoustic3D&&) noexcept = default;
template <typename T> DeviceAcoustic3D<T>& DeviceAcoustic3D<T>::operator=(DeviceAcoustic3D&&) noexcept = default;
template <typename T> void DeviceAcoustic3D<T>::reset() { throw Error(kNoCuda); }
template <typename T> void DeviceAcoustic3D<T>::step(Acoustic3DVariant, int) { throw Error(kNoCuda); }
template <typename T> double DeviceAcoustic3D<T>::timed_steps(Acoustic3DVariant, int) { throw Error(kNoCuda); }
template <typename T> void DeviceAcoustic3D<T>::step_timed_async(Acoustic3DVariant, int) { throw Error(kNoCuda); }
template <typename T> std::optional<double> DeviceAcoustic3D<T>::finished_batch_ms() { throw Error(kNoCuda); }
template <typename T> bool DeviceAcoustic3D<T>::idle() const { throw Error(kNoCuda); }
template <typename T> void DeviceAcoustic3D<T>::synchronize() { throw Error(kNoCuda); }
template <typename T> void DeviceAcoustic3D<T>::poison_scratch() { throw Error(kNoCuda); }
template <typename T> void DeviceAcoustic3D<T>::set_stream_shape(Acoustic3DStreamShape) { throw Error(kNoCuda); }
template <typename T> Acoustic3DStreamShape DeviceAcoustic3D<T>::stream_shape() const { throw Error(kNoCuda); }
template <typename T> std::vector<T> DeviceAcoustic3D<T>::download() const { throw Error(kNoCuda); }
template <typename T> void DeviceAcoustic3D<T>::copy_interiors_to_host(T*, T*) const { throw Error(kNoCuda); }
template <typename T> void DeviceAcoustic3D<T>::load_interior(const T*, const T*, long) { throw Error(kNoCuda); }
template <typename T> void DeviceAcoustic3D<T>::set_order(int) { throw Error(kNoCuda); }
template <typename T> void DeviceAcoustic3D<T>::paint(const Sphere&) { throw Error(kNoCuda); }
template <typename T> const T* DeviceAcoustic3D<T>::device_pressure() const { throw Error(kNoCuda); }
template <typename T> const float* DeviceAcoustic3D<T>::device_velocity() const { throw Error(kNoCuda); }
template <typename T> void* DeviceAcoustic3D<T>::native_stream() const { throw Error(kNoCuda); }
template <typename T> void DeviceAcoustic3D<T>::copy_slice_to_host(SliceAxis, int, bool, float*) { throw Error(kNoCuda); }
template <typename T> void DeviceAcoustic3D<T>::set_sources(const std::vector<SourceSpec>&) { throw Error(kNoCuda); }
template <typename T> void DeviceAcoustic3D<T>::set_receivers(const ReceiverLayout&) { throw Error(kNoCuda); }
template <typename T> std::vector<T> DeviceAcoustic3D<T>::traces() const { throw Error(kNoCuda); }
template <typename T> std::vector<T> DeviceAcoustic3D<T>::cpml_memory() const { throw Error(kNoCuda); }
template <typename T> long DeviceAcoustic3D<T>::first_trace_step() const { throw Error(kNoCuda); }
template <typename T> const Acoustic3DSetup& DeviceAcoustic3D<T>::setup() const { throw Error(kNoCuda); }
template <typename T> long DeviceAcoustic3D<T>::steps_done() const { throw Error(kNoCuda); }
template class DeviceAcoustic3D<float>;
template class DeviceAcoustic3D<double>;

}  // namespace ss
