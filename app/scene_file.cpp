#include "scene_file.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "scene_paths.hpp"
#include "sim/core/error.hpp"

namespace ss::app {

namespace {

/// "a string", "an integer", ...: what a TOML value is, for messages.
std::string kind_of(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a number";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::array: return "an array";
    case toml::node_type::table: return "a table";
    default: return "a date or time";
  }
}

/// The value as TOML would show it, for messages ("-1", "\"x\"", "[1, 2]").
std::string shown(const toml::node& n) {
  std::ostringstream out;
  n.visit([&](const auto& v) { out << v; });
  std::string s = out.str();
  std::replace(s.begin(), s.end(), '\n', ' ');
  return s.size() > 40 ? s.substr(0, 37) + "..." : s;
}

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : ", ") + w;
  return out;
}

/// A number (integer or float), or nothing.
std::optional<double> number_of(const toml::node& n) {
  if (const auto* i = n.as_integer()) return static_cast<double>(i->get());
  if (const auto* f = n.as_floating_point()) return f->get();
  return std::nullopt;
}

/// Reads one scene; every error names the file, the line and the key.
class SceneReader {
 public:
  SceneReader(SceneFile& scene) : s_(scene) {}

  [[noreturn]] void fail(std::string_view key, const std::string& message) const {
    throw Error(s_.where(key) + ": " + message);
  }

  /// Records the line of every key of `table` (named `prefix` + key) and refuses the
  /// ones not in `known`.
  void index(const toml::table& table, const std::string& prefix, const std::vector<std::string>& known) {
    for (auto&& [k, v] : table) {
      const std::string name = prefix + std::string(k.str());
      s_.lines[name] = static_cast<int>(k.source().begin.line);
      if (!known.empty() && std::find(known.begin(), known.end(), std::string(k.str())) == known.end())
        fail(name, fmt::format("unknown key '{}' (a scene{} has {})", name, prefix.empty() ? "" : "'s [" + prefix.substr(0, prefix.size() - 1) + "]", join(known)));
    }
  }

  std::string string_at(const toml::node& n, const std::string& key, const std::string& example) const {
    const auto* v = n.as_string();
    if (!v) fail(key, fmt::format("{} must be a string such as \"{}\", not {} {}", key, example, kind_of(n), shown(n)));
    return v->get();
  }

  long long integer_at(const toml::node& n, const std::string& key, long long lo, long long hi) const {
    const auto* v = n.as_integer();
    if (!v) fail(key, fmt::format("{} must be an integer, not {} {}", key, kind_of(n), shown(n)));
    if (v->get() < lo || v->get() > hi) fail(key, fmt::format("{} = {} is out of range ({} to {})", key, v->get(), lo, hi));
    return v->get();
  }

  void read(const toml::table& root) {
    index(root, "", {"model", "size", "order", "variant", "params", "view"});
    const toml::node* model_node = root.get("model");
    if (!model_node) fail("", fmt::format("no model (add model = \"{}\"; models: {})", models().front()->info().name, model_list()));
    s_.model = string_at(*model_node, "model", models().front()->info().name);
    const Model* model = nullptr;
    try {
      model = &find_model(s_.model);
    } catch (const Error& e) {
      fail("model", std::string("model: ") + e.what());
    }
    const ModelInfo& info = model->info();

    if (const toml::node* n = root.get("size")) read_size(*n, info);
    if (const toml::node* n = root.get("order")) {
      const int order = static_cast<int>(integer_at(*n, "order", 0, 1000));
      if (std::find(info.orders.begin(), info.orders.end(), order) == info.orders.end()) {
        std::vector<std::string> orders;
        for (int o : info.orders) orders.push_back(std::to_string(o));
        fail("order", fmt::format("order = {} is not a stencil order of {} (choose {})", order, info.name, join(orders)));
      }
      s_.order = order;
    }
    if (const toml::node* n = root.get("variant")) {
      const std::string v = string_at(*n, "variant", "auto");
      if (v != "auto" && !v.empty()) {
        if (!info.variant(v))
          fail("variant", fmt::format("variant: unknown variant '{}' of {} (choose auto, {})", v, info.name, info.variant_list()));
        try {
          check_live_variant(info, v);
        } catch (const Error& e) {
          fail("variant", std::string("variant: ") + e.what());
        }
        s_.variant = v;
      }
    }
    ParamValues given;
    if (const toml::node* n = root.get("params")) given = read_params(*n, info);
    try {
      s_.params = make_config(*model, s_.size.value_or(info.default_size), s_.order.value_or(info.default_order), given).params;
    } catch (const Error& e) {
      // The model's own checks (dt against the stability limit): the parameter they name, if any.
      std::string key = "params";
      const std::string m = e.what();
      for (const ParamSpec& p : info.params)
        if (m.rfind(p.name + " ", 0) == 0 && s_.lines.count("params." + p.name)) key = "params." + p.name;
      fail(key, key + ": " + m);
    }
    if (const toml::node* n = root.get("view")) read_view(*n, info);
  }

 private:
  void read_size(const toml::node& n, const ModelInfo& info) {
    const auto* a = n.as_array();
    const std::string form = info.dims == 2 ? "[nx, ny]" : "[nx, ny, nz]";
    if (!a || a->size() != static_cast<std::size_t>(info.dims))
      fail("size", fmt::format("size must be {} for {}, not {}", form, info.name, shown(n)));
    std::array<int, 3> size{1, 1, 1};
    for (std::size_t k = 0; k < a->size(); ++k) {
      const auto* v = (*a)[k].as_integer();
      if (!v) fail("size", fmt::format("size must be {} of integers for {}, not {}", form, info.name, shown(n)));
      if (v->get() < info.min_side || v->get() > 1'000'000)
        fail("size", fmt::format("size {} is out of range: every side needs {} to 1000000 cells", shown(n), info.min_side));
      size[k] = static_cast<int>(v->get());
    }
    s_.size = size;
  }

  ParamValues read_params(const toml::node& n, const ModelInfo& info) {
    const auto* t = n.as_table();
    if (!t) fail("params", fmt::format("params must be a table ([params]), not {}", kind_of(n)));
    index(*t, "params.", {});
    ParamValues given;
    for (auto&& [k, v] : *t) {
      const std::string name(k.str()), key = "params." + name;
      const ParamSpec* p = info.param(name);
      if (!p) {
        std::vector<std::string> names;
        for (const ParamSpec& q : info.params) names.push_back(q.name);
        fail(key, fmt::format("{} is not a parameter of {} ({})", key, info.name,
                              names.empty() ? "it has none" : "it has " + join(names)));
      }
      ParamValue value;
      if (p->kind == ParamKind::choice) {
        const auto* s = v.as_string();
        if (!s) fail(key, fmt::format("{} must be a string (one of {}), not {} {}", key, join(p->choices), kind_of(v), shown(v)));
        value = s->get();
      } else if (p->kind == ParamKind::file) {
        const auto* s = v.as_string();
        if (!s) fail(key, fmt::format("{} must be a file path in quotes (\"\" for none), not {} {}", key, kind_of(v), shown(v)));
        value = resolve_scene_path(s->get(), s_.path);  // relative to the scene file
      } else if (p->kind == ParamKind::integer) {
        const auto* i = v.as_integer();
        if (!i) fail(key, fmt::format("{} must be an integer, not {} {}", key, kind_of(v), shown(v)));
        value = static_cast<double>(i->get());
      } else {
        const std::optional<double> x = number_of(v);
        if (!x) fail(key, fmt::format("{} must be a number, not {} {}", key, kind_of(v), shown(v)));
        value = *x;
      }
      try {
        check_param(*p, value);
      } catch (const Error& e) {
        const std::string m = e.what();
        fail(key, m.rfind(name + " = ", 0) == 0 ? "params." + m : key + ": " + m);
      }
      given[name] = value;
    }
    return given;
  }

  void read_view(const toml::node& n, const ModelInfo& info) {
    const auto* t = n.as_table();
    if (!t) fail("view", fmt::format("view must be a table ([view]), not {}", kind_of(n)));
    index(*t, "view.", {"colormap", "range", "sampling", "colorbar", "quantity", "slices", "steps_per_frame", "probes"});
    if (const toml::node* v = t->get("colormap")) s_.colormap = string_at(*v, "view.colormap", "viridis");
    if (const toml::node* v = t->get("sampling")) s_.sampling = string_at(*v, "view.sampling", "nearest");
    if (const toml::node* v = t->get("colorbar")) {
      const auto* b = v->as_boolean();
      if (!b) fail("view.colorbar", fmt::format("view.colorbar must be true or false, not {} {}", kind_of(*v), shown(*v)));
      s_.colorbar = b->get();
    }
    if (const toml::node* v = t->get("range")) read_range(*v);
    if (const toml::node* v = t->get("quantity")) {
      const std::string q = string_at(*v, "view.quantity", info.views.quantities.empty() ? "" : info.views.quantities[0]);
      const auto& qs = info.views.quantities;
      if (std::find(qs.begin(), qs.end(), q) == qs.end())
        fail("view.quantity", fmt::format("unknown quantity '{}' of {} (choose {})", q, info.name, join(qs)));
      s_.quantity = q;
    }
    if (const toml::node* v = t->get("slices")) {
      if (info.dims != 3) fail("view.slices", fmt::format("view.slices applies to 3D models only ({} is {}D)", info.name, info.dims));
      const auto* a = v->as_array();
      if (!a || a->size() != 3 || !a->is_homogeneous(toml::node_type::integer))
        fail("view.slices", fmt::format("view.slices must be [z, y, x] (3 integers), not {}", shown(*v)));
      const std::array<int, 3> size = s_.size.value_or(info.default_size);
      const int depth[3] = {size[2], size[1], size[0]};
      static constexpr const char* kAxes[] = {"z", "y", "x"};
      for (int k = 0; k < 3; ++k) {
        const long long pos = (*a)[static_cast<std::size_t>(k)].as_integer()->get();
        if (pos < -1 || pos >= depth[k])
          fail("view.slices", fmt::format("view.slices {} = {} is outside the grid (0..{}, or -1 for the middle)",
                                          kAxes[k], pos, depth[k] - 1));
        s_.slices[static_cast<std::size_t>(k)] = static_cast<int>(pos);
      }
    }
    if (const toml::node* v = t->get("steps_per_frame"))
      s_.steps_per_frame = static_cast<int>(integer_at(*v, "view.steps_per_frame", 0, 1'000'000));
    if (const toml::node* v = t->get("probes")) read_probes(*v, info);
  }

  void read_probes(const toml::node& n, const ModelInfo& info) {
    const auto* a = n.as_array();
    if (!a) fail("view.probes", fmt::format("view.probes must be a list of cells [[x, y, z], ...], not {}", shown(n)));
    const std::array<int, 3> size = s_.size.value_or(info.default_size);
    for (const toml::node& e : *a) {
      const auto* c = e.as_array();
      if (!c || c->size() != 3 || !c->is_homogeneous(toml::node_type::integer))
        fail("view.probes", fmt::format("each of view.probes must be [x, y, z] (3 integers), not {}", shown(e)));
      std::array<int, 3> cell{};
      for (int k = 0; k < 3; ++k) {
        const long long x = (*c)[static_cast<std::size_t>(k)].as_integer()->get();
        const int n_k = info.dims == 2 && k == 2 ? 1 : size[static_cast<std::size_t>(k)];
        if (x < 0 || x >= n_k)
          fail("view.probes", fmt::format("view.probes {} is outside the grid ({} x {} x {})", shown(e), size[0], size[1],
                                          info.dims == 2 ? 1 : size[2]));
        cell[static_cast<std::size_t>(k)] = static_cast<int>(x);
      }
      s_.probes.push_back(cell);
    }
  }

  void read_range(const toml::node& n) {
    if (const auto* s = n.as_string()) {
      if (s->get() != "auto" && s->get() != "expanding")
        fail("view.range", fmt::format("view.range = \"{}\" is not a range (\"auto\", \"expanding\" or [lo, hi])", s->get()));
      s_.range.mode = s->get();
      return;
    }
    const auto* a = n.as_array();
    std::optional<double> lo, hi;
    if (a && a->size() == 2) {
      lo = number_of((*a)[0]);
      hi = number_of((*a)[1]);
    }
    if (!lo || !hi || !std::isfinite(*lo) || !std::isfinite(*hi) || !(*lo < *hi))
      fail("view.range", fmt::format("view.range must be \"auto\", \"expanding\" or [lo, hi] with lo < hi, not {}", shown(n)));
    s_.range = {"fixed", *lo, *hi};
  }

  SceneFile& s_;
};

/// A TOML basic string: quoted, with quotes, backslashes and control characters escaped.
std::string quoted(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += {'\\', c};
    else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) out += fmt::format("\\u{:04X}", static_cast<unsigned char>(c));
    else out += c;
  }
  return out + "\"";
}

/// A real as TOML reads it back to the same double (shortest round-trip form).
std::string real_text(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  return fmt::format("{}", x);
}

std::string value_text(const ParamSpec& p, const ParamValue& v) {
  if (const auto* w = std::get_if<std::string>(&v)) return quoted(*w);
  const double x = std::get<double>(v);
  if (p.kind == ParamKind::integer && std::floor(x) == x && std::abs(x) < 9e18) return fmt::format("{}", static_cast<long long>(x));
  return real_text(x);
}

/// The comment after a parameter: its help and unit, on one line.
std::string param_comment(const ParamSpec& p) {
  std::string c = p.help;
  if (!p.unit.empty()) c += " [" + p.unit + "]";
  if (p.kind == ParamKind::choice) c += " (" + join(p.choices) + ")";
  std::replace(c.begin(), c.end(), '\n', ' ');
  return c.empty() ? "" : "  # " + c;
}

}  // namespace

std::string SceneFile::where(std::string_view key) const {
  const std::string file = path.empty() ? "scene" : path;
  const auto it = lines.find(key);
  return it == lines.end() || it->second <= 0 ? file : fmt::format("{}:{}", file, it->second);
}

SceneFile parse_scene(std::string_view text, const std::string& path) {
  toml::table root;
  try {
    root = toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    std::string d(e.description());
    std::replace(d.begin(), d.end(), '\n', ' ');
    throw Error(fmt::format("{}:{}: TOML syntax error: {}", path, e.source().begin.line, d));
  }
  SceneFile scene;
  scene.path = path;
  SceneReader(scene).read(root);
  return scene;
}

SceneFile read_scene(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot read scene file '" + path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw Error("failed reading scene file '" + path + "'");
  return parse_scene(text.str(), path);
}

std::string scene_text(const SceneFile& s) {
  const ModelInfo& info = find_model(s.model).info();
  const std::array<int, 3> n = s.size.value_or(info.default_size);
  std::string out = "# stencilscope scene\n";
  out += fmt::format("model = {}  # {}\n", quoted(info.name), info.description);
  out += info.dims == 2 ? fmt::format("size = [{}, {}]  # nx, ny\n", n[0], n[1])
                        : fmt::format("size = [{}, {}, {}]  # nx, ny, nz\n", n[0], n[1], n[2]);
  out += fmt::format("order = {}\n", s.order.value_or(info.default_order));
  out += fmt::format("variant = {}  # auto: the fastest on the device; {}\n", quoted(s.variant.empty() ? "auto" : s.variant),
                     info.variant_list());
  out += "\n[params]\n";
  for (const ParamSpec& p : info.params) {
    const auto it = s.params.find(p.name);
    const ParamValue v = it != s.params.end() ? it->second : p.default_value();
    out += fmt::format("{} = {}{}\n", p.name, value_text(p, v), param_comment(p));
  }
  out += "\n[view]\n";
  out += fmt::format("colormap = {}\n", quoted(s.colormap));
  out += s.range.mode == "fixed" ? fmt::format("range = [{}, {}]  # fixed; or \"auto\", \"expanding\"\n",
                                               real_text(s.range.lo), real_text(s.range.hi))
                                 : fmt::format("range = {}  # \"auto\", \"expanding\", or [lo, hi]\n", quoted(s.range.mode));
  out += fmt::format("sampling = {}  # nearest or linear\n", quoted(s.sampling));
  out += fmt::format("colorbar = {}\n", s.colorbar ? "true" : "false");
  if (!s.quantity.empty()) out += fmt::format("quantity = {}  # {}\n", quoted(s.quantity), join(info.views.quantities));
  if (info.dims == 3)
    out += fmt::format("slices = [{}, {}, {}]  # z of XY, y of XZ, x of YZ; -1: the middle\n", s.slices[0], s.slices[1],
                       s.slices[2]);
  out += fmt::format("steps_per_frame = {}  # 0: adaptive\n", s.steps_per_frame);
  if (!s.probes.empty()) {
    std::string cells;
    for (const auto& c : s.probes) cells += fmt::format("{}[{}, {}, {}]", cells.empty() ? "" : ", ", c[0], c[1], c[2]);
    out += fmt::format("probes = [{}]  # cells [x, y, z] the Plots follow\n", cells);
  }
  return out;
}

void write_scene(const std::string& path, const SceneFile& scene) {
  // File parameters are written relative to the scene's folder, as read_scene resolves them.
  SceneFile relative = scene;
  for (const ParamSpec& p : find_model(scene.model).info().params) {
    const auto it = relative.params.find(p.name);
    if (p.kind != ParamKind::file || it == relative.params.end()) continue;
    if (const auto* text = std::get_if<std::string>(&it->second)) it->second = scene_relative_path(*text, path);
  }
  const std::string text = scene_text(relative);
  std::ofstream out(path, std::ios::binary);
  if (!out) throw Error("cannot write scene file '" + path + "'");
  out << text;
  if (!out.flush()) throw Error("failed writing scene file '" + path + "'");
}

}  // namespace ss::app
