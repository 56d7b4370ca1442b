// Point sources, receiver layouts and seismogram files shared by the wave models.
#include "sim/core/sources.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/core/npy.hpp"
#include "sim/core/parse_word.hpp"

namespace ss {

namespace {

constexpr std::array kAllSourceKinds = {SourceKind::pressure, SourceKind::force, SourceKind::explosion,
                                        SourceKind::moment};
constexpr const char* kAxisName[3] = {"x", "y", "z"};
constexpr const char* kPlaneName[3] = {"yz", "xz", "xy"};  // by normal axis

// The in-plane axes of the plane normal to `axis`, as the slice views order them.
std::array<int, 2> in_plane_axes(int axis) {
  if (axis == 0) return {1, 2};
  if (axis == 1) return {0, 2};
  return {0, 1};
}

}  // namespace

std::string_view to_string(SourceKind k) {
  switch (k) {
    case SourceKind::pressure: return "pressure";
    case SourceKind::force: return "force";
    case SourceKind::explosion: return "explosion";
    case SourceKind::moment: return "moment";
  }
  return "?";
}

SourceKind parse_source_kind(std::string_view s) { return parse_word(s, kAllSourceKinds, "source kind"); }

std::string describe(const SourceSpec& s) {
  std::string what(to_string(s.kind));
  if (s.kind == SourceKind::force)
    what += fmt::format(" ({:g}, {:g}, {:g})", s.direction[0], s.direction[1], s.direction[2]);
  if (s.kind == SourceKind::moment)
    what += fmt::format(" (xx {:g} yy {:g} zz {:g} xy {:g} xz {:g} yz {:g})", s.moment[0], s.moment[1], s.moment[2],
                        s.moment[3], s.moment[4], s.moment[5]);
  what += fmt::format(" at (x {}, y {}, z {}), {:g} Hz", s.node[0], s.node[1], s.node[2], s.f0_hz);
  if (s.amplitude != 1) what += fmt::format(", x {:g}", s.amplitude);
  if (s.delay_s != 0) what += fmt::format(", delay {:g} s", s.delay_s);
  return what;
}

void check_source(const SourceSpec& s, const std::array<int, 3>& size, const std::vector<SourceKind>& kinds, int lo) {
  if (std::find(kinds.begin(), kinds.end(), s.kind) == kinds.end()) {
    std::string accepted;
    for (SourceKind k : kinds) accepted += (accepted.empty() ? "" : ", ") + std::string(to_string(k));
    throw Error(fmt::format("this model has no {} sources (it takes {})", to_string(s.kind),
                            accepted.empty() ? std::string("none") : accepted));
  }
  for (int a = 0; a < 3; ++a)
    if (s.node[a] < lo || s.node[a] >= size[a])
      throw Error(fmt::format("source at (x {}, y {}, z {}) is outside the grid: {} runs {} to {}", s.node[0], s.node[1],
                              s.node[2], kAxisName[a], lo, size[a] - 1));
  if (!(std::isfinite(s.f0_hz) && s.f0_hz > 0))
    throw Error(fmt::format("a source's peak frequency must be positive (got {} Hz)", s.f0_hz));
  if (!std::isfinite(s.amplitude)) throw Error(fmt::format("a source's amplitude must be finite (got {})", s.amplitude));
  if (!(std::isfinite(s.delay_s) && s.delay_s >= 0))
    throw Error(fmt::format("a source's delay must be 0 or more seconds (got {})", s.delay_s));
  if (s.kind == SourceKind::force) {
    const double n = std::hypot(s.direction[0], s.direction[1], s.direction[2]);
    if (!(n > 0 && std::isfinite(n))) throw Error("a force source's direction must be a non-zero vector");
  }
  if (s.kind == SourceKind::moment) {
    double sum = 0;
    for (double m : s.moment) sum += std::abs(m);
    if (!(sum > 0 && std::isfinite(sum))) throw Error("a moment tensor source must have a finite non-zero component");
  }
}

SourceSpec parse_source_spec(std::string_view text, double f0_hz) {
  auto bad = [&](const std::string& why) {
    return Error(fmt::format("source '{}': {} (write KIND:X,Y,Z[:f0=HZ][:amp=A][:delay=S][:dir=DX,DY,DZ][:m=XX,YY,ZZ,"
                             "XY,XZ,YZ], e.g. force:40,32,10:dir=1,0,0)",
                             text, why));
  };
  std::vector<std::string> parts;
  {
    std::string part;
    std::istringstream in{std::string(text)};
    while (std::getline(in, part, ':')) parts.push_back(part);
  }
  // Comma-separated numbers, exactly n of them.
  auto numbers = [&](const std::string& list, std::size_t n, const char* what) {
    std::vector<double> out;
    std::string cell;
    std::istringstream in(list);
    while (std::getline(in, cell, ',')) {
      std::size_t used = 0;
      double v = 0;
      try {
        v = std::stod(cell, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used == 0 || used != cell.size()) throw bad(fmt::format("'{}' is no number ({})", cell, what));
      out.push_back(v);
    }
    if (out.size() != n) throw bad(fmt::format("{} takes {} numbers, got {}", what, n, out.size()));
    return out;
  };
  if (parts.size() < 2) throw bad("a kind and a node are needed");
  SourceSpec s;
  try {
    s.kind = parse_source_kind(parts[0]);
  } catch (const Error& e) {
    throw bad(e.what());
  }
  const std::vector<double> node = numbers(parts[1], 3, "the node");
  for (int a = 0; a < 3; ++a) {
    if (node[a] != std::floor(node[a]) || std::abs(node[a]) > 1e9) throw bad("the node takes whole numbers");
    s.node[a] = static_cast<int>(node[a]);
  }
  s.f0_hz = f0_hz;
  for (std::size_t i = 2; i < parts.size(); ++i) {
    const std::size_t eq = parts[i].find('=');
    const std::string key = parts[i].substr(0, eq), value = eq == std::string::npos ? "" : parts[i].substr(eq + 1);
    if (key == "f0") s.f0_hz = numbers(value, 1, "f0")[0];
    else if (key == "amp") s.amplitude = numbers(value, 1, "amp")[0];
    else if (key == "delay") s.delay_s = numbers(value, 1, "delay")[0];
    else if (key == "dir") {
      const auto d = numbers(value, 3, "dir");
      s.direction = {d[0], d[1], d[2]};
    } else if (key == "m") {
      const auto m = numbers(value, 6, "m");
      for (int c = 0; c < 6; ++c) s.moment[c] = m[c];
    } else {
      throw bad(fmt::format("unknown key '{}' (f0, amp, delay, dir or m)", key));
    }
  }
  return s;
}

std::string describe(const ReceiverLayout& r) {
  const auto [a, b] = in_plane_axes(r.axis);
  const std::string plane = fmt::format("{} plane {} {}", kPlaneName[r.axis], kAxisName[r.axis], r.position);
  const std::string every = r.spacing == 1 ? "every node" : fmt::format("every {} nodes", r.spacing);
  if (r.shape == ReceiverLayout::Shape::grid) return fmt::format("grid on the {}, {}", plane, every);
  return fmt::format("line along {} on the {} at {} {}, {}", kAxisName[a], plane, kAxisName[b], r.line_at, every);
}

ReceiverLayout parse_receiver_layout(std::string_view text) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in{std::string(text)};
  while (std::getline(in, part, ':')) parts.push_back(part);
  auto bad = [&](const std::string& why) {
    return Error(fmt::format("receivers '{}': {} (write plane:position[:line:at[:spacing]|:grid[:spacing]], e.g. "
                             "xy:0:line:32 or xz:10:grid:4)",
                             text, why));
  };
  auto whole = [&](std::size_t i, const char* what) {
    if (i >= parts.size()) throw bad(fmt::format("the {} is missing", what));
    std::size_t used = 0;
    int v = 0;
    try {
      v = std::stoi(parts[i], &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != parts[i].size()) throw bad(fmt::format("'{}' is no whole number ({})", parts[i], what));
    return v;
  };
  ReceiverLayout r;
  if (parts.empty()) throw bad("empty");
  if (parts[0] == "xy") r.axis = 2;
  else if (parts[0] == "xz") r.axis = 1;
  else if (parts[0] == "yz") r.axis = 0;
  else throw bad(fmt::format("unknown plane '{}' (choose xy, xz or yz)", parts[0]));
  r.position = whole(1, "plane position");
  if (parts.size() > 2) {
    if (parts[2] == "line") {
      r.line_at = whole(3, "line position");
      if (parts.size() > 4) r.spacing = whole(4, "spacing");
      if (parts.size() > 5) throw bad("too many fields");
    } else if (parts[2] == "grid") {
      r.shape = ReceiverLayout::Shape::grid;
      if (parts.size() > 3) r.spacing = whole(3, "spacing");
      if (parts.size() > 4) throw bad("too many fields");
    } else {
      throw bad(fmt::format("unknown shape '{}' (choose line or grid)", parts[2]));
    }
  }
  return r;
}

std::vector<std::array<int, 3>> receiver_nodes(const ReceiverLayout& r, const std::array<int, 3>& size) {
  if (r.axis < 0 || r.axis > 2) throw Error(fmt::format("receiver plane axis {} is not 0, 1 or 2", r.axis));
  const auto [a, b] = in_plane_axes(r.axis);
  if (r.position < 0 || r.position >= size[r.axis])
    throw Error(fmt::format("receivers on the {} plane {} {} are outside the grid: {} runs 0 to {}", kPlaneName[r.axis],
                            kAxisName[r.axis], r.position, kAxisName[r.axis], size[r.axis] - 1));
  if (r.spacing < 1) throw Error(fmt::format("receiver spacing {} must be 1 or more", r.spacing));
  const bool line = r.shape == ReceiverLayout::Shape::line;
  if (line && (r.line_at < 0 || r.line_at >= size[b]))
    throw Error(fmt::format("a receiver line at {} {} is outside the grid: {} runs 0 to {}", kAxisName[b], r.line_at,
                            kAxisName[b], size[b] - 1));
  std::vector<std::array<int, 3>> nodes;
  const int v0 = line ? r.line_at : 0, v1 = line ? r.line_at + 1 : size[b];
  for (int v = v0; v < v1; v += r.spacing)
    for (int u = 0; u < size[a]; u += r.spacing) {
      std::array<int, 3> n{};
      n[r.axis] = r.position;
      n[a] = u;
      n[b] = v;
      nodes.push_back(n);
    }
  return nodes;
}

int trace_steps_for(long long per_step, int max_steps) {
  const long long fit = kTraceValueBudget / std::max(1LL, per_step);
  return static_cast<int>(std::clamp<long long>(fit, 1, max_steps));
}

int Seismogram::rows() const {
  const std::size_t per_row = components.size() * nodes.size();
  return per_row == 0 ? 0 : static_cast<int>(values.size() / per_row);
}

void write_seismogram_npy(const std::string& path, const Seismogram& s) {
  if (s.components.empty() || s.nodes.empty()) throw Error(fmt::format("'{}': the seismogram has no receivers", path));
  write_npy(path, s.values.data(),
            {static_cast<std::size_t>(s.rows()), s.components.size(), s.nodes.size()});
}

void write_seismogram_csv(const std::string& path, const Seismogram& s) {
  if (s.components.empty() || s.nodes.empty()) throw Error(fmt::format("'{}': the seismogram has no receivers", path));
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) throw Error(fmt::format("cannot write '{}'", path));
  std::string line = "step,t_s";
  for (const std::string& c : s.components)
    for (const auto& n : s.nodes) line += fmt::format(",{}@{}:{}:{}", c, n[0], n[1], n[2]);
  std::fputs((line + "\n").c_str(), f);
  for (int r = 0; r < s.rows(); ++r) {
    const long step = s.first_step + r + 1;
    line = fmt::format("{},{:.17g}", step, static_cast<double>(step) * s.dt);
    for (std::size_t c = 0; c < s.components.size(); ++c)
      for (int n = 0; n < s.receivers(); ++n) line += fmt::format(",{:.9g}", s.at(r, static_cast<int>(c), n));
    std::fputs((line + "\n").c_str(), f);
  }
  const bool ok = std::fflush(f) == 0 && !std::ferror(f);
  std::fclose(f);
  if (!ok) throw Error(fmt::format("cannot write '{}'", path));
}

Seismogram read_seismogram_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error(fmt::format("cannot read '{}'", path));
  std::string line;
  if (!std::getline(in, line)) throw Error(fmt::format("'{}' is empty", path));
  auto split = [](const std::string& l) {
    std::vector<std::string> out;
    std::string cell;
    std::istringstream cells(l);
    while (std::getline(cells, cell, ',')) out.push_back(cell);
    return out;
  };
  const std::vector<std::string> head = split(line);
  if (head.size() < 3 || head[0] != "step" || head[1] != "t_s")
    throw Error(fmt::format("'{}' is no seismogram CSV (its header starts '{}')", path, line.substr(0, 40)));
  Seismogram s;
  for (std::size_t i = 2; i < head.size(); ++i) {
    const std::size_t at = head[i].find('@');
    int x = 0, y = 0, z = 0;
    if (at == std::string::npos || std::sscanf(head[i].c_str() + at + 1, "%d:%d:%d", &x, &y, &z) != 3)
      throw Error(fmt::format("'{}': column '{}' is not component@x:y:z", path, head[i]));
    const std::string comp = head[i].substr(0, at);
    if (s.components.empty() || s.components.back() != comp) s.components.push_back(comp);
    if (s.components.size() == 1) s.nodes.push_back({x, y, z});
  }
  if (s.components.size() * s.nodes.size() != head.size() - 2)
    throw Error(fmt::format("'{}': the columns are no whole number of receivers per component", path));
  int line_no = 1;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty()) continue;
    const std::vector<std::string> cells = split(line);
    if (cells.size() != head.size())
      throw Error(fmt::format("{}:{}: {} values where the header has {}", path, line_no, cells.size(), head.size()));
    const long step = std::stol(cells[0]);
    const double t = std::stod(cells[1]);
    if (s.values.empty()) {
      s.first_step = step - 1;
      s.dt = step != 0 ? t / static_cast<double>(step) : 0;
    }
    for (std::size_t i = 2; i < cells.size(); ++i) s.values.push_back(std::stof(cells[i]));
  }
  return s;
}

std::vector<SourceSpec> with_source(std::vector<SourceSpec> list, const SourceSpec& source) {
  list.push_back(source);
  return list;
}

std::vector<SourceSpec> without_source(std::vector<SourceSpec> list, int index) {
  if (index < 0 || index >= static_cast<int>(list.size()))
    throw Error(fmt::format("there is no source {} to remove ({} sources)", index + 1, list.size()));
  list.erase(list.begin() + index);
  return list;
}

}  // namespace ss
