#include "sim/core/model.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "sim/core/device_read.hpp"
#include "sim/core/error.hpp"
#include "sim/core/stencil.hpp"

namespace ss {

namespace {

/// "a, b or c".
std::string or_list(const std::vector<std::string>& words) {
  std::string out;
  for (std::size_t k = 0; k < words.size(); ++k) {
    if (k > 0) out += k + 1 == words.size() ? " or " : ", ";
    out += words[k];
  }
  return out;
}

std::string range_text(const ParamSpec& p) {
  const bool lo = p.min > -1e299, hi = p.max < 1e299;
  std::string r;
  if (lo && hi) r = fmt::format("{:g} to {:g}", p.min, p.max);
  else if (lo) r = fmt::format("at least {:g}", p.min);
  else if (hi) r = fmt::format("at most {:g}", p.max);
  else r = "any number";
  if (p.zero_means_auto && p.min == 0 && !hi) r = "positive, or 0 for auto";
  else if (p.zero_means_auto) r += ", or 0 for auto";
  if (p.kind == ParamKind::integer) r += ", a whole number";
  return r;
}

std::vector<std::string> accepted_words(const ParamSpec& p, bool bench) {
  std::vector<std::string> w = p.choices;
  if (bench && p.bench_sweeps) w.push_back("all");
  return w;
}

}  // namespace

ParamValue ParamSpec::default_value() const {
  if (kind == ParamKind::file) return std::string();
  if (kind == ParamKind::choice) return default_choice;
  return default_number;
}

const ParamSpec* ModelInfo::param(std::string_view n) const {
  for (const ParamSpec& p : params)
    if (p.name == n) return &p;
  return nullptr;
}

const VariantSpec* ModelInfo::variant(std::string_view n) const {
  for (const VariantSpec& v : variants)
    if (v.name == n) return &v;
  return nullptr;
}

std::string ModelInfo::variant_list(std::string_view device) const {
  std::vector<std::string> names;
  for (const VariantSpec& v : variants)
    if (device == "all" || (device == "gpu") == v.gpu) names.push_back(v.name);
  return or_list(names);
}

double ModelConfig::number(std::string_view name) const {
  const auto it = params.find(name);
  if (it == params.end() || !std::holds_alternative<double>(it->second))
    throw Error(fmt::format("the configuration has no number '{}'", name));
  return std::get<double>(it->second);
}

const std::string& ModelConfig::word(std::string_view name) const {
  const auto it = params.find(name);
  if (it == params.end() || !std::holds_alternative<std::string>(it->second))
    throw Error(fmt::format("the configuration has no choice '{}'", name));
  return std::get<std::string>(it->second);
}

std::string to_string(const ParamValue& v) {
  if (const auto* d = std::get_if<double>(&v)) return fmt::format("{:g}", *d);
  return std::get<std::string>(v);
}

void check_param(const ParamSpec& p, const ParamValue& v, bool bench) {
  if (p.kind == ParamKind::file) {  // the model reads the file and says what is wrong with it
    if (!std::holds_alternative<std::string>(v))
      throw Error(fmt::format("{} must be the path of a file (\"\" for none), not {}", p.name, to_string(v)));
    return;
  }
  if (p.kind == ParamKind::choice) {
    const auto* word = std::get_if<std::string>(&v);
    const auto words = accepted_words(p, bench);
    if (!word || std::find(words.begin(), words.end(), *word) == words.end())
      throw Error(fmt::format("unknown {} '{}' (choose {}{})", p.name, to_string(v), or_list(words),
                              p.other_words.empty() ? std::string() : "; " + p.other_words));
    return;
  }
  const auto* x = std::get_if<double>(&v);
  if (!x) throw Error(fmt::format("{} must be a number ({}), not '{}'", p.name, range_text(p), to_string(v)));
  if (p.zero_means_auto && *x == 0) return;
  const bool whole = p.kind != ParamKind::integer || std::floor(*x) == *x;
  if (!std::isfinite(*x) || *x < p.min || *x > p.max || !whole)
    throw Error(fmt::format("{} = {:g} is out of range ({})", p.name, *x, range_text(p)));
}

ParamValue parse_param(const ParamSpec& p, std::string_view text, bool bench) {
  ParamValue v;
  if (p.takes_text()) {
    v = std::string(text);
  } else {
    const std::string s(text);
    std::size_t used = 0;
    double x = 0;
    try {
      x = std::stod(s, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    while (used < s.size() && std::isspace(static_cast<unsigned char>(s[used]))) ++used;
    if (s.empty() || used != s.size())
      throw Error(fmt::format("{} must be a number ({}), not '{}'", p.name, range_text(p), s));
    v = x;
  }
  check_param(p, v, bench);
  return v;
}

void check_live_variant(const ModelInfo& info, std::string_view variant) {
  const VariantSpec* spec = info.variant(variant);
  if (spec && !spec->live)
    throw Error(fmt::format("the {} variant '{}' does not step live: {}", info.name, variant, spec->help));
}

DistributedSpec Model::distributed(const ModelConfig&) const {
  DistributedSpec s;
  s.why_not = info().name + " does not run distributed yet (one rank only)";
  return s;
}

std::unique_ptr<BoxSimulation> Model::create_box(const ModelConfig& config, const BoxPlacement&, std::string_view) const {
  throw Error(distributed(config).why_not);
}

StepAccounting BoxSimulation::accounting() const { return {}; }

std::vector<float> BoxSimulation::quantity_interior(const std::string&) const {
  throw Error("this model's boxes do not give views yet (a run on several ranks can step it, not show it)");
}

void BoxSimulation::paint(const Sphere&) { throw Error("this model's boxes cannot be painted yet"); }

void BoxSimulation::load_interiors(const std::vector<std::vector<float>>&, long) {
  throw Error("this model's boxes cannot load a state yet");
}

void BoxSimulation::set_sources(const std::vector<SourceSpec>& sources) {
  if (!sources.empty()) throw Error("this model's boxes take no point sources");
}

void BoxSimulation::set_receivers(const ReceiverLayout&) { throw Error("this model's boxes have no receivers"); }

BoxTraceRecorder::BoxTraceRecorder(const std::vector<std::array<int, 3>>& nodes, const Box& box, const Grid3D& grid,
                                   int components, long first_step)
    : components_(components), first_step_(first_step) {
  for (std::size_t r = 0; r < nodes.size(); ++r) {
    const std::array<int, 3>& n = nodes[r];
    bool inside = true;
    for (int a = 0; a < 3; ++a) inside = inside && n[a] >= box.lo[a] && n[a] < box.lo[a] + box.n[a];
    if (!inside) continue;
    held_.push_back(static_cast<int>(r));
    at_.push_back(grid.index(n[0] - box.lo[0], n[1] - box.lo[1], n[2] - box.lo[2]));
  }
}

void BoxTraceRecorder::record(std::span<const float* const> fields, int max_rows) {
  if (rows_ >= max_rows) return;
  for (const float* f : fields.first(static_cast<std::size_t>(components_)))
    for (std::size_t at : at_) values_.push_back(f[at]);
  ++rows_;
}

void BoxTraceRecorder::restart(long first_step) {
  values_.clear();
  rows_ = 0;
  first_step_ = first_step;
}

void BoxTraceRecorder::fill(BoxTraces& t, int from_row) const {
  if (from_row < 0 || from_row > rows_)
    throw Error(fmt::format("traces from row {} asked of a box that recorded {}", from_row, rows_));
  t.rows = rows_;
  t.held = held_;
  t.head.first_step = first_step_;
  const std::size_t row = static_cast<std::size_t>(components_) * held_.size();
  t.values.assign(values_.begin() + static_cast<std::ptrdiff_t>(row * static_cast<std::size_t>(from_row)), values_.end());
}

int Simulation::views() const { return info().dims == 2 ? 1 : 3; }

std::array<int, 2> Simulation::view_size(int view) const {
  const auto& n = config().size;
  if (info().dims == 2) return {n[0], n[1]};
  switch (view) {
    case 0: return {n[0], n[1]};  // XY
    case 1: return {n[0], n[2]};  // XZ
    default: return {n[1], n[2]};  // YZ
  }
}

std::vector<Diagnostic> Simulation::diagnostics() {
  const SimState st = copy_state();
  std::vector<Diagnostic> out;
  for (std::size_t f = 0; f < st.fields.size(); ++f) {
    const std::vector<float>& v = st.fields[f];
    if (v.empty()) continue;
    double lo = v[0], hi = v[0], sum = 0;
    for (float x : v) {
      lo = std::min<double>(lo, x);
      hi = std::max<double>(hi, x);
      sum += x;
    }
    const std::string prefix = st.fields.size() > 1 ? fmt::format("field {} ", f) : std::string();
    out.push_back({prefix + "min", info().views.value_unit, lo});
    out.push_back({prefix + "max", info().views.value_unit, hi});
    out.push_back({prefix + "mean", info().views.value_unit, sum / static_cast<double>(v.size())});
  }
  return out;
}

std::string Simulation::health() { return {}; }

float Simulation::read_cell(const std::array<int, 3>& cell, const std::string& quantity) {
  const auto& n = config().size;
  for (int a = 0; a < 3; ++a)
    if (cell[a] < 0 || cell[a] >= n[a])
      throw Error(fmt::format("cell ({}, {}, {}) is outside the {} x {} x {} grid", cell[0], cell[1], cell[2], n[0], n[1],
                              n[2]));
  ViewPlacement where;
  where.slices = {cell[2], n[1] / 2, n[0] / 2};  // the XY view at z; the other slices anywhere inside
  where.quantity = quantity;
  const FieldView v = view(0, where);
  const float* at = v.data + v.offset + static_cast<std::size_t>(cell[0]) * v.u_stride +
                    static_cast<std::size_t>(cell[1]) * v.v_stride;
  float value = 0;
  if (v.on_device) copy_device_to_host(&value, at, sizeof value, v.stream);  // only the cell crosses the bus
  else value = *at;
  return value;
}

GridGeometry Simulation::geometry() const {
  GridGeometry g;
  const ParamSpec* h = info().param("h");
  if (h && h->kind == ParamKind::real) {  // the grid spacing is the model's parameter: nodes from the origin
    const double spacing = config().number("h");
    g.spacing = {spacing, spacing, spacing};
    g.unit = h->unit;
  } else {  // the unit box along x, cell centred
    const double spacing = 1.0 / std::max(1, config().size[0]);
    g.spacing = {spacing, spacing, spacing};
    g.origin = {spacing / 2, spacing / 2, info().dims == 3 ? spacing / 2 : 0.0};
  }
  return g;
}

void Simulation::add_source(const SourceSpec&) { throw Error(info().title + " has no point sources"); }

void Simulation::remove_source(int index) {
  throw Error(fmt::format("{} has no source {} to remove", info().title, index + 1));
}

void Simulation::set_receivers(const ReceiverLayout&) { throw Error(info().title + " has no receivers"); }

std::array<int, 3> node_on_slice(int view, double u, double v, const ViewPlacement& where) {
  if (view < 0 || view > 2) throw Error(fmt::format("view {} is not a slice (0 XY, 1 XZ, 2 YZ)", view));
  const int a = static_cast<int>(std::floor(u)), b = static_cast<int>(std::floor(v));
  const int w = where.slices[static_cast<std::size_t>(view)];
  if (view == 0) return {a, b, w};
  if (view == 1) return {a, w, b};
  return {w, a, b};
}

std::vector<Curve> Simulation::curves() { return {}; }

Validation Simulation::validate() {
  Validation v;
  v.why_not = info().title + " has no live check against an exact solution (the tests and bench check it)";
  return v;
}

ModelConfig make_config(const Model& model, std::array<int, 3> size, int order, const ParamValues& given, bool bench) {
  const ModelInfo& info = model.info();
  ModelConfig c;
  c.size = size;
  if (info.dims == 2) c.size[2] = 1;
  for (int a = 0; a < info.dims; ++a)
    if (c.size[a] < info.min_side)
      throw Error(fmt::format("{} grid {}x{}{} is too small: every side needs at least {} cells", info.name, c.size[0],
                              c.size[1], info.dims == 3 ? fmt::format("x{}", c.size[2]) : "", info.min_side));
  if (std::find(info.orders.begin(), info.orders.end(), order) == info.orders.end()) {
    std::vector<std::string> o;
    for (int k : info.orders) o.push_back(std::to_string(k));
    throw Error(fmt::format("unknown stencil order {} for {} (choose {})", order, info.name, or_list(o)));
  }
  c.order = order;
  for (const auto& [name, value] : given) {
    const ParamSpec* p = info.param(name);
    if (!p) {
      std::vector<std::string> names;
      for (const ParamSpec& q : info.params) names.push_back(q.name);
      throw Error(fmt::format("{} has no parameter '{}' ({})", info.name, name,
                              names.empty() ? std::string("it has none") : "it has " + or_list(names)));
    }
    check_param(*p, value, bench);
    c.params[name] = value;
  }
  for (const ParamSpec& p : info.params) {
    if (c.params.count(p.name)) continue;
    if (p.kind == ParamKind::choice && bench && p.bench_sweeps) c.params[p.name] = std::string("all");
    else c.params[p.name] = p.default_value();
  }
  model.validate(c);
  return c;
}

// ---- registry --------------------------------------------------------------

#define STENCILSCOPE_MODEL(name) const Model& name##_model();
#include "sim/models/list.inc"
#undef STENCILSCOPE_MODEL

const std::vector<const Model*>& models() {
#define STENCILSCOPE_MODEL(name) &name##_model(),
  static const std::vector<const Model*> all = {
#include "sim/models/list.inc"
  };
#undef STENCILSCOPE_MODEL
  return all;
}

std::string model_list() {
  std::vector<std::string> names;
  for (const Model* m : models()) names.push_back(m->info().name);
  return or_list(names);
}

const Model& find_model(std::string_view name) {
  for (const Model* m : models())
    if (m->info().name == name) return *m;
  throw Error(fmt::format("unknown model '{}' (choose {})", name, model_list()));
}

}  // namespace ss
