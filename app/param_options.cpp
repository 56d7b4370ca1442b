#include "param_options.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "sim/core/error.hpp"

namespace ss::app {

namespace {

/// The registered models that have parameter `name`: "heat2d, heat3d".
std::string models_with(const std::string& name) {
  std::string out;
  for (const Model* m : models())
    if (m->info().param(name)) out += (out.empty() ? "" : ", ") + m->info().name;
  return out;
}

}  // namespace

std::string default_model() { return models().front()->info().name; }

std::string flag_of(const std::string& name) {
  std::string f = name;
  std::replace(f.begin(), f.end(), '_', '-');
  return "--" + f;
}

std::string size_text(const std::array<int, 3>& n, int dims) {
  return dims == 2 ? fmt::format("{}x{}", n[0], n[1]) : fmt::format("{}x{}x{}", n[0], n[1], n[2]);
}

std::array<int, 3> parse_grid_size(const std::string& s, const ModelInfo& info, const std::array<int, 3>& example) {
  const std::string expected =
      fmt::format("expected {} such as {}, or one number for a {}", info.dims == 2 ? "NXxNY" : "NXxNYxNZ",
                  size_text(example, info.dims), info.dims == 2 ? "square" : "cube");
  const auto malformed = [&] { return Error("malformed --size '" + s + "' (" + expected + ")"); };
  std::vector<int> sides;
  std::size_t from = 0;
  while (true) {
    const std::size_t x = s.find_first_of("xX", from);
    std::string part = s.substr(from, x == std::string::npos ? std::string::npos : x - from);
    const auto blank = [](unsigned char c) { return std::isspace(c) != 0; };
    part.erase(part.begin(), std::find_if_not(part.begin(), part.end(), blank));
    part.erase(std::find_if_not(part.rbegin(), part.rend(), blank).base(), part.end());
    if (part.empty() || part.size() > 9 || !std::all_of(part.begin(), part.end(), [](unsigned char c) {
          return std::isdigit(c) != 0;
        }))
      throw malformed();
    sides.push_back(std::stoi(part));
    if (x == std::string::npos) break;
    from = x + 1;
  }
  if (sides.size() == 1) sides.resize(static_cast<std::size_t>(info.dims), sides[0]);
  if (sides.size() != static_cast<std::size_t>(info.dims)) throw malformed();
  return {sides[0], sides[1], info.dims == 3 ? sides[2] : 1};
}


void add_param_options(CLI::App* cmd, ParamArgs& args) {
  cmd->add_option("--param", args.assignments,
                  "A model parameter NAME=VALUE (repeatable); the parameters are listed with each model's flags");
  for (const Model* m : models()) {
    for (const ParamSpec& p : m->info().params) {
      if (args.options.count(p.name)) continue;  // one flag per name
      std::string names = flag_of(p.name);
      if (p.name == "boundary") names += ",--bc";
      if (p.name == "initial") names += ",--ic";
      std::string help = p.help;
      if (p.kind == ParamKind::choice) {
        std::string words;
        for (const std::string& c : p.choices) words += (words.empty() ? "" : ", ") + c;
        help += " {" + words + (p.bench_sweeps ? ", all in bench" : "") + "}";
      } else if (p.kind == ParamKind::file) {
        help += " {PATH, \"\" for none}";
      }
      help += " [" + models_with(p.name) + "]";
      args.options[p.name] = cmd->add_option(names, args.flags[p.name], help);
    }
  }
}

ParamValues parse_params(const ParamArgs& args, const Model& model, bool bench) {
  const ModelInfo& info = model.info();
  ParamValues values;
  for (const auto& [name, option] : args.options) {
    if (option->count() == 0) continue;
    const ParamSpec* p = info.param(name);
    if (!p) throw Error(fmt::format("{} applies to {} only (model '{}')", flag_of(name), models_with(name), info.name));
    values[name] = parse_param(*p, args.flags.at(name), bench);
  }
  for (const std::string& a : args.assignments) {
    const auto eq = a.find('=');
    if (eq == std::string::npos || eq == 0)
      throw Error(fmt::format("malformed --param '{}' (expected NAME=VALUE, such as alpha=0.5)", a));
    const std::string name = a.substr(0, eq);
    const ParamSpec* p = info.param(name);
    if (!p) {
      std::string names;
      for (const ParamSpec& q : info.params) names += (names.empty() ? "" : ", ") + q.name;
      throw Error(fmt::format("{} has no parameter '{}' ({})", info.name, name,
                              names.empty() ? "it has none" : "it has " + names));
    }
    values[name] = parse_param(*p, a.substr(eq + 1), bench);
  }
  return values;
}

void add_source_options(CLI::App* cmd, SourceArgs& args) {
  cmd->add_option("--point-source", args.sources,
                  "A point source KIND:X,Y,Z[:f0=HZ][:amp=A][:delay=S][:dir=DX,DY,DZ][:m=XX,YY,ZZ,XY,XZ,YZ] "
                  "(repeatable; replaces the model's own; acoustic3d: pressure; elastic3d: force, explosion, moment)");
  cmd->add_option("--receivers", args.receivers,
                  "Receivers PLANE:POS[:line:AT[:SPACING]|:grid[:SPACING]], e.g. xy:0:line:32 (a line along x on the "
                  "surface at y 32) or xz:10:grid:4");
  cmd->add_option("--seismogram", args.seismogram, "Write the receivers' traces to BASE.npy and BASE.csv at the end");
}

std::vector<SourceSpec> parse_sources(const SourceArgs& args) {
  std::vector<SourceSpec> out;
  for (const std::string& text : args.sources) out.push_back(parse_source_spec(text));
  return out;
}

std::optional<ReceiverLayout> parse_receivers(const SourceArgs& args) {
  if (args.receivers.empty()) return std::nullopt;
  return parse_receiver_layout(args.receivers);
}

void apply_source_args(const SourceArgs& args, Simulation& sim) {
  if (!args.any()) return;
  const ModelInfo& info = sim.info();
  if (info.source_kinds.empty())
    throw Error(fmt::format("{} has no point sources or receivers (--point-source, --receivers, --seismogram)", info.name));
  const std::vector<SourceSpec> sources = parse_sources(args);
  if (!sources.empty()) {
    while (!sim.sources().empty()) sim.remove_source(0);
    for (std::size_t k = 0; k < sources.size(); ++k) {
      try {
        sim.add_source(sources[k]);
      } catch (const Error& e) {
        throw Error(fmt::format("--point-source '{}': {}", args.sources[k], e.what()));
      }
    }
  }
  if (const auto layout = parse_receivers(args)) {
    try {
      sim.set_receivers(*layout);
    } catch (const Error& e) {
      throw Error(fmt::format("--receivers '{}': {}", args.receivers, e.what()));
    }
  }
}

void write_seismogram_files(const std::string& base, Simulation& sim) {
  sim.wait();
  const Seismogram s = sim.seismogram();
  write_seismogram_npy(base + ".npy", s);
  write_seismogram_csv(base + ".csv", s);
  fmt::print("wrote {}.npy and {}.csv: {} steps x {} component{} x {} receivers ({})\n", base, base, s.rows(),
             s.components.size(), s.components.size() == 1 ? "" : "s", s.receivers(),
             sim.receivers() ? describe(*sim.receivers()) : std::string());
}

}  // namespace ss::app
