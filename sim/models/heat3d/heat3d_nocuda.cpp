// Built only without the CUDA backend: the 3D device classes answer that there is
// no device, so every caller takes its CPU path.
#include "sim/core/error.hpp"
#include "sim/models/heat3d/heat3d_solver.hpp"

namespace ss {

namespace {
constexpr const char* kNoCuda = "no CUDA device (this build has no CUDA backend)";
}

template <typename T>
struct DeviceHeat3D<T>::Impl {};
template <typename T>
DeviceHeat3D<T>::DeviceHeat3D(const Heat3DSetup&) {
  throw Error(kNoCuda);
}
template <typename T> DeviceHeat3D<T>::~DeviceHeat3D() = default;
template <typename T> DeviceHeat3D<T>::DeviceHeat3D(DeviceHeat3D&&) noexcept = default;
template <typename T> DeviceHeat3D<T>& DeviceHeat3D<T>::operator=(DeviceHeat3D&&) noexcept = default;
template <typename T> void DeviceHeat3D<T>::reset() { throw Error(kNoCuda); }
template <typename T> void DeviceHeat3D<T>::step(Heat3DVariant, int) { throw Error(kNoCuda); }
template <typename T> double DeviceHeat3D<T>::timed_steps(Heat3DVariant, int) { throw Error(kNoCuda); }
template <typename T> void DeviceHeat3D<T>::poison_scratch() { throw Error(kNoCuda); }
template <typename T> void DeviceHeat3D<T>::synchronize() { throw Error(kNoCuda); }
template <typename T> std::vector<T> DeviceHeat3D<T>::download() const { throw Error(kNoCuda); }
template <typename T> const Heat3DSetup& DeviceHeat3D<T>::setup() const { throw Error(kNoCuda); }
template <typename T> long DeviceHeat3D<T>::steps_done() const { throw Error(kNoCuda); }
template <typename T> void DeviceHeat3D<T>::set_order(int) { throw Error(kNoCuda); }
template <typename T> const T* DeviceHeat3D<T>::device_field() const { throw Error(kNoCuda); }
template <typename T> void* DeviceHeat3D<T>::native_stream() const { throw Error(kNoCuda); }
template <typename T> void DeviceHeat3D<T>::paint(const Sphere&) { throw Error(kNoCuda); }
template <typename T> void DeviceHeat3D<T>::copy_slice_to_host(SliceAxis, int, T*) { throw Error(kNoCuda); }
template <typename T> void DeviceHeat3D<T>::copy_interior_to_host(T*) const { throw Error(kNoCuda); }
template <typename T> void DeviceHeat3D<T>::load_interior(const T*, long) { throw Error(kNoCuda); }
template <typename T> void DeviceHeat3D<T>::refresh_ghosts() { throw Error(kNoCuda); }
template <typename T> void DeviceHeat3D<T>::step_timed_async(Heat3DVariant, int) { throw Error(kNoCuda); }
template <typename T> std::optional<double> DeviceHeat3D<T>::finished_batch_ms() { throw Error(kNoCuda); }
template <typename T> bool DeviceHeat3D<T>::idle() const { throw Error(kNoCuda); }
std::unique_ptr<BoxSimulation> make_heat3d_device_box(const Heat3DSetup&, const BoxPlacement&, Heat3DVariant) {
  throw Error(kNoCuda);
}
template class DeviceHeat3D<float>;
template class DeviceHeat3D<double>;

}  // namespace ss
