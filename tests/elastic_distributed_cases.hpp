#pragma once
// elastic3d's distributed cases beyond what the model interface can say (distributed_cases.hpp
// runs every model through ModelConfig, which has one source): every boundary rule on a
// grid no rank count divides, with a force, an explosion and a moment tensor whose
// band-limited boxes (17^3 nodes) straddle the boxes of the decomposition (centred on a
// box's first node: a face, an edge or a corner between ranks; on the last node of box 0,
// twice; one at depth 1, whose box the surface clips), against HostElastic3D<float> on the
// whole grid.
#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "sim/core/decomposition.hpp"
#include "sim/models/elastic3d/elastic3d_box.hpp"
#include "sim/models/elastic3d/elastic3d_solver.hpp"

namespace ss::test {

inline constexpr std::array<int, 3> kElasticDistGrid{29, 23, 19};
inline constexpr int kElasticDistSteps = 16;

struct ElasticDistCase {
  std::string name;
  Elastic3DConfig config;  ///< without sources: elastic_dist_setup adds them per decomposition
};

/// sponge, periodic_sides and cpml (each under a free and an absorbing top), periodic, at
/// orders 4 and 8, in a random medium.
inline std::vector<ElasticDistCase> elastic_dist_cases() {
  struct Rule {
    ElasticBoundary boundary;
    ElasticTop top;
  };
  const Rule rules[] = {{ElasticBoundary::sponge, ElasticTop::free},
                        {ElasticBoundary::sponge, ElasticTop::absorbing},
                        {ElasticBoundary::periodic, ElasticTop::free},
                        {ElasticBoundary::periodic_sides, ElasticTop::free},
                        {ElasticBoundary::periodic_sides, ElasticTop::absorbing},
                        {ElasticBoundary::cpml, ElasticTop::free},
                        {ElasticBoundary::cpml, ElasticTop::absorbing}};
  std::vector<ElasticDistCase> out;
  for (int order : {4, 8})
    for (const Rule& r : rules) {
      ElasticDistCase c;
      c.config.nx = kElasticDistGrid[0], c.config.ny = kElasticDistGrid[1], c.config.nz = kElasticDistGrid[2];
      c.config.order = order;
      c.config.medium = ElasticMedium::random;
      c.config.boundary = r.boundary;
      c.config.top = r.top;
      c.name = fmt::format("elastic3d order {} boundary={} top={}", order, to_string(r.boundary), to_string(r.top));
      out.push_back(c);
    }
  return out;
}

/// The case's setup with sources where the boxes of `d` meet (see above).
inline Elastic3DSetup elastic_dist_setup(const ElasticDistCase& c, const Decomposition& d) {
  Elastic3DConfig cfg = c.config;
  const std::array<int, 3> n{cfg.nx, cfg.ny, cfg.nz};
  auto inside = [&](std::array<int, 3> a) {
    for (int x = 0; x < 3; ++x) a[x] = std::clamp(a[x], 1, n[x] - 1);
    return a;
  };
  const Box last = d.box_of(d.ranks - 1), first = d.box_of(0);
  const std::array<int, 3> first_hi{first.lo[0] + first.n[0] - 1, first.lo[1] + first.n[1] - 1,
                                    first.lo[2] + first.n[2] - 1};
  SourceSpec force{SourceKind::force, inside(last.lo), 60.0};
  force.direction = {1.0, -2.0, 0.5};
  SourceSpec explosion{SourceKind::explosion, inside(first_hi), 55.0, 0.8};
  SourceSpec moment{SourceKind::moment, inside(first_hi), 70.0, -1.2, 0.002};
  moment.moment = {0.3, -0.5, 0.2, 1.0, -0.4, 0.6};
  SourceSpec shallow{SourceKind::force, inside({n[0] / 3, n[1] / 2, 1}), 50.0};
  cfg.sources = {force, explosion, moment, shallow};
  return make_elastic3d_setup(cfg);
}

/// u and u^{n-1} after `steps` steps of the whole grid (the `cpu` variant).
inline std::vector<std::vector<float>> elastic_one_rank(const Elastic3DSetup& s, int steps) {
  HostElastic3D<float> sim(s);
  sim.step(steps);
  const ElasticState<float> st = sim.state();
  return {st.u[0], st.u[1], st.u[2], st.u_prev[0], st.u_prev[1], st.u_prev[2]};
}

}  // namespace ss::test
