#pragma once
// What the benchmarks share (sim/src only): timing helpers, the report header
// (device, copy bandwidths, commit), a row's bandwidth figures, and the rows of a
// time-stepping model (heat 2D, heat 3D), which differ only in their types.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/bench/report.hpp"
#include "sim/core/build_info.hpp"
#include "sim/core/device.hpp"
#include "sim/core/error.hpp"
#include "sim/core/precision.hpp"

namespace ss::bench_detail {

using Clock = std::chrono::steady_clock;

inline double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

inline double median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

template <typename T>
bool bitwise_equal(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

/// A report's header: the device, the copy bandwidths each kind of row is divided
/// by, the commit. Fails before any reference is computed when the grid cannot fit.
template <typename Report, typename V>
void measure_copies(const std::vector<V>& variants, std::size_t field_bytes,
                    const std::function<void(const std::string&)>& progress, Report& report) {
  auto gpu = [](V v) { return is_gpu(v); };
  const bool any_gpu = std::any_of(variants.begin(), variants.end(), gpu);
  const bool any_cpu = !std::all_of(variants.begin(), variants.end(), gpu);
  std::string why;
  const auto devices = cuda_devices(&why);
  report.device = devices.empty() ? "none: " + why : devices.front().name;
  report.commit = build_info().commit;
  if (any_gpu && !devices.empty()) {
    check_device_memory(2 * field_bytes, "this grid");
    if (progress) progress("measuring the copy kernel");
    report.copy_gbps = measure_copy_gbps(field_bytes);
  }
  if (any_cpu) {
    check_host_memory(2 * field_bytes, "a CPU run on this grid");  // before the host copy allocates as much
    report.host_copy_gbps = measure_host_copy_gbps(field_bytes);
  }
}

/// For tuning sweeps on the device (tests/device/*.sh): STENCILSCOPE_BENCH_NO_REFERENCE
/// set (and not "0") skips the double reference, which at 512^3 takes longer than the
/// timed runs; the rows are still compared bit for bit with the first. Says so in the
/// report's note when it does.
template <typename Report>
bool reference_skipped(Report& report) {
  const char* e = std::getenv("STENCILSCOPE_BENCH_NO_REFERENCE");
  if (!e || !*e || std::strcmp(e, "0") == 0) return false;
  report.note = "the double reference was not computed (STENCILSCOPE_BENCH_NO_REFERENCE)";
  return true;
}

/// The columns of a time-stepping model's table (heat 2D, heat 3D): time, bandwidth,
/// copy ratio and the reference's error norms.
inline std::vector<BenchColumn> stepping_columns() {
  return {{"variant", "variant", 10, "{}", true},
          {"device", "device", 6, "{}", true},
          {"precision", "prec", 7, "{}", true},
          {"time_ms", "time (ms)", 11, "{:.3f}"},
          {"bandwidth_gbps", "GB/s", 10, "{:.1f}"},
          {"mcups", "MCUPS", 10, "{:.1f}"},
          {"copy_ratio", "copy", 6, "{:.3f}"},
          {"ref_l2_norm", "ref L2 norm", 12, "{:.5g}"},
          {"rel_linf", "rel Linf", 10, "{:.3g}"},
          {"rel_l2", "rel L2", 10, "{:.3g}"},
          {"bitwise", "bitwise", 8, "{}"}};
}

/// The JSON "config" of a heat model (2D, or 3D with nz) run for `steps` steps.
template <typename Setup>
std::vector<std::pair<std::string, ConfigValue>> heat_config(const char* model, const Setup& s, int steps, int nz) {
  std::vector<std::pair<std::string, ConfigValue>> c = {
      {"model", std::string(model)},
      {"nx", static_cast<long long>(s.grid.nx)},
      {"ny", static_cast<long long>(s.grid.ny)},
      {"order", static_cast<long long>(s.config.order)},
      {"steps", static_cast<long long>(steps)},
      {"boundary", std::string(to_string(s.config.boundary))},
      {"initial", std::string(to_string(s.config.initial))},
      {"alpha", s.config.alpha},
      {"dt", s.dt},
      {"dt_limit", s.dt_limit}};
  if (nz > 0) c.emplace_back("nz", static_cast<long long>(nz));
  return c;
}

/// Time, effective bandwidth, MCUPS and copy ratio of a row.
inline void fill_timing(BenchRow& row, std::size_t points, int steps, std::size_t value_bytes, double ms,
                        double copy_gbps) {
  row.time_ms = ms;
  row.bandwidth_gbps = effective_gbps(points, steps, value_bytes, ms);
  row.mcups = mcups(points, steps, ms);
  row.copy_ratio = copy_gbps > 0 ? row.bandwidth_gbps / copy_gbps : 0;
}

/// The types a time-stepping model brings to run_stepping_rows.
template <typename T, typename DeviceSolver, typename HostSolver, typename Variant>
struct SteppingModel {
  using value_type = T;
  using device_solver = DeviceSolver;
  using host_solver = HostSolver;
  using variant = Variant;
};

/// Runs every variant of a time-stepping model from the same initial field: GPU
/// rows with the scratch buffer poisoned, then timed (median of o.repeats); `cpu`
/// once, timed; each checked against the double reference and, bit for bit,
/// against the first GPU or cpu row; the reference row timed on its own.
/// make_row(v) fills a row's model fields, interior(field) cuts the interior out
/// of a padded field, run_reference() steps the double reference again.
template <typename Model, typename Options, typename Setup, typename Report, typename MakeRow, typename Interior,
          typename RunReference>
void run_stepping_rows(const Options& o, const Setup& s, std::size_t points, std::size_t elements,
                       const std::vector<double>* reference, Report& report, MakeRow make_row, Interior interior,
                       RunReference run_reference) {
  using T = typename Model::value_type;
  using V = typename Model::variant;
  std::optional<std::vector<T>> base;  // the first GPU/cpu field, for bitwise comparison
  std::string no_device;
  const bool have_device = cuda_available(&no_device);
  std::optional<typename Model::device_solver> gpu;
  auto check = [&](BenchRow& row, const std::vector<T>& values) {
    if (reference) row.errors = compare_to_reference(values, *reference);
    if (!base) base = values;
    else row.bitwise_equal = bitwise_equal(values, *base);
  };
  for (V v : o.variants) {
    auto row = make_row(v);
    row.variant = std::string(to_string(v));
    row.device = is_gpu(v) ? "gpu" : "cpu";
    row.order = s.config.order;
    row.precision = std::string(to_string(v == V::reference ? Precision::f64 : o.precision));
    row.steps = o.steps;
    if (is_gpu(v)) {
      if (!have_device) {
        row.skipped = no_device;
        report.rows.push_back(row);
        continue;
      }
      if (!gpu) gpu.emplace(s);
      if (o.progress) o.progress("running " + row.variant + " on the GPU");
      gpu->reset();
      gpu->poison_scratch();
      gpu->step(v, o.steps);
      check(row, interior(gpu->download()));
      std::vector<double> times;
      for (int r = 0; r < o.repeats; ++r) {
        gpu->reset();
        times.push_back(gpu->timed_steps(v, o.steps));
      }
      fill_timing(row, points, o.steps, sizeof(T), median(times), report.copy_gbps);
    } else if (v == V::cpu) {
      if (o.progress) o.progress("running cpu");
      check_host_memory(2 * elements * sizeof(T), "the cpu variant on this grid");
      typename Model::host_solver host(s);
      host.poison_scratch();
      const auto t0 = Clock::now();
      host.step(o.steps);
      fill_timing(row, points, o.steps, sizeof(T), ms_since(t0), report.host_copy_gbps);
      check(row, interior(host.field()));
    } else {  // reference: its own time; compared with itself, its errors are zero by definition
      if (!reference) {
        row.skipped = report.note;
        report.rows.push_back(row);
        continue;
      }
      if (o.progress) o.progress("timing the reference");
      const auto t0 = Clock::now();
      const std::vector<double> again = run_reference();
      fill_timing(row, points, o.steps, sizeof(double), ms_since(t0), report.host_copy_gbps);
      row.errors = compare_to_reference(again, *reference);
    }
    report.rows.push_back(row);
  }
}

}  // namespace ss::bench_detail
