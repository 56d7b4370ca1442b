#include "sim/dist/gather.hpp"

#include <algorithm>
#include <climits>

#include <fmt/format.h>

namespace ss::dist {

std::vector<std::vector<float>> gather_interiors(const CartComm& comm, const Decomposition& d,
                                                 const std::vector<std::vector<float>>& box_interiors) {
  const long long total = static_cast<long long>(d.global[0]) * d.global[1] * d.global[2];
  if (total > INT_MAX)  // the same on every rank: no rank is left waiting
    throw CollectiveError(fmt::format("gathering {} cells to rank 0 needs more than one MPI message", total));
  const bool root = comm.rank() == 0;
  std::vector<int> counts(static_cast<std::size_t>(d.ranks)), offsets(counts.size());
  for (int r = 0, at = 0; r < d.ranks; ++r) {
    counts[static_cast<std::size_t>(r)] = static_cast<int>(d.box_of(r).cells());
    offsets[static_cast<std::size_t>(r)] = at;
    at += counts[static_cast<std::size_t>(r)];
  }
  std::vector<std::vector<float>> out;
  std::vector<float> boxes(root ? static_cast<std::size_t>(total) : 0);
  for (const std::vector<float>& field : box_interiors) {
    check_mpi(MPI_Gatherv(field.data(), static_cast<int>(field.size()), MPI_FLOAT, boxes.data(), counts.data(),
                          offsets.data(), MPI_FLOAT, 0, comm.get()),
              "MPI_Gatherv");
    if (!root) continue;
    std::vector<float>& global = out.emplace_back(static_cast<std::size_t>(total));
    for (int r = 0; r < d.ranks; ++r) {
      const Box b = d.box_of(r);
      const float* src = boxes.data() + offsets[static_cast<std::size_t>(r)];
      for (int k = 0; k < b.n[2]; ++k)
        for (int j = 0; j < b.n[1]; ++j) {
          const std::size_t at =
              (static_cast<std::size_t>(b.lo[2] + k) * d.global[1] + (b.lo[1] + j)) * d.global[0] + b.lo[0];
          std::copy_n(src + (static_cast<std::size_t>(k) * b.n[1] + j) * b.n[0], b.n[0], global.begin() + at);
        }
    }
  }
  return out;
}

namespace {
/// The two axes of a slice across `normal_axis`, in x, y, z order.
std::array<int, 2> slice_axes(int normal_axis) {
  return normal_axis == 0 ? std::array{1, 2} : normal_axis == 1 ? std::array{0, 2} : std::array{0, 1};
}
}  // namespace

std::vector<float> gather_slice(const CartComm& comm, const Decomposition& d, int normal_axis, int position,
                                const std::vector<float>& box_interior) {
  if (normal_axis < 0 || normal_axis > 2 || position < 0 || position >= d.global[static_cast<std::size_t>(normal_axis)])
    throw CollectiveError(fmt::format("no slice at {} along axis {} of a {}x{}x{} grid", position, normal_axis,
                                      d.global[0], d.global[1], d.global[2]));
  const auto [ua, va] = slice_axes(normal_axis);
  // Each box the plane cuts sends its part of the slice, u fastest.
  auto cuts = [&](const Box& b) {
    return position >= b.lo[static_cast<std::size_t>(normal_axis)] &&
           position < b.lo[static_cast<std::size_t>(normal_axis)] + b.n[static_cast<std::size_t>(normal_axis)];
  };
  const Box mine = d.box_of(comm.rank());
  std::vector<float> part;
  if (cuts(mine)) {
    for (int v = 0; v < mine.n[va]; ++v)
      for (int u = 0; u < mine.n[ua]; ++u) {
        std::array<int, 3> c{};
        c[static_cast<std::size_t>(normal_axis)] = position - mine.lo[static_cast<std::size_t>(normal_axis)];
        c[static_cast<std::size_t>(ua)] = u;
        c[static_cast<std::size_t>(va)] = v;
        part.push_back(box_interior[(static_cast<std::size_t>(c[2]) * mine.n[1] + c[1]) * mine.n[0] + c[0]]);
      }
  }
  const bool root = comm.rank() == 0;
  std::vector<int> counts(static_cast<std::size_t>(d.ranks), 0), offsets(counts.size(), 0);
  for (int r = 0, at = 0; r < d.ranks; ++r) {
    const Box b = d.box_of(r);
    counts[static_cast<std::size_t>(r)] = cuts(b) ? b.n[ua] * b.n[va] : 0;
    offsets[static_cast<std::size_t>(r)] = at;
    at += counts[static_cast<std::size_t>(r)];
  }
  const int nu = d.global[ua], nv = d.global[va];
  std::vector<float> parts(root ? static_cast<std::size_t>(nu) * nv : 0);
  check_mpi(MPI_Gatherv(part.data(), static_cast<int>(part.size()), MPI_FLOAT, parts.data(), counts.data(),
                        offsets.data(), MPI_FLOAT, 0, comm.get()),
            "MPI_Gatherv");
  if (!root) return {};
  std::vector<float> slice(parts.size());
  for (int r = 0; r < d.ranks; ++r) {
    const Box b = d.box_of(r);
    if (!cuts(b)) continue;
    const float* src = parts.data() + offsets[static_cast<std::size_t>(r)];
    for (int v = 0; v < b.n[va]; ++v)
      std::copy_n(src + static_cast<std::size_t>(v) * b.n[ua], b.n[ua],
                  slice.begin() + (static_cast<std::size_t>(b.lo[va] + v) * nu + b.lo[ua]));
  }
  return slice;
}

Seismogram gather_traces(const CartComm& comm, const BoxTraces& mine, int from_row) {
  const bool root = comm.rank() == 0;
  const int ranks = comm.size();
  const int sizes[3] = {mine.rows, static_cast<int>(mine.held.size()), static_cast<int>(mine.values.size())};
  std::vector<int> all(root ? 3 * static_cast<std::size_t>(ranks) : 0);
  check_mpi(MPI_Gather(sizes, 3, MPI_INT, all.data(), 3, MPI_INT, 0, comm.get()), "MPI_Gather");
  std::vector<int> held_counts(static_cast<std::size_t>(ranks)), held_at(held_counts.size());
  std::vector<int> value_counts(held_counts.size()), value_at(held_counts.size());
  int held_total = 0, value_total = 0;
  if (root)
    for (std::size_t r = 0; r < held_counts.size(); ++r) {
      held_counts[r] = all[3 * r + 1], held_at[r] = held_total, held_total += held_counts[r];
      value_counts[r] = all[3 * r + 2], value_at[r] = value_total, value_total += value_counts[r];
    }
  std::vector<int> held(static_cast<std::size_t>(held_total));
  std::vector<float> values(static_cast<std::size_t>(value_total));
  check_mpi(MPI_Gatherv(mine.held.data(), sizes[1], MPI_INT, held.data(), held_counts.data(), held_at.data(), MPI_INT, 0,
                        comm.get()),
            "MPI_Gatherv");
  check_mpi(MPI_Gatherv(mine.values.data(), sizes[2], MPI_FLOAT, values.data(), value_counts.data(), value_at.data(),
                        MPI_FLOAT, 0, comm.get()),
            "MPI_Gatherv");
  if (!root) return {};

  Seismogram s = mine.head;
  const std::size_t components = s.components.size(), receivers = s.nodes.size();
  const int rows = mine.rows - from_row;
  std::vector<int> seen(receivers, 0);
  for (int r = 0; r < ranks; ++r) {
    const std::size_t k = static_cast<std::size_t>(r);
    if (all[3 * k] != mine.rows)
      throw Error(fmt::format("rank {} recorded {} rows of traces, rank 0 {}", r, all[3 * k], mine.rows));
    if (static_cast<std::size_t>(value_counts[k]) != static_cast<std::size_t>(rows) * components * held_counts[k])
      throw Error(fmt::format("rank {} sent {} trace values for {} receivers", r, value_counts[k], held_counts[k]));
    for (int q = 0; q < held_counts[k]; ++q) {
      const int g = held[static_cast<std::size_t>(held_at[k] + q)];
      if (g < 0 || static_cast<std::size_t>(g) >= receivers) throw Error(fmt::format("rank {} holds no receiver {}", r, g));
      ++seen[static_cast<std::size_t>(g)];
    }
  }
  for (std::size_t g = 0; g < receivers; ++g)
    if (seen[g] != 1) throw Error(fmt::format("receiver {} is held by {} boxes, not one", g, seen[g]));
  s.values.assign(static_cast<std::size_t>(rows) * components * receivers, 0.0f);
  for (int r = 0; r < ranks; ++r) {
    const std::size_t k = static_cast<std::size_t>(r), n = static_cast<std::size_t>(held_counts[k]);
    const int* ids = held.data() + held_at[k];
    const float* from = values.data() + value_at[k];
    for (std::size_t line = 0; line < static_cast<std::size_t>(rows) * components; ++line)
      for (std::size_t q = 0; q < n; ++q) s.values[line * receivers + static_cast<std::size_t>(ids[q])] = from[line * n + q];
  }
  return s;
}

}  // namespace ss::dist
