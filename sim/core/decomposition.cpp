#include "sim/core/decomposition.hpp"

#include <algorithm>
#include <limits>
#include <regex>

#include <fmt/format.h>

#include "sim/core/box_simulation.hpp"
#include "sim/core/error.hpp"

namespace ss {

namespace {
constexpr const char* kAxis[] = {"x", "y", "z"};
}

Box Decomposition::box_of(int rank) const {
  if (rank < 0 || rank >= ranks) throw Error(fmt::format("rank {} is outside 0..{}", rank, ranks - 1));
  const auto c = coords_of(rank);
  Box b;
  for (int a = 0; a < 3; ++a) {
    const int base = global[a] / dims[a], extra = global[a] % dims[a];
    b.n[a] = base + (c[a] < extra ? 1 : 0);
    b.lo[a] = c[a] * base + std::min(c[a], extra);
  }
  return b;
}

int Decomposition::neighbour(int rank, int axis, int dir, bool periodic) const {
  auto c = coords_of(rank);
  c[axis] += dir;
  if (c[axis] < 0 || c[axis] >= dims[axis]) {
    if (!periodic) return -1;
    c[axis] = (c[axis] + dims[axis]) % dims[axis];
  }
  return rank_of(c);
}

std::string Decomposition::text() const { return fmt::format("{}x{}x{}", dims[0], dims[1], dims[2]); }

std::array<int, 3> parse_decomp(std::string_view text) {
  static const std::regex pattern(R"(^\s*(\d{1,6})\s*[xX]\s*(\d{1,6})\s*[xX]\s*(\d{1,6})\s*$)");
  const std::string s(text);
  std::smatch m;
  if (!std::regex_match(s, m, pattern))
    throw Error("malformed --decomp '" + s + "' (expected AxBxC ranks along x, y and z, such as 1x2x2)");
  const std::array<int, 3> d{std::stoi(m[1]), std::stoi(m[2]), std::stoi(m[3])};
  for (int a = 0; a < 3; ++a)
    if (d[a] < 1) throw Error("malformed --decomp '" + s + "': every axis needs at least one rank");
  return d;
}

std::array<int, 3> choose_dims(int ranks, const std::array<int, 3>& global) {
  if (ranks < 1) throw Error(fmt::format("a run needs at least one rank (got {})", ranks));
  std::array<int, 3> best{0, 0, 0};
  double best_cut = std::numeric_limits<double>::infinity();
  for (int pz = ranks; pz >= 1; --pz) {  // z first, then y: ties keep whole planes contiguous
    if (ranks % pz) continue;
    for (int py = ranks / pz; py >= 1; --py) {
      if ((ranks / pz) % py) continue;
      const int px = ranks / pz / py;
      if (px > global[0] || py > global[1] || pz > global[2]) continue;
      const double nx = global[0], ny = global[1], nz = global[2];
      const double cut = (px - 1) * ny * nz + (py - 1) * nx * nz + (pz - 1) * nx * ny;
      if (cut < best_cut) {
        best_cut = cut;
        best = {px, py, pz};
      }
    }
  }
  if (best[0] == 0)
    throw Error(fmt::format("{} ranks cannot split a {}x{}x{} grid into boxes: no factors of {} fit its axes (more ranks "
                            "than cells along an axis; give another rank count)",
                            ranks, global[0], global[1], global[2], ranks));
  return best;
}

Decomposition make_decomposition(const std::array<int, 3>& global, int ranks,
                                 const std::optional<std::array<int, 3>>& forced, int radius) {
  Decomposition d;
  d.global = global;
  d.ranks = ranks;
  if (forced) {
    const long long product = static_cast<long long>((*forced)[0]) * (*forced)[1] * (*forced)[2];
    if (product != ranks)
      throw Error(fmt::format("--decomp {}x{}x{} is {} ranks, but the run has {}", (*forced)[0], (*forced)[1],
                              (*forced)[2], product, ranks));
    for (int a = 0; a < 3; ++a)
      if ((*forced)[a] > global[a])
        throw Error(fmt::format("--decomp puts {} ranks along {} of a grid {} cells long: more ranks than cells",
                                (*forced)[a], kAxis[a], global[a]));
    d.dims = *forced;
  } else {
    d.dims = choose_dims(ranks, global);
  }
  for (int a = 0; a < 3; ++a) {
    if (d.dims[a] == 1) continue;  // not split: its ghosts are the boundary step's
    const int thinnest = global[a] / d.dims[a];
    if (thinnest < radius)
      throw Error(fmt::format("decomposition {} leaves boxes {} cells thick along {}, thinner than the stencil radius {} "
                              "(use fewer ranks along {})",
                              d.text(), thinnest, kAxis[a], radius, kAxis[a]));
  }
  return d;
}

BoxPlacement place_box(const Decomposition& d, int rank, const std::array<bool, 3>& periodic) {
  BoxPlacement p;
  p.decomposition = d;
  p.rank = rank;
  p.box = d.box_of(rank);
  const auto c = d.coords_of(rank);
  for (int a = 0; a < 3; ++a) {
    // A periodic axis has no domain faces: its end boxes are neighbours (one box: itself).
    p.domain_face[a][0] = c[a] == 0 && !periodic[a];
    p.domain_face[a][1] = c[a] == d.dims[a] - 1 && !periodic[a];
  }
  return p;
}

}  // namespace ss
