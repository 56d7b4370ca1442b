// `stencilscope bench MODEL` and `stencilscope info`. The bench command is generic
// over the model registry: its flags, defaults, variants and table columns all come
// from a model's ModelInfo and the BenchReport its bench returns; no model is named here.
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <optional>
#include <variant>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "checkpoint.hpp"
#include "commands.hpp"
#include "param_options.hpp"
#include "scene_file.hpp"
#include "sim/bench/report.hpp"
#include "sim/core/build_info.hpp"
#include "sim/core/device.hpp"
#include "sim/core/error.hpp"
#include "sim/core/model.hpp"
#include "sim/core/precision.hpp"
#ifdef STENCILSCOPE_WITH_MPI
#include "sim/dist/distributed_bench.hpp"
#include "sim/dist/distributed_simulation.hpp"
#include "sim/dist/mpi_comm.hpp"
#endif

namespace ss::app {

namespace {

struct BenchArgs {
  std::string model;  ///< empty: the --scene file's
  std::string scene;  ///< a scene file: its model, size, order and parameters (the flags given override them)
  std::string size;
  int steps = 0;
  int order = 0;
  std::string variant = "all";
  std::string device = "all";
  std::string precision = "float";
  std::string json;
  std::string test;  ///< a physics test of the model's (BenchSpec::tests) instead of the table
  std::string csv;   ///< --test: the test's data series as CSV
  int repeats = 5;
  std::string decomp;   ///< --decomp AxBxC: ranks per axis of a distributed run
  std::string scaling;  ///< --scaling strong|weak of a distributed run
  std::string transport;  ///< --transport staged|nccl|peer: GPU halos of a distributed run
  ParamArgs params;  ///< --param and the flag per parameter name (param_options.hpp)
  SourceArgs sources;  ///< --point-source, --receivers, --seismogram: a run of the first live variant first
  // Given or not: the defaults are the chosen model's.
  const CLI::Option* size_option = nullptr;
  const CLI::Option* steps_option = nullptr;
  const CLI::Option* order_option = nullptr;
};

/// "a, b, c", or the words joined by `separator`.
std::string join_words(const std::vector<std::string>& words, const char* separator = ", ") {
  std::string out;
  for (std::size_t k = 0; k < words.size(); ++k) out += (k > 0 ? separator : "") + words[k];
  return out;
}

/// The variants `--variant` and `--device` ask for, in the model's order; throws on an
/// unknown one, or one that does not run on the asked device.
std::vector<std::string> select_variants(const ModelInfo& info, const std::string& variant,
                                         const std::string& device) {
  if (device != "gpu" && device != "cpu" && device != "all")
    throw Error("unknown device '" + device + "' (choose gpu, cpu or all)");
  std::vector<std::string> out;
  if (variant == "all") {
    for (const VariantSpec& v : info.variants)
      if (device == "all" || (device == "gpu") == v.gpu) out.push_back(v.name);
    return out;
  }
  const VariantSpec* v = info.variant(variant);
  if (!v) {
    std::vector<std::string> names;
    for (const VariantSpec& w : info.variants) names.push_back(w.name);
    throw Error("unknown variant '" + variant + "' (choose " + join_words(names) + ")");
  }
  if (device != "all" && (device == "gpu") != v->gpu)
    throw Error(fmt::format("variant '{}' runs on the {}, but --device {} was asked", variant, v->gpu ? "gpu" : "cpu",
                            device));
  return {variant};
}

// ---- the table -------------------------------------------------------------

/// The row fields every model has, by column key.
bool is_standard_key(const std::string& key) {
  static const std::array<const char*, 11> keys = {"variant", "device",     "precision", "time_ms",
                                                   "bandwidth_gbps", "mcups", "copy_ratio", "ref_l2_norm",
                                                   "rel_linf", "rel_l2", "bitwise"};
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

std::string format_number(const std::string& format, double v) { return fmt::format(fmt::runtime(format), v); }

/// What a row shows in column `c`, before padding.
std::string cell(const BenchRow& row, const BenchColumn& c) {
  const std::string& k = c.key;
  auto text = [&](const std::string& s) { return fmt::format(fmt::runtime(c.format), s); };
  auto error = [&](double ErrorNorms::*field) {
    return row.errors ? format_number(c.format, (*row.errors).*field) : std::string("-");
  };
  if (k == "variant") return text(row.variant);
  if (k == "device") return text(row.device);
  if (k == "precision") return text(row.precision);
  if (k == "time_ms") return format_number(c.format, row.time_ms);
  if (k == "bandwidth_gbps") return format_number(c.format, row.bandwidth_gbps);
  if (k == "mcups") return format_number(c.format, row.mcups);
  if (k == "copy_ratio") return format_number(c.format, row.copy_ratio);
  if (k == "ref_l2_norm") return error(&ErrorNorms::ref_l2);
  if (k == "rel_linf") return error(&ErrorNorms::rel_linf);
  if (k == "rel_l2") return error(&ErrorNorms::rel_l2);
  if (k == "bitwise") {
    // The reference and kernels with their own summation order are never compared bit for bit.
    if (row.variant == "reference" || row.own_summation) return text("-");
    return text(!row.bitwise_equal ? "base" : *row.bitwise_equal ? "equal" : "DIFFERS");
  }
  if (const std::string* label = row.label(k)) return text(*label);
  const std::optional<double> figure = row.figure(k);
  return figure ? format_number(c.format, *figure) : std::string("-");
}

std::string pad(const std::string& s, const BenchColumn& c) {
  return c.left ? fmt::format("{:<{}}", s, c.width) : fmt::format("{:>{}}", s, c.width);
}

/// How many leading columns a skipped row shows: through "precision", or the leading
/// word columns of a table without one (what says which row it is).
std::size_t skipped_columns(const std::vector<BenchColumn>& columns) {
  for (std::size_t k = 0; k < columns.size(); ++k)
    if (columns[k].key == "precision") return k + 1;
  std::size_t n = 0;
  while (n < columns.size() && columns[n].left) ++n;
  return n;
}

void print_table(const BenchReport& r, std::FILE* out) {
  fmt::print(out, "{}\n", r.title);
  fmt::print(out, "device: {}", r.device);
  if (r.copy_gbps > 0) fmt::print(out, ", copy kernel {:.1f} GB/s", r.copy_gbps);
  if (r.host_copy_gbps > 0) fmt::print(out, "; host copy {:.1f} GB/s", r.host_copy_gbps);
  fmt::print(out, "; commit {}\n", r.commit);
  if (!r.note.empty()) fmt::print(out, "note: {}\n", r.note);
  std::vector<std::string> header;
  for (const BenchColumn& c : r.columns) header.push_back(pad(c.header, c));
  fmt::print(out, "{}\n", join_words(header, " "));
  const std::size_t shown_when_skipped = skipped_columns(r.columns);
  for (const BenchRow& row : r.rows) {
    std::vector<std::string> cells;
    const std::size_t n = row.skipped.empty() ? r.columns.size() : shown_when_skipped;
    for (std::size_t k = 0; k < n; ++k) cells.push_back(pad(cell(row, r.columns[k]), r.columns[k]));
    if (!row.skipped.empty()) cells.push_back("skipped: " + row.skipped);
    fmt::print(out, "{}\n", join_words(cells, " "));
  }
  fmt::print(out, "{}\n", r.footer);
}

// ---- JSON ------------------------------------------------------------------

nlohmann::json number_or_null(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

/// A row's JSON: the keys every row has, its labels as strings, and the figures the
/// table shows (null when the row has none or was skipped).
nlohmann::json row_json(const BenchRow& row, const std::vector<BenchColumn>& columns) {
  using nlohmann::json;
  json j = {{"model", row.model},
            {"variant", row.variant},
            {"device", row.device},
            {"order", row.order},
            {"precision", row.precision},
            {"size", row.nz == 0 ? fmt::format("{}x{}", row.nx, row.ny)
                                 : fmt::format("{}x{}x{}", row.nx, row.ny, row.nz)},
            {"nx", row.nx},
            {"ny", row.ny},
            {"steps", row.steps}};
  if (row.nz != 0) j["nz"] = row.nz;
  for (const auto& [key, value] : row.labels) j[key] = value;
  for (const BenchColumn& c : columns) {
    if (is_standard_key(c.key) || row.label(c.key)) continue;
    const std::optional<double> figure = row.figure(c.key);
    j[c.key] = row.skipped.empty() && figure ? number_or_null(*figure) : json(nullptr);
  }
  if (!row.skipped.empty()) {
    j["skipped"] = row.skipped;
    for (const char* k : {"time_ms", "bandwidth_gbps", "mcups", "copy_ratio", "ref_l2_norm", "rel_linf", "rel_l2"})
      j[k] = nullptr;
    return j;
  }
  j["time_ms"] = number_or_null(row.time_ms);
  j["bandwidth_gbps"] = number_or_null(row.bandwidth_gbps);
  j["mcups"] = number_or_null(row.mcups);
  j["copy_ratio"] = number_or_null(row.copy_ratio);
  j["ref_l2_norm"] = row.errors ? number_or_null(row.errors->ref_l2) : json(nullptr);
  j["rel_linf"] = row.errors ? number_or_null(row.errors->rel_linf) : json(nullptr);
  j["rel_l2"] = row.errors ? number_or_null(row.errors->rel_l2) : json(nullptr);
  if (row.bitwise_equal) j["bitwise_equal"] = *row.bitwise_equal;
  return j;
}

/// A report's JSON: the device, its copy bandwidths and the commit at the top, then
/// the model's configuration, the note and the rows (`bench --json`).
nlohmann::json report_json(const BenchReport& r) {
  using nlohmann::json;
  json config = json::object();
  for (const auto& [key, value] : r.config) std::visit([&, &k = key](const auto& v) { config[k] = v; }, value);
  json rows = json::array();
  for (const BenchRow& row : r.rows) rows.push_back(row_json(row, r.columns));
  return {{"device", r.device},
          {"copy_gbps", r.copy_gbps > 0 ? json(r.copy_gbps) : json(nullptr)},
          {"host_copy_gbps", r.host_copy_gbps > 0 ? json(r.host_copy_gbps) : json(nullptr)},
          {"commit", r.commit},
          {"config", std::move(config)},
          {"note", r.note},
          {"rows", std::move(rows)}};
}

// ---- running ---------------------------------------------------------------

/// "stream along y": the variant and the labels that set its row apart.
std::string row_name(const BenchRow& row) {
  std::string name = row.variant;
  for (const auto& [key, value] : row.labels) name += " along " + value;
  return name;
}

/// Writes the table and the JSON where asked, then the exit status (3 when a row
/// went non-finite or differs from its siblings bit for bit).
int finish_report(const BenchArgs& a, std::ofstream& json_file, const BenchReport& report) {
  const bool json_to_stdout = a.json == "-";
  print_table(report, json_to_stdout ? stderr : stdout);
  if (!a.json.empty()) {
    const std::string text = report_json(report).dump(2) + "\n";
    if (json_to_stdout) {
      std::fwrite(text.data(), 1, text.size(), stdout);
    } else {
      json_file << text;
      if (!json_file.flush()) throw Error("failed writing --json file '" + a.json + "'");
    }
  }
  int status = 0;
  for (const BenchRow& row : report.rows) {
    if (row.errors && !row.errors->finite) {
      fmt::print(stderr, "stencilscope: error: variant {} produced non-finite values\n", row_name(row));
      status = 3;
    }
    if (row.bitwise_equal && !*row.bitwise_equal) {
      fmt::print(stderr, "stencilscope: error: variant {} is not bitwise equal to the first row of its group\n",
                 row_name(row));
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

/// The model's test named `name`; throws naming the tests it has (or that it has none).
void check_test(const ModelInfo& info, const std::string& name) {
  std::vector<std::string> names;
  for (const auto& [test, help] : info.bench.tests) {
    if (test == name) return;
    names.push_back(test);
  }
  if (names.empty()) throw Error(fmt::format("{} has no bench tests (--test '{}')", info.name, name));
  throw Error(fmt::format("{} has no bench test '{}' (choose {})", info.name, name, join_words(names)));
}

/// --test's sizes: `A,B,...`, each as --size takes it.
std::vector<std::array<int, 3>> parse_test_sizes(const std::string& text, const ModelInfo& info) {
  std::vector<std::array<int, 3>> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = text.find(',', start);
    out.push_back(parse_grid_size(text.substr(start, comma - start), info, info.bench.default_size));
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

/// --csv, or next to a --json FILE (its name with .csv for .json), or none.
std::string csv_path(const BenchArgs& a) {
  if (!a.csv.empty() || a.json.empty() || a.json == "-") return a.csv;
  const std::size_t dot = a.json.rfind('.'), slash = a.json.rfind('/');
  const bool has_ext = dot != std::string::npos && (slash == std::string::npos || dot > slash);
  return (has_ext ? a.json.substr(0, dot) : a.json) + ".csv";
}

/// The model and the request the arguments ask for; throws ss::Error for bad input.
std::pair<const Model*, BenchRequest> prepare_request(const BenchArgs& a) {
  std::optional<SceneFile> file;
  if (!a.scene.empty()) file = read_scene(a.scene);
  if (a.model.empty() && !file) throw Error("bench needs a MODEL or --scene FILE (models: " + model_list() + ")");
  const Model& model = find_model(a.model.empty() ? file->model : a.model);
  const ModelInfo& info = model.info();
  // The file's size, order and parameters apply to its own model only.
  const bool from_file = file && file->model == info.name;
  ParamValues given = from_file ? file->params : ParamValues{};
  for (auto& [name, value] : parse_params(a.params, model, /*bench=*/true)) given[name] = value;
  const std::array<int, 3> file_size = from_file && file->size ? *file->size : info.bench.default_size;
  if (!a.test.empty()) check_test(info, a.test);
  if (a.test.empty() && !a.csv.empty()) throw Error("--csv writes a test's data series: it needs --test");
  BenchRequest request;
  if (!a.test.empty() && a.size_option->count()) request.sizes = parse_test_sizes(a.size, info);
  const std::array<int, 3> size = !request.sizes.empty() ? request.sizes.front()
                                  : a.size_option->count() ? parse_grid_size(a.size, info, info.bench.default_size)
                                                           : file_size;
  const int order = a.order_option->count() ? a.order : from_file && file->order ? *file->order : info.default_order;
  request.config = make_config(model, size, order, given, /*bench=*/true);
  request.given = given;
  request.test = a.test;
  if (!a.test.empty()) request.csv = csv_path(a);
  request.precision = parse_precision(a.precision);
  request.steps = a.steps_option->count() ? a.steps : info.bench.default_steps;
  if (request.steps < 1) throw Error(fmt::format("--steps must be at least 1 (got {})", request.steps));
  if (a.repeats < 1) throw Error(fmt::format("--repeat must be at least 1 (got {})", a.repeats));
  request.repeats = a.repeats;
  request.variants = select_variants(info, a.variant, a.device);
  request.progress = progress_reporter();
  return {&model, request};
}

/// A distributed run: asked for by mpirun with several ranks, --decomp or --scaling.
bool distributed(const BenchArgs& a, int ranks) { return ranks > 1 || !a.decomp.empty() || !a.scaling.empty(); }

#ifdef STENCILSCOPE_WITH_MPI
/// --point-source, --receivers and --seismogram under mpirun: the one-rank bench's live run
/// (--steps steps of the grid asked for, before the timing) with every rank stepping its box
/// (on its GPU with --device gpu, the boxes' GPU variant, halos through --transport), driven
/// from rank 0 as the window's run is (DistributedSimulation); rank 0 writes the seismogram
/// its boxes recorded, the one-rank files bit for bit. A refusal on rank 0 (a source outside
/// the grid, a model without receivers) is one line and every rank leaves.
void run_distributed_sources(const BenchArgs& a, const Model& model, const BenchRequest& r, Backend backend,
                             const std::string& transport) {
  if (dist::world_rank() != 0) {
    if (dist::serve_distributed_simulation() != 0) throw dist::CollectiveError("rank 0's run with sources failed");
    return;
  }
  dist::DistributedService service;  // with the others' serve loop
  try {
    const ModelConfig live = make_config(model, r.config.size, r.config.order, r.given);
    auto sim = dist::create_distributed_simulation(service, model, live, backend,
                                                   dist::distributed_variant(model, live, backend), transport);
    apply_source_args(a.sources, *sim);
    sim->start_steps(r.steps);
    if (!a.sources.seismogram.empty()) write_seismogram_files(a.sources.seismogram, *sim);
  } catch (const dist::CollectiveError&) {
    service.finish(1);
    throw;
  } catch (const Error& e) {
    service.finish(1);
    throw dist::CollectiveError(e.what());
  }
  service.finish(0);
}

/// `mpirun -np N stencilscope bench MODEL`: every rank checks the arguments and the
/// decomposition together (a bad one is one line from rank 0 and a non-zero exit on every
/// rank), then runs its box; rank 0 prints the table.
int run_distributed(const BenchArgs& a) {
  dist::DistributedBenchRequest request;
  const Model* model = nullptr;
  std::ofstream json_file;
  const bool root = dist::world_rank() == 0;
  dist::agree(MPI_COMM_WORLD, [&] {
    if (!a.test.empty()) throw Error("--test runs on one rank (leave out mpirun, --decomp and --scaling)");
    parse_sources(a.sources);  // malformed text: one line before any run
    parse_receivers(a.sources);
    auto [m, r] = prepare_request(a);
    model = m;
    const ModelInfo& info = model->info();
    // The variant a distributed run steps is the model's: its CPU variant, or on the GPU
    // the one its boxes step (DistributedSpec::gpu_variant).
    const std::string gpu_variant = model->distributed(r.config).gpu_variant;
    const bool gpu = a.device == "gpu" || (!gpu_variant.empty() && a.variant == gpu_variant);
    const std::string& wanted = gpu ? gpu_variant : info.fastest_cpu;
    if ((a.variant != "all" && a.variant != wanted) || (gpu && gpu_variant.empty()))
      throw Error(fmt::format("a distributed run steps {}'s {} variant on the CPU backend{}", info.name,
                              info.fastest_cpu,
                              gpu_variant.empty() ? std::string(" (its boxes do not run on the GPU yet)")
                                                  : fmt::format(" or its {} variant on the GPU (--device gpu)", gpu_variant)));
    if (!a.transport.empty() && !gpu) throw Error("--transport is for GPU halos (--device gpu)");
    request.backend = gpu ? Backend::gpu : Backend::cpu;
    request.transport = a.transport;
    request.bench = r;
    if (!root) request.bench.progress = {};
    if (!a.decomp.empty()) request.decomp = parse_decomp(a.decomp);
    if (!a.scaling.empty()) request.scaling = dist::parse_scaling(a.scaling);
    dist::check_distributed_request(*model, request, dist::world_size());
    if (root) json_file = open_json(a);
  });
  if (a.sources.any()) run_distributed_sources(a, *model, request.bench, request.backend, request.transport);
  const BenchReport report = dist::run_distributed_bench(*model, request);
  return root ? finish_report(a, json_file, report) : 0;
}
#endif

int run_bench(const BenchArgs& a) {
  if (distributed(a, world_ranks())) {
#ifdef STENCILSCOPE_WITH_MPI
    if (!dist::launched_by_mpi())
      throw Error("--decomp and --scaling are for distributed runs: start them with mpirun -np N");
    return run_distributed(a);
#else
    throw Error("this build has no MPI (STENCILSCOPE_MPI off or MPI not found): --decomp, --scaling and mpirun -np N "
                "need it");
#endif
  }
  auto [model, request] = prepare_request(a);
  std::ofstream json_file = open_json(a);
  if (!request.csv.empty() && !std::ofstream(request.csv))  // a bad path fails before the work
    throw Error("cannot write --csv file '" + request.csv + "'");
  if (a.sources.any()) {
    // The sources and receivers through the model interface: one live run of the first
    // live variant asked for, --steps steps, before the timing (bad input fails first).
    const ModelInfo& info = model->info();
    const ModelConfig live = make_config(*model, request.config.size, request.config.order, request.given);
    const auto v = std::find_if(request.variants.begin(), request.variants.end(),
                                [&](const std::string& n) { return info.variant(n)->live; });
    if (v == request.variants.end()) throw Error("--point-source, --receivers, --seismogram: no live variant among those asked for");
    auto sim = model->create(live, info.variant(*v)->gpu ? Backend::gpu : Backend::cpu, *v);
    apply_source_args(a.sources, *sim);
    sim->start_steps(request.steps);
    sim->wait();
    if (!a.sources.seismogram.empty()) write_seismogram_files(a.sources.seismogram, *sim);
  }
  return finish_report(a, json_file, model->bench(request));
}


/// "[A, B, ...]": `entry` of each registered model, in menu order (for the help texts).
template <typename Entry>
std::string per_model(Entry entry, const char* separator = ", ") {
  std::string out;
  for (const Model* m : models()) out += (out.empty() ? "" : separator) + entry(m->info());
  return "[" + out + "]";
}

}  // namespace

std::function<int()> add_bench_command(CLI::App& app) {
  auto args = std::make_shared<BenchArgs>();
  CLI::App* bench = app.add_subcommand("bench", "Benchmark kernel variants against the reference");
  bench->add_option("model", args->model, "Model to benchmark: " + model_list() + " (default: the --scene file's)");
  bench->add_option("--scene", args->scene,
                    "A scene file (TOML): its model, size, order and parameters; the options given override them");
  args->size_option = bench->add_option(
      "--size", args->size,
      "Interior grid NXxNY (2D models) or NXxNYxNZ (3D models), or N for a square/cube; defaults " +
          per_model([](const ModelInfo& m) { return m.name + " " + size_text(m.bench.default_size, m.dims); }));
  args->steps_option = bench->add_option(
      "--steps", args->steps,
      "Steps per timed run " + per_model(
                                   [](const ModelInfo& m) {
                                     return fmt::format("{}: {}, default {}", m.name, m.bench.steps_help,
                                                        m.bench.default_steps);
                                   },
                                   "; "));
  args->order_option = bench->add_option(
      "--order", args->order,
      "Stencil order " + per_model(
                             [](const ModelInfo& m) {
                               std::vector<std::string> orders;
                               for (int o : m.orders) orders.push_back(std::to_string(o));
                               return fmt::format("{}: {}, default {}", m.name, join_words(orders), m.default_order);
                             },
                             "; "));
  bench
      ->add_option("--variant,--method", args->variant,
                   "A variant (hydro3d calls them methods), or all (every one that runs on --device) " +
                       per_model([](const ModelInfo& m) { return m.name + ": " + m.variant_list(); }, "; "))
      ->capture_default_str();
  bench->add_option("--device", args->device, "gpu, cpu or all")->capture_default_str();
  add_source_options(bench, args->sources);
  bench->add_option("--precision", args->precision, "float or double")->capture_default_str();
  bench->add_option("--json", args->json, "Also write the rows as JSON to FILE, or - for stdout");
  std::string tests;
  for (const Model* m : models())
    for (const auto& [name, help] : m->info().bench.tests)
      tests += fmt::format("{}{} {}: {}", tests.empty() ? "" : "; ", m->info().name, name, help);
  bench->add_option("--test", args->test,
                    "Run a model's physics test instead of the timing table (--size A,B,... gives its sizes; --steps "
                    "and --repeat do not apply) [" + tests + "]");
  bench->add_option("--csv", args->csv,
                    "With --test: write the test's data series (errors, profiles, a spectrum: the test says) as CSV to FILE "
                    "(default: next to a --json FILE, its name ending .csv)");
  bench->add_option("--repeat", args->repeats, "Timed runs per GPU variant (the median is shown)")
      ->capture_default_str();
  bench->add_option("--decomp", args->decomp,
                    "Distributed runs (mpirun -np N): ranks along x, y and z as AxBxC (default: the split with the "
                    "fewest halo cells)");
  bench->add_option("--scaling", args->scaling,
                    "Distributed runs: strong (the --size grid on N ranks, checked bitwise against one rank) or weak "
                    "(--size per rank); the one-rank run is made in the same command (default strong)");
  bench->add_option("--transport", args->transport,
                    "Distributed runs on the GPU (--device gpu): staged (MPI on pinned host buffers), nccl, or "
                    "peer (the copy engines through CUDA IPC) (default: peer when every rank is on one node whose GPUs "
                    "reach each other, else nccl where built and each rank of a node has a GPU of its own, else "
                    "staged)");
  add_param_options(bench, args->params);  // --param, and --alpha, --bc, --axis, ... from the registry
  return [args] { return run_bench(*args); };
}

std::function<int()> add_info_command(CLI::App& app) {
  app.add_subcommand("info", "Print CUDA devices, copy bandwidth and build options");
  return [] {
    const BuildInfo& b = build_info();
    fmt::print("stencilscope {} (commit {}, {})\n", b.version, b.commit, b.build_type);
    fmt::print("build: CUDA backend {}{}, OpenMP {}, GUI {}, checkpoints (HDF5) {}\n", b.cuda ? "on" : "off",
               b.cuda ? fmt::format(" (architectures {})", b.cuda_architectures) : "", b.openmp ? "on" : "off",
               b.gui ? "on" : "off", checkpoints_built() ? "on" : "off");
    // The halo transports a distributed run (mpirun -np N stencilscope bench MODEL) can use.
    std::string transports = b.mpi ? "MPI on host buffers (CPU boxes)" : "none (built without MPI: one rank only)";
    if (b.mpi && b.cuda)
      transports += ", MPI on pinned host buffers (GPU, staged), the copy engines through CUDA IPC (GPU, peer)";
    if (b.nccl) transports += ", NCCL (GPU to GPU)";
    fmt::print("distributed: {}; this run: {} rank{}\n", transports, world_ranks(), world_ranks() == 1 ? "" : "s");
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
