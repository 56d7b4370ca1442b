// The heat 2D benchmark: the rows of bench_rows.hpp with heat 2D's types, and the
// host copy every CPU row is divided by.
#include "bench_rows.hpp"
#include "stencilscope/bench.hpp"

namespace ss {

using bench_detail::Clock;
using bench_detail::median;
using bench_detail::ms_since;

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
  const Grid2D& g = report.setup.grid;
  const std::size_t value_bytes = o.precision == Precision::f32 ? sizeof(float) : sizeof(double);

  bench_detail::measure_copies(o.variants, g.elements() * value_bytes, o.progress, report);

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
  const Heat2DSetup& setup = report.setup;
  const std::vector<double>* ref = reference ? &*reference : nullptr;
  auto run = [&]<typename T>() {
    bench_detail::run_stepping_rows<bench_detail::SteppingModel<T, DeviceHeat2D<T>, HostHeat2D<T>, Heat2DVariant>>(
        o, setup, g.points(), g.elements(), ref, report,
        [&](Heat2DVariant) {
          BenchRow row;
          row.nx = g.nx;
          row.ny = g.ny;
          return row;
        },
        [&](const std::vector<T>& field) { return extract_interior(field, g); },
        [&] { return heat2d_reference(setup, o.steps); });
  };
  if (o.precision == Precision::f32) run.template operator()<float>();
  else run.template operator()<double>();
  return report;
}

}  // namespace ss
