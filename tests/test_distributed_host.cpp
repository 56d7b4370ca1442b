// Distributed runs without MPI: the halo plan of a box, the domain faces of a placement,
// the boundary step of a box against the whole grid's, and every distributable model
// stepped box by box in one process, its halos moved between steps with the same plan
// and the same pack/unpack as the MPI exchange, bitwise equal to the one-rank run for
// every boundary rule, uneven sizes and rank counts that are not powers of two.
// (tests/mpi/ runs the same over real MPI ranks.)
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "distributed_cases.hpp"
#include "sim/core/box_simulation.hpp"
#include "sim/core/ghost3d.hpp"
#include "sim/dist/halo_plan.hpp"

using namespace ss;
using namespace ss::dist;

namespace {

/// Keeps the fields a box handed to its halo fill, so the test can fill them itself.
class RecordingFill final : public HaloFill {
 public:
  void fill(std::span<float* const> fields) override { fields_.assign(fields.begin(), fields.end()); }
  const std::vector<float*>& fields() const { return fields_; }

 private:
  std::vector<float*> fields_;
};

/// Every box of a decomposition in one process.
struct InProcessRun {
  std::vector<BoxPlacement> places;
  std::vector<std::unique_ptr<BoxSimulation>> boxes;
  std::vector<std::vector<HaloFace>> plans;
  std::vector<RecordingFill> fills;
  DistributedSpec spec;

  InProcessRun(const Model& m, const ModelConfig& c, const Decomposition& d) : spec(m.distributed(c)) {
    for (int r = 0; r < d.ranks; ++r) {
      places.push_back(place_box(d, r, spec.periodic));
      boxes.push_back(m.create_box(c, places.back()));
      plans.push_back(plan_halo(places.back(), spec.ghost_width, spec.edges));
    }
    fills.resize(boxes.size());
    for (std::size_t r = 0; r < boxes.size(); ++r) boxes[r]->refresh_ghosts(fills[r]);
    exchange();
  }

  /// What the MPI exchange does, between boxes of one process: each face's ghosts get
  /// the neighbour's layers that face it.
  void exchange() {
    const int phases = spec.edges ? 3 : 1;
    for (int phase = 0; phase < phases; ++phase)
      for (std::size_t r = 0; r < boxes.size(); ++r)
        for (const HaloFace& f : plans[r]) {
          if (f.phase != phase) continue;
          const auto p = static_cast<std::size_t>(f.peer);
          const HaloFace* from = nullptr;
          for (const HaloFace& g : plans[p])
            if (g.axis == f.axis && g.dir == -f.dir && g.peer == static_cast<int>(r)) from = &g;
          ASSERT_NE(from, nullptr) << "rank " << f.peer << " has no face towards rank " << r;
          ASSERT_EQ(from->send.n, f.recv.n);
          ASSERT_EQ(from->send_tag, f.recv_tag);
          std::vector<float> buffer(static_cast<std::size_t>(f.recv.cells()));
          for (std::size_t q = 0; q < fills[r].fields().size(); ++q) {
            pack_region_host(fills[p].fields()[q], boxes[p]->grid(), from->send, buffer.data());
            unpack_region_host(fills[r].fields()[q], boxes[r]->grid(), f.recv, buffer.data());
          }
        }
  }

  void step(int n) {
    for (int s = 0; s < n; ++s) {
      for (std::size_t r = 0; r < boxes.size(); ++r) boxes[r]->step(1, fills[r]);
      exchange();
    }
  }

  std::vector<std::vector<float>> gather(const Decomposition& d) const {
    std::vector<std::vector<float>> out;
    for (std::size_t r = 0; r < boxes.size(); ++r) {
      const auto interiors = boxes[r]->interiors();
      out.resize(interiors.size(), std::vector<float>(static_cast<std::size_t>(d.global[0]) * d.global[1] * d.global[2]));
      const Box& b = places[r].box;
      for (std::size_t q = 0; q < interiors.size(); ++q)
        for (int k = 0; k < b.n[2]; ++k)
          for (int j = 0; j < b.n[1]; ++j)
            for (int i = 0; i < b.n[0]; ++i)
              out[q][(static_cast<std::size_t>(b.lo[2] + k) * d.global[1] + b.lo[1] + j) * d.global[0] + b.lo[0] + i] =
                  interiors[q][(static_cast<std::size_t>(k) * b.n[1] + j) * b.n[0] + i];
    }
    return out;
  }
};

bool bitwise_equal(const std::vector<std::vector<float>>& a, const std::vector<std::vector<float>>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t q = 0; q < a.size(); ++q)
    if (a[q].size() != b[q].size() || std::memcmp(a[q].data(), b[q].data(), a[q].size() * sizeof(float)) != 0)
      return false;
  return true;
}

}  // namespace

TEST(HaloPlan, FacesOfAnInnerBoxAndTheirTags) {
  const Decomposition d = make_decomposition({19, 17, 18}, 27, std::array{3, 3, 3}, 2);
  const BoxPlacement p = place_box(d, d.rank_of({1, 1, 1}), {false, false, false});
  for (const auto& ends : p.domain_face) EXPECT_FALSE(ends[0] || ends[1]);
  const auto faces = plan_halo(p, 2, false);
  ASSERT_EQ(faces.size(), 6u);
  EXPECT_EQ(halo_phases(faces), 1);
  for (const HaloFace& f : faces) {
    EXPECT_EQ(f.send.n[f.axis], 2);
    EXPECT_EQ(f.recv.lo[f.axis], f.dir < 0 ? -2 : p.box.n[f.axis]);
    EXPECT_EQ(f.send.lo[f.axis], f.dir < 0 ? 0 : p.box.n[f.axis] - 2);
    EXPECT_EQ(f.send.cells(), f.recv.cells());
    auto c = d.coords_of(p.rank);
    c[f.axis] += f.dir;
    EXPECT_EQ(f.peer, d.rank_of(c));
    EXPECT_NE(f.send_tag, f.recv_tag);
  }
}

TEST(HaloPlan, DomainFacesFollowPeriodicityAndSplitAxes) {
  const Decomposition d = make_decomposition({19, 17, 18}, 2, std::array{2, 1, 1}, 4);
  // Not periodic: the outer faces are the domain's, y and z wholly the box's own.
  BoxPlacement p = place_box(d, 0, {false, false, false});
  EXPECT_TRUE(p.domain_face[0][0]);
  EXPECT_FALSE(p.domain_face[0][1]);
  EXPECT_TRUE(p.domain_face[1][0] && p.domain_face[1][1] && p.domain_face[2][0] && p.domain_face[2][1]);
  EXPECT_EQ(plan_halo(p, 4, false).size(), 1u);
  // Periodic: along x the two boxes are each other's neighbours on both sides; y and z
  // are not split, so the box wraps them itself.
  p = place_box(d, 0, {true, true, true});
  EXPECT_FALSE(p.domain_face[0][0] || p.domain_face[0][1]);
  EXPECT_TRUE(p.domain_face[1][0] && p.domain_face[2][1]);
  const auto faces = plan_halo(p, 4, false);
  ASSERT_EQ(faces.size(), 2u);
  EXPECT_EQ(faces[0].peer, 1);
  EXPECT_EQ(faces[1].peer, 1);
  EXPECT_NE(faces[0].recv_tag, faces[1].recv_tag);  // two messages from one neighbour, told apart
}

TEST(HaloPlan, EdgesGoAxisByAxisCarryingEarlierGhosts) {
  const Decomposition d = make_decomposition({19, 17, 18}, 8, std::array{2, 2, 2}, 3);
  const BoxPlacement p = place_box(d, 0, {true, true, true});
  const auto faces = plan_halo(p, 3, true);
  ASSERT_EQ(faces.size(), 6u);
  EXPECT_EQ(halo_phases(faces), 3);
  for (const HaloFace& f : faces) {
    EXPECT_EQ(f.phase, f.axis);
    for (int b = 0; b < 3; ++b) {
      const int extra = b < f.axis ? 6 : 0;  // earlier axes: both ghost layers of width 3
      if (b != f.axis) {
        EXPECT_EQ(f.send.n[b], p.box.n[b] + extra);
      }
    }
  }
}

TEST(BoxGhosts, TheWholeGridAsOneBoxGetsTheBoundaryStepsValues) {
  const Grid3D g = Grid3D::make(13, 11, 9);
  for (Boundary b : {Boundary::periodic, Boundary::fixed, Boundary::insulated}) {
    std::vector<float> whole(g.elements()), box(g.elements());
    for (std::size_t e = 0; e < whole.size(); ++e) whole[e] = box[e] = std::sin(0.37f * static_cast<float>(e));
    const GhostRule3D<float> rule = simple_ghost_rule3d<float>(b, 0.25f);
    fill_ghosts3d_host(whole.data(), g, rule);
    const std::array<std::array<bool, 2>, 3> all{{{true, true}, {true, true}, {true, true}}};
    fill_box_ghosts3d_host(box.data(), g, {0, 0, 0}, all, kGhost, rule);
    EXPECT_EQ(std::memcmp(whole.data(), box.data(), whole.size() * sizeof(float)), 0) << static_cast<int>(b);
  }
}

TEST(DistributedInProcess, EveryModelBitwiseEqualToOneRank) {
  const int steps = 3;
  int runs = 0;
  for (const test::DistributedCase& c : test::distributed_cases()) {
    const auto expected = test::one_rank_fields(c, steps);
    for (int ranks : {2, 3, 4, 5, 6}) {
      for (const auto& forced : test::decompositions_to_try(ranks)) {
        Decomposition d;
        try {
          d = make_decomposition(c.config.size, ranks, forced, c.model->distributed(c.config).ghost_width);
        } catch (const Error&) {
          continue;  // boxes thinner than the radius: refused, as the bad-input tests check
        }
        InProcessRun run(*c.model, c.config, d);
        run.step(steps);
        EXPECT_TRUE(bitwise_equal(run.gather(d), expected)) << c.name << ", " << ranks << " ranks as " << d.text();
        ++runs;
      }
    }
  }
  EXPECT_GT(runs, 0) << "no registered model runs distributed";
}
