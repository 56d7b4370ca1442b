#include "stencilscope/render/colormap.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>

#include "resources.hpp"
#include "sim/core/error.hpp"

namespace ss::render {

std::string_view to_string(Colormap c) {
  switch (c) {
    case Colormap::viridis: return "viridis";
    case Colormap::inferno: return "inferno";
    case Colormap::magma: return "magma";
    case Colormap::blue_red: return "blue-red";
    case Colormap::grey: return "grey";
  }
  return "?";
}

Colormap parse_colormap(std::string_view s) {
  for (Colormap c : kAllColormaps)
    if (s == to_string(c)) return c;
  if (s == "blue_red") return Colormap::blue_red;
  if (s == "gray") return Colormap::grey;
  throw Error("unknown colormap '" + std::string(s) + "' (choose viridis, inferno, magma, blue-red or grey)");
}

std::string_view to_string(RangeMode m) {
  switch (m) {
    case RangeMode::fixed: return "fixed";
    case RangeMode::automatic: return "auto";
    case RangeMode::expanding: return "expanding";
  }
  return "?";
}

namespace {

bool parse_float(std::string_view& s, float& out) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == ',')) s.remove_prefix(1);
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  if (ec != std::errc()) return false;
  s.remove_prefix(static_cast<std::size_t>(end - s.data()));
  return true;
}

std::string_view asset_name(Colormap c) {
  switch (c) {
    case Colormap::viridis: return "assets/colormaps/viridis.txt";
    case Colormap::inferno: return "assets/colormaps/inferno.txt";
    case Colormap::magma: return "assets/colormaps/magma.txt";
    case Colormap::blue_red: return "assets/colormaps/blue_red.txt";
    case Colormap::grey: return "assets/colormaps/grey.txt";
  }
  throw Error("unknown colormap");
}

}  // namespace

ColormapTable parse_colormap_table(std::string_view text, std::string_view source) {
  ColormapTable table;
  int line_no = 0;
  while (!text.empty()) {
    const std::size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view{} : text.substr(eol + 1);
    ++line_no;
    if (const std::size_t hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.remove_suffix(1);
    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.front()))) line.remove_prefix(1);
    if (line.empty()) continue;
    Rgb c;
    std::string_view rest = line;
    const bool ok = parse_float(rest, c.r) && parse_float(rest, c.g) && parse_float(rest, c.b) &&
                    rest.find_first_not_of(" \t\r") == std::string_view::npos;
    auto in_unit = [](float v) { return v >= 0.0f && v <= 1.0f; };
    if (!ok || !in_unit(c.r) || !in_unit(c.g) || !in_unit(c.b))
      throw Error(std::string(source) + ":" + std::to_string(line_no) + ": expected three numbers in [0, 1], got '" +
                  std::string(line) + "'");
    table.entries.push_back(c);
  }
  if (table.entries.size() < 2) throw Error(std::string(source) + ": a colormap needs at least 2 entries");
  return table;
}

const ColormapTable& colormap_table(Colormap c) {
  // Parsed on first use; a static array of values (not GL handles), so no teardown order issue.
  static const std::array<ColormapTable, kAllColormaps.size()> tables = [] {
    std::array<ColormapTable, kAllColormaps.size()> t;
    for (Colormap m : kAllColormaps)
      t[static_cast<std::size_t>(m)] = parse_colormap_table(embedded_file(asset_name(m)), asset_name(m));
    return t;
  }();
  return tables.at(static_cast<std::size_t>(c));
}

Rgb colormap_color(const ColormapTable& table, double t) {
  const int n = static_cast<int>(table.entries.size());
  // Same arithmetic as field.frag, in float.
  const float x = std::clamp(static_cast<float>(t), 0.0f, 1.0f) * static_cast<float>(n - 1);
  const int i0 = static_cast<int>(std::floor(x));
  const int i1 = std::min(i0 + 1, n - 1);
  const float f = x - static_cast<float>(i0);
  const Rgb& a = table.entries[static_cast<std::size_t>(i0)];
  const Rgb& b = table.entries[static_cast<std::size_t>(i1)];
  return {a.r + (b.r - a.r) * f, a.g + (b.g - a.g) * f, a.b + (b.b - a.b) * f};
}

std::vector<std::uint32_t> colormap_texels(const ColormapTable& table, int n) {
  if (n < 2) throw Error("a colormap texture needs at least 2 samples");
  const auto unorm10 = [](float v) { return static_cast<std::uint32_t>(std::lround(std::clamp(v, 0.0f, 1.0f) * 1023.0f)); };
  std::vector<std::uint32_t> texels(static_cast<std::size_t>(n));
  for (int k = 0; k < n; ++k) {
    const Rgb c = colormap_color(table, static_cast<double>(k) / (n - 1));
    texels[static_cast<std::size_t>(k)] = unorm10(c.r) | unorm10(c.g) << 10 | unorm10(c.b) << 20 | 3u << 30;
  }
  return texels;
}

int colormap_sample(double t, int n) {
  // field.frag: int(clamp(t, 0, 1) * (n - 1) + 0.5), in float.
  const float x = std::clamp(static_cast<float>(t), 0.0f, 1.0f) * static_cast<float>(n - 1) + 0.5f;
  return std::clamp(static_cast<int>(x), 0, n - 1);
}

Rgb unpack_rgb10(std::uint32_t texel) {
  const auto channel = [&](int shift) { return static_cast<float>((texel >> shift) & 1023u) / 1023.0f; };
  return {channel(0), channel(10), channel(20)};
}

ValueRange next_range(RangeMode mode, const ValueRange& fixed, const ValueRange& previous, const ValueRange& field,
                      bool reset) {
  const bool field_ok = std::isfinite(field.lo) && std::isfinite(field.hi) && field.lo <= field.hi;
  ValueRange r;
  switch (mode) {
    case RangeMode::fixed: r = fixed; break;
    case RangeMode::automatic: r = field_ok ? field : previous; break;
    case RangeMode::expanding:
      if (reset) {
        r = field_ok ? field : previous;
      } else {
        r = previous;
        if (field_ok) r = {std::min(previous.lo, field.lo), std::max(previous.hi, field.hi)};
      }
      break;
  }
  if (!(r.lo < r.hi)) {  // empty, inverted or NaN: widen around the middle
    const double mid = std::isfinite(r.lo) ? r.lo : 0.0;
    const double half = std::max(std::abs(mid) * 1e-6, 1e-12);
    r = {mid - half, mid + half};
  }
  return r;
}

double normalized(double v, const ValueRange& r) { return (v - r.lo) / (r.hi - r.lo); }

std::vector<double> colorbar_ticks(const ValueRange& r, int max_ticks) {
  if (max_ticks < 2 || !(r.hi > r.lo) || !std::isfinite(r.hi - r.lo)) return {};
  // Nice steps 1, 2, 5 x 10^e, indexed by k = 3e + {0, 1, 2}: the largest step with at
  // most max_ticks ticks, made smaller while fewer than 2 ticks fall inside the range.
  auto step_of = [](int k) {
    const int e = k >= 0 ? k / 3 : -((-k + 2) / 3);
    return std::array{1.0, 2.0, 5.0}[static_cast<std::size_t>(k - 3 * e)] * std::pow(10.0, e);
  };
  auto ticks_for = [&](double step) {
    std::vector<double> t;
    const double first = std::ceil(r.lo / step - 1e-9) * step;
    for (int n = 0; n <= max_ticks; ++n) {
      const double v = first + n * step;
      if (v > r.hi + step * 1e-9) break;
      t.push_back(std::abs(v) < step * 1e-9 ? 0.0 : v);
    }
    return t;
  };
  const double raw = (r.hi - r.lo) / (max_ticks - 1);
  int k = 3 * static_cast<int>(std::floor(std::log10(raw)));
  while (step_of(k) < raw) ++k;
  std::vector<double> ticks = ticks_for(step_of(k));
  for (int tries = 0; ticks.size() < 2 && tries < 6; ++tries) ticks = ticks_for(step_of(--k));
  if (static_cast<int>(ticks.size()) > max_ticks) ticks.resize(static_cast<std::size_t>(max_ticks));
  return ticks;
}

}  // namespace ss::render
