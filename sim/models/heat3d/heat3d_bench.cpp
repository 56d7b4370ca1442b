// The heat3d benchmark: the heat 2D table for the 3D grid.
#include <fmt/format.h>

#include "sim/bench/bench_rows.hpp"
#include "sim/models/heat3d/heat3d_bench.hpp"

namespace ss {

BenchReport run_heat3d_bench(const Heat3DBenchOptions& o) {
  if (o.steps < 1) throw Error("--steps must be at least 1 (got " + std::to_string(o.steps) + ")");
  if (o.repeats < 1) throw Error("--repeat must be at least 1 (got " + std::to_string(o.repeats) + ")");
  if (o.variants.empty()) throw Error("no variant to run");
  BenchReport report;
  const Heat3DSetup setup = make_heat3d_setup(o.config);
  const Grid3D& g = setup.grid;
  report.model = "heat3d";
  report.title =
      fmt::format("heat3d {}x{}x{}, order {}, {} steps, boundary {}, initial {}, alpha {:g}, dt {:.4g} (limit {:.4g})",
                  g.nx, g.ny, g.nz, setup.config.order, o.steps, to_string(setup.config.boundary),
                  to_string(setup.config.initial), setup.config.alpha, setup.dt, setup.dt_limit);
  report.config = bench_detail::heat_config("heat3d", setup, o.steps, g.nz);
  report.columns = bench_detail::stepping_columns();
  report.footer =
      "GB/s counts one read and one write of each interior value per step (the boundary step included in the "
      "time); copy = GB/s over the copy of the same device (GPU rows: device copy kernel; CPU rows: host copy)";
  const std::size_t value_bytes = o.precision == Precision::f32 ? sizeof(float) : sizeof(double);
  bench_detail::measure_copies(o.variants, g.elements() * value_bytes, o.progress, report);
  std::optional<std::vector<double>> reference;
  if (!bench_detail::reference_skipped(report)) {
    try {
      check_host_memory(4 * g.points() * sizeof(double) + 2 * g.elements() * value_bytes,
                        "the double-precision reference on this grid");
      if (o.progress) o.progress("computing the double-precision reference");
      reference = heat3d_reference(setup, o.steps);
    } catch (const Error& e) {
      report.note = e.what();
    }
  }
  const std::vector<double>* ref = reference ? &*reference : nullptr;
  auto run = [&]<typename T>() {
    bench_detail::run_stepping_rows<bench_detail::SteppingModel<T, DeviceHeat3D<T>, HostHeat3D<T>, Heat3DVariant>>(
        o, setup, g.points(), g.elements(), ref, report,
        [&](Heat3DVariant) {
          BenchRow row;
          row.model = "heat3d";
          row.nx = g.nx;
          row.ny = g.ny;
          row.nz = g.nz;
          return row;
        },
        [&](const std::vector<T>& field) { return extract_interior3d(field, g); },
        [&] { return heat3d_reference(setup, o.steps); });
  };
  if (o.precision == Precision::f32) run.template operator()<float>();
  else run.template operator()<double>();
  return report;
}

}  // namespace ss
