#pragma once
// `stencilscope bench hydro3d --test decay|explosion|turbulence`: the paper's physics
// tests (Pekkilä et al. 2017, Sect. 6) as bench reports: one row per variant, precision,
// size (and Reynolds number), the figures as columns, the paper's figure in the footer,
// and the data series (errors, line integrals, spectra) as CSV.
#include <array>
#include <fstream>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "sim/bench/report.hpp"
#include "sim/core/precision.hpp"
#include "sim/models/hydro3d/hydro3d_solver.hpp"

namespace ss {

struct Hydro3DTestOptions {
  std::string test;                          ///< decay, explosion or turbulence
  Hydro3DConfig config;                      ///< every parameter, defaults filled in
  std::set<std::string, std::less<>> given;  ///< parameters the person set; the others take the test's own values
  std::vector<std::array<int, 3>> sizes;     ///< empty: the test's own
  std::vector<HydroVariant> variants;        ///< in row order; `reference` runs in double
  Precision precision = Precision::f32;      ///< explosion and turbulence (decay runs both)
  std::string csv;                           ///< where the data series go; empty: not written
  std::function<void(const std::string&)> progress;
};

/// The tests (name, one line of help), as BenchSpec::tests lists them.
std::vector<std::pair<std::string, std::string>> hydro3d_test_list();

/// Runs o.test; throws ss::Error for bad input (an unknown test, a non-cubic explosion).
BenchReport run_hydro3d_test(const Hydro3DTestOptions& o);

// ---- shared by the test files (hydro3d_tests.cpp, hydro3d_test_turbulence.cpp) ----

BenchReport hydro3d_turbulence_test(const Hydro3DTestOptions& o);

/// One variant's solver, on its backend: HostHydro3D for the CPU variants (`reference`:
/// the single-pass method; callers give it T = double), DeviceHydro3D for the GPU ones
/// (its constructor throws ss::Error without a device).
template <typename T>
class HydroTestRun {
 public:
  HydroTestRun(const Hydro3DSetup& s, HydroVariant v) {
    if (is_gpu(v)) device_ = std::make_unique<DeviceHydro3D<T>>(s, v);
    else host_ = std::make_unique<HostHydro3D<T>>(s, method_of(v));
  }
  void step(int n) { device_ ? device_->step(n) : host_->step(n); }
  /// After queued work.
  HydroState<T> state() { return device_ ? device_->state() : host_->state(); }

 private:
  std::unique_ptr<HostHydro3D<T>> host_;
  std::unique_ptr<DeviceHydro3D<T>> device_;
};

/// A test row's identity: model, variant, device, order, precision, size; `skipped`
/// set when the variant needs a device this machine lacks.
BenchRow hydro_test_row(HydroVariant v, Precision p, const Grid3D& g);
/// The variants that can run here; for each that cannot, one row saying why (once, not
/// per size or precision), added to r.
std::vector<HydroVariant> hydro_runnable(const std::vector<HydroVariant>& variants, Precision p, const Grid3D& g,
                                         BenchReport& r);
/// Why GPU rows skip here ("" with a device).
const std::string& hydro_no_device();
/// The report's device and commit, and a title.
BenchReport hydro_test_report(const std::string& title);
/// The precision a variant runs in when `p` is asked (`reference`: double).
Precision hydro_precision(HydroVariant v, Precision p);
/// Opens `path` for the data series (throws naming it); an unopened stream for "".
std::ofstream hydro_open_csv(const std::string& path);
/// Marks a row whose run went non-finite (bench then exits 3).
void hydro_mark_non_finite(BenchRow& row);

}  // namespace ss
