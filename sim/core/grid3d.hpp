#pragma once
// The padded 3D layout every 3D model shares: x contiguous, then y, then z. Each
// side carries kGhost = 4 ghost cells (enough for order 8). Interior column 0 and
// every row start sit on a 32-element boundary, as in Grid2D, so a warp's loads of
// a row are coalesced and 16-byte vector loads of aligned packs are legal. Rows
// keep 2 kGhost elements of slack past the x ghosts: a thread that owns the last
// 16-byte pack of a row may read its window one pack beyond the ghosts without
// leaving the row.
#include <cstddef>

#include "sim/core/grid2d.hpp"
#include "sim/core/hostdevice.hpp"

namespace ss {

struct Grid3D {
  int nx = 0;     ///< interior points along x
  int ny = 0;     ///< interior points along y
  int nz = 0;     ///< interior points along z
  int x0 = 0;     ///< element offset of interior column 0 within a row
  int pitch = 0;  ///< elements per row (a multiple of kRowAlign)

  /// Layout for an nx-by-ny-by-nz interior; throws ss::Error for sides below kMinSide
  /// or a volume whose element count does not fit the index types.
  static Grid3D make(int nx, int ny, int nz);
  /// The same layout for one rank's box of a distributed grid (decomposition.hpp): sides
  /// of at least one cell, since a box may be thinner than kMinSide (its ghost images
  /// come from its neighbours, not from its own interior).
  static Grid3D make_box(int nx, int ny, int nz);

  /// Rows in one z plane: interior plus ghost rows.
  SS_HD std::size_t rows_per_plane() const { return static_cast<std::size_t>(ny) + 2 * kGhost; }
  /// Elements from one z plane to the next.
  SS_HD std::size_t plane() const { return rows_per_plane() * static_cast<std::size_t>(pitch); }
  /// Planes stored: interior plus ghost planes.
  SS_HD std::size_t planes() const { return static_cast<std::size_t>(nz) + 2 * kGhost; }
  /// Elements in one field buffer.
  SS_HD std::size_t elements() const { return planes() * plane(); }
  /// Interior points.
  SS_HD std::size_t points() const {
    return static_cast<std::size_t>(nx) * static_cast<std::size_t>(ny) * static_cast<std::size_t>(nz);
  }
  /// Offset of point (i, j, k); each index may reach kGhost cells beyond its interior range.
  SS_HD std::size_t index(int i, int j, int k) const {
    return static_cast<std::size_t>(k + kGhost) * plane() + static_cast<std::size_t>(j + kGhost) * pitch +
           static_cast<std::size_t>(x0 + i);
  }
};

}  // namespace ss
