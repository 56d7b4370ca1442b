#pragma once
// A HaloFill that fills nothing and records what a box asks of it: the tests of the order
// of hydro3d's box steps (test_hydro3d_cpu: against the one-rank step; test_hydro3d_gpu:
// the GPU box against the CPU box).
#include <cstring>
#include <string>

#include <fmt/format.h>

#include "sim/core/box_simulation.hpp"

namespace ss::test {

/// Records "fN" for a fill of N fields and "max(<bits of the float>)" for max_over_ranks,
/// space-separated, in call order. A single process: max_over_ranks returns `local`.
class RecordingFill final : public HaloFill {
 public:
  void fill(std::span<float* const> fields) override { calls += fmt::format("f{} ", fields.size()); }
  float max_over_ranks(float local) override {
    unsigned bits = 0;
    std::memcpy(&bits, &local, sizeof(bits));
    calls += fmt::format("max({:08x}) ", bits);
    return local;
  }
  std::string calls;
};

}  // namespace ss::test
