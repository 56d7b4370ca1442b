// The hydro3d benchmark (see hydro3d_bench.hpp).
#include "sim/models/hydro3d/hydro3d_bench.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "sim/bench/bench_rows.hpp"

namespace ss {

namespace {

/// The check grid the errors are measured on: the benched grid, at most 48 per side
/// (the double reference runs on the CPU), and two full steps.
Hydro3DSetup check_setup(const Hydro3DConfig& c) {
  Hydro3DConfig k = c;
  k.nx = std::min(c.nx, 48);
  k.ny = std::min(c.ny, 48);
  k.nz = std::min(c.nz, 48);
  if (k.nx != c.nx) k.box = c.box * k.nx / c.nx;  // the same h, the same dt
  return make_hydro3d_setup(k);
}
constexpr int kCheckSteps = 2;

template <typename T>
std::vector<T> flatten(const HydroState<T>& st) {
  std::vector<T> v;
  for (const auto& f : st) v.insert(v.end(), f.begin(), f.end());
  return v;
}

template <typename T>
void run_rows(const Hydro3DBenchOptions& o, const Hydro3DSetup& s, BenchReport& report) {
  const Grid3D& g = s.grid;
  const Hydro3DSetup cs = check_setup(s.config);
  std::vector<double> ref[2];  // the double reference of each method on the check grid
  auto reference = [&](HydroMethod m) -> const std::vector<double>& {
    std::vector<double>& r = ref[m == HydroMethod::single_pass ? 0 : 1];
    if (r.empty()) {
      if (o.progress) o.progress("computing the double-precision reference on the check grid");
      HostHydro3D<double> host(cs, m);
      host.step(kCheckSteps);
      r = flatten(host.state());
    }
    return r;
  };
  std::string no_device;
  const bool have_device = cuda_available(&no_device);
  const double cells = static_cast<double>(g.points());
  const std::size_t value_bytes = sizeof(T);
  for (HydroVariant v : o.variants) {
    BenchRow row;
    row.model = "hydro3d";
    row.variant = std::string(to_string(v));
    row.device = is_gpu(v) ? "gpu" : "cpu";
    row.order = 6;
    row.precision = std::string(to_string(v == HydroVariant::reference ? Precision::f64 : o.precision));
    row.nx = g.nx, row.ny = g.ny, row.nz = g.nz;
    row.steps = o.steps;
    row.own_summation = true;  // the two methods differ; bitwise agreement is in the tests
    double ms = 0;
    std::vector<T> check;
    if (is_gpu(v)) {
      if (!have_device) {
        row.skipped = no_device;
        report.rows.push_back(row);
        continue;
      }
      if (o.progress) o.progress("running " + row.variant + " on the GPU");
      {
        DeviceHydro3D<T> small(cs, v);
        small.poison_scratch();
        small.step(kCheckSteps);
        check = flatten(small.state());
      }
      DeviceHydro3D<T> gpu(s, v);
      gpu.step(1);  // warm-up: first launches, occupancy queries
      gpu.synchronize();
      std::vector<double> times;
      for (int r = 0; r < o.repeats; ++r) {
        gpu.reset();
        gpu.record_start();
        gpu.step(o.steps);
        gpu.record_stop();
        gpu.synchronize();
        times.push_back(*gpu.batch_ms());
      }
      ms = bench_detail::median(times);
    } else {
      if (o.progress) o.progress("running " + row.variant + " on the CPU");
      if (v == HydroVariant::reference) {
        HostHydro3D<double> host(s, HydroMethod::single_pass);
        const auto t0 = bench_detail::Clock::now();
        host.step(o.steps);
        ms = bench_detail::ms_since(t0);
        HostHydro3D<double> small(cs, HydroMethod::single_pass);
        small.step(kCheckSteps);
        const auto st = small.state();
        for (const auto& f : st)
          for (double x : f) check.push_back(static_cast<T>(x));
      } else {
        HostHydro3D<T> host(s, method_of(v));
        host.poison_scratch();
        const auto t0 = bench_detail::Clock::now();
        host.step(o.steps);
        ms = bench_detail::ms_since(t0);
        HostHydro3D<T> small(cs, method_of(v));
        small.step(kCheckSteps);
        check = flatten(small.state());
      }
    }
    const double substeps = 3.0 * o.steps;
    const double bytes = kHydroValuesPerCellSubstep * static_cast<double>(v == HydroVariant::reference ? 8 : value_bytes) *
                         cells * substeps;
    row.time_ms = ms;
    row.bandwidth_gbps = bytes / (ms * 1e6);
    row.mcups = cells * o.steps / (ms * 1e3);
    const double copy = is_gpu(v) ? report.copy_gbps : report.host_copy_gbps;
    row.copy_ratio = copy > 0 ? row.bandwidth_gbps / copy : 0;
    row.errors = compare_to_reference(check, reference(v == HydroVariant::reference ? HydroMethod::single_pass : method_of(v)));
    row.figures = {{"ms_per_step", ms / o.steps}, {"gsubsteps", cells * substeps / (ms * 1e6)}};
    report.rows.push_back(row);
  }
}

}  // namespace

BenchReport run_hydro3d_bench(const Hydro3DBenchOptions& o) {
  if (o.steps < 1) throw Error("--steps must be at least 1 (got " + std::to_string(o.steps) + ")");
  if (o.repeats < 1) throw Error("--repeat must be at least 1 (got " + std::to_string(o.repeats) + ")");
  if (o.variants.empty()) throw Error("no variant to run");
  const Hydro3DSetup s = make_hydro3d_setup(o.config);
  const Grid3D& g = s.grid;
  BenchReport report;
  report.model = "hydro3d";
  report.title = fmt::format("hydro3d {}x{}x{}, 6th order, RK3, {} full steps, initial {}, cs {:g}, nu {:g}, dt {:.4g} (limit {:.4g})",
                             g.nx, g.ny, g.nz, o.steps, to_string(s.config.init), s.config.cs, s.config.nu, s.dt,
                             s.dt_limit);
  report.config = {{"model", std::string("hydro3d")},
                   {"nx", static_cast<long long>(g.nx)},
                   {"ny", static_cast<long long>(g.ny)},
                   {"nz", static_cast<long long>(g.nz)},
                   {"steps", static_cast<long long>(o.steps)},
                   {"initial", std::string(to_string(s.config.init))},
                   {"cs", s.config.cs},
                   {"nu", s.config.nu},
                   {"dt", s.dt},
                   {"dt_limit", s.dt_limit}};
  report.columns = {{"variant", "variant", 10, "{}", true},
                    {"device", "device", 6, "{}", true},
                    {"precision", "prec", 7, "{}", true},
                    {"ms_per_step", "ms/step", 10, "{:.3f}"},
                    {"mcups", "Mcells/s", 10, "{:.1f}"},
                    {"gsubsteps", "G sub/s", 9, "{:.2f}"},
                    {"bandwidth_gbps", "GB/s", 9, "{:.1f}"},
                    {"copy_ratio", "copy", 6, "{:.3f}"},
                    {"rel_linf", "rel Linf", 10, "{:.3g}"},
                    {"rel_l2", "rel L2", 10, "{:.3g}"}};
  const std::size_t value_bytes = o.precision == Precision::f32 ? sizeof(float) : sizeof(double);
  std::vector<HydroVariant> vs = o.variants;
  bench_detail::measure_copies(vs, g.elements() * value_bytes, o.progress, report);
  report.footer = fmt::format(
      "Mcells/s: million cells per full RK3 step per second (the paper's K40t, float 128^3: 343 (19pt) and 168 "
      "(55pt)); G sub/s: G cell-substeps per second; GB/s counts the paper's minimal traffic, 16 values per cell per "
      "substep (read rho, u and the 4 intermediates; write 4 outputs and 4 intermediates; no halo re-reads, no ghost "
      "zone): {} bytes per cell-substep here; copy = GB/s over the copy kernel of the same run; rel Linf/L2: against "
      "the double reference of the variant's method after {} steps on a check grid of at most 48^3 with the same h and dt",
      kHydroValuesPerCellSubstep * value_bytes, kCheckSteps);
  if (o.precision == Precision::f32) run_rows<float>(o, s, report);
  else run_rows<double>(o, s, report);
  return report;
}

}  // namespace ss
