#pragma once
// What the distributed tests share: the configurations every distributable model is run
// in (each word of its code-selecting parameters, such as heat's boundary rules, at two
// orders, on a small grid whose sides no rank count divides), decompositions to try for
// a rank count, and the one-rank result to compare with. No model is named here.
#include <array>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "sim/core/box_simulation.hpp"
#include "sim/core/decomposition.hpp"
#include "sim/core/error.hpp"
#include "sim/core/model.hpp"

namespace ss::test {

struct DistributedCase {
  const Model* model = nullptr;
  ModelConfig config;
  std::string variant;  ///< a live CPU variant that steps boxes
  std::string name;  ///< "heat3d boundary=periodic order 8"
};

/// A small grid whose sides are primes (no rank count divides them), thick enough for
/// boxes of radius 4 along x and y split in four and z split in three.
inline constexpr std::array<int, 3> kUnevenGrid{19, 17, 13};

/// Every registered model that runs distributed, in each word of each of its choice
/// parameters (boundary rules, initial conditions, ...), one at a time, at its lowest and
/// highest order, with each live CPU variant that steps boxes.
inline std::vector<DistributedCase> distributed_cases(std::array<int, 3> size = kUnevenGrid) {
  std::vector<DistributedCase> out;
  for (const Model* m : models()) {
    const ModelInfo& info = m->info();
    if (info.dims != 3) continue;
    std::vector<ParamValues> settings{{}};
    for (const ParamSpec& p : info.params)
      if (p.kind == ParamKind::choice && !p.bench_sweeps)
        for (const std::string& word : p.choices) {
          if (word == p.default_choice) continue;
          settings.push_back({{p.name, word}});
        }
    for (int order : {info.orders.front(), info.orders.back()})
      for (const ParamValues& given : settings) {
        ModelConfig c;
        try {
          c = make_config(*m, size, order, given);
        } catch (const Error&) {
          continue;  // a combination the model refuses on its own
        }
        if (!m->distributed(c).supported) continue;
        for (const VariantSpec& v : info.variants) {
          if (v.gpu || !v.live) continue;
          try {
            m->create_box(c, place_box(make_decomposition(size, 1, std::nullopt, 1), 0, {}), v.name);
          } catch (const Error&) {
            continue;  // a CPU variant that does not step boxes
          }
          std::string name = fmt::format("{} {} order {}", info.name, v.name, order);
          for (const auto& [k, w] : given) name += " " + k + "=" + to_string(w);
          out.push_back({m, c, v.name, name});
        }
      }
  }
  return out;
}

/// Decompositions of `ranks` to try: the chosen one, then every axis alone, then pairs.
inline std::vector<std::optional<std::array<int, 3>>> decompositions_to_try(int ranks) {
  std::vector<std::optional<std::array<int, 3>>> out{std::nullopt};
  for (int a = 0; a < 3; ++a) {
    std::array<int, 3> d{1, 1, 1};
    d[a] = ranks;
    out.push_back(d);
  }
  for (int p = 2; p < ranks; ++p)
    if (ranks % p == 0) {
      out.push_back(std::array<int, 3>{p, ranks / p, 1});
      out.push_back(std::array<int, 3>{1, p, ranks / p});
      out.push_back(std::array<int, 3>{ranks / p, 1, p});
    }
  return out;
}

/// The state after `steps` steps of the model's one-rank CPU run of the case's variant.
inline std::vector<std::vector<float>> one_rank_fields(const DistributedCase& c, int steps) {
  auto sim = c.model->create(c.config, Backend::cpu, c.variant);
  sim->start_steps(steps);
  sim->wait();
  return sim->copy_state().fields;
}

}  // namespace ss::test
