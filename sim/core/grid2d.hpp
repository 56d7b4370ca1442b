#pragma once
// The padded 2D layout every backend shares. x is contiguous; each row carries a
// ghost frame of kGhost = 4 cells (enough for order 8, so the order can change
// on a live field) and is padded so that interior column 0 and every row start
// sit on a 32-element boundary: a warp's loads of a row are coalesced and aligned.
#include <cstddef>
#include <cstdint>

#include "sim/core/hostdevice.hpp"
#include "sim/core/stencil.hpp"

namespace ss {

inline constexpr int kGhost = kMaxRadius;
inline constexpr int kRowAlign = 32;     ///< elements
inline constexpr int kMinSide = 8;       ///< smallest grid side (>= kGhost, so ghost images come from the interior)

struct Grid2D {
  int nx = 0;     ///< interior points along x (updated by the stencil)
  int ny = 0;     ///< interior points along y
  int x0 = 0;     ///< element offset of interior column 0 within a row
  int pitch = 0;  ///< elements per row

  /// Layout for an nx-by-ny interior; throws ss::Error for sides below kMinSide.
  static Grid2D make(int nx, int ny);

  /// Rows stored: interior plus the ghost rows above and below.
  SS_HD std::size_t rows() const { return static_cast<std::size_t>(ny) + 2 * kGhost; }
  /// Elements in one field buffer.
  SS_HD std::size_t elements() const { return rows() * static_cast<std::size_t>(pitch); }
  /// Interior points.
  SS_HD std::size_t points() const { return static_cast<std::size_t>(nx) * static_cast<std::size_t>(ny); }
  /// Offset of point (i, j); i in [-kGhost, nx + kGhost), j in [-kGhost, ny + kGhost).
  SS_HD std::size_t index(int i, int j) const {
    return static_cast<std::size_t>(j + kGhost) * static_cast<std::size_t>(pitch) + static_cast<std::size_t>(x0 + i);
  }
};

}  // namespace ss
