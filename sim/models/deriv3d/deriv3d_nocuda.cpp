// Built only without the CUDA backend: the 3D device classes answer that there is
// no device, so every caller takes its CPU path.
#include "sim/core/error.hpp"
#include "sim/models/deriv3d/deriv3d.hpp"

namespace ss {

namespace {
constexpr const char* kNoCuda = "no CUDA device (this build has no CUDA backend)";
}

template <typename T>
struct DeviceDeriv3D<T>::Impl {};
template <typename T>
DeviceDeriv3D<T>::DeviceDeriv3D(const Deriv3DSetup&) {
  throw Error(kNoCuda);
}
template <typename T> DeviceDeriv3D<T>::~DeviceDeriv3D() = default;
template <typename T> DeviceDeriv3D<T>::DeviceDeriv3D(DeviceDeriv3D&&) noexcept = default;
template <typename T> DeviceDeriv3D<T>& DeviceDeriv3D<T>::operator=(DeviceDeriv3D&&) noexcept = default;
// An object can never be constructed, so the remaining members are unreachable.
template <typename T> void DeviceDeriv3D<T>::set_input(const std::vector<T>&) { throw Error(kNoCuda); }
template <typename T> std::vector<T> DeviceDeriv3D<T>::download_input() const { throw Error(kNoCuda); }
template <typename T> std::string DeviceDeriv3D<T>::unsupported(Deriv3DVariant, Axis) const { return kNoCuda; }
template <typename T> void DeviceDeriv3D<T>::run(Deriv3DVariant, Axis) { throw Error(kNoCuda); }
template <typename T> double DeviceDeriv3D<T>::timed(Deriv3DVariant, Axis, int) { throw Error(kNoCuda); }
template <typename T> void DeviceDeriv3D<T>::poison_output() { throw Error(kNoCuda); }
template <typename T> std::vector<T> DeviceDeriv3D<T>::output_interior() const { throw Error(kNoCuda); }
template <typename T> const Deriv3DSetup& DeviceDeriv3D<T>::setup() const { throw Error(kNoCuda); }
template <typename T> const T* DeviceDeriv3D<T>::device_output() const { throw Error(kNoCuda); }
template <typename T> void* DeviceDeriv3D<T>::native_stream() const { throw Error(kNoCuda); }
template <typename T> void DeviceDeriv3D<T>::synchronize() { throw Error(kNoCuda); }
template <typename T> bool DeviceDeriv3D<T>::idle() const { throw Error(kNoCuda); }
template <typename T> void DeviceDeriv3D<T>::copy_output_slice_to_host(SliceAxis, int, T*) { throw Error(kNoCuda); }
template class DeviceDeriv3D<float>;
template class DeviceDeriv3D<double>;

}  // namespace ss
