#include "sim/core/views.hpp"

#include "sim/core/error.hpp"

namespace ss {

SliceAxis slice_axis_of_view(int view) {
  if (view < 0 || view > 2) throw Error("a 3D model has views 0 (XY), 1 (XZ) and 2 (YZ), not " + std::to_string(view));
  return kAllSliceAxes[static_cast<std::size_t>(view)];
}

FieldView field_view2d(const float* field, const Grid2D& g, bool on_device, void* stream) {
  FieldView f;
  f.data = field;
  f.offset = g.index(0, 0);
  f.u_stride = 1;
  f.v_stride = static_cast<std::size_t>(g.pitch);
  f.nu = g.nx;
  f.nv = g.ny;
  f.on_device = on_device;
  f.stream = stream;
  return f;
}

FieldView slice_field_view(const float* volume, const Grid3D& g, int view, const ViewPlacement& where, bool on_device,
                           void* stream) {
  const SliceView sv = slice_view(g, slice_axis_of_view(view), where.slices[static_cast<std::size_t>(view)]);
  FieldView f;
  f.data = volume;
  f.offset = sv.offset;
  f.u_stride = sv.u_stride;
  f.v_stride = sv.v_stride;
  f.nu = sv.nu;
  f.nv = sv.nv;
  f.on_device = on_device;
  f.stream = stream;
  return f;
}

Sphere sphere_on_slice(int view, double u, double v, double radius, double value, const ViewPlacement& where) {
  const auto p = slice_to_volume(slice_axis_of_view(view), where.slices[static_cast<std::size_t>(view)], u, v);
  return Sphere{p[0], p[1], p[2], radius, value};
}

void copy_host_view(const FieldView& f, float* dst) {
  if (f.on_device) throw Error("copy_host_view: the view is in device memory");
  for (int v = 0; v < f.nv; ++v)
    for (int u = 0; u < f.nu; ++u)
      dst[static_cast<std::size_t>(v) * f.nu + u] =
          f.data[f.offset + static_cast<std::size_t>(u) * f.u_stride + static_cast<std::size_t>(v) * f.v_stride];
}

}  // namespace ss
