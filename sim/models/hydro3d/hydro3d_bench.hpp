#pragma once
// `stencilscope bench hydro3d`: ms per full RK3 step, million cell updates per second
// (full steps, the paper's figure), G cell-substeps per second, the effective bandwidth
// under the paper's minimal traffic (16 values per cell per substep) and its ratio to
// the copy kernel of the same run; errors against the double reference of each
// variant's method on a check grid.
#include <functional>
#include <string>
#include <vector>

#include "sim/bench/report.hpp"
#include "sim/core/precision.hpp"
#include "sim/models/hydro3d/hydro3d_solver.hpp"

namespace ss {

struct Hydro3DBenchOptions {
  Hydro3DConfig config;
  int steps = 5;
  int repeats = 5;
  std::vector<HydroVariant> variants;
  Precision precision = Precision::f32;
  std::function<void(const std::string&)> progress;
};

/// Values read and written per cell per substep under the paper's minimal traffic
/// (eq 13 without the halo re-reads): read rho, u and the four intermediates (8),
/// write the four outputs and the four intermediates (8).
inline constexpr int kHydroValuesPerCellSubstep = 16;

BenchReport run_hydro3d_bench(const Hydro3DBenchOptions& o);

}  // namespace ss
