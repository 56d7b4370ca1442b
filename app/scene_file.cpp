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
    index(root, "", {"model", "size", "order", "variant", "params", "view", "ab", "receivers", "sources"});
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
    if (const toml::node* n = root.get("params")) given = read_params(*n, info, "params");
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
    if (const toml::node* n = root.get("ab")) read_ab(*n, info);
    if (const toml::node* n = root.get("receivers")) read_receivers(*n, info);
    if (const toml::node* n = root.get("sources")) read_sources(*n, info);
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

  /// The parameters in table `table` ("params", "ab.params"), each checked by its spec.
  ParamValues read_params(const toml::node& n, const ModelInfo& info, const std::string& table) {
    const auto* t = n.as_table();
    if (!t) fail(table, fmt::format("{} must be a table ([{}]), not {}", table, table, kind_of(n)));
    index(*t, table + ".", {});
    ParamValues given;
    for (auto&& [k, v] : *t) {
      const std::string name(k.str()), key = table + "." + name;
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
        fail(key, m.rfind(name + " = ", 0) == 0 ? table + "." + m : key + ": " + m);
      }
      given[name] = value;
    }
    return given;
  }

  void read_view(const toml::node& n, const ModelInfo& info) {
    const auto* t = n.as_table();
    if (!t) fail("view", fmt::format("view must be a table ([view]), not {}", kind_of(n)));
    index(*t, "view.", {"colormap", "range", "sampling", "colorbar", "quantity", "slices", "steps_per_frame", "probes",
                        "overlay", "overlay_opacity", "zoom", "pan"});
    if (const toml::node* v = t->get("zoom")) {
      const std::optional<double> x = number_of(*v);
      if (!x || !(*x >= kSceneMinZoom && *x <= kSceneMaxZoom))
        fail("view.zoom", fmt::format("view.zoom must be a number from {} to {}, not {}", kSceneMinZoom, kSceneMaxZoom, shown(*v)));
      s_.zoom = *x;
    }
    if (const toml::node* v = t->get("pan")) {
      const std::vector<double> xy = numbers_at(*v, "view.pan", 2, "[x, y] (cells from the field's centre)");
      s_.pan = {xy[0], xy[1]};
    }
    if (const toml::node* v = t->get("overlay")) s_.overlay = boolean_at(*v, "view.overlay");
    if (const toml::node* v = t->get("overlay_opacity")) {
      const std::optional<double> x = number_of(*v);
      if (!x || !(*x >= 0 && *x <= 1))
        fail("view.overlay_opacity", fmt::format("view.overlay_opacity must be a number from 0 to 1, not {}", shown(*v)));
      s_.overlay_opacity = *x;
    }
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

  bool boolean_at(const toml::node& n, const std::string& key) const {
    const auto* b = n.as_boolean();
    if (!b) fail(key, fmt::format("{} must be true or false, not {} {}", key, kind_of(n), shown(n)));
    return b->get();
  }

  /// `count` numbers ([x, y, z]; one for count 1 without brackets), each finite.
  std::vector<double> numbers_at(const toml::node& n, const std::string& key, std::size_t count, const char* form) const {
    std::vector<double> out;
    if (count == 1) {
      if (const std::optional<double> x = number_of(n)) out.push_back(*x);
    } else if (const auto* a = n.as_array(); a && a->size() == count) {
      for (const toml::node& e : *a)
        if (const std::optional<double> x = number_of(e)) out.push_back(*x);
    }
    if (out.size() != count) fail(key, fmt::format("{} must be {}, not {} {}", key, form, kind_of(n), shown(n)));
    for (double x : out)
      if (!std::isfinite(x)) fail(key, fmt::format("{} must be finite, not {}", key, shown(n)));
    return out;
  }

  void read_ab(const toml::node& n, const ModelInfo& info) {
    const auto* t = n.as_table();
    if (!t) fail("ab", fmt::format("ab must be a table ([ab]), not {}", kind_of(n)));
    index(*t, "ab.", {"enabled", "order", "variant", "params"});
    if (const toml::node* v = t->get("enabled")) s_.ab.enabled = boolean_at(*v, "ab.enabled");
    if (const toml::node* v = t->get("order")) {
      const int order = static_cast<int>(integer_at(*v, "ab.order", 0, 1000));
      if (order != 0 && std::find(info.orders.begin(), info.orders.end(), order) == info.orders.end()) {
        std::vector<std::string> orders{"0 (A's)"};
        for (int o : info.orders) orders.push_back(std::to_string(o));
        fail("ab.order", fmt::format("ab.order = {} is not a stencil order of {} (choose {})", order, info.name, join(orders)));
      }
      s_.ab.order = order;
    }
    if (const toml::node* v = t->get("variant")) {
      const std::string name = string_at(*v, "ab.variant", "");
      if (!name.empty() && !info.variant(name))
        fail("ab.variant", fmt::format("ab.variant: unknown variant '{}' of {} (choose \"\" for A's, {})", name, info.name,
                                       info.variant_list()));
      s_.ab.variant = name;
    }
    if (const toml::node* v = t->get("params")) s_.ab.params = read_params(*v, info, "ab.params");
  }

  /// The grid the scene runs on.
  std::array<int, 3> grid(const ModelInfo& info) const {
    std::array<int, 3> size = s_.size.value_or(info.default_size);
    if (info.dims == 2) size[2] = 1;
    return size;
  }

  void no_sources_in(const ModelInfo& info, const char* key) const {
    if (info.source_kinds.empty())
      fail(key, fmt::format("{}: {} has no point sources or receivers", key, info.name));
  }

  void read_receivers(const toml::node& n, const ModelInfo& info) {
    no_sources_in(info, "receivers");
    const auto* t = n.as_table();
    if (!t) fail("receivers", fmt::format("receivers must be a table ([receivers]), not {}", kind_of(n)));
    index(*t, "receivers.", {"plane", "position", "shape", "line_at", "spacing"});
    ReceiverLayout r;
    if (const toml::node* v = t->get("plane")) {
      const std::string plane = string_at(*v, "receivers.plane", "xy");
      if (plane == "xy") r.axis = 2;
      else if (plane == "xz") r.axis = 1;
      else if (plane == "yz") r.axis = 0;
      else fail("receivers.plane", fmt::format("receivers.plane = \"{}\" is not a plane (choose xy, xz or yz)", plane));
    }
    if (const toml::node* v = t->get("position")) r.position = static_cast<int>(integer_at(*v, "receivers.position", 0, 1'000'000));
    if (const toml::node* v = t->get("shape")) {
      const std::string shape = string_at(*v, "receivers.shape", "line");
      if (shape == "grid") r.shape = ReceiverLayout::Shape::grid;
      else if (shape != "line") fail("receivers.shape", fmt::format("receivers.shape = \"{}\" is not a shape (choose line or grid)", shape));
    }
    if (const toml::node* v = t->get("line_at")) r.line_at = static_cast<int>(integer_at(*v, "receivers.line_at", 0, 1'000'000));
    if (const toml::node* v = t->get("spacing")) r.spacing = static_cast<int>(integer_at(*v, "receivers.spacing", 1, 1'000'000));
    try {
      receiver_nodes(r, grid(info));
    } catch (const Error& e) {
      const std::string m = e.what();
      const char* key = m.find("line at") != std::string::npos ? "receivers.line_at" : "receivers.position";
      fail(s_.lines.count(key) ? key : "receivers", std::string("receivers: ") + m);
    }
    s_.receivers = r;
  }

  void read_sources(const toml::node& n, const ModelInfo& info) {
    no_sources_in(info, "sources");
    const auto* a = n.as_array();
    if (!a) fail("sources", fmt::format("sources must be an array of tables ([[sources]]), not {}", kind_of(n)));
    if (a->size() > static_cast<std::size_t>(kMaxSources))
      fail("sources", fmt::format("sources: {} sources, at most {} run", a->size(), kMaxSources));
    std::vector<SourceSpec> list;
    for (std::size_t i = 0; i < a->size(); ++i) {
      const std::string at = fmt::format("sources[{}]", i);
      const auto* t = (*a)[i].as_table();
      if (!t) fail("sources", fmt::format("{} must be a table ([[sources]]), not {} {}", at, kind_of((*a)[i]), shown((*a)[i])));
      s_.lines[at] = static_cast<int>((*a)[i].source().begin.line);
      index(*t, at + ".", {"kind", "node", "f0", "amplitude", "delay", "direction", "moment"});
      const toml::node* kind = t->get("kind");
      const toml::node* node = t->get("node");
      if (!kind || !node) fail(at, fmt::format("{} needs a kind and a node (kind = \"{}\", node = [x, y, z])", at,
                                               to_string(info.source_kinds.front())));
      SourceSpec src;
      const std::string kind_word = string_at(*kind, at + ".kind", std::string(to_string(info.source_kinds.front())));
      try {
        src.kind = parse_source_kind(kind_word);
      } catch (const Error& e) {
        fail(at + ".kind", at + ".kind: " + e.what());
      }
      const std::vector<double> xyz = numbers_at(*node, at + ".node", 3, "[x, y, z] (3 integers)");
      for (int k = 0; k < 3; ++k) {
        if (xyz[k] != std::floor(xyz[k]) || !node->as_array()->is_homogeneous(toml::node_type::integer))
          fail(at + ".node", fmt::format("{}.node must be [x, y, z] (3 integers), not {}", at, shown(*node)));
        src.node[k] = static_cast<int>(std::clamp(xyz[k], -2e9, 2e9));
      }
      if (const toml::node* v = t->get("f0")) src.f0_hz = numbers_at(*v, at + ".f0", 1, "a number of hertz")[0];
      if (const toml::node* v = t->get("amplitude")) src.amplitude = numbers_at(*v, at + ".amplitude", 1, "a number")[0];
      if (const toml::node* v = t->get("delay")) src.delay_s = numbers_at(*v, at + ".delay", 1, "a number of seconds")[0];
      if (const toml::node* v = t->get("direction")) {
        if (src.kind != SourceKind::force) fail(at + ".direction", fmt::format("{}.direction applies to force sources only", at));
        const auto d = numbers_at(*v, at + ".direction", 3, "[dx, dy, dz]");
        src.direction = {d[0], d[1], d[2]};
      }
      if (const toml::node* v = t->get("moment")) {
        if (src.kind != SourceKind::moment) fail(at + ".moment", fmt::format("{}.moment applies to moment sources only", at));
        const auto m = numbers_at(*v, at + ".moment", 6, "[xx, yy, zz, xy, xz, yz]");
        std::copy(m.begin(), m.end(), src.moment.begin());
      }
      try {
        check_source(src, grid(info), info.source_kinds);
      } catch (const Error& e) {
        const std::string m = e.what();
        std::string key = at;
        if (m.rfind("this model has no", 0) == 0) key = at + ".kind";
        else if (m.rfind("source at", 0) == 0) key = at + ".node";
        else if (m.find("frequency") != std::string::npos) key = at + ".f0";
        else if (m.find("amplitude") != std::string::npos) key = at + ".amplitude";
        else if (m.find("delay") != std::string::npos) key = at + ".delay";
        else if (m.find("direction") != std::string::npos) key = at + ".direction";
        else if (m.find("moment") != std::string::npos) key = at + ".moment";
        if (!s_.lines.count(key)) key = at;
        fail(key, fmt::format("{}: {}", key, m));
      }
      list.push_back(src);
    }
    s_.sources = std::move(list);
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
  if (s.sources && s.sources->empty()) out += "sources = []  # no point sources (not even the model's own)\n";
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
  out += fmt::format("zoom = {}  # the 2D view's, {} to {}\n", real_text(s.zoom), kSceneMinZoom, kSceneMaxZoom);
  out += fmt::format("pan = [{}, {}]  # the 2D view's centre, cells from the field's centre\n", real_text(s.pan[0]),
                     real_text(s.pan[1]));
  if (!s.probes.empty()) {
    std::string cells;
    for (const auto& c : s.probes) cells += fmt::format("{}[{}, {}, {}]", cells.empty() ? "" : ", ", c[0], c[1], c[2]);
    out += fmt::format("probes = [{}]  # cells [x, y, z] the Plots follow\n", cells);
  }
  if (!info.views.overlay_quantity.empty() || s.overlay) {
    out += fmt::format("overlay = {}  # the medium ({}) drawn over the field\n", s.overlay ? "true" : "false",
                       info.views.overlay_quantity);
    // The renderer keeps a float: its shortest form ("0.4", not 0.4000000059604645) reads back to it.
    out += fmt::format("overlay_opacity = {}  # 0..1\n", static_cast<float>(s.overlay_opacity));
  }

  out += "\n[ab]  # a second run B beside this one, from its state\n";
  out += fmt::format("enabled = {}\n", s.ab.enabled ? "true" : "false");
  out += fmt::format("order = {}  # B's stencil order; 0: A's\n", s.ab.order);
  out += fmt::format("variant = {}  # B's variant; \"\": A's\n", quoted(s.ab.variant));
  if (!s.ab.params.empty()) {
    out += "[ab.params]  # B's parameters that differ from A's\n";
    for (const auto& [name, value] : s.ab.params) {
      const ParamSpec* p = info.param(name);
      if (p) out += fmt::format("{} = {}\n", name, value_text(*p, value));
    }
  }

  if (s.receivers) {
    const ReceiverLayout& r = *s.receivers;
    static constexpr const char* kPlane[3] = {"yz", "xz", "xy"};
    out += "\n[receivers]  # " + describe(r) + "\n";
    out += fmt::format("plane = \"{}\"  # xy, xz or yz\n", kPlane[std::clamp(r.axis, 0, 2)]);
    out += fmt::format("position = {}  # index along the plane's normal\n", r.position);
    out += fmt::format("shape = \"{}\"  # line or grid\n", r.shape == ReceiverLayout::Shape::grid ? "grid" : "line");
    out += fmt::format("line_at = {}  # line: index along the plane's second axis\n", r.line_at);
    out += fmt::format("spacing = {}  # every spacing-th node\n", r.spacing);
  }
  if (s.sources) {
    for (const SourceSpec& src : *s.sources) {
      out += "\n[[sources]]  # " + describe(src) + "\n";
      out += fmt::format("kind = {}\n", quoted(to_string(src.kind)));
      out += fmt::format("node = [{}, {}, {}]  # x, y, z\n", src.node[0], src.node[1], src.node[2]);
      out += fmt::format("f0 = {}  # Ricker peak frequency [Hz]\n", real_text(src.f0_hz));
      out += fmt::format("amplitude = {}  # times the model's natural strength\n", real_text(src.amplitude));
      out += fmt::format("delay = {}  # [s] after the wavelet's own 1.5 / f0\n", real_text(src.delay_s));
      if (src.kind == SourceKind::force)
        out += fmt::format("direction = [{}, {}, {}]\n", real_text(src.direction[0]), real_text(src.direction[1]),
                           real_text(src.direction[2]));
      if (src.kind == SourceKind::moment) {
        std::string m;
        for (double x : src.moment) m += (m.empty() ? "" : ", ") + real_text(x);
        out += fmt::format("moment = [{}]  # xx, yy, zz, xy, xz, yz\n", m);
      }
    }
  }
  return out;
}

void take_sources(SceneFile& scene, const Simulation& running) {
  if (running.info().name != scene.model || running.info().source_kinds.empty()) return;
  scene.sources = running.sources();
  scene.receivers = running.receivers();
}

void apply_scene_sources(const SceneFile& scene, Simulation& sim) {
  if (scene.sources) {
    while (!sim.sources().empty()) sim.remove_source(0);
    for (std::size_t k = 0; k < scene.sources->size(); ++k) {
      const std::string key = fmt::format("sources[{}]", k);
      try {
        sim.add_source((*scene.sources)[k]);
      } catch (const Error& e) {
        throw Error(fmt::format("{}: {}: {}", scene.where(key), key, e.what()));
      }
    }
  }
  if (scene.receivers) {
    try {
      sim.set_receivers(*scene.receivers);
    } catch (const Error& e) {
      throw Error(fmt::format("{}: receivers: {}", scene.where("receivers"), e.what()));
    }
  }
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
