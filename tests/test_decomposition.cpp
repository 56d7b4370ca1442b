// The decomposition of a global grid over N ranks: every cell in exactly one box, boxes
// of one axis within one cell of each other, neighbours that agree, the fewest cut
// cells, and one-line errors for a --decomp that does not multiply to N, more ranks than
// cells, or boxes thinner than the stencil radius.
#include <gtest/gtest.h>

#include <vector>

#include "sim/core/decomposition.hpp"
#include "sim/core/error.hpp"

using namespace ss;

namespace {

/// Each cell of the grid is owned by exactly one rank's box.
void expect_partition(const Decomposition& d) {
  const auto& g = d.global;
  std::vector<int> owner(static_cast<std::size_t>(g[0]) * g[1] * g[2], -1);
  long long cells = 0;
  for (int r = 0; r < d.ranks; ++r) {
    const Box b = d.box_of(r);
    cells += b.cells();
    for (int k = b.lo[2]; k < b.lo[2] + b.n[2]; ++k)
      for (int j = b.lo[1]; j < b.lo[1] + b.n[1]; ++j)
        for (int i = b.lo[0]; i < b.lo[0] + b.n[0]; ++i) {
          int& o = owner[(static_cast<std::size_t>(k) * g[1] + j) * g[0] + i];
          ASSERT_EQ(o, -1) << "cell " << i << "," << j << "," << k << " in two boxes";
          o = r;
        }
  }
  EXPECT_EQ(cells, static_cast<long long>(g[0]) * g[1] * g[2]);
  for (int o : owner) ASSERT_GE(o, 0);
}

}  // namespace

TEST(Decomposition, AnyRankCountPartitionsSizesThatDoNotDivide) {
  const std::array<int, 3> grid{17, 23, 29};
  for (int ranks = 1; ranks <= 40; ++ranks) {
    if (ranks == 31 || ranks == 37) {  // primes longer than every axis: no Cartesian split exists
      EXPECT_THROW(make_decomposition(grid, ranks, std::nullopt, 1), Error) << ranks;
      continue;
    }
    const Decomposition d = make_decomposition(grid, ranks, std::nullopt, 1);
    SCOPED_TRACE(std::to_string(ranks) + " ranks: " + d.text());
    EXPECT_EQ(d.dims[0] * d.dims[1] * d.dims[2], ranks);
    expect_partition(d);
    for (int a = 0; a < 3; ++a) {  // boxes along an axis differ by at most one cell
      int lo = 1 << 30, hi = 0;
      for (int r = 0; r < ranks; ++r) {
        lo = std::min(lo, d.box_of(r).n[a]);
        hi = std::max(hi, d.box_of(r).n[a]);
      }
      EXPECT_LE(hi - lo, 1) << "axis " << a;
    }
    for (int r = 0; r < ranks; ++r) {
      EXPECT_EQ(d.rank_of(d.coords_of(r)), r);
      for (int a = 0; a < 3; ++a) {  // neighbours are mutual, and touch
        const int up = d.neighbour(r, a, +1, true);
        EXPECT_EQ(d.neighbour(up, a, -1, true), r);
        const int next = d.neighbour(r, a, +1, false);
        if (next >= 0) EXPECT_EQ(d.box_of(next).lo[a], d.box_of(r).lo[a] + d.box_of(r).n[a]);
        else EXPECT_EQ(d.box_of(r).lo[a] + d.box_of(r).n[a], d.global[a]);
      }
    }
  }
}

TEST(Decomposition, AutoCutsTheFewestCellsAndSplitsZFirstOnATie) {
  EXPECT_EQ(choose_dims(2, {512, 512, 512}), (std::array{1, 1, 2})) << "a tie: z first";
  EXPECT_EQ(choose_dims(4, {512, 512, 512}), (std::array{1, 2, 2}));
  EXPECT_EQ(choose_dims(8, {512, 512, 512}), (std::array{2, 2, 2}));
  EXPECT_EQ(choose_dims(2, {1024, 64, 64}), (std::array{2, 1, 1})) << "cut the long axis";
  EXPECT_EQ(choose_dims(3, {30, 30, 30}), (std::array{1, 1, 3}));
  EXPECT_EQ(choose_dims(7, {8, 8, 8}), (std::array{1, 1, 7})) << "a prime count";
}

TEST(Decomposition, BadRequestsNameTheProblem) {
  auto message = [](auto&& f) {
    try {
      f();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message([] { make_decomposition({64, 64, 64}, 3, std::array{2, 2, 1}, 4); }).find("is 4 ranks, but the run has 3"),
            std::string::npos);
  EXPECT_NE(message([] { make_decomposition({4, 4, 4}, 5, std::array{5, 1, 1}, 1); }).find("more ranks than cells"),
            std::string::npos);
  EXPECT_NE(message([] { make_decomposition({2, 2, 2}, 27, std::nullopt, 1); }).find("more ranks than cells"),
            std::string::npos);
  EXPECT_NE(message([] { make_decomposition({64, 64, 12}, 4, std::array{1, 1, 4}, 4); }).find("thinner than the stencil radius 4"),
            std::string::npos);
  EXPECT_NE(message([] { parse_decomp("2x2"); }).find("malformed --decomp"), std::string::npos);
  EXPECT_EQ(parse_decomp("1x2x3"), (std::array{1, 2, 3}));
}
