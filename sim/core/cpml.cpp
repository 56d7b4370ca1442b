// The CPML's layers from a model's parameters (see cpml.hpp).
#include "sim/core/cpml.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "sim/core/error.hpp"

namespace ss {

CpmlLayout make_cpml_layout(int width, double reflection, int nx, int ny, int nz, bool free_top) {
  const int smallest = std::min({nx, ny, nz});
  if (width < 0) throw Error(fmt::format("cpml width {} must not be negative", width));
  const int w = width == 0 ? std::min(kDefaultCpmlWidth, smallest / 3) : width;
  if (w < 1 || 3 * w > smallest)
    throw Error(fmt::format("cpml width {} nodes is wider than a third of the smallest side ({} of {}x{}x{})", w,
                            smallest / 3, nx, ny, nz));
  if (!(reflection > 0 && reflection < 1)) throw Error(fmt::format("cpml reflection {} must lie in (0, 1)", reflection));
  CpmlLayout l;
  for (int a = 0; a < 3; ++a) l.lo[a] = l.hi[a] = w;
  if (free_top) l.lo[2] = 0;
  return l;
}

}  // namespace ss
