#pragma once
// Views of fields for the model interface: where a 2D field's cells or a 3D field's
// axis-aligned slices lie (FieldView), the sphere a paint on a slice means, and the
// host copy of a view. Every model's Simulation builds its views with these.
#include "sim/core/grid2d.hpp"
#include "sim/core/grid3d.hpp"
#include "sim/core/model.hpp"
#include "sim/core/slice3d.hpp"

namespace ss {

/// The slice axis of 3D view `view` (0 XY, 1 XZ, 2 YZ); throws ss::Error outside 0..2.
SliceAxis slice_axis_of_view(int view);
/// The interior of a padded 2D field (host or device memory) as a view.
FieldView field_view2d(const float* field, const Grid2D& g, bool on_device = false, void* stream = nullptr);
/// The slice of a padded 3D volume that view `view` shows at `where` (positions are
/// checked against the grid).
FieldView slice_field_view(const float* volume, const Grid3D& g, int view, const ViewPlacement& where,
                           bool on_device = false, void* stream = nullptr);
/// The sphere a paint at (u, v) of slice view `view` means: centred in the slice's cell layer.
Sphere sphere_on_slice(int view, double u, double v, double radius, double value, const ViewPlacement& where);
/// Gathers a host-memory view into dst (nu * nv values, u fastest).
void copy_host_view(const FieldView& view, float* dst);

}  // namespace ss
