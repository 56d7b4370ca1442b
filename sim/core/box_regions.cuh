#pragma once
// Device side of box_regions.hpp: a thread's cell in a CellRegionList (a box's shells,
// stepped in one launch by heat3d's and hydro3d's GPU boxes).
#include "sim/core/box_regions.hpp"

namespace ss {

/// Cell (i, j, k) of flat index e, 0 <= e < list.cells(): region r holds indices
/// [first[r], first[r + 1]), x fastest.
__device__ __forceinline__ void region_cell(const CellRegionList& list, long long e, int& i, int& j, int& k) {
  int r = 0;
  while (e >= list.first[r + 1]) ++r;
  long long c = e - list.first[r];
  i = list.lo[r][0] + static_cast<int>(c % list.n[r][0]);
  c /= list.n[r][0];
  j = list.lo[r][1] + static_cast<int>(c % list.n[r][1]);
  k = list.lo[r][2] + static_cast<int>(c / list.n[r][1]);
}

}  // namespace ss
