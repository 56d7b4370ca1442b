#pragma once
// acoustic3d's distributed cases beyond what the model interface can say (distributed_cases.hpp
// runs every model through ModelConfig, which has one source): every boundary rule on a grid
// no rank count divides, with several point sources placed where the boxes of the
// decomposition meet (a box's first node, which lies on a face, an edge or a corner between
// ranks; two sources on the last node of box 0; one in the absorbing layer), against
// HostAcoustic3D<float> on the whole grid.
#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "sim/core/decomposition.hpp"
#include "sim/models/acoustic3d/acoustic3d_box.hpp"
#include "sim/models/acoustic3d/acoustic3d_solver.hpp"

namespace ss::test {

inline constexpr std::array<int, 3> kAcousticDistGrid{29, 23, 19};
inline constexpr int kAcousticDistSteps = 24;

struct AcousticDistCase {
  std::string name;
  Acoustic3DConfig config;  ///< without sources: acoustic_dist_setup adds them per decomposition
};

/// sponge (free and absorbing top), periodic, cpml (free and absorbing top), at orders 4
/// and 8, in a random medium (a different (v dt/h)^2 at every node).
inline std::vector<AcousticDistCase> acoustic_dist_cases() {
  struct Rule {
    AcousticBoundary boundary;
    TopBoundary top;
  };
  const Rule rules[] = {{AcousticBoundary::sponge, TopBoundary::free},
                        {AcousticBoundary::sponge, TopBoundary::absorbing},
                        {AcousticBoundary::periodic, TopBoundary::free},
                        {AcousticBoundary::cpml, TopBoundary::free},
                        {AcousticBoundary::cpml, TopBoundary::absorbing}};
  std::vector<AcousticDistCase> out;
  for (int order : {4, 8})
    for (const Rule& r : rules) {
      AcousticDistCase c;
      c.config.nx = kAcousticDistGrid[0], c.config.ny = kAcousticDistGrid[1], c.config.nz = kAcousticDistGrid[2];
      c.config.order = order;
      c.config.medium = Medium::random;
      c.config.boundary = r.boundary;
      c.config.top = r.top;
      c.name = fmt::format("acoustic3d order {} boundary={} top={}", order, to_string(r.boundary), to_string(r.top));
      out.push_back(c);
    }
  return out;
}

/// The case's setup with sources where the boxes of `d` meet (see above), f0 high enough
/// that the wavelets are well above 0 within the steps run.
inline Acoustic3DSetup acoustic_dist_setup(const AcousticDistCase& c, const Decomposition& d) {
  Acoustic3DConfig cfg = c.config;
  const std::array<int, 3> n{cfg.nx, cfg.ny, cfg.nz};
  auto inside = [&](std::array<int, 3> a) {
    for (int x = 0; x < 3; ++x) a[x] = std::clamp(a[x], 1, n[x] - 1);
    return a;
  };
  const Box last = d.box_of(d.ranks - 1), first = d.box_of(0);
  const std::array<int, 3> first_hi{first.lo[0] + first.n[0] - 1, first.lo[1] + first.n[1] - 1,
                                    first.lo[2] + first.n[2] - 1};
  cfg.sources = {
      SourceSpec{SourceKind::pressure, inside({n[0] / 2, n[1] / 2, n[2] / 2}), 45.0},
      SourceSpec{SourceKind::pressure, inside(last.lo), 60.0, 1.5},
      SourceSpec{SourceKind::pressure, inside(first_hi), 70.0, -0.7},
      SourceSpec{SourceKind::pressure, inside(first_hi), 50.0, 2.0},
      SourceSpec{SourceKind::pressure, inside({2, 3, 2}), 55.0},
  };
  return make_acoustic3d_setup(cfg);
}

/// p and p_prev after `steps` steps of the whole grid (the `cpu` variant).
inline std::vector<std::vector<float>> acoustic_one_rank(const Acoustic3DSetup& s, int steps) {
  HostAcoustic3D<float> sim(s);
  sim.step(steps);
  return {sim.interior(), sim.previous_interior()};
}

}  // namespace ss::test
