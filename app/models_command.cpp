// `stencilscope models [--json]`: what the registry holds, read from each model's
// description (its variants and the device each runs on, orders, parameters with their
// ranges or words and defaults, presets, default sizes). Scripts (tests/device/) read
// the JSON to enumerate every GPU variant of every model.
#include <cstdio>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "param_options.hpp"
#include "sim/core/model.hpp"

namespace ss::app {

namespace {

nlohmann::json param_json(const ParamSpec& p) {
  nlohmann::json j = {{"name", p.name}, {"label", p.label}, {"unit", p.unit}, {"help", p.help}};
  if (p.kind == ParamKind::choice) {
    j["kind"] = "choice";
    j["choices"] = p.choices;
    j["default"] = p.default_choice;
    j["bench_sweeps"] = p.bench_sweeps;
    j["selects_code"] = p.selects_code;
  } else if (p.kind == ParamKind::file) {
    j["kind"] = "file";
    j["default"] = "";
  } else {
    j["kind"] = p.kind == ParamKind::integer ? "integer" : "real";
    j["default"] = p.default_number;
    j["min"] = p.min > -1e299 ? nlohmann::json(p.min) : nlohmann::json(nullptr);
    j["max"] = p.max < 1e299 ? nlohmann::json(p.max) : nlohmann::json(nullptr);
    j["zero_means_auto"] = p.zero_means_auto;
  }
  return j;
}

nlohmann::json model_json(const ModelInfo& m) {
  nlohmann::json variants = nlohmann::json::array(), params = nlohmann::json::array(), presets = nlohmann::json::array();
  for (const VariantSpec& v : m.variants)
    variants.push_back({{"name", v.name}, {"device", v.gpu ? "gpu" : "cpu"}, {"live", v.live}, {"help", v.help}});
  for (const ParamSpec& p : m.params) params.push_back(param_json(p));
  for (const Preset& pr : m.presets) {
    nlohmann::json values = nlohmann::json::object();
    for (const auto& [name, value] : pr.values) values[name] = to_string(value);
    presets.push_back({{"name", pr.name}, {"help", pr.help}, {"values", values}});
  }
  return {{"name", m.name},
          {"title", m.title},
          {"description", m.description},
          {"dims", m.dims},
          {"default_size", size_text(m.default_size, m.dims)},
          {"bench_size", size_text(m.bench.default_size, m.dims)},
          {"bench_steps", m.bench.default_steps},
          {"orders", m.orders},
          {"default_order", m.default_order},
          {"fastest_gpu", m.fastest_gpu},
          {"fastest_cpu", m.fastest_cpu},
          {"variants", variants},
          {"params", params},
          {"presets", presets},
          {"quantities", m.views.quantities}};
}

void print_model(const ModelInfo& m) {
  fmt::print("{} - {}\n", m.name, m.description);
  std::string orders;
  for (int o : m.orders) orders += (orders.empty() ? "" : ", ") + std::to_string(o);
  fmt::print("  size {} (bench {}), orders {} (default {})\n", size_text(m.default_size, m.dims),
             size_text(m.bench.default_size, m.dims), orders, m.default_order);
  for (const VariantSpec& v : m.variants)
    fmt::print("  variant {:<14} {}{}: {}\n", v.name, v.gpu ? "GPU" : "CPU", v.live ? "" : ", bench only", v.help);
  for (const ParamSpec& p : m.params) {
    std::string what;
    if (p.kind == ParamKind::choice) {
      for (const std::string& c : p.choices) what += (what.empty() ? "" : "|") + c;
      what += ", default " + p.default_choice;
    } else if (p.kind == ParamKind::file) {
      what = "a file path, default none";
    } else {
      what = fmt::format("{}{}default {:.10g}", p.min > -1e299 ? fmt::format("{:.10g}..", p.min) : "..",
                         p.max < 1e299 ? fmt::format("{:.10g}, ", p.max) : ", ", p.default_number);
      if (p.zero_means_auto) what += " (0: auto)";
    }
    fmt::print("  {:<14} {}{}: {}\n", flag_of(p.name), what, p.unit.empty() ? "" : " [" + p.unit + "]", p.help);
  }
  for (const Preset& pr : m.presets) fmt::print("  preset {:<15} {}\n", "'" + pr.name + "'", pr.help);
}

}  // namespace

std::function<int()> add_models_command(CLI::App& app) {
  auto json = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand("models", "List the registered models: variants, orders, parameters, presets");
  cmd->add_flag("--json", *json, "As JSON on stdout");
  return [json] {
    if (*json) {
      nlohmann::json all = nlohmann::json::array();
      for (const Model* m : models()) all.push_back(model_json(m->info()));
      fmt::print("{}\n", all.dump(2));
      return 0;
    }
    bool first = true;
    for (const Model* m : models()) {
      if (!first) fmt::print("\n");
      first = false;
      print_model(m->info());
    }
    return 0;
  };
}

}  // namespace ss::app
