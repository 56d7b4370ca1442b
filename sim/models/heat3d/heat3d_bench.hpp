#pragma once
// The heat 3D benchmark behind `stencilscope bench heat3d`: heat 2D's table for the
// 3D grid.
#include <functional>
#include <string>
#include <vector>

#include "sim/bench/report.hpp"
#include "sim/models/heat3d/heat3d_solver.hpp"

namespace ss {

struct Heat3DBenchOptions {
  Heat3DConfig config;
  int steps = 10;
  int repeats = 5;
  std::vector<Heat3DVariant> variants;
  Precision precision = Precision::f32;
  std::function<void(const std::string&)> progress;
};

/// Runs each variant from the same initial field, checks it against the double
/// reference and the first GPU/cpu row bit for bit, and times it.
BenchReport run_heat3d_bench(const Heat3DBenchOptions& options);

}  // namespace ss
