// Built only without the CUDA backend: the device class answers that there is no
// device, so every caller takes its CPU path.
#include "sim/core/error.hpp"
#include "sim/models/hydro3d/hydro3d_solver.hpp"

namespace ss {

namespace {
constexpr const char* kNoCuda = "no CUDA device (this build has no CUDA backend)";
}

template <typename T>
struct DeviceHydro3D<T>::Impl {};
template <typename T>
DeviceHydro3D<T>::DeviceHydro3D(const Hydro3DSetup&, HydroVariant) {
  throw Error(kNoCuda);
}
template <typename T> DeviceHydro3D<T>::~DeviceHydro3D() = default;
template <typename T> void DeviceHydro3D<T>::reset() { throw Error(kNoCuda); }
template <typename T> void DeviceHydro3D<T>::step(int) { throw Error(kNoCuda); }
template <typename T> void DeviceHydro3D<T>::set_variant(HydroVariant) { throw Error(kNoCuda); }
template <typename T> HydroVariant DeviceHydro3D<T>::variant() const { throw Error(kNoCuda); }
template <typename T> HydroState<T> DeviceHydro3D<T>::state() { throw Error(kNoCuda); }
template <typename T> void DeviceHydro3D<T>::load_state(const HydroState<T>&, long, const std::optional<HydroClock>&) { throw Error(kNoCuda); }
template <typename T> HydroClock DeviceHydro3D<T>::clock() { throw Error(kNoCuda); }
template <typename T> std::pair<HydroClock, long> DeviceHydro3D<T>::clock_read_back() const { throw Error(kNoCuda); }
template <typename T> bool DeviceHydro3D<T>::recomputes_next() const { throw Error(kNoCuda); }
template <typename T> void DeviceHydro3D<T>::kick(const HydroKick&) { throw Error(kNoCuda); }
template <typename T> void DeviceHydro3D<T>::poison_scratch() { throw Error(kNoCuda); }
template <typename T> HydroSpeed DeviceHydro3D<T>::max_speed() { throw Error(kNoCuda); }
template <typename T> std::vector<double> DeviceHydro3D<T>::energy_spectrum() { throw Error(kNoCuda); }
template <typename T> const float* DeviceHydro3D<T>::slice_on_device(int, int, int) { throw Error(kNoCuda); }
template <typename T> void DeviceHydro3D<T>::copy_slice(int, int, int, float*) { throw Error(kNoCuda); }
template <typename T> void DeviceHydro3D<T>::record_start() { throw Error(kNoCuda); }
template <typename T> void DeviceHydro3D<T>::record_stop() { throw Error(kNoCuda); }
template <typename T> std::optional<double> DeviceHydro3D<T>::batch_ms() { throw Error(kNoCuda); }
template <typename T> bool DeviceHydro3D<T>::idle() const { throw Error(kNoCuda); }
template <typename T> void DeviceHydro3D<T>::synchronize() { throw Error(kNoCuda); }
template <typename T> void* DeviceHydro3D<T>::native_stream() const { throw Error(kNoCuda); }
template <typename T> const Hydro3DSetup& DeviceHydro3D<T>::setup() const { throw Error(kNoCuda); }
template <typename T> long DeviceHydro3D<T>::steps_done() const { throw Error(kNoCuda); }
template class DeviceHydro3D<float>;
template class DeviceHydro3D<double>;

}  // namespace ss
