#pragma once
// The acoustic 3D benchmark behind `stencilscope bench acoustic3d`: per variant the time
// per step, million node updates per second, the bandwidth of the minimal traffic (16
// bytes per node in float), its ratio to a copy of the same device in the same run, the
// error against the double reference and bitwise agreement with the first row.
#include <functional>
#include <string>
#include <vector>

#include "sim/bench/report.hpp"
#include "sim/core/precision.hpp"
#include "sim/models/acoustic3d/acoustic3d.hpp"

namespace ss {

struct Acoustic3DBenchOptions {
  Acoustic3DConfig config;
  int steps = 10;
  int repeats = 5;
  std::vector<Acoustic3DVariant> variants;
  Precision precision = Precision::f32;
  std::function<void(const std::string&)> progress;
};

/// Runs each variant from rest with the source on, checks it against the double
/// reference and the first GPU/cpu row bit for bit, and times it.
BenchReport run_acoustic3d_bench(const Acoustic3DBenchOptions& options);

/// Bytes one step moves at the least: p, p_prev and (v dt/h)^2 read, p_next written.
inline constexpr int kAcousticValuesPerNode = 4;

}  // namespace ss
