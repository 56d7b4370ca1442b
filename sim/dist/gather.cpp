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

}  // namespace ss::dist
