#pragma once
// How a global 3D grid is split over N ranks (one per GPU): a Cartesian grid of
// dims[0] x dims[1] x dims[2] boxes, x fastest in the rank order (as MPI_Cart_create
// numbers them with reordering off). Along each axis the boxes differ by at most one cell:
// the first (n % p) boxes get one more. Each rank owns its box plus ghost zones of the
// model's radius; the faces between ranks are filled by the halo exchange, the domain's
// own faces by the model's boundary step. Pure arithmetic: no MPI here.
#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace ss {

/// A rank's box in the global grid: its first cell and its extent per axis.
struct Box {
  std::array<int, 3> lo{};
  std::array<int, 3> n{};
  /// Cells in the box.
  long long cells() const { return static_cast<long long>(n[0]) * n[1] * n[2]; }
};

struct Decomposition {
  std::array<int, 3> global{};  ///< the whole grid, nx ny nz
  std::array<int, 3> dims{};    ///< ranks per axis
  int ranks = 1;

  /// The rank at Cartesian coordinates c (x fastest).
  int rank_of(const std::array<int, 3>& c) const { return c[0] + dims[0] * (c[1] + dims[1] * c[2]); }
  /// The Cartesian coordinates of `rank`.
  std::array<int, 3> coords_of(int rank) const {
    return {rank % dims[0], rank / dims[0] % dims[1], rank / (dims[0] * dims[1])};
  }
  /// The box of `rank`.
  Box box_of(int rank) const;
  /// The rank next to `rank` along `axis` in direction `dir` (-1 or +1): across the
  /// domain's face it wraps when `periodic`, else there is none (-1).
  int neighbour(int rank, int axis, int dir, bool periodic) const;
  /// "2x1x2".
  std::string text() const;
};

/// Reads a --decomp such as "2x1x2"; throws ss::Error naming the text.
std::array<int, 3> parse_decomp(std::string_view text);

/// The ranks per axis for `ranks` boxes of `global` that exchange the fewest halo cells
/// (the sum of the cut planes' areas), each axis split into no more boxes than it has
/// cells; ties go to splitting z first, then y (whole planes stay contiguous). Throws
/// ss::Error when no split fits (more ranks than cells).
std::array<int, 3> choose_dims(int ranks, const std::array<int, 3>& global);

/// The decomposition of `global` over `ranks`, with `forced` ranks per axis when the
/// person gave --decomp, checked: the product must be `ranks`, no axis may have more
/// boxes than cells, and every box must be at least `radius` cells thick along an axis
/// that is split (its ghost zone is filled from one neighbour only). Throws ss::Error with
/// one line naming the problem.
Decomposition make_decomposition(const std::array<int, 3>& global, int ranks,
                                 const std::optional<std::array<int, 3>>& forced, int radius);

}  // namespace ss
