// The elastic3d benchmark: the stepping table with elastic accounting (15 values per node).
#include "sim/models/elastic3d/elastic3d_bench.hpp"

#include <optional>

#include <fmt/format.h>

#include "sim/bench/bench_rows.hpp"
#include "sim/models/elastic3d/elastic3d_solver.hpp"

namespace ss {

namespace {

void fill_elastic_timing(BenchRow& row, std::size_t points, int steps, std::size_t value_bytes, double ms,
                         double copy_gbps) {
  row.time_ms = ms;
  row.bandwidth_gbps =
      kElasticValuesPerNode * static_cast<double>(value_bytes) * static_cast<double>(points) * steps / (ms * 1e6);
  row.mcups = mcups(points, steps, ms);
  row.copy_ratio = copy_gbps > 0 ? row.bandwidth_gbps / copy_gbps : 0;
}

/// u_x, u_y, u_z interiors one after the other.
template <typename T>
std::vector<T> flatten(const ElasticState<T>& s) {
  std::vector<T> out;
  for (const auto& c : s.u) out.insert(out.end(), c.begin(), c.end());
  return out;
}

}  // namespace

BenchReport run_elastic3d_bench(const Elastic3DBenchOptions& o) {
  if (o.steps < 1) throw Error("--steps must be at least 1 (got " + std::to_string(o.steps) + ")");
  if (o.repeats < 1) throw Error("--repeat must be at least 1 (got " + std::to_string(o.repeats) + ")");
  if (o.variants.empty()) throw Error("no variant to run");
  using namespace bench_detail;
  const Elastic3DSetup s = make_elastic3d_setup(o.config);
  const Grid3D& g = s.grid;
  const Elastic3DConfig& c = s.config;
  BenchReport report;
  report.model = "elastic3d";
  const std::string boundary =
      c.boundary == ElasticBoundary::periodic
          ? "periodic"
          : fmt::format("{} {} (top {})", to_string(c.boundary), c.boundary == ElasticBoundary::cpml ? s.cpml : s.sponge,
                        to_string(c.top));
  report.title = fmt::format("elastic3d {}x{}x{}, order {}, {} steps, {} {} medium, {} source, {}, h {:g} m, f0 {:g} Hz, "
                             "dt {:.4g} s (limit {:.4g})",
                             g.nx, g.ny, g.nz, c.order, o.steps, to_string(c.anisotropy), to_string(c.medium),
                             to_string(c.source_kind), boundary, c.h, c.f0, s.dt, s.dt_limit);
  report.config = {{"model", std::string("elastic3d")},
                   {"nx", static_cast<long long>(g.nx)},
                   {"ny", static_cast<long long>(g.ny)},
                   {"nz", static_cast<long long>(g.nz)},
                   {"order", static_cast<long long>(c.order)},
                   {"steps", static_cast<long long>(o.steps)},
                   {"medium", std::string(to_string(c.medium))},
                   {"anisotropy", std::string(to_string(c.anisotropy))},
                   {"source", std::string(to_string(c.source_kind))},
                   {"boundary", std::string(to_string(c.boundary))},
                   {"top", std::string(to_string(c.top))},
                   {"sponge_width", static_cast<long long>(s.sponge)},
                   {"cpml_width", static_cast<long long>(s.cpml)},
                   {"vp", c.vp},
                   {"vs", c.vs},
                   {"rho", c.rho},
                   {"h", c.h},
                   {"f0", c.f0},
                   {"dt", s.dt},
                   {"dt_limit", s.dt_limit}};
  report.columns = stepping_columns();
  report.columns.front().width = 12;  // "register25d"
  report.footer =
      "GB/s counts the least traffic of a step: u^n and u^{n-1} (3 components each) and the medium (C11, C13, C33, "
      "C44, C66, dt^2/(rho h^2)) read once and u^{n+1} (3) written once, 15 values = 60 bytes per node in float (120 "
      "in double); strains, stresses and accelerations in memory are the variants' own cost. The time includes the "
      "source, ghost and boundary launches; copy = GB/s over the copy of the same device (GPU rows: device copy "
      "kernel; CPU rows: host copy); errors against the double reference after the same steps from rest";
  if (s.cpml_layout.any()) {
    // The CPML's own least traffic: its 6 memory variables per slab node read and written
    // once, and the 6 stresses and 3 components of u^{n+1} of every layer node re-read and
    // re-written (u^n and the stresses' stencil re-reads not counted).
    const double extra = 2.0 * static_cast<double>(s.cpml_layout.memory_values(kElasticCpmlVars, g)) +
                         18.0 * static_cast<double>(s.cpml_layout.nodes(g));
    report.footer += fmt::format(
        "; GB/s counts the interior's traffic only: the CPML layers add at least {:.1f} % more (their memory "
        "variables read and written, stresses and u^(n+1) re-read and re-written in the layers)",
        100 * extra / (kElasticValuesPerNode * static_cast<double>(g.points())));
  }
  if (!elastic3d_stream25d_runs(s))
    report.footer += fmt::format("; stream25d and register25d step as fused under the {} boundary (their kernels run under sponge)",
                                 to_string(c.boundary));
  const std::size_t value_bytes = o.precision == Precision::f32 ? sizeof(float) : sizeof(double);
  measure_copies(o.variants, g.elements() * value_bytes, o.progress, report);
  std::optional<std::vector<double>> reference;
  if (!reference_skipped(report)) {
    try {
      check_host_memory(30 * g.points() * sizeof(double), "the double-precision reference on this grid");
      if (o.progress) o.progress("computing the double-precision reference");
      reference = flatten(elastic3d_reference(s, o.steps));
    } catch (const Error& e) {
      report.note = e.what();
    }
  }
  auto run = [&]<typename T>() {
    std::optional<std::vector<T>> base;
    std::string no_device;
    const bool have_device = cuda_available(&no_device);
    std::optional<DeviceElastic3D<T>> gpu;
    auto check = [&](BenchRow& row, const std::vector<T>& values) {
      if (reference) row.errors = compare_to_reference(values, *reference);
      if (!base) base = values;
      else row.bitwise_equal = bitwise_equal(values, *base);
    };
    for (Elastic3DVariant v : o.variants) {
      BenchRow row;
      row.model = "elastic3d";
      row.nx = g.nx;
      row.ny = g.ny;
      row.nz = g.nz;
      row.variant = std::string(to_string(v));
      row.device = is_gpu(v) ? "gpu" : "cpu";
      row.order = c.order;
      row.precision = std::string(to_string(v == Elastic3DVariant::reference ? Precision::f64 : o.precision));
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
        check(row, flatten(gpu->state()));
        std::vector<double> times;
        for (int r = 0; r < o.repeats; ++r) {
          gpu->reset();
          times.push_back(gpu->timed_steps(v, o.steps));
        }
        fill_elastic_timing(row, g.points(), o.steps, sizeof(T), median(times), report.copy_gbps);
      } else if (v == Elastic3DVariant::cpu) {
        if (o.progress) o.progress("running cpu");
        check_host_memory(20 * g.elements() * sizeof(T), "the cpu variant on this grid");
        HostElastic3D<T> host(s);
        host.poison_scratch();
        const auto t0 = Clock::now();
        host.step(o.steps);
        fill_elastic_timing(row, g.points(), o.steps, sizeof(T), ms_since(t0), report.host_copy_gbps);
        check(row, flatten(host.state()));
      } else {
        if (!reference) {
          row.skipped = report.note;
          report.rows.push_back(row);
          continue;
        }
        if (o.progress) o.progress("timing the reference");
        const auto t0 = Clock::now();
        const std::vector<double> again = flatten(elastic3d_reference(s, o.steps));
        fill_elastic_timing(row, g.points(), o.steps, sizeof(double), ms_since(t0), report.host_copy_gbps);
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
