// The forced turbulence test (eqs 24-25, Fig. 7): the run doubles in length until the
// kinetic energy is steady (the last two quarters' means agree), then the shell-averaged
// spectrum, averaged over the last quarter, must peak where the forcing drives.
#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/bench/bench_rows.hpp"
#include "sim/core/error.hpp"
#include "sim/models/hydro3d/hydro3d_physics.hpp"
#include "sim/models/hydro3d/hydro3d_tests.hpp"

namespace ss {

namespace {

constexpr double kFirstSpan = 16;          ///< time of the first check (about 2.5 sound crossings of a 2 pi box)
constexpr double kMaxSpan = 512;           ///< the run stops here, steady or not
constexpr double kSteadyTolerance = 0.10;  ///< |mean KE of the last quarter - of the third| / the last
constexpr long kSamplesPerSpan = 64;       ///< kinetic energy samples between two checks
constexpr int kDefaultSide = 32;

struct TurbulenceResult {
  double t_end = 0;
  long steps = 0;
  bool steady = false, finite = true;
  double ke = 0, drift = 0;      ///< mean 1/2 rho |u|^2 over the last quarter; its drift from the third
  std::vector<double> spectrum;  ///< E(k), averaged over the samples of the last quarter
};

template <typename T>
TurbulenceResult turbulence_run(const Hydro3DSetup& s, HydroVariant v, const Hydro3DTestOptions& o,
                                const std::string& what) {
  HydroTestRun<T> run(s, v);
  TurbulenceResult res;
  const double volume = static_cast<double>(s.grid.points()) * s.h * s.h * s.h;
  std::vector<std::pair<double, double>> ke;  // (t, mean 1/2 rho |u|^2)
  long done = 0;
  for (double span = kFirstSpan;; span *= 2) {
    const long end = std::lround(span / s.dt), last_quarter = std::lround(0.75 * span / s.dt);
    const long every = std::max(1L, (end - done) / kSamplesPerSpan);
    std::vector<double> sum;
    int spectra = 0;
    while (done < end) {
      const long n = std::min(every, end - done);
      run.step(static_cast<int>(n));
      done += n;
      const HydroState<T> st = run.state();
      const HydroStats stats = hydro_stats(st, s.h);
      if (!stats.finite) {
        res.finite = false;
        res.t_end = done * s.dt, res.steps = done;
        return res;
      }
      ke.emplace_back(done * s.dt, stats.kinetic / volume);
      if (done >= last_quarter) {
        const std::vector<double> e = hydro_energy_spectrum(st, s);
        sum.resize(e.size(), 0.0);
        for (std::size_t k = 0; k < e.size(); ++k) sum[k] += e[k];
        ++spectra;
      }
    }
    double third = 0, fourth = 0;
    int n3 = 0, n4 = 0;
    for (const auto& [t, e] : ke) {
      if (t >= 0.75 * span) fourth += e, ++n4;
      else if (t >= 0.5 * span) third += e, ++n3;
    }
    third /= std::max(n3, 1), fourth /= std::max(n4, 1);
    res.ke = fourth;
    res.drift = fourth > 0 ? std::abs(fourth - third) / fourth : 0.0;
    res.steady = res.drift <= kSteadyTolerance;
    res.spectrum = sum;
    for (double& e : res.spectrum) e /= spectra;
    res.t_end = done * s.dt, res.steps = done;
    if (o.progress)
      o.progress(fmt::format("{}: t = {:g}, KE {:.4g}, last two quarters differ by {:.1f}%{}", what, res.t_end, res.ke,
                             100 * res.drift, res.steady ? " (steady)" : ""));
    if (res.steady || span >= kMaxSpan) return res;
  }
}

}  // namespace

BenchReport hydro3d_turbulence_test(const Hydro3DTestOptions& o) {
  if (o.given.count("init") && o.config.init != HydroInit::turbulence)
    throw Error(fmt::format("--test turbulence runs init=turbulence (got init={})", to_string(o.config.init)));
  std::vector<std::array<int, 3>> sizes = o.sizes;
  if (sizes.empty()) sizes = {{kDefaultSide, kDefaultSide, kDefaultSide}};
  // The forcing's wave vectors and the spectrum's shells count k in units of 2 pi / box
  // along every axis: one period of the box along each (a cube).
  for (const auto& n : sizes)
    if (n[0] != n[1] || n[0] != n[2])
      throw Error(fmt::format("--test turbulence needs cubic grids (got {}x{}x{})", n[0], n[1], n[2]));
  Hydro3DConfig c = o.config;
  c.init = HydroInit::turbulence;
  BenchReport r = hydro_test_report(fmt::format(
      "hydro3d --test turbulence (eqs 24-25): kf {:g}, f0 {:g}, nu {:g}, cs {:g}, seed {}; run until the kinetic energy "
      "of the last two quarters agrees within {:g}% (checked at t = {:g}, {:g}, ... up to {:g})",
      c.kf, c.f0, c.nu, c.cs, c.seed, 100 * kSteadyTolerance, kFirstSpan, 2 * kFirstSpan, kMaxSpan));
  r.config = {{"model", std::string("hydro3d")}, {"test", std::string("turbulence")}, {"kf", c.kf}, {"f0", c.f0},
              {"nu", c.nu}, {"seed", static_cast<long long>(c.seed)}, {"steady_tolerance", kSteadyTolerance}};
  r.columns = {{"variant", "variant", 10, "{}", true}, {"device", "device", 6, "{}", true},
               {"precision", "prec", 7, "{}", true},   {"grid", "grid", 6, "{}", true},
               {"t_end", "t", 6, "{:.0f}"},            {"steps", "steps", 6, "{:.0f}"},
               {"ke", "KE", 10, "{:.4e}"},             {"drift", "drift", 7, "{:.3f}"},
               {"steady", "steady", 6, "{}", true},    {"forced", "forced k", 8, "{}", true},
               {"peak_k", "peak k", 6, "{:.0f}"},      {"peak_share", "E(peak)/E", 10, "{:.3f}"},
               {"peak_ok", "peak ok", 7, "{}", true},  {"run_s", "run (s)", 8, "{:.1f}"}};
  c.nx = c.ny = c.nz = sizes.front()[0];
  const std::vector<HydroVariant> runnable = hydro_runnable(o.variants, o.precision, make_hydro3d_setup(c).grid, r);
  std::ofstream csv = hydro_open_csv(o.csv);
  if (csv.is_open()) csv << "variant,device,precision,n,k,E,E_over_total\n";
  for (const auto& n : sizes) {
    c.nx = c.ny = c.nz = n[0];
    const Hydro3DSetup s = make_hydro3d_setup(c);
    std::set<long> forced;  // the spectrum's shells the forcing's wave vectors fall in
    for (const auto& k : s.forcing_k) forced.insert(std::lround(std::sqrt(double(k[0] * k[0] + k[1] * k[1] + k[2] * k[2]))));
    for (HydroVariant v : runnable) {
      BenchRow row = hydro_test_row(v, o.precision, s.grid);
      row.labels = {{"grid", fmt::format("{}^3", n[0])}, {"forced", fmt::format("{}", fmt::join(forced, ","))}};
      const std::string what = fmt::format("turbulence {}^3, {} in {}", n[0], row.variant, row.precision);
      const auto t0 = bench_detail::Clock::now();
      const TurbulenceResult res = hydro_precision(v, o.precision) == Precision::f32
                                       ? turbulence_run<float>(s, v, o, what)
                                       : turbulence_run<double>(s, v, o, what);
      row.time_ms = bench_detail::ms_since(t0);
      row.steps = static_cast<int>(res.steps);
      row.figures = {{"t_end", res.t_end}, {"steps", res.steps}, {"run_s", row.time_ms / 1e3}};
      if (!res.finite) {
        hydro_mark_non_finite(row);
        r.rows.push_back(row);
        continue;
      }
      double total = 0;
      for (double e : res.spectrum) total += e;
      const auto peak = std::max_element(res.spectrum.begin(), res.spectrum.end());
      const long peak_k = peak - res.spectrum.begin();
      row.figures.insert(row.figures.end(), {{"ke", res.ke},
                                             {"drift", res.drift},
                                             {"peak_k", static_cast<double>(peak_k)},
                                             {"peak_share", total > 0 ? *peak / total : 0.0}});
      row.labels.push_back({"steady", res.steady ? "yes" : "no"});
      row.labels.push_back({"peak_ok", forced.count(peak_k) ? "yes" : "no"});
      if (csv.is_open())
        for (std::size_t k = 0; k < res.spectrum.size(); ++k)
          csv << fmt::format("{},{},{},{},{},{:.17g},{:.17g}\n", row.variant, row.device, row.precision, n[0], k,
                             res.spectrum[k], total > 0 ? res.spectrum[k] / total : 0.0);
      r.rows.push_back(row);
    }
  }
  r.footer = fmt::format(
      "t, steps: where the run stopped; KE: mean of 1/2 rho |u|^2 over the last quarter of the run; drift: |its mean over "
      "the last quarter - over the third| / the last (steady: at most {:g}); forced k: the spectrum's shells round(|k|) "
      "of the forcing's wave vectors (|k| in [kf - 1/2, kf + 1/2)); peak k: the shell of the largest E(k), E(k) the "
      "shell-averaged spectrum of sqrt(rho) u averaged over the last quarter (sum E(k) = KE); peak ok: the peak is a "
      "forced shell. The paper (Fig. 7, 256^3, 19pt, nu 1.4e-4, kf 1.53 and 10): the peak at kf, a cascade to higher k, "
      "a short k^-5/3 range. --csv (or next to --json) holds E(k) per row.",
      kSteadyTolerance);
  return r;
}

}  // namespace ss
