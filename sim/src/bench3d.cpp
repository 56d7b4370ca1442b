// The 3D benchmarks: deriv3d (per axis and variant: the posts' error lines, time,
// bandwidth, copy ratio) and heat3d (the heat 2D table).
#include <algorithm>
#include <chrono>
#include <cstring>

#include "stencilscope/bench3d.hpp"
#include "stencilscope/build_info.hpp"
#include "stencilscope/device.hpp"
#include "stencilscope/error.hpp"

namespace ss {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

double median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

template <typename T>
bool bitwise_equal(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

// Fills the report's header: device, copy bandwidths, commit.
template <typename V>
void measure_copies(const std::vector<V>& variants, std::size_t field_bytes, const std::function<void(const std::string&)>& progress,
                    Bench3DReport& report) {
  auto gpu = [](V v) { return is_gpu(v); };
  const bool any_gpu = std::any_of(variants.begin(), variants.end(), gpu);
  const bool any_cpu = !std::all_of(variants.begin(), variants.end(), gpu);
  std::string why;
  const auto devices = cuda_devices(&why);
  report.device = devices.empty() ? "none: " + why : devices.front().name;
  report.commit = build_info().commit;
  if (any_gpu && !devices.empty()) {
    check_device_memory(2 * field_bytes, "this grid");  // fail before the reference is computed
    if (progress) progress("measuring the copy kernel");
    report.copy_gbps = measure_copy_gbps(field_bytes);
  }
  if (any_cpu) report.host_copy_gbps = measure_host_copy_gbps(field_bytes);
}

void fill_timing(BenchRow3D& row, std::size_t points, int steps, std::size_t value_bytes, double ms, double copy_gbps) {
  row.time_ms = ms;
  row.bandwidth_gbps = effective_gbps(points, steps, value_bytes, ms);
  row.mcups = mcups(points, steps, ms);
  row.copy_ratio = copy_gbps > 0 ? row.bandwidth_gbps / copy_gbps : 0;
}

// ---- deriv3d ---------------------------------------------------------------

template <typename T>
void run_deriv_rows(const Deriv3DBenchOptions& o, Deriv3DBenchReport& report) {
  const Deriv3DSetup& s = report.setup;
  const Grid3D& g = s.grid;
  std::string no_device;
  const bool have_device = cuda_available(&no_device);
  std::optional<DeviceDeriv3D<T>> gpu;
  std::optional<std::vector<T>> input;  // host copy of f, for the cpu variant
  for (Axis axis : o.axes) {
    const std::vector<double> exact = deriv3d_exact_interior(s, axis);
    if (o.progress) o.progress("computing the double-precision reference along " + std::string(to_string(axis)));
    const auto t_ref = Clock::now();
    const std::vector<double> reference = deriv3d_reference(s, axis);
    const double ref_ms = ms_since(t_ref);
    std::optional<std::vector<T>> base;  // first GPU or cpu result along this axis
    for (Deriv3DVariant v : o.variants) {
      BenchRow3D row;
      row.model = "deriv3d";
      row.variant = std::string(to_string(v));
      row.device = is_gpu(v) ? "gpu" : "cpu";
      row.order = s.config.order;
      row.precision = std::string(to_string(v == Deriv3DVariant::reference ? Precision::f64 : o.precision));
      row.nx = g.nx;
      row.ny = g.ny;
      row.nz = g.nz;
      row.axis = std::string(to_string(axis));
      row.steps = is_gpu(v) ? o.launches : 1;
      auto check = [&](const std::vector<T>& out) {
        const DerivErrors e = deriv_errors(out, exact);
        row.rms_error = e.rms;
        row.max_error = e.max;
        row.errors = compare_to_reference(out, reference);
        if (!base) base = out;
        else row.bitwise_equal = bitwise_equal(out, *base);
      };
      if (is_gpu(v)) {
        if (!have_device) {
          row.skipped = no_device;
          report.rows.push_back(row);
          continue;
        }
        if (!gpu) gpu.emplace(s);
        row.skipped = gpu->unsupported(v, axis);
        if (!row.skipped.empty()) {
          report.rows.push_back(row);
          continue;
        }
        if (o.progress) o.progress("running " + row.variant + " along " + row.axis + " on the GPU");
        gpu->poison_output();
        gpu->run(v, axis);
        check(gpu->output_interior());
        std::vector<double> times;
        for (int r = 0; r < o.repeats; ++r) times.push_back(gpu->timed(v, axis, o.launches));
        fill_timing(row, g.points(), 1, sizeof(T), median(times), report.copy_gbps);
      } else if (v == Deriv3DVariant::cpu) {
        if (o.progress) o.progress("running cpu along " + row.axis);
        if (!input) {
          check_host_memory(2 * g.elements() * sizeof(T), "the cpu variant on this grid");
          input = deriv3d_input<T>(s);
        }
        std::vector<T> out(g.elements(), std::numeric_limits<T>::quiet_NaN());
        const auto t0 = Clock::now();
        deriv3d_cpu(s, axis, input->data(), out.data());
        fill_timing(row, g.points(), 1, sizeof(T), ms_since(t0), report.host_copy_gbps);
        check(extract_interior3d(out, g));
      } else {  // reference: its own time, its own errors against the exact derivative
        const DerivErrors e = deriv_errors(reference, exact);
        row.rms_error = e.rms;
        row.max_error = e.max;
        row.errors = compare_to_reference(reference, reference);
        fill_timing(row, g.points(), 1, sizeof(double), ref_ms, report.host_copy_gbps);
      }
      report.rows.push_back(row);
    }
  }
}

// ---- heat3d ----------------------------------------------------------------

template <typename T>
void run_heat_rows(const Heat3DBenchOptions& o, const std::vector<double>* reference, Heat3DBenchReport& report) {
  const Heat3DSetup& s = report.setup;
  const Grid3D& g = s.grid;
  std::optional<std::vector<T>> base;
  std::string no_device;
  const bool have_device = cuda_available(&no_device);
  std::optional<DeviceHeat3D<T>> gpu;
  auto check = [&](BenchRow3D& row, const std::vector<T>& interior) {
    if (reference) row.errors = compare_to_reference(interior, *reference);
    if (!base) base = interior;
    else row.bitwise_equal = bitwise_equal(interior, *base);
  };
  for (Heat3DVariant v : o.variants) {
    BenchRow3D row;
    row.model = "heat3d";
    row.variant = std::string(to_string(v));
    row.device = is_gpu(v) ? "gpu" : "cpu";
    row.order = s.config.order;
    row.precision = std::string(to_string(v == Heat3DVariant::reference ? Precision::f64 : o.precision));
    row.nx = g.nx;
    row.ny = g.ny;
    row.nz = g.nz;
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
      check(row, extract_interior3d(gpu->download(), g));
      std::vector<double> times;
      for (int r = 0; r < o.repeats; ++r) {
        gpu->reset();
        times.push_back(gpu->timed_steps(v, o.steps));
      }
      fill_timing(row, g.points(), o.steps, sizeof(T), median(times), report.copy_gbps);
    } else if (v == Heat3DVariant::cpu) {
      if (o.progress) o.progress("running cpu");
      check_host_memory(2 * g.elements() * sizeof(T), "the cpu variant on this grid");
      HostHeat3D<T> host(s);
      host.poison_scratch();
      const auto t0 = Clock::now();
      host.step(o.steps);
      fill_timing(row, g.points(), o.steps, sizeof(T), ms_since(t0), report.host_copy_gbps);
      check(row, extract_interior3d(host.field(), g));
    } else {
      if (!reference) {
        row.skipped = report.note;
        report.rows.push_back(row);
        continue;
      }
      if (o.progress) o.progress("timing the reference");
      const auto t0 = Clock::now();
      const std::vector<double> again = heat3d_reference(s, o.steps);
      fill_timing(row, g.points(), o.steps, sizeof(double), ms_since(t0), report.host_copy_gbps);
      row.errors = compare_to_reference(again, *reference);
    }
    report.rows.push_back(row);
  }
}

}  // namespace

Deriv3DBenchReport run_deriv3d_bench(const Deriv3DBenchOptions& o) {
  if (o.launches < 1) throw Error("--steps must be at least 1 (got " + std::to_string(o.launches) + ")");
  if (o.repeats < 1) throw Error("--repeat must be at least 1 (got " + std::to_string(o.repeats) + ")");
  if (o.variants.empty()) throw Error("no variant to run");
  if (o.axes.empty()) throw Error("no axis to run");
  Deriv3DBenchReport report;
  report.setup = make_deriv3d_setup(o.config);
  report.steps = o.launches;
  const Grid3D& g = report.setup.grid;
  const std::size_t value_bytes = o.precision == Precision::f32 ? sizeof(float) : sizeof(double);
  measure_copies(o.variants, g.elements() * value_bytes, o.progress, report);
  // The reference and the exact derivative: three double arrays of the interior.
  check_host_memory(3 * g.points() * sizeof(double) + 2 * g.elements() * value_bytes,
                    "the double-precision reference on this grid");
  if (o.precision == Precision::f32) run_deriv_rows<float>(o, report);
  else run_deriv_rows<double>(o, report);
  return report;
}

Heat3DBenchReport run_heat3d_bench(const Heat3DBenchOptions& o) {
  if (o.steps < 1) throw Error("--steps must be at least 1 (got " + std::to_string(o.steps) + ")");
  if (o.repeats < 1) throw Error("--repeat must be at least 1 (got " + std::to_string(o.repeats) + ")");
  if (o.variants.empty()) throw Error("no variant to run");
  Heat3DBenchReport report;
  report.setup = make_heat3d_setup(o.config);
  report.steps = o.steps;
  const Grid3D& g = report.setup.grid;
  const std::size_t value_bytes = o.precision == Precision::f32 ? sizeof(float) : sizeof(double);
  measure_copies(o.variants, g.elements() * value_bytes, o.progress, report);
  std::optional<std::vector<double>> reference;
  try {
    check_host_memory(4 * g.points() * sizeof(double) + 2 * g.elements() * value_bytes,
                      "the double-precision reference on this grid");
    if (o.progress) o.progress("computing the double-precision reference");
    reference = heat3d_reference(report.setup, o.steps);
  } catch (const Error& e) {
    report.note = e.what();
  }
  if (o.precision == Precision::f32) run_heat_rows<float>(o, reference ? &*reference : nullptr, report);
  else run_heat_rows<double>(o, reference ? &*reference : nullptr, report);
  return report;
}

}  // namespace ss
