#pragma once
// The heat 2D benchmark behind `stencilscope bench heat2d`: runs each requested
// variant from the same initial field, checks it against the double reference,
// times it, and reports bandwidth as a ratio to a copy measured in the same run.
#include <functional>
#include <string>
#include <vector>

#include "sim/bench/report.hpp"
#include "sim/models/heat2d/heat2d_solver.hpp"

namespace ss {

struct Heat2DBenchOptions {
  Heat2DConfig config;                  ///< size, order, boundary, ...
  int steps = 10;                       ///< time steps per timed run
  int repeats = 5;                      ///< timed runs per GPU variant (median reported)
  std::vector<Heat2DVariant> variants;  ///< in the order the rows appear
  Precision precision = Precision::f32;
  std::function<void(const std::string&)> progress;  ///< told before each long piece of work
};

/// Runs the benchmark; throws ss::Error for bad input (sizes that do not fit, ...).
BenchReport run_heat2d_bench(const Heat2DBenchOptions& options);

}  // namespace ss
