#include "sim/dist/halo_plan.hpp"

#include <algorithm>
#include <cstring>

namespace ss::dist {

std::vector<HaloFace> plan_halo(const BoxPlacement& where, int width, bool edges) {
  std::vector<HaloFace> faces;
  const std::array<int, 3> n = where.box.n;
  for (int axis = 0; axis < 3; ++axis)
    for (int end = 0; end < 2; ++end) {
      if (where.domain_face[axis][end]) continue;
      HaloFace f;
      f.axis = axis;
      f.dir = end == 0 ? -1 : 1;
      // Not a domain face: there is a neighbour, across the domain's face when periodic.
      f.peer = where.decomposition.neighbour(where.rank, axis, f.dir, /*periodic=*/true);
      f.send_tag = 2 * axis + (f.dir > 0 ? 1 : 0);
      f.recv_tag = 2 * axis + (f.dir > 0 ? 0 : 1);
      f.phase = edges ? axis : 0;
      for (int b = 0; b < 3; ++b) {
        const bool extended = edges && b < axis;  // earlier axes' ghosts ride along
        f.send.lo[b] = f.recv.lo[b] = extended ? -width : 0;
        f.send.n[b] = f.recv.n[b] = extended ? n[b] + 2 * width : n[b];
      }
      f.send.n[axis] = f.recv.n[axis] = width;
      f.send.lo[axis] = end == 0 ? 0 : n[axis] - width;
      f.recv.lo[axis] = end == 0 ? -width : n[axis];
      faces.push_back(f);
    }
  return faces;
}

int halo_phases(const std::vector<HaloFace>& faces) {
  int phases = 0;
  for (const HaloFace& f : faces) phases = std::max(phases, f.phase + 1);
  return phases;
}

void pack_region_host(const float* f, const Grid3D& g, const HaloRegion& r, float* out) {
  for (int k = 0; k < r.n[2]; ++k)
    for (int j = 0; j < r.n[1]; ++j) {
      const std::size_t row = (static_cast<std::size_t>(k) * r.n[1] + j) * r.n[0];
      std::memcpy(out + row, f + g.index(r.lo[0], r.lo[1] + j, r.lo[2] + k), sizeof(float) * r.n[0]);
    }
}

void unpack_region_host(float* f, const Grid3D& g, const HaloRegion& r, const float* in) {
  for (int k = 0; k < r.n[2]; ++k)
    for (int j = 0; j < r.n[1]; ++j) {
      const std::size_t row = (static_cast<std::size_t>(k) * r.n[1] + j) * r.n[0];
      std::memcpy(f + g.index(r.lo[0], r.lo[1] + j, r.lo[2] + k), in + row, sizeof(float) * r.n[0]);
    }
}

}  // namespace ss::dist
