#pragma once
// A benchmark report as every model gives it to `bench`: the device and the copy
// bandwidths the rows are divided by, the configuration, and one row per variant (and
// per swept parameter, e.g. deriv3d's axis), with the columns the model's table shows.
// app/bench_command.cpp prints it as a table and as JSON; no model is named there.
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace ss {

/// Errors of a result against the reference, as in the CME 213 seed.
struct ErrorNorms {
  double ref_l2 = 0;    ///< sqrt(sum ref^2)
  double rel_linf = 0;  ///< max |a - ref| / max |ref|
  double rel_l2 = 0;    ///< sqrt(sum (a - ref)^2) / sqrt(sum ref^2)
  bool finite = true;   ///< false when the result holds NaN or Inf
};
/// The norms of `interior` against `reference` (same size and layout).
template <typename T>
ErrorNorms compare_to_reference(const std::vector<T>& interior, const std::vector<double>& reference);

/// One row: a variant's timing, figures and checks.
struct BenchRow {
  std::string model;
  std::string variant;
  std::string device;         ///< "gpu" or "cpu"
  int order = 0;
  std::string precision;
  int nx = 0, ny = 0;
  int nz = 0;                 ///< 0 for 2D models
  int steps = 0;
  double time_ms = 0;         ///< median time of `steps` steps
  double bandwidth_gbps = 0;  ///< the model's bytes per step * steps / time
  double mcups = 0;           ///< million cell updates per second
  double copy_ratio = 0;      ///< bandwidth / copy bandwidth of the same device, same run
  std::optional<ErrorNorms> errors;   ///< against the reference; empty when it was not computed
  std::optional<bool> bitwise_equal;  ///< compared with the first row of its group
  bool own_summation = false;         ///< sums the stencil its own way: never compared bit for bit
  std::string skipped;                ///< non-empty: why the row did not run
  std::vector<std::pair<std::string, std::string>> labels;             ///< e.g. {"axis", "x"}
  std::vector<std::pair<std::string, std::optional<double>>> figures;  ///< e.g. {"rms_error", 1e-7}

  /// The label or figure named `key` (nullptr / empty when the row has none).
  const std::string* label(const std::string& key) const;
  std::optional<double> figure(const std::string& key) const;
};

/// A table column: a row field ("variant", "device", "precision", "time_ms",
/// "bandwidth_gbps", "mcups", "copy_ratio", "ref_l2_norm", "rel_linf", "rel_l2",
/// "bitwise") or one of the rows' labels or figures, by key.
struct BenchColumn {
  std::string key;
  std::string header;
  int width = 10;
  std::string format = "{}";  ///< fmt spec of a number, e.g. "{:.3f}"
  bool left = false;          ///< left-aligned (words)
};

/// A configuration value in the report's JSON.
using ConfigValue = std::variant<long long, double, std::string>;

struct BenchReport {
  std::string model;
  std::string title;           ///< the table's first line: the configuration in words
  std::string device;          ///< CUDA device name, or "none: <why>"
  double copy_gbps = 0;        ///< device copy kernel, 0 without a device
  double host_copy_gbps = 0;   ///< host copy, measured when CPU rows run
  std::string commit;
  std::string note;            ///< e.g. why errors are missing
  std::vector<std::pair<std::string, ConfigValue>> config;  ///< the JSON "config" object, in order
  std::vector<BenchColumn> columns;
  std::string footer;          ///< under the table: what the figures count
  std::vector<BenchRow> rows;
};

}  // namespace ss
