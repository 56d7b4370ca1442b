#pragma once
// The deriv3d benchmark behind `stencilscope bench deriv3d`: every variant along
// every asked axis, with the posts' error lines (RMS and MAX against the exact
// derivative). Its rows carry the label "axis" and the figures "rms_error" and
// "max_error"; `steps` counts derivatives per timed run and time_ms is one derivative.
#include <functional>
#include <string>
#include <vector>

#include "sim/bench/report.hpp"
#include "sim/models/deriv3d/deriv3d.hpp"

namespace ss {

struct Deriv3DBenchOptions {
  Deriv3DConfig config;
  std::vector<Axis> axes{kAllAxes.begin(), kAllAxes.end()};
  int launches = 20;  ///< derivatives per timed run
  int repeats = 5;    ///< timed runs per GPU variant (median reported)
  std::vector<Deriv3DVariant> variants;
  Precision precision = Precision::f32;
  std::function<void(const std::string&)> progress;
};

/// Runs every variant along every axis; throws ss::Error for bad input.
BenchReport run_deriv3d_bench(const Deriv3DBenchOptions& options);

}  // namespace ss
