// The deriv3d benchmark: per axis and variant the posts' error lines, time,
// bandwidth and copy ratio.
#include <limits>

#include <fmt/format.h>

#include "sim/bench/bench_rows.hpp"
#include "sim/models/deriv3d/deriv3d_bench.hpp"

namespace ss {

namespace {

using bench_detail::bitwise_equal;
using bench_detail::Clock;
using bench_detail::fill_timing;
using bench_detail::measure_copies;
using bench_detail::median;
using bench_detail::ms_since;

template <typename T>
void run_deriv_rows(const Deriv3DBenchOptions& o, const Deriv3DSetup& s, BenchReport& report) {
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
    std::optional<std::vector<T>> base;  // first result through deriv_point along this axis
    for (Deriv3DVariant v : o.variants) {
      BenchRow row;
      row.model = "deriv3d";
      row.variant = std::string(to_string(v));
      row.device = is_gpu(v) ? "gpu" : "cpu";
      row.order = s.config.order;
      row.precision = std::string(to_string(v == Deriv3DVariant::reference ? Precision::f64 : o.precision));
      row.nx = g.nx;
      row.ny = g.ny;
      row.nz = g.nz;
      row.labels = {{"axis", std::string(to_string(axis))}};
      row.steps = is_gpu(v) ? o.launches : 1;
      row.own_summation = is_posts_kernel(v);
      auto check = [&](const std::vector<T>& out) {
        const DerivErrors e = deriv_errors(out, exact);
        row.figures = {{"rms_error", e.rms}, {"max_error", e.max}};
        row.errors = compare_to_reference(out, reference);
        if (!uses_deriv_point(v)) return;  // the posts' kernels: their own summation order
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
        if (o.progress) o.progress("running " + row.variant + " along " + std::string(to_string(axis)) + " on the GPU");
        gpu->poison_output();
        gpu->run(v, axis);
        check(gpu->output_interior());
        std::vector<double> times;
        for (int r = 0; r < o.repeats; ++r) times.push_back(gpu->timed(v, axis, o.launches));
        fill_timing(row, g.points(), 1, sizeof(T), median(times), report.copy_gbps);
      } else if (v == Deriv3DVariant::cpu) {
        if (o.progress) o.progress("running cpu along " + std::string(to_string(axis)));
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
        row.figures = {{"rms_error", e.rms}, {"max_error", e.max}};
        row.errors = compare_to_reference(reference, reference);
        fill_timing(row, g.points(), 1, sizeof(double), ref_ms, report.host_copy_gbps);
      }
      report.rows.push_back(row);
    }
  }
}

}  // namespace

BenchReport run_deriv3d_bench(const Deriv3DBenchOptions& o) {
  if (o.launches < 1) throw Error("--steps must be at least 1 (got " + std::to_string(o.launches) + ")");
  if (o.repeats < 1) throw Error("--repeat must be at least 1 (got " + std::to_string(o.repeats) + ")");
  if (o.variants.empty()) throw Error("no variant to run");
  if (o.axes.empty()) throw Error("no axis to run");
  BenchReport report;
  const Deriv3DSetup setup = make_deriv3d_setup(o.config);
  const Grid3D& g = setup.grid;
  report.model = "deriv3d";
  report.title = fmt::format(
      "deriv3d {}x{}x{}, order {}, f = cos(2 pi (x + y + z)) on the periodic unit cube, {} launches per timed run", g.nx,
      g.ny, g.nz, setup.config.order, o.launches);
  report.config = {{"model", std::string("deriv3d")},
                   {"nx", static_cast<long long>(g.nx)},
                   {"ny", static_cast<long long>(g.ny)},
                   {"nz", static_cast<long long>(g.nz)},
                   {"order", static_cast<long long>(setup.config.order)},
                   {"steps", static_cast<long long>(o.launches)},
                   {"function", std::string("cos(2 pi (x + y + z))")}};
  report.columns = {{"axis", "axis", 4, "{}", true},
                    {"variant", "variant", 13, "{}", true},
                    {"device", "device", 6, "{}", true},
                    {"precision", "prec", 7, "{}", true},
                    {"rms_error", "RMS error", 10, "{:.3e}"},
                    {"max_error", "MAX error", 12, "{:.3e}"},
                    {"time_ms", "time (ms)", 12, "{:.5f}"},
                    {"bandwidth_gbps", "GB/s", 10, "{:.1f}"},
                    {"mcups", "MCUPS", 9, "{:.0f}"},
                    {"copy_ratio", "copy", 6, "{:.3f}"},
                    {"rel_l2", "rel L2", 10, "{:.3g}"},
                    {"bitwise", "bitwise", 8, "{}"}};
  report.footer =
      "errors against the exact derivative (the posts' lines); rel L2 against the double reference; time of one "
      "derivative; GB/s counts one read and one write of each interior value; copy = GB/s over the copy of the "
      "same device (GPU rows: device copy kernel; CPU rows: host copy); bitwise against the axis's first row "
      "that sums through the shared point function (posts-*: the posts' kernels as published, their own "
      "summation order)";
  const std::size_t value_bytes = o.precision == Precision::f32 ? sizeof(float) : sizeof(double);
  measure_copies(o.variants, g.elements() * value_bytes, o.progress, report);
  // The reference and the exact derivative: three double arrays of the interior.
  check_host_memory(3 * g.points() * sizeof(double) + 2 * g.elements() * value_bytes,
                    "the double-precision reference on this grid");
  if (o.precision == Precision::f32) run_deriv_rows<float>(o, setup, report);
  else run_deriv_rows<double>(o, setup, report);
  return report;
}

}  // namespace ss
