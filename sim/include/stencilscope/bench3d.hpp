#pragma once
// The 3D benchmarks behind `stencilscope bench deriv3d` and `bench heat3d`. They
// extend heat 2D's accounting (BenchRow, effective_gbps, the copy kernel of the
// same run) with a z extent, the derivative axis and the posts' error lines.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "stencilscope/bench.hpp"
#include "stencilscope/deriv3d.hpp"
#include "stencilscope/heat3d_solver.hpp"

namespace ss {

/// A heat 2D row plus what 3D adds; for deriv3d `steps` is the launches per timed
/// run and time_ms the time of one derivative.
struct BenchRow3D : BenchRow {
  int nz = 0;
  std::string axis;                  ///< deriv3d: x, y or z; empty for heat3d
  std::optional<double> rms_error;   ///< deriv3d: RMS of |result - exact derivative|
  std::optional<double> max_error;   ///< deriv3d: max of |result - exact derivative|
  bool own_summation = false;        ///< deriv3d: the posts' kernels sum the stencil their own way: not compared bit for bit
};

struct Bench3DReport {
  std::string device;         ///< CUDA device name, or "none: <why>"
  double copy_gbps = 0;       ///< device copy kernel over one field, 0 without a device
  double host_copy_gbps = 0;  ///< host copy, measured when CPU rows run
  std::string commit;
  int steps = 0;
  std::string note;           ///< e.g. why the reference is missing
  std::vector<BenchRow3D> rows;
};

struct Deriv3DBenchOptions {
  Deriv3DConfig config;
  std::vector<Axis> axes{kAllAxes.begin(), kAllAxes.end()};
  int launches = 20;  ///< derivatives per timed run
  int repeats = 5;    ///< timed runs per GPU variant (median reported)
  std::vector<Deriv3DVariant> variants;
  Precision precision = Precision::f32;
  std::function<void(const std::string&)> progress;
};

struct Deriv3DBenchReport : Bench3DReport {
  Deriv3DSetup setup;
};

/// Runs every variant along every axis; throws ss::Error for bad input.
Deriv3DBenchReport run_deriv3d_bench(const Deriv3DBenchOptions& options);

struct Heat3DBenchOptions {
  Heat3DConfig config;
  int steps = 10;
  int repeats = 5;
  std::vector<Heat3DVariant> variants;
  Precision precision = Precision::f32;
  std::function<void(const std::string&)> progress;
};

struct Heat3DBenchReport : Bench3DReport {
  Heat3DSetup setup;
};

/// Runs each variant from the same initial field, checks it against the double
/// reference and the first GPU/cpu row bit for bit, and times it.
Heat3DBenchReport run_heat3d_bench(const Heat3DBenchOptions& options);

}  // namespace ss
