#pragma once
// The heat 2D benchmark behind `stencilscope bench heat2d`: runs each requested
// variant from the same initial field, checks it against the double reference,
// times it, and reports bandwidth as a ratio to a copy measured in the same run.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "stencilscope/heat2d_solver.hpp"

namespace ss {

struct Heat2DBenchOptions {
  Heat2DConfig config;                        ///< size, order, boundary, ...
  int steps = 10;                             ///< time steps per timed run
  int repeats = 5;                            ///< timed runs per GPU variant (median reported)
  std::vector<Heat2DVariant> variants;        ///< in the order the rows appear
  Precision precision = Precision::f32;
  std::function<void(const std::string&)> progress;  ///< told before each long piece of work
};

struct BenchRow {
  std::string model = "heat2d";
  std::string variant;
  std::string device;         ///< "gpu" or "cpu"
  int order = 0;
  std::string precision;
  int nx = 0, ny = 0;
  int steps = 0;
  double time_ms = 0;         ///< median time of `steps` steps
  double bandwidth_gbps = 0;  ///< 2 * sizeof(value) * nx * ny * steps / time
  double mcups = 0;           ///< million cell updates per second
  double copy_ratio = 0;      ///< bandwidth / copy bandwidth of the same device, same run
  std::optional<ErrorNorms> errors;      ///< against the reference; empty when it was not computed
  std::optional<bool> bitwise_equal;     ///< GPU rows and `cpu`: equal bit for bit to the first such row
  std::string skipped;        ///< non-empty: why the row did not run
};

struct BenchReport {
  std::string device;          ///< CUDA device name, or "none: <why>"
  double copy_gbps = 0;        ///< device copy kernel, 0 without a device
  double host_copy_gbps = 0;   ///< host copy, measured when CPU rows run
  std::string commit;
  Heat2DSetup setup;
  int steps = 0;
  std::string note;            ///< e.g. why errors are missing
  std::vector<BenchRow> rows;
};

/// Runs the benchmark; throws ss::Error for bad input (sizes that do not fit, ...).
BenchReport run_heat2d_bench(const Heat2DBenchOptions& options);

/// Host copy bandwidth (read + write) over `bytes`, parallel where OpenMP is on.
double measure_host_copy_gbps(std::size_t bytes);

}  // namespace ss
