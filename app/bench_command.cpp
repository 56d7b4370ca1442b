// `stencilscope bench heat2d|deriv3d|heat3d` and `stencilscope info`.
#include <unistd.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <regex>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "stencilscope/bench.hpp"
#include "stencilscope/bench3d.hpp"
#include "stencilscope/build_info.hpp"
#include "stencilscope/device.hpp"
#include "stencilscope/error.hpp"

namespace ss::app {

namespace {

struct BenchArgs {
  std::string model;
  std::string size = "2048x2048";
  int steps = 10;
  int order = 8;
  std::string variant = "all";
  std::string device = "all";
  std::string precision = "float";
  std::string json;
  int repeats = 5;
  std::string boundary = "analytic";
  std::string initial = "analytic";
  double alpha = 1.0;
  double dt = 0.0;
  double fixed_value = 0.0;
  std::string axis = "all";  // deriv3d only
  // Whether the person gave these (the 3D models have their own defaults).
  const CLI::Option* size_option = nullptr;
  const CLI::Option* steps_option = nullptr;
  const CLI::Option* axis_option = nullptr;
};

/// "2048x2048" or "2048" (a square); throws ss::Error on anything else.
std::pair<int, int> parse_size(const std::string& s) {
  static const std::regex pattern(R"(^\s*(\d{1,9})\s*(?:[xX]\s*(\d{1,9}))?\s*$)");
  std::smatch m;
  if (!std::regex_match(s, m, pattern))
    throw Error("malformed --size '" + s + "' (expected NXxNY such as 2048x2048, or one number for a square)");
  const int nx = std::stoi(m[1]);
  const int ny = m[2].matched ? std::stoi(m[2]) : nx;
  return {nx, ny};
}

/// The variants `--variant` and `--device` ask for, in the table's order; throws on a
/// variant that does not run on the asked device.
template <typename V, std::size_t N>
std::vector<V> select_variants(const std::string& variant, const std::string& device, const std::array<V, N>& all,
                               V (*parse)(std::string_view)) {
  if (device != "gpu" && device != "cpu" && device != "all")
    throw Error("unknown device '" + device + "' (choose gpu, cpu or all)");
  std::vector<V> out;
  if (variant == "all") {
    for (V v : all)
      if (device == "all" || (device == "gpu") == is_gpu(v)) out.push_back(v);
    return out;
  }
  const V v = parse(variant);
  if (device != "all" && (device == "gpu") != is_gpu(v))
    throw Error(fmt::format("variant '{}' runs on the {}, but --device {} was asked", variant, is_gpu(v) ? "gpu" : "cpu",
                            device));
  return {v};
}

std::string fmt_or_dash(const std::optional<ErrorNorms>& e, double ErrorNorms::*field, const char* spec) {
  if (!e) return "-";
  return fmt::format(fmt::runtime(spec), (*e).*field);
}

void print_table(const BenchReport& r, std::FILE* out) {
  const Heat2DSetup& s = r.setup;
  fmt::print(out, "heat2d {}x{}, order {}, {} steps, boundary {}, initial {}, alpha {:g}, dt {:.4g} (limit {:.4g})\n",
             s.grid.nx, s.grid.ny, s.config.order, r.steps, to_string(s.config.boundary), to_string(s.config.initial),
             s.config.alpha, s.dt, s.dt_limit);
  fmt::print(out, "device: {}", r.device);
  if (r.copy_gbps > 0) fmt::print(out, ", copy kernel {:.1f} GB/s", r.copy_gbps);
  if (r.host_copy_gbps > 0) fmt::print(out, "; host copy {:.1f} GB/s", r.host_copy_gbps);
  fmt::print(out, "; commit {}\n", r.commit);
  if (!r.note.empty()) fmt::print(out, "note: {}\n", r.note);
  fmt::print(out, "{:<10} {:<6} {:<7} {:>11} {:>10} {:>10} {:>6} {:>12} {:>10} {:>10} {:>8}\n", "variant", "device",
             "prec", "time (ms)", "GB/s", "MCUPS", "copy", "ref L2 norm", "rel Linf", "rel L2", "bitwise");
  for (const BenchRow& row : r.rows) {
    if (!row.skipped.empty()) {
      fmt::print(out, "{:<10} {:<6} {:<7} skipped: {}\n", row.variant, row.device, row.precision, row.skipped);
      continue;
    }
    const std::string bitwise = row.bitwise_equal ? (*row.bitwise_equal ? "equal" : "DIFFERS") : "base";
    fmt::print(out, "{:<10} {:<6} {:<7} {:>11.3f} {:>10.1f} {:>10.1f} {:>6.3f} {:>12} {:>10} {:>10} {:>8}\n",
               row.variant, row.device, row.precision, row.time_ms, row.bandwidth_gbps, row.mcups, row.copy_ratio,
               fmt_or_dash(row.errors, &ErrorNorms::ref_l2, "{:.5g}"),
               fmt_or_dash(row.errors, &ErrorNorms::rel_linf, "{:.3g}"),
               fmt_or_dash(row.errors, &ErrorNorms::rel_l2, "{:.3g}"), row.variant == "reference" ? "-" : bitwise);
  }
  fmt::print(out,
             "GB/s counts one read and one write of each interior value per step; copy = GB/s over the copy of the "
             "same device (GPU rows: device copy kernel; CPU rows: host copy)\n");
}

/// The keys every benchmark row has (heat 2D, heat 3D, deriv3d): one place for them.
nlohmann::json row_to_json(const BenchRow& row, const std::string& size) {
  using nlohmann::json;
  auto number = [](double v) { return std::isfinite(v) ? json(v) : json(nullptr); };
  json j = {{"model", row.model},         {"variant", row.variant}, {"device", row.device},
            {"order", row.order},         {"precision", row.precision},
            {"size", size},               {"nx", row.nx},           {"ny", row.ny},
            {"steps", row.steps}};
  if (!row.skipped.empty()) {
    j["skipped"] = row.skipped;
    for (const char* k : {"time_ms", "bandwidth_gbps", "mcups", "copy_ratio", "ref_l2_norm", "rel_linf", "rel_l2"})
      j[k] = nullptr;
    return j;
  }
  j["time_ms"] = number(row.time_ms);
  j["bandwidth_gbps"] = number(row.bandwidth_gbps);
  j["mcups"] = number(row.mcups);
  j["copy_ratio"] = number(row.copy_ratio);
  j["ref_l2_norm"] = row.errors ? number(row.errors->ref_l2) : json(nullptr);
  j["rel_linf"] = row.errors ? number(row.errors->rel_linf) : json(nullptr);
  j["rel_l2"] = row.errors ? number(row.errors->rel_l2) : json(nullptr);
  if (row.bitwise_equal) j["bitwise_equal"] = *row.bitwise_equal;
  return j;
}

/// A report's JSON: the device, its copy bandwidths and the commit at the top, then
/// the model's configuration, the note and the rows (`bench --json`).
template <typename Report>
nlohmann::json report_json(const Report& r, nlohmann::json config, nlohmann::json rows) {
  using nlohmann::json;
  return {{"device", r.device},
          {"copy_gbps", r.copy_gbps > 0 ? json(r.copy_gbps) : json(nullptr)},
          {"host_copy_gbps", r.host_copy_gbps > 0 ? json(r.host_copy_gbps) : json(nullptr)},
          {"commit", r.commit},
          {"config", std::move(config)},
          {"note", r.note},
          {"rows", std::move(rows)}};
}

/// The configuration of a heat model (2D, or 3D with nz) run for `steps` steps.
template <typename Setup>
nlohmann::json heat_config_json(const char* model, const Setup& s, int steps, std::optional<int> nz) {
  nlohmann::json c = {{"model", model},
                      {"nx", s.grid.nx},
                      {"ny", s.grid.ny},
                      {"order", s.config.order},
                      {"steps", steps},
                      {"boundary", std::string(to_string(s.config.boundary))},
                      {"initial", std::string(to_string(s.config.initial))},
                      {"alpha", s.config.alpha},
                      {"dt", s.dt},
                      {"dt_limit", s.dt_limit}};
  if (nz) c["nz"] = *nz;
  return c;
}

nlohmann::json to_json(const BenchReport& r) {
  nlohmann::json rows = nlohmann::json::array();
  for (const BenchRow& row : r.rows) rows.push_back(row_to_json(row, fmt::format("{}x{}", row.nx, row.ny)));
  return report_json(r, heat_config_json("heat2d", r.setup, r.steps, std::nullopt), std::move(rows));
}

// ---- 3D models -------------------------------------------------------------

/// "256x128x64" or "256" (a cube); throws ss::Error on anything else.
std::array<int, 3> parse_size3d(const std::string& s) {
  static const std::regex pattern(R"(^\s*(\d{1,9})\s*(?:[xX]\s*(\d{1,9})\s*[xX]\s*(\d{1,9}))?\s*$)");
  std::smatch m;
  if (!std::regex_match(s, m, pattern))
    throw Error("malformed --size '" + s + "' (expected NXxNYxNZ such as 256x256x256, or one number for a cube)");
  const int nx = std::stoi(m[1]);
  return {nx, m[2].matched ? std::stoi(m[2]) : nx, m[3].matched ? std::stoi(m[3]) : nx};
}

std::string opt_number(const std::optional<double>& v, const char* spec) {
  return v ? fmt::format(fmt::runtime(spec), *v) : std::string("-");
}

void print_device_line(const Bench3DReport& r, std::FILE* out) {
  fmt::print(out, "device: {}", r.device);
  if (r.copy_gbps > 0) fmt::print(out, ", copy kernel {:.1f} GB/s", r.copy_gbps);
  if (r.host_copy_gbps > 0) fmt::print(out, "; host copy {:.1f} GB/s", r.host_copy_gbps);
  fmt::print(out, "; commit {}\n", r.commit);
  if (!r.note.empty()) fmt::print(out, "note: {}\n", r.note);
}

std::string bitwise_word(const BenchRow3D& row) {
  if (row.variant == "reference" || row.own_summation) return "-";
  return row.bitwise_equal ? (*row.bitwise_equal ? "equal" : "DIFFERS") : "base";
}

void print_deriv3d_table(const Deriv3DBenchReport& r, std::FILE* out) {
  const Grid3D& g = r.setup.grid;
  fmt::print(out, "deriv3d {}x{}x{}, order {}, f = cos(2 pi (x + y + z)) on the periodic unit cube, {} launches per timed run\n",
             g.nx, g.ny, g.nz, r.setup.config.order, r.steps);
  print_device_line(r, out);
  fmt::print(out, "{:<4} {:<13} {:<6} {:<7} {:>10} {:>12} {:>12} {:>10} {:>9} {:>6} {:>10} {:>8}\n", "axis", "variant",
             "device", "prec", "RMS error", "MAX error", "time (ms)", "GB/s", "MCUPS", "copy", "rel L2", "bitwise");
  for (const BenchRow3D& row : r.rows) {
    if (!row.skipped.empty()) {
      fmt::print(out, "{:<4} {:<13} {:<6} {:<7} skipped: {}\n", row.axis, row.variant, row.device, row.precision,
                 row.skipped);
      continue;
    }
    fmt::print(out, "{:<4} {:<13} {:<6} {:<7} {:>10} {:>12} {:>12.5f} {:>10.1f} {:>9.0f} {:>6.3f} {:>10} {:>8}\n", row.axis,
               row.variant, row.device, row.precision, opt_number(row.rms_error, "{:.3e}"),
               opt_number(row.max_error, "{:.3e}"), row.time_ms, row.bandwidth_gbps, row.mcups, row.copy_ratio,
               fmt_or_dash(row.errors, &ErrorNorms::rel_l2, "{:.3g}"), bitwise_word(row));
  }
  fmt::print(out,
             "errors against the exact derivative (the posts' lines); rel L2 against the double reference; time of one "
             "derivative; GB/s counts one read and one write of each interior value; copy = GB/s over the copy of the "
             "same device (GPU rows: device copy kernel; CPU rows: host copy); bitwise against the axis's first row "
             "that sums through the shared point function (posts-*: the posts' kernels as published, their own "
             "summation order)\n");
}

void print_heat3d_table(const Heat3DBenchReport& r, std::FILE* out) {
  const Heat3DSetup& s = r.setup;
  fmt::print(out,
             "heat3d {}x{}x{}, order {}, {} steps, boundary {}, initial {}, alpha {:g}, dt {:.4g} (limit {:.4g})\n",
             s.grid.nx, s.grid.ny, s.grid.nz, s.config.order, r.steps, to_string(s.config.boundary),
             to_string(s.config.initial), s.config.alpha, s.dt, s.dt_limit);
  print_device_line(r, out);
  fmt::print(out, "{:<10} {:<6} {:<7} {:>11} {:>10} {:>10} {:>6} {:>12} {:>10} {:>10} {:>8}\n", "variant", "device",
             "prec", "time (ms)", "GB/s", "MCUPS", "copy", "ref L2 norm", "rel Linf", "rel L2", "bitwise");
  for (const BenchRow3D& row : r.rows) {
    if (!row.skipped.empty()) {
      fmt::print(out, "{:<10} {:<6} {:<7} skipped: {}\n", row.variant, row.device, row.precision, row.skipped);
      continue;
    }
    fmt::print(out, "{:<10} {:<6} {:<7} {:>11.3f} {:>10.1f} {:>10.1f} {:>6.3f} {:>12} {:>10} {:>10} {:>8}\n",
               row.variant, row.device, row.precision, row.time_ms, row.bandwidth_gbps, row.mcups, row.copy_ratio,
               fmt_or_dash(row.errors, &ErrorNorms::ref_l2, "{:.5g}"),
               fmt_or_dash(row.errors, &ErrorNorms::rel_linf, "{:.3g}"),
               fmt_or_dash(row.errors, &ErrorNorms::rel_l2, "{:.3g}"), bitwise_word(row));
  }
  fmt::print(out,
             "GB/s counts one read and one write of each interior value per step (the boundary step included in the "
             "time); copy = GB/s over the copy of the same device (GPU rows: device copy kernel; CPU rows: host copy)\n");
}

nlohmann::json rows_to_json(const Bench3DReport& r) {
  using nlohmann::json;
  auto opt = [](const std::optional<double>& v) { return v && std::isfinite(*v) ? json(*v) : json(nullptr); };
  json rows = json::array();
  for (const BenchRow3D& row : r.rows) {
    json j = row_to_json(row, fmt::format("{}x{}x{}", row.nx, row.ny, row.nz));
    j["nz"] = row.nz;
    if (!row.axis.empty()) {
      j["axis"] = row.axis;
      j["rms_error"] = row.skipped.empty() ? opt(row.rms_error) : json(nullptr);
      j["max_error"] = row.skipped.empty() ? opt(row.max_error) : json(nullptr);
    }
    rows.push_back(std::move(j));
  }
  return rows;
}

nlohmann::json to_json(const Deriv3DBenchReport& r) {
  const Grid3D& g = r.setup.grid;
  const nlohmann::json config = {{"model", "deriv3d"},
                                 {"nx", g.nx},
                                 {"ny", g.ny},
                                 {"nz", g.nz},
                                 {"order", r.setup.config.order},
                                 {"steps", r.steps},
                                 {"function", "cos(2 pi (x + y + z))"}};
  return report_json(r, config, rows_to_json(r));
}

nlohmann::json to_json(const Heat3DBenchReport& r) {
  return report_json(r, heat_config_json("heat3d", r.setup, r.steps, r.setup.grid.nz), rows_to_json(r));
}

std::string row_label(const BenchRow& row) { return row.variant; }
std::string row_label(const BenchRow3D& row) {
  return row.axis.empty() ? row.variant : row.variant + " along " + row.axis;
}

/// Writes the table and the JSON where asked, then the exit status (3 when a row
/// went non-finite or differs from its siblings bit for bit).
template <typename Report, typename PrintTable>
int finish_report(const BenchArgs& a, std::ofstream& json_file, const Report& report, PrintTable print_table) {
  const bool json_to_stdout = a.json == "-";
  print_table(report, json_to_stdout ? stderr : stdout);
  if (!a.json.empty()) {
    const std::string text = to_json(report).dump(2) + "\n";
    if (json_to_stdout) {
      std::fwrite(text.data(), 1, text.size(), stdout);
    } else {
      json_file << text;
      if (!json_file.flush()) throw Error("failed writing --json file '" + a.json + "'");
    }
  }
  int status = 0;
  for (const auto& row : report.rows) {
    const std::string where = row_label(row);
    if (row.errors && !row.errors->finite) {
      fmt::print(stderr, "stencilscope: error: variant {} produced non-finite values\n", where);
      status = 3;
    }
    if (row.bitwise_equal && !*row.bitwise_equal) {
      fmt::print(stderr, "stencilscope: error: variant {} is not bitwise equal to the first row of its group\n", where);
      status = 3;
    }
  }
  return status;
}

std::ofstream open_json(const BenchArgs& a) {
  std::ofstream json_file;
  if (!a.json.empty() && a.json != "-") {  // open first: a bad path fails before the work
    json_file.open(a.json);
    if (!json_file) throw Error("cannot write --json file '" + a.json + "'");
  }
  return json_file;
}

std::function<void(const std::string&)> progress_reporter() {
  if (!isatty(fileno(stderr))) return {};
  return [](const std::string& m) { fmt::print(stderr, "... {}\n", m); };
}

int run_deriv3d(const BenchArgs& a) {
  Deriv3DBenchOptions o;
  const auto n = parse_size3d(a.size_option && a.size_option->count() ? a.size : "64");
  o.config.nx = n[0];
  o.config.ny = n[1];
  o.config.nz = n[2];
  check_order(a.order);
  o.config.order = a.order;
  o.precision = parse_precision(a.precision);
  o.launches = a.steps_option && a.steps_option->count() ? a.steps : 20;
  o.repeats = a.repeats;
  if (a.axis != "all") o.axes = {parse_axis(a.axis)};
  o.variants = select_variants(a.variant, a.device, kAllDeriv3DVariants, parse_deriv3d_variant);
  o.progress = progress_reporter();
  std::ofstream json_file = open_json(a);
  return finish_report(a, json_file, run_deriv3d_bench(o), print_deriv3d_table);
}

int run_heat3d(const BenchArgs& a) {
  Heat3DBenchOptions o;
  const auto n = parse_size3d(a.size_option && a.size_option->count() ? a.size : "256");
  o.config.nx = n[0];
  o.config.ny = n[1];
  o.config.nz = n[2];
  check_order(a.order);
  o.config.order = a.order;
  o.config.alpha = a.alpha;
  o.config.dt = a.dt;
  o.config.fixed_value = a.fixed_value;
  o.config.boundary = parse_boundary(a.boundary);
  o.config.initial = parse_initial_condition(a.initial);
  o.precision = parse_precision(a.precision);
  o.steps = a.steps;
  o.repeats = a.repeats;
  o.variants = select_variants(a.variant, a.device, kAllHeat3DVariants, parse_heat3d_variant);
  o.progress = progress_reporter();
  std::ofstream json_file = open_json(a);
  return finish_report(a, json_file, run_heat3d_bench(o), print_heat3d_table);
}

int run_bench(const BenchArgs& a) {
  if (a.model != "deriv3d" && a.axis_option && a.axis_option->count())
    throw Error("--axis applies to deriv3d only (model '" + a.model + "')");
  if (a.model == "deriv3d") return run_deriv3d(a);
  if (a.model == "heat3d") return run_heat3d(a);
  if (a.model != "heat2d") throw Error("unknown model '" + a.model + "' (available: heat2d, deriv3d, heat3d)");
  Heat2DBenchOptions o;
  std::tie(o.config.nx, o.config.ny) = parse_size(a.size);
  o.config.order = a.order;
  check_order(a.order);
  o.config.alpha = a.alpha;
  o.config.dt = a.dt;
  o.config.fixed_value = a.fixed_value;
  o.config.boundary = parse_boundary(a.boundary);
  o.config.initial = parse_initial_condition(a.initial);
  o.precision = parse_precision(a.precision);
  o.steps = a.steps;
  o.repeats = a.repeats;
  o.variants = select_variants(a.variant, a.device, kAllHeat2DVariants, parse_heat2d_variant);
  o.progress = progress_reporter();
  std::ofstream json_file = open_json(a);
  return finish_report(a, json_file, run_heat2d_bench(o), print_table);
}

}  // namespace

std::function<int()> add_bench_command(CLI::App& app) {
  auto args = std::make_shared<BenchArgs>();
  CLI::App* bench = app.add_subcommand("bench", "Benchmark kernel variants against the reference");
  bench->add_option("model", args->model, "Model to benchmark (heat2d, deriv3d, heat3d)")->required();
  args->size_option = bench->add_option("--size", args->size,
                                        "Interior grid NXxNY (heat2d) or NXxNYxNZ (3D), or N for a square/cube "
                                        "[3D defaults: deriv3d 64, heat3d 256]")
                          ->capture_default_str();
  args->steps_option =
      bench->add_option("--steps", args->steps, "Time steps per timed run (deriv3d: launches, default 20)")
          ->capture_default_str();
  bench->add_option("--order", args->order, "Stencil order: 2, 4, 6 or 8")->capture_default_str();
  bench->add_option("--variant", args->variant,
                    "heat2d: global, block, shared, stream; deriv3d: global, spencil, lpencil, stream, posts-spencil, "
                    "posts-lpencil (the posts' kernels as published: 64^3 and 256^3, order 8, float); heat3d: global, "
                    "shared3d, stream25d; each also cpu, reference or all")
      ->capture_default_str();
  args->axis_option = bench->add_option("--axis", args->axis, "deriv3d: x, y, z or all")->capture_default_str();
  bench->add_option("--device", args->device, "gpu, cpu or all")->capture_default_str();
  bench->add_option("--precision", args->precision, "float or double")->capture_default_str();
  bench->add_option("--json", args->json, "Also write the rows as JSON to FILE, or - for stdout");
  bench->add_option("--repeat", args->repeats, "Timed runs per GPU variant (the median is shown)")
      ->capture_default_str();
  bench->add_option("--boundary,--bc", args->boundary, "analytic, periodic, fixed or insulated")->capture_default_str();
  bench->add_option("--initial,--ic", args->initial, "analytic, hot-disc, hot-spots or checkerboard")
      ->capture_default_str();
  bench->add_option("--alpha", args->alpha, "Diffusivity")->capture_default_str();
  bench->add_option("--dt", args->dt, "Time step (default: half the stability limit)");
  bench->add_option("--fixed-value", args->fixed_value, "Ghost value of the fixed boundary")->capture_default_str();
  return [args] { return run_bench(*args); };
}

std::function<int()> add_info_command(CLI::App& app) {
  app.add_subcommand("info", "Print CUDA devices, copy bandwidth and build options");
  return [] {
    const BuildInfo& b = build_info();
    fmt::print("stencilscope {} (commit {}, {})\n", b.version, b.commit, b.build_type);
    fmt::print("build: CUDA backend {}{}, OpenMP {}, GUI {}\n", b.cuda ? "on" : "off",
               b.cuda ? fmt::format(" (architectures {})", b.cuda_architectures) : "", b.openmp ? "on" : "off",
               b.gui ? "on" : "off");
    std::string why;
    const auto devices = cuda_devices(&why);
    if (devices.empty()) {
      fmt::print("CUDA devices: none: {}\n", why);
    } else {
      for (const DeviceInfo& d : devices)
        fmt::print("CUDA device {}: {}, sm_{}{}, {} SMs, {:.1f} GB ({:.1f} GB free), L2 {:.0f} MB{}\n", d.index, d.name,
                   d.cc_major, d.cc_minor, d.multiprocessors, d.total_bytes / 1e9, d.free_bytes / 1e9,
                   d.l2_bytes / 1e6, d.peak_gbps > 0 ? fmt::format(", peak {:.0f} GB/s", d.peak_gbps) : "");
      const std::size_t bytes = std::size_t(512) << 20;
      fmt::print("copy kernel (512 MiB, read + write): {:.1f} GB/s\n", measure_copy_gbps(bytes));
    }
    fmt::print("host copy (256 MiB, read + write): {:.1f} GB/s\n", measure_host_copy_gbps(std::size_t(256) << 20));
    return 0;
  };
}

}  // namespace ss::app
