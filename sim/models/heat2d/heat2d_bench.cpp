// The heat 2D benchmark: the rows of bench_rows.hpp with heat 2D's types, and the
// host copy every CPU row is divided by.
#include <fmt/format.h>

#include "sim/bench/bench_rows.hpp"
#include "sim/models/heat2d/heat2d_bench.hpp"

namespace ss {

using bench_detail::Clock;
using bench_detail::median;
using bench_detail::ms_since;

BenchReport run_heat2d_bench(const Heat2DBenchOptions& o) {
  if (o.steps < 1) throw Error("--steps must be at least 1 (got " + std::to_string(o.steps) + ")");
  if (o.repeats < 1) throw Error("--repeat must be at least 1 (got " + std::to_string(o.repeats) + ")");
  if (o.variants.empty()) throw Error("no variant to run");
  BenchReport report;
  const Heat2DSetup setup = make_heat2d_setup(o.config);
  const Grid2D& g = setup.grid;
  report.model = "heat2d";
  report.title = fmt::format("heat2d {}x{}, order {}, {} steps, boundary {}, initial {}, alpha {:g}, dt {:.4g} (limit {:.4g})",
                             g.nx, g.ny, setup.config.order, o.steps, to_string(setup.config.boundary),
                             to_string(setup.config.initial), setup.config.alpha, setup.dt, setup.dt_limit);
  report.config = bench_detail::heat_config("heat2d", setup, o.steps, 0);
  report.columns = bench_detail::stepping_columns();
  report.footer =
      "GB/s counts one read and one write of each interior value per step; copy = GB/s over the copy of the same "
      "device (GPU rows: device copy kernel; CPU rows: host copy)";
  const std::size_t value_bytes = o.precision == Precision::f32 ? sizeof(float) : sizeof(double);

  bench_detail::measure_copies(o.variants, g.elements() * value_bytes, o.progress, report);

  // The reference: interior plus its own padded buffers, all in double.
  const std::size_t ref_bytes = 2 * g.elements() * sizeof(double) + 2 * g.points() * sizeof(double);
  std::optional<std::vector<double>> reference;
  if (!bench_detail::reference_skipped(report)) {
    try {
      check_host_memory(ref_bytes, "the double-precision reference on this grid");
      if (o.progress) o.progress("computing the double-precision reference");
      reference = heat2d_reference(setup, o.steps);
    } catch (const Error& e) {
      report.note = e.what();
    }
  }
  const std::vector<double>* ref = reference ? &*reference : nullptr;
  auto run = [&]<typename T>() {
    bench_detail::run_stepping_rows<bench_detail::SteppingModel<T, DeviceHeat2D<T>, HostHeat2D<T>, Heat2DVariant>>(
        o, setup, g.points(), g.elements(), ref, report,
        [&](Heat2DVariant) {
          BenchRow row;
          row.model = "heat2d";
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
