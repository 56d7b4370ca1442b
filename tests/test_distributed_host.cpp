// Distributed runs without MPI: the halo plan of a box, the domain faces of a placement,
// the boundary step of a box against the whole grid's, and every distributable model
// stepped box by box in one process (a thread per box), its halos moved at each fill with
// the same plan and the same pack/unpack as the MPI exchange, bitwise equal to the
// one-rank run for every boundary rule and initial condition, uneven sizes and rank
// counts that are not powers of two.
// (tests/mpi/ runs the same over real MPI ranks.)
#include <gtest/gtest.h>

#include <algorithm>

#include <barrier>
#include <cmath>
#include <cstring>
#include <deque>
#include <functional>
#include <limits>
#include <mutex>
#include <set>
#include <thread>

#include "acoustic_distributed_cases.hpp"
#include "distributed_cases.hpp"
#include "elastic_distributed_cases.hpp"
#include "sim/core/box_regions.hpp"
#include "sim/core/box_simulation.hpp"
#include "sim/core/ghost3d.hpp"
#include "sim/dist/halo_plan.hpp"

using namespace ss;
using namespace ss::dist;

namespace {

/// Every box of a decomposition in one process, each stepped by its own thread; a fill
/// is a meeting of all of them: each publishes its fields, then, phase by phase, copies
/// into its ghosts the layers its neighbours send (the same plan and packing as the MPI
/// exchange), so a model may exchange as often in a step as it needs (hydro3d: after each
/// substep).
class InProcessRun {
 public:
  using BoxFactory = std::function<std::unique_ptr<BoxSimulation>(const BoxPlacement&)>;

  InProcessRun(const Model& m, const ModelConfig& c, const std::string& variant, const Decomposition& d)
      : InProcessRun(m.distributed(c), [&](const BoxPlacement& p) { return m.create_box(c, p, variant); }, d) {}

  /// Boxes made by `make` (a model's own box type, with what ModelConfig cannot say).
  InProcessRun(const DistributedSpec& spec, const BoxFactory& make, const Decomposition& d)
      : spec_(spec), meeting_(d.ranks) {
    for (int r = 0; r < d.ranks; ++r) {
      places_.push_back(place_box(d, r, spec_.periodic));
      boxes_.push_back(make(places_.back()));
      plans_.push_back(plan_halo(places_.back(), spec_.ghost_width, spec_.edges));
    }
    published_.resize(boxes_.size());
    maxima_.resize(boxes_.size());
    for (std::size_t r = 0; r < boxes_.size(); ++r) fills_.emplace_back(*this, r);
    in_threads([&](std::size_t r) { boxes_[r]->refresh_ghosts(fills_[r]); });
  }

  void step(int n) {
    in_threads([&](std::size_t r) { boxes_[r]->step(n, fills_[r]); });
  }

  std::vector<std::vector<float>> gather(const Decomposition& d) const {
    std::vector<std::vector<float>> out;
    for (std::size_t r = 0; r < boxes_.size(); ++r) {
      const auto interiors = boxes_[r]->interiors();
      out.resize(interiors.size(), std::vector<float>(static_cast<std::size_t>(d.global[0]) * d.global[1] * d.global[2]));
      const Box& b = places_[r].box;
      for (std::size_t q = 0; q < interiors.size(); ++q)
        for (int k = 0; k < b.n[2]; ++k)
          for (int j = 0; j < b.n[1]; ++j)
            for (int i = 0; i < b.n[0]; ++i)
              out[q][(static_cast<std::size_t>(b.lo[2] + k) * d.global[1] + b.lo[1] + j) * d.global[0] + b.lo[0] + i] =
                  interiors[q][(static_cast<std::size_t>(k) * b.n[1] + j) * b.n[0] + i];
    }
    return out;
  }

  /// Problems a thread met (the plan of a neighbour without the matching face).
  const std::string& problems() const { return problems_; }

 private:
  class Fill final : public HaloFill {
   public:
    Fill(InProcessRun& run, std::size_t rank) : run_(run), rank_(rank) {}
    void fill(std::span<float* const> fields) override { run_.meet(rank_, fields); }
    float max_over_ranks(float local) override { return run_.max_meet(rank_, local); }

   private:
    InProcessRun& run_;
    std::size_t rank_;
  };

  template <typename F>
  void in_threads(F&& work) {
    std::vector<std::thread> threads;
    for (std::size_t r = 0; r < boxes_.size(); ++r) threads.emplace_back([&, r] { work(r); });
    for (std::thread& t : threads) t.join();
  }

  /// MPI_Allreduce(MPI_MAX) between the threads: every box's value, then the largest.
  float max_meet(std::size_t r, float local) {
    maxima_[r] = local;
    meeting_.arrive_and_wait();  // every box has given its value
    const float m = *std::max_element(maxima_.begin(), maxima_.end());
    meeting_.arrive_and_wait();  // every box has read them before the next call writes
    return m;
  }

  void meet(std::size_t r, std::span<float* const> fields) {
    published_[r].assign(fields.begin(), fields.end());
    meeting_.arrive_and_wait();  // every box has published its fields
    const int phases = spec_.edges ? 3 : 1;
    for (int phase = 0; phase < phases; ++phase) {
      for (const HaloFace& f : plans_[r]) {
        if (f.phase != phase) continue;
        const auto p = static_cast<std::size_t>(f.peer);
        const HaloFace* from = nullptr;
        for (const HaloFace& g : plans_[p])
          if (g.axis == f.axis && g.dir == -f.dir && g.peer == static_cast<int>(r)) from = &g;
        if (!from || from->send.n != f.recv.n || from->send_tag != f.recv_tag) {
          std::lock_guard lock(mutex_);
          problems_ += fmt::format("rank {} face {},{}: rank {} has no matching face; ", r, f.axis, f.dir, p);
          continue;
        }
        std::vector<float> buffer(static_cast<std::size_t>(f.recv.cells()));
        for (std::size_t q = 0; q < fields.size(); ++q) {
          pack_region_host(published_[p][q], boxes_[p]->grid(), from->send, buffer.data());
          unpack_region_host(fields[q], boxes_[r]->grid(), f.recv, buffer.data());
        }
      }
      meeting_.arrive_and_wait();  // this phase's ghosts are written before the next reads them
    }
  }

  DistributedSpec spec_;
  std::vector<BoxPlacement> places_;
  std::vector<std::unique_ptr<BoxSimulation>> boxes_;
  std::vector<std::vector<HaloFace>> plans_;
  std::deque<Fill> fills_;
  std::vector<std::vector<float*>> published_;
  std::vector<float> maxima_;
  std::barrier<> meeting_;
  std::mutex mutex_;
  std::string problems_;
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
  // are not split, so they wrap onto the box itself through the same exchange.
  p = place_box(d, 0, {true, true, true});
  for (const auto& ends : p.domain_face) EXPECT_FALSE(ends[0] || ends[1]);
  const auto faces = plan_halo(p, 4, false);
  ASSERT_EQ(faces.size(), 6u);
  EXPECT_EQ(faces[0].peer, 1);
  EXPECT_EQ(faces[1].peer, 1);
  EXPECT_NE(faces[0].recv_tag, faces[1].recv_tag);  // two messages from one neighbour, told apart
  for (std::size_t f = 2; f < 6; ++f) EXPECT_EQ(faces[f].peer, 0);
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

// The regions heat3d's and hydro3d's GPU boxes step and fill (sim/core/box_regions.hpp), for
// every box of every decomposition of 2 to 8 ranks that fits, periodic axes or not: the
// shells cover exactly the box's cells within `width` of a face between ranks, each once,
// and with exchange_core every cell of the box once (hydro3d steps each once); the shells'
// launch in tiles (CellRegionList) gives each shell cell to one thread; and, where the
// box is at least 2 width deep along every axis it exchanges (heat3d_box_device.cu's
// shells_ghosts_only_), every domain ghost a shell cell's cross-shaped stencil reads is
// among the shells' domain ghosts, which is all the boundary step of stream25d's boxes
// writes. (Session 17: the ghosts along an axis an earlier shell had cut were missed, and
// 2x2x1 boxes on four GPUs differed from one GPU.)
TEST(BoxRegions, ShellsAndTheDomainGhostsTheyRead) {
  const std::array<int, 3> size = test::kUnevenGrid;
  int boxes = 0, thick_boxes = 0;
  for (int ranks : {2, 3, 4, 6, 8})
    for (const auto& forced : test::decompositions_to_try(ranks))
      for (const std::array<bool, 3> wraps : {std::array<bool, 3>{false, false, false}, std::array<bool, 3>{true, false, true},
                                              std::array<bool, 3>{true, true, true}})
        for (int width : {1, 2, 3, 4}) {
          Decomposition d;
          try {
            d = make_decomposition(size, ranks, forced, width);
          } catch (const Error&) {
            continue;
          }
          for (int rank = 0; rank < ranks; ++rank) {
            const BoxPlacement p = place_box(d, rank, wraps);
            const Grid3D g = Grid3D::make_box(p.box.n[0], p.box.n[1], p.box.n[2]);
            const int ext[3] = {g.nx, g.ny, g.nz};
            const std::vector<CellRegion> shells = exchanged_shells(g, p, width);
            const std::string what = fmt::format("{} rank {} width {}{}", d.text(), rank, width,
                                                wraps[1] ? " periodic" : wraps[0] ? " periodic x z" : "");
            std::vector<int> count(g.points(), 0);
            auto at = [&](int i, int j, int k) { return (static_cast<std::size_t>(k) * g.ny + j) * g.nx + i; };
            for (const CellRegion& s : shells) {
              ASSERT_TRUE(s.axis >= 0 && s.axis < 3) << what;
              for (int k = s.lo[2]; k < s.lo[2] + s.n[2]; ++k)
                for (int j = s.lo[1]; j < s.lo[1] + s.n[1]; ++j)
                  for (int i = s.lo[0]; i < s.lo[0] + s.n[0]; ++i) ++count[at(i, j, k)];
            }
            for (int threads : {128, 256}) {  // the shells' launch: each shell cell one thread's, nothing else
              const CellRegionList list(shells, threads);
              std::vector<int> seen(g.points(), 0);
              for (long long b = 0; b < list.blocks(); ++b)
                for (int t = 0; t < threads; ++t) {
                  int i = -1, j = -1, k = -1;
                  if (!region_tile_cell(list, b, t, i, j, k)) continue;
                  ASSERT_TRUE(i >= 0 && i < g.nx && j >= 0 && j < g.ny && k >= 0 && k < g.nz) << what;
                  ++seen[at(i, j, k)];
                }
              ASSERT_EQ(seen, count) << what << ", " << threads << " threads";
            }
            const CellRegion core = exchange_core(g, p, width);
            for (int a = 0; a < 3; ++a) ASSERT_GE(core.n[a], 0) << what;
            std::vector<int> in_core(g.points(), 0);
            for (int k = core.lo[2]; k < core.lo[2] + core.n[2]; ++k)
              for (int j = core.lo[1]; j < core.lo[1] + core.n[1]; ++j)
                for (int i = core.lo[0]; i < core.lo[0] + core.n[0]; ++i) ++in_core[at(i, j, k)];
            for (std::size_t c = 0; c < in_core.size(); ++c)  // the shells and the core: every cell once
              ASSERT_EQ(count[c] + in_core[c], 1) << what << " cell " << c;
            bool thick = true;
            for (int k = 0; k < g.nz; ++k)
              for (int j = 0; j < g.ny; ++j)
                for (int i = 0; i < g.nx; ++i) {
                  const int c[3] = {i, j, k};
                  bool near = false;
                  for (int a = 0; a < 3; ++a) {
                    near = near || (!p.domain_face[a][0] && c[a] < width) || (!p.domain_face[a][1] && c[a] >= ext[a] - width);
                  }
                  ASSERT_EQ(count[at(i, j, k)], near ? 1 : 0) << what << " cell " << i << "," << j << "," << k;
                }
            for (int a = 0; a < 3; ++a)
              if (!p.domain_face[a][0] || !p.domain_face[a][1]) thick = thick && ext[a] >= 2 * width;
            ++boxes;
            if (!thick) continue;
            ++thick_boxes;
            std::set<std::array<int, 3>> written;
            for (const BoxGhostFaces& b : shell_ghost_faces(g, p.domain_face, width, shells))
              for (int f = 0; f < b.count; ++f)
                for (int k = 0; k < b.n[f][2]; ++k)
                  for (int j = 0; j < b.n[f][1]; ++j)
                    for (int i = 0; i < b.n[f][0]; ++i) written.insert({b.from[f][0] + i, b.from[f][1] + j, b.from[f][2] + k});
            for (const CellRegion& s : shells)
              for (int k = s.lo[2]; k < s.lo[2] + s.n[2]; ++k)
                for (int j = s.lo[1]; j < s.lo[1] + s.n[1]; ++j)
                  for (int i = s.lo[0]; i < s.lo[0] + s.n[0]; ++i)
                    for (int a = 0; a < 3; ++a)
                      for (int m = -width; m <= width; ++m) {
                        std::array<int, 3> nb{i, j, k};
                        nb[static_cast<std::size_t>(a)] += m;
                        const int side = nb[static_cast<std::size_t>(a)] < 0 ? 0 : nb[static_cast<std::size_t>(a)] >= ext[a] ? 1 : -1;
                        if (side < 0 || !p.domain_face[a][side]) continue;  // interior, or the exchange's ghost
                        ASSERT_TRUE(written.count(nb)) << what << ": the shell cell " << i << "," << j << "," << k
                                                       << " reads the domain ghost " << nb[0] << "," << nb[1] << "," << nb[2]
                                                       << ", which the shells' boundary step does not write";
                      }
          }
        }
  EXPECT_GT(thick_boxes, 100) << boxes << " boxes";
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
        InProcessRun run(*c.model, c.config, c.variant, d);
        run.step(steps);
        EXPECT_EQ(run.problems(), "") << c.name << ", " << d.text();
        EXPECT_TRUE(bitwise_equal(run.gather(d), expected)) << c.name << ", " << ranks << " ranks as " << d.text();
        ++runs;
      }
    }
  }
  EXPECT_GT(runs, 0) << "no registered model runs distributed";
}

// acoustic3d beyond ModelConfig: five sources where the boxes meet (a face, an edge or a
// corner between ranks, two on one node, one in the absorbing layer), every boundary rule
// (sponge under a free and an absorbing top, periodic, cpml under both tops), orders 4 and
// 8, a random medium, 2 to 4 ranks in every decomposition that fits; p and p_prev bitwise
// equal to the whole grid's `cpu` run.
TEST(DistributedInProcess, Acoustic3DSourcesAcrossBoxesAndEveryRule) {
  int runs = 0;
  for (const test::AcousticDistCase& c : test::acoustic_dist_cases()) {
    const DistributedSpec spec = acoustic3d_distributed_spec(make_acoustic3d_setup(c.config));
    for (int ranks : {2, 3, 4}) {
      for (const auto& forced : test::decompositions_to_try(ranks)) {
        Decomposition d;
        try {
          d = make_decomposition(test::kAcousticDistGrid, ranks, forced, spec.ghost_width);
        } catch (const Error&) {
          continue;
        }
        const Acoustic3DSetup setup = test::acoustic_dist_setup(c, d);
        const auto expected = test::acoustic_one_rank(setup, test::kAcousticDistSteps);
        InProcessRun run(spec, [&](const BoxPlacement& p) { return make_acoustic3d_box(setup, p); }, d);
        run.step(test::kAcousticDistSteps);
        EXPECT_EQ(run.problems(), "") << c.name << ", " << d.text();
        EXPECT_TRUE(bitwise_equal(run.gather(d), expected)) << c.name << ", " << ranks << " ranks as " << d.text();
        ++runs;
      }
    }
  }
  EXPECT_GT(runs, 30);
}

// elastic3d beyond ModelConfig: a force, an explosion and a moment tensor whose 17^3 source
// boxes straddle the boxes (two on one node, one clipped by the surface), sponge,
// periodic_sides and cpml under a free and an absorbing top, periodic (Clayton-Engquist on
// the domain faces, the free surface, the CPML's memory variables per box), orders 4 and 8, a random medium, 2 to 4 ranks in
// every decomposition that fits; u and u^{n-1} bitwise equal to the whole grid's `cpu` run.
TEST(DistributedInProcess, Elastic3DSourceBoxesAcrossBoxesAndEveryRule) {
  int runs = 0;
  for (const test::ElasticDistCase& c : test::elastic_dist_cases()) {
    const DistributedSpec spec = elastic3d_distributed_spec(make_elastic3d_setup(c.config));
    ASSERT_TRUE(spec.supported) << c.name;
    for (int ranks : {2, 3, 4}) {
      for (const auto& forced : test::decompositions_to_try(ranks)) {
        Decomposition d;
        try {
          d = make_decomposition(test::kElasticDistGrid, ranks, forced, spec.ghost_width);
        } catch (const Error&) {
          continue;
        }
        const Elastic3DSetup setup = test::elastic_dist_setup(c, d);
        const auto expected = test::elastic_one_rank(setup, test::kElasticDistSteps);
        InProcessRun run(spec, [&](const BoxPlacement& p) { return make_elastic3d_box(setup, p); }, d);
        run.step(test::kElasticDistSteps);
        EXPECT_EQ(run.problems(), "") << c.name << ", " << d.text();
        EXPECT_TRUE(bitwise_equal(run.gather(d), expected)) << c.name << ", " << ranks << " ranks as " << d.text();
        ++runs;
      }
    }
  }
  EXPECT_GT(runs, 30);
}
