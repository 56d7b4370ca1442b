#pragma once
// The elastic 3D benchmark behind `stencilscope bench elastic3d`: per variant the time
// per step, million node updates per second, the bandwidth of the minimal traffic of a
// step (kElasticValuesPerNode values per node), its ratio to a copy of the same device
// in the same run, the error against the double reference and bitwise agreement with
// the first row.
#include <functional>
#include <string>
#include <vector>

#include "sim/bench/report.hpp"
#include "sim/core/precision.hpp"
#include "sim/models/elastic3d/elastic3d.hpp"

namespace ss {

struct Elastic3DBenchOptions {
  Elastic3DConfig config;
  int steps = 10;
  int repeats = 5;
  std::vector<Elastic3DVariant> variants;
  Precision precision = Precision::f32;
  std::function<void(const std::string&)> progress;
};

BenchReport run_elastic3d_bench(const Elastic3DBenchOptions& options);

/// Values one step moves at the least per node: u^n and u^{n-1} (3 components each) and
/// the medium (C11, C13, C33, C44, C66, dt^2/(rho h^2)) read, u^{n+1} (3) written: 15.
inline constexpr int kElasticValuesPerNode = 15;

}  // namespace ss
