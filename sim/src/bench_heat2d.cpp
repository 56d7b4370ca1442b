#include <algorithm>
#include <chrono>
#include <cstring>

#include "stencilscope/bench.hpp"
#include "stencilscope/build_info.hpp"
#include "stencilscope/device.hpp"
#include "stencilscope/error.hpp"

namespace ss {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

template <typename T>
bool bitwise_equal(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

template <typename T>
void run_rows(const Heat2DBenchOptions& o, const Heat2DSetup& setup, const std::vector<double>* reference,
              BenchReport& report) {
  const Grid2D& g = setup.grid;
  const std::size_t value_bytes = sizeof(T);
  std::optional<std::vector<T>> first_result;  // the first GPU/cpu field, for bitwise comparison
  std::string no_device;
  const bool have_device = cuda_available(&no_device);
  std::optional<DeviceHeat2D<T>> gpu;

  auto fill = [&](BenchRow& row, double ms, double copy_gbps) {
    row.time_ms = ms;
    row.bandwidth_gbps = effective_gbps(g.points(), o.steps, value_bytes, ms);
    row.mcups = mcups(g.points(), o.steps, ms);
    row.copy_ratio = copy_gbps > 0 ? row.bandwidth_gbps / copy_gbps : 0;
  };
  auto check = [&](BenchRow& row, const std::vector<T>& interior) {
    if (reference) row.errors = compare_to_reference(interior, *reference);
    if (!first_result) {
      first_result = interior;  // the base the later rows are compared with
    } else {
      row.bitwise_equal = bitwise_equal(interior, *first_result);
    }
  };

  for (Heat2DVariant v : o.variants) {
    BenchRow row;
    row.variant = std::string(to_string(v));
    row.device = is_gpu(v) ? "gpu" : "cpu";
    row.order = setup.config.order;
    row.precision = std::string(to_string(v == Heat2DVariant::reference ? Precision::f64 : o.precision));
    row.nx = g.nx;
    row.ny = g.ny;
    row.steps = o.steps;
    if (is_gpu(v)) {
      if (!have_device) {
        row.skipped = no_device;
        report.rows.push_back(row);
        continue;
      }
      if (!gpu) gpu.emplace(setup);
      if (o.progress) o.progress("running " + row.variant + " on the GPU");
      gpu->reset();
      gpu->poison_scratch();
      gpu->step(v, o.steps);
      check(row, extract_interior(gpu->download(), g));
      std::vector<double> times;
      for (int r = 0; r < o.repeats; ++r) {
        gpu->reset();
        times.push_back(gpu->timed_steps(v, o.steps));
      }
      fill(row, median(times), report.copy_gbps);
    } else if (v == Heat2DVariant::cpu) {
      if (o.progress) o.progress("running cpu");
      check_host_memory(2 * g.elements() * sizeof(T), "the cpu variant on this grid");
      HostHeat2D<T> host(setup);
      host.poison_scratch();
      const auto t0 = Clock::now();
      host.step(o.steps);
      fill(row, ms_since(t0), report.host_copy_gbps);
      check(row, extract_interior(host.field(), g));
    } else {  // reference: its own time; compared with itself, its errors are zero by definition
      if (!reference) {
        row.skipped = report.note;
        report.rows.push_back(row);
        continue;
      }
      if (o.progress) o.progress("timing the reference");
      const auto t0 = Clock::now();
      const std::vector<double> again = heat2d_reference(setup, o.steps);
      row.time_ms = ms_since(t0);
      row.bandwidth_gbps = effective_gbps(g.points(), o.steps, sizeof(double), row.time_ms);
      row.mcups = mcups(g.points(), o.steps, row.time_ms);
      row.copy_ratio = report.host_copy_gbps > 0 ? row.bandwidth_gbps / report.host_copy_gbps : 0;
      row.errors = compare_to_reference(again, *reference);
    }
    report.rows.push_back(row);
  }
}

}  // namespace

double measure_host_copy_gbps(std::size_t bytes) {
  const std::size_t n = std::max<std::size_t>(bytes / sizeof(double), 1);
  std::vector<double> a(n, 1.5), b(n, 0.0);
  std::vector<double> times;
  for (int r = 0; r < 4; ++r) {
    const auto t0 = Clock::now();
#pragma omp parallel for schedule(static)
    for (std::size_t k = 0; k < n; ++k) b[k] = a[k];
    times.push_back(ms_since(t0));
  }
  times.erase(times.begin());  // first touch
  return 2.0 * n * sizeof(double) / (median(times) * 1e6);
}

BenchReport run_heat2d_bench(const Heat2DBenchOptions& o) {
  if (o.steps < 1) throw Error("--steps must be at least 1 (got " + std::to_string(o.steps) + ")");
  if (o.repeats < 1) throw Error("--repeat must be at least 1 (got " + std::to_string(o.repeats) + ")");
  if (o.variants.empty()) throw Error("no variant to run");
  BenchReport report;
  report.setup = make_heat2d_setup(o.config);
  report.steps = o.steps;
  report.commit = build_info().commit;
  const Grid2D& g = report.setup.grid;
  const std::size_t value_bytes = o.precision == Precision::f32 ? sizeof(float) : sizeof(double);

  const bool any_gpu = std::any_of(o.variants.begin(), o.variants.end(), is_gpu);
  const bool any_cpu = !std::all_of(o.variants.begin(), o.variants.end(), is_gpu);
  std::string why;
  const auto devices = cuda_devices(&why);
  report.device = devices.empty() ? "none: " + why : devices.front().name;
  if (any_gpu && !devices.empty()) {
    // Fail early, before the reference is computed, when the grid cannot fit.
    check_device_memory(2 * g.elements() * value_bytes, "this grid");
    if (o.progress) o.progress("measuring the copy kernel");
    report.copy_gbps = measure_copy_gbps(g.elements() * value_bytes);
  }
  if (any_cpu) report.host_copy_gbps = measure_host_copy_gbps(g.elements() * value_bytes);

  // The reference: interior plus its own padded buffers, all in double.
  const std::size_t ref_bytes = 2 * g.elements() * sizeof(double) + 2 * g.points() * sizeof(double);
  std::optional<std::vector<double>> reference;
  try {
    check_host_memory(ref_bytes, "the double-precision reference on this grid");
    if (o.progress) o.progress("computing the double-precision reference");
    reference = heat2d_reference(report.setup, o.steps);
  } catch (const Error& e) {
    report.note = e.what();
  }
  if (o.precision == Precision::f32)
    run_rows<float>(o, report.setup, reference ? &*reference : nullptr, report);
  else
    run_rows<double>(o, report.setup, reference ? &*reference : nullptr, report);
  return report;
}

}  // namespace ss
