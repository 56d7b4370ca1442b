// Built only without the CUDA backend: DeviceHeat2D answers that there is no device,
// so every caller takes its CPU path.
#include "sim/core/error.hpp"
#include "sim/models/heat2d/heat2d_solver.hpp"

namespace ss {

namespace {
constexpr const char* kNoCuda = "no CUDA device (this build has no CUDA backend)";
}

template <typename T>
struct DeviceHeat2D<T>::Impl {};

template <typename T>
DeviceHeat2D<T>::DeviceHeat2D(const Heat2DSetup&) {
  throw Error(kNoCuda);
}
template <typename T>
DeviceHeat2D<T>::~DeviceHeat2D() = default;
template <typename T>
DeviceHeat2D<T>::DeviceHeat2D(DeviceHeat2D&&) noexcept = default;
template <typename T>
DeviceHeat2D<T>& DeviceHeat2D<T>::operator=(DeviceHeat2D&&) noexcept = default;
// An object can never be constructed, so the remaining members are unreachable.
template <typename T> void DeviceHeat2D<T>::reset() { throw Error(kNoCuda); }
template <typename T> void DeviceHeat2D<T>::step(Heat2DVariant, int) { throw Error(kNoCuda); }
template <typename T> double DeviceHeat2D<T>::timed_steps(Heat2DVariant, int) { throw Error(kNoCuda); }
template <typename T> void DeviceHeat2D<T>::set_order(int) { throw Error(kNoCuda); }
template <typename T> void DeviceHeat2D<T>::poison_scratch() { throw Error(kNoCuda); }
template <typename T> void DeviceHeat2D<T>::synchronize() { throw Error(kNoCuda); }
template <typename T> std::vector<T> DeviceHeat2D<T>::download() const { throw Error(kNoCuda); }
template <typename T> const T* DeviceHeat2D<T>::device_field() const { throw Error(kNoCuda); }
template <typename T> const Heat2DSetup& DeviceHeat2D<T>::setup() const { throw Error(kNoCuda); }
template <typename T> long DeviceHeat2D<T>::steps_done() const { throw Error(kNoCuda); }

template <typename T> void DeviceHeat2D<T>::copy_interior_to_host(T*) const { throw Error(kNoCuda); }
template <typename T> void* DeviceHeat2D<T>::native_stream() const { throw Error(kNoCuda); }
template <typename T> void DeviceHeat2D<T>::paint(const Brush&) { throw Error(kNoCuda); }
template <typename T> void DeviceHeat2D<T>::load_interior(const T*, long) { throw Error(kNoCuda); }
template <typename T> void DeviceHeat2D<T>::refresh_ghosts() { throw Error(kNoCuda); }
template <typename T> bool DeviceHeat2D<T>::all_finite() { throw Error(kNoCuda); }
template <typename T> void DeviceHeat2D<T>::step_timed_async(Heat2DVariant, int) { throw Error(kNoCuda); }
template <typename T> std::optional<double> DeviceHeat2D<T>::finished_batch_ms() { throw Error(kNoCuda); }
template <typename T> bool DeviceHeat2D<T>::idle() const { throw Error(kNoCuda); }

template class DeviceHeat2D<float>;
template class DeviceHeat2D<double>;

}  // namespace ss
