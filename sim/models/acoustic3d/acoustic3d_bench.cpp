// The acoustic3d benchmark: the stepping table with acoustic accounting (4 values per node).
#include "sim/models/acoustic3d/acoustic3d_bench.hpp"

#include <cstdlib>
#include <optional>
#include <string_view>

#include <fmt/format.h>

#include "sim/bench/bench_rows.hpp"
#include "sim/models/acoustic3d/acoustic3d_solver.hpp"

namespace ss {

namespace {

void fill_acoustic_timing(BenchRow& row, std::size_t points, int steps, std::size_t value_bytes, double ms,
                          double copy_gbps) {
  row.time_ms = ms;
  row.bandwidth_gbps = kAcousticValuesPerNode * static_cast<double>(value_bytes) * static_cast<double>(points) * steps /
                       (ms * 1e6);
  row.mcups = mcups(points, steps, ms);
  row.copy_ratio = copy_gbps > 0 ? row.bandwidth_gbps / copy_gbps : 0;
}

}  // namespace

BenchReport run_acoustic3d_bench(const Acoustic3DBenchOptions& o) {
  if (o.steps < 1) throw Error("--steps must be at least 1 (got " + std::to_string(o.steps) + ")");
  if (o.repeats < 1) throw Error("--repeat must be at least 1 (got " + std::to_string(o.repeats) + ")");
  if (o.variants.empty()) throw Error("no variant to run");
  using namespace bench_detail;
  const Acoustic3DSetup s = make_acoustic3d_setup(o.config);
  const Grid3D& g = s.grid;
  const Acoustic3DConfig& c = s.config;
  BenchReport report;
  report.model = "acoustic3d";
  const std::string boundary =
      c.boundary == AcousticBoundary::periodic ? "periodic"
      : c.boundary == AcousticBoundary::cpml   ? fmt::format("cpml {} (top {})", s.cpml, to_string(c.top))
                                               : fmt::format("sponge {} (top {})", s.sponge, to_string(c.top));
  report.title = fmt::format("acoustic3d {}x{}x{}, order {}, {} steps, {} medium, {}, h {:g} m, f0 {:g} Hz, dt {:.4g} s "
                             "(limit {:.4g})",
                             g.nx, g.ny, g.nz, c.order, o.steps, to_string(c.medium), boundary, c.h, c.f0, s.dt,
                             s.dt_limit);
  report.config = {{"model", std::string("acoustic3d")},
                   {"nx", static_cast<long long>(g.nx)},
                   {"ny", static_cast<long long>(g.ny)},
                   {"nz", static_cast<long long>(g.nz)},
                   {"order", static_cast<long long>(c.order)},
                   {"steps", static_cast<long long>(o.steps)},
                   {"medium", std::string(to_string(c.medium))},
                   {"boundary", std::string(to_string(c.boundary))},
                   {"top", std::string(to_string(c.top))},
                   {"sponge_width", static_cast<long long>(s.sponge)},
                   {"cpml_width", static_cast<long long>(s.cpml)},
                   {"vp", c.vp},
                   {"h", c.h},
                   {"f0", c.f0},
                   {"dt", s.dt},
                   {"dt_limit", s.dt_limit}};
  report.columns = stepping_columns();
  report.footer =
      "GB/s counts the least traffic of a step: p, p_prev and (v dt/h)^2 read once and p_next written once, 16 bytes "
      "per node in float (32 in double); the time includes the source/receiver and boundary launches; copy = GB/s "
      "over the copy of the same device (GPU rows: device copy kernel; CPU rows: host copy); errors against the "
      "double reference after the same steps from rest";
  if (s.cpml_layout.any()) {
    // The CPML's own least traffic: psi and zeta of every slab read and written once, and
    // p_next of every layer node read and written once more (p^n's re-reads not counted).
    const double extra = 4.0 * static_cast<double>(s.cpml_layout.memory_values(kAcousticCpmlVars, g)) / 2 +
                         2.0 * static_cast<double>(s.cpml_layout.nodes(g));
    report.footer += fmt::format(
        "; GB/s counts the interior's traffic only: the CPML layers add at least {:.1f} % more (psi and zeta read and "
        "written, p_next re-read and re-written in the layers)",
        100 * extra / (kAcousticValuesPerNode * static_cast<double>(g.points())));
  }
  const std::size_t value_bytes = o.precision == Precision::f32 ? sizeof(float) : sizeof(double);
  measure_copies(o.variants, g.elements() * value_bytes, o.progress, report);
  std::optional<std::vector<double>> reference;
  if (!reference_skipped(report)) {
    try {
      check_host_memory(4 * g.points() * 3 * sizeof(double), "the double-precision reference on this grid");
      if (o.progress) o.progress("computing the double-precision reference");
      reference = acoustic3d_reference(s, o.steps);
    } catch (const Error& e) {
      report.note = e.what();
    }
  }
  // The rows: each variant, stream25d in its STENCILSCOPE_ACOUSTIC25 shape, or in every
  // shape (one row each, named stream25d/SHAPE) when that is `all`.
  struct Run {
    Acoustic3DVariant variant;
    std::optional<Acoustic3DStreamShape> shape;
  };
  std::vector<Run> runs;
  for (Acoustic3DVariant v : o.variants) {
    if (v == Acoustic3DVariant::stream25d && acoustic3d_stream_shape_sweep()) {
      for (Acoustic3DStreamShape shape : kAllAcoustic3DStreamShapes) runs.push_back({v, shape});
    } else {
      runs.push_back({v, std::nullopt});
    }
  }
  auto run = [&]<typename T>() {
    std::optional<std::vector<T>> base;
    std::string no_device;
    const bool have_device = cuda_available(&no_device);
    std::optional<DeviceAcoustic3D<T>> gpu;
    auto check = [&](BenchRow& row, const std::vector<T>& values) {
      if (reference) row.errors = compare_to_reference(values, *reference);
      if (!base) base = values;
      else row.bitwise_equal = bitwise_equal(values, *base);
    };
    for (const auto& [v, shape] : runs) {
      BenchRow row;
      row.model = "acoustic3d";
      row.nx = g.nx;
      row.ny = g.ny;
      row.nz = g.nz;
      row.variant = std::string(to_string(v)) + (shape ? "/" + std::string(to_string(*shape)) : "");
      row.device = is_gpu(v) ? "gpu" : "cpu";
      row.order = c.order;
      row.precision = std::string(to_string(v == Acoustic3DVariant::reference ? Precision::f64 : o.precision));
      row.steps = o.steps;
      if (is_gpu(v)) {
        if (!have_device) {
          row.skipped = no_device;
          report.rows.push_back(row);
          continue;
        }
        if (!gpu) gpu.emplace(s);
        if (shape) gpu->set_stream_shape(*shape);
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
        fill_acoustic_timing(row, g.points(), o.steps, sizeof(T), median(times), report.copy_gbps);
      } else if (v == Acoustic3DVariant::cpu) {
        if (o.progress) o.progress("running cpu");
        check_host_memory(4 * g.elements() * sizeof(T), "the cpu variant on this grid");
        HostAcoustic3D<T> host(s);
        host.poison_scratch();
        const auto t0 = Clock::now();
        host.step(o.steps);
        fill_acoustic_timing(row, g.points(), o.steps, sizeof(T), ms_since(t0), report.host_copy_gbps);
        check(row, host.interior());
      } else {  // reference: its own time; against itself its errors are zero by definition
        if (!reference) {
          row.skipped = report.note;
          report.rows.push_back(row);
          continue;
        }
        if (o.progress) o.progress("timing the reference");
        const auto t0 = Clock::now();
        const std::vector<double> again = acoustic3d_reference(s, o.steps);
        fill_acoustic_timing(row, g.points(), o.steps, sizeof(double), ms_since(t0), report.host_copy_gbps);
        row.errors = compare_to_reference(again, *reference);
      }
      report.rows.push_back(row);
    }
  };
  if (o.precision == Precision::f32) run.template operator()<float>();
  else run.template operator()<double>();
  return report;
}

}  // namespace ss
