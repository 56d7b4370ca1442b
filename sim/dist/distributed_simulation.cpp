#include "sim/dist/distributed_simulation.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <limits>
#include <optional>
#include <sstream>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "sim/core/device.hpp"
#include "sim/core/views.hpp"
#include "sim/dist/gather.hpp"
#include "sim/dist/halo_exchange.hpp"
#include "sim/dist/halo_exchange_device.hpp"
#include "sim/dist/rank_gpu.hpp"

namespace ss::dist {

namespace {

// ---- the commands ------------------------------------------------------------

enum class Op : int { quit, build, drop, step, views, paint, reset, set_order, copy_state, load_state, diagnostics,
                       set_sources, set_receivers, traces };

/// One command, broadcast as bytes (every rank runs the same binary); `text_bytes` of text
/// follow in a second broadcast when non-zero (build: the configuration; views: the quantity;
/// set_sources: the list's bytes, source_list_bytes; set_receivers: the layout's bytes).
struct Command {
  Op op = Op::quit;
  int arg = 0;                    ///< quit: exit status; step: steps; views: mask of views; set_order: order; load_state: fields;
                                  ///< traces: the first row wanted (rank 0 has the rows before)
  int slices[3] = {0, 0, 0};      ///< views: the positions (ViewPlacement::slices)
  long long steps = 0;            ///< load_state: the step count
  double sphere[5] = {0, 0, 0, 0, 0};  ///< paint: x, y, z, radius, value
  int text_bytes = 0;
};

/// Ends the job from any rank: one line naming the rank, then MPI_Abort, so that no rank
/// waits forever for one that left.
[[noreturn]] void abort_job(const char* what) {
  std::fprintf(stderr, "stencilscope: error: rank %d: %s\n", world_rank(), what);
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();  // MPI_Abort does not return
}

/// Rank 0 sends `c` (and `text`). Non-blocking like receive(): a blocking broadcast would
/// not match the others' MPI_Ibcast.
void broadcast(MPI_Comm world, Command& c, const std::string& text) {
  c.text_bytes = static_cast<int>(text.size());
  MPI_Request request;
  check_mpi(MPI_Ibcast(&c, sizeof(Command), MPI_BYTE, 0, world, &request), "MPI_Ibcast");
  check_mpi(MPI_Wait(&request, MPI_STATUS_IGNORE), "MPI_Wait");
  if (c.text_bytes > 0)
    check_mpi(MPI_Bcast(const_cast<char*>(text.data()), c.text_bytes, MPI_CHAR, 0, world), "MPI_Bcast");
}

/// The other ranks wait for the next command without taking a core (a window may be idle
/// for minutes): MPI_Ibcast polled with short sleeps, 100 us while commands come in a
/// frame's rhythm, 2 ms once none came for a tenth of a second (a paused window).
Command receive(MPI_Comm world, std::string& text) {
  Command c;
  MPI_Request request;
  check_mpi(MPI_Ibcast(&c, sizeof(Command), MPI_BYTE, 0, world, &request), "MPI_Ibcast");
  const auto since = std::chrono::steady_clock::now();
  for (int done = 0;;) {
    check_mpi(MPI_Test(&request, &done, MPI_STATUS_IGNORE), "MPI_Test");
    if (done) break;
    const bool idle = std::chrono::steady_clock::now() - since > std::chrono::milliseconds(100);
    std::this_thread::sleep_for(idle ? std::chrono::microseconds(2000) : std::chrono::microseconds(100));
  }
  text.assign(static_cast<std::size_t>(c.text_bytes), '\0');
  if (c.text_bytes > 0) check_mpi(MPI_Bcast(text.data(), c.text_bytes, MPI_CHAR, 0, world), "MPI_Bcast");
  return c;
}

// ---- the configuration as text (exact: numbers in their shortest round-trip form) ----

std::string config_text(const Model& model, const ModelConfig& c, Backend backend, std::string_view variant,
                        std::string_view transport) {
  std::string t = fmt::format("{}\n{}\n{}\n{}\n{} {} {} {}\n", model.info().name, variant,
                              backend == Backend::gpu ? "gpu" : "cpu", transport, c.size[0], c.size[1], c.size[2],
                              c.order);
  for (const auto& [name, value] : c.params) {
    if (const double* x = std::get_if<double>(&value)) t += fmt::format("{}\tn\t{}\n", name, *x);
    else t += fmt::format("{}\ts\t{}\n", name, std::get<std::string>(value));
  }
  return t;
}

struct ParsedConfig {
  const Model* model = nullptr;
  std::string variant;
  Backend backend = Backend::cpu;
  std::string transport;  ///< the word asked for (empty: the default)
  ModelConfig config;
};

ParsedConfig parse_config_text(const std::string& text) {
  std::istringstream in(text);
  ParsedConfig p;
  std::string name, line;
  std::getline(in, name);
  p.model = &find_model(name);
  std::getline(in, p.variant);
  std::getline(in, line);
  p.backend = line == "gpu" ? Backend::gpu : Backend::cpu;
  std::getline(in, p.transport);
  std::getline(in, line);
  std::istringstream sizes(line);
  sizes >> p.config.size[0] >> p.config.size[1] >> p.config.size[2] >> p.config.order;
  while (std::getline(in, line)) {
    const std::size_t a = line.find('\t'), b = line.find('\t', a + 1);
    if (a == std::string::npos || b == std::string::npos) throw Error("a malformed configuration reached this rank");
    const std::string key = line.substr(0, a), value = line.substr(b + 1);
    if (line.compare(a + 1, b - a - 1, "n") == 0) p.config.params[key] = std::strtod(value.c_str(), nullptr);
    else p.config.params[key] = value;
  }
  return p;
}

// ---- the source list as bytes (SourceSpec is trivially copyable; every rank runs the same binary) ----

static_assert(std::is_trivially_copyable_v<SourceSpec>);

std::string source_list_bytes(const std::vector<SourceSpec>& list) {
  std::string t(list.size() * sizeof(SourceSpec), '\0');
  if (!list.empty()) std::memcpy(t.data(), list.data(), t.size());
  return t;
}

std::vector<SourceSpec> source_list_of(const std::string& bytes) {
  if (bytes.size() % sizeof(SourceSpec) != 0) throw Error("a malformed source list reached this rank");
  std::vector<SourceSpec> list(bytes.size() / sizeof(SourceSpec));
  if (!list.empty()) std::memcpy(list.data(), bytes.data(), bytes.size());
  return list;
}

static_assert(std::is_trivially_copyable_v<ReceiverLayout>);

std::string receiver_layout_bytes(const ReceiverLayout& layout) {
  return std::string(reinterpret_cast<const char*>(&layout), sizeof layout);
}

ReceiverLayout receiver_layout_of(const std::string& bytes) {
  if (bytes.size() != sizeof(ReceiverLayout)) throw Error("a malformed receiver layout reached this rank");
  ReceiverLayout layout;
  std::memcpy(&layout, bytes.data(), sizeof layout);
  return layout;
}

// ---- one rank's box and what the commands do to it -----------------------------

struct Plan {
  DistributedSpec spec;
  Decomposition decomposition;
};

Plan plan_run(const Model& model, const ModelConfig& config, Backend backend, std::string_view variant, int ranks,
              const std::optional<std::array<int, 3>>& dims = std::nullopt) {
  const ModelInfo& info = model.info();
  if (info.dims != 3)
    throw Error(fmt::format("{} is a 2D model: a run on {} MPI ranks splits 3D grids (leave out mpirun for it)",
                            info.name, ranks));
  Plan p;
  p.spec = model.distributed(config);
  if (!p.spec.supported) throw Error(p.spec.why_not);
  if (backend == Backend::gpu) {
    if (p.spec.gpu_variant.empty())
      throw Error(fmt::format("{}'s boxes run on the CPU only with these settings (no GPU boxes yet): --device cpu",
                              info.name));
    const VariantSpec* v = info.variant(variant);
    if (!v || !v->gpu)
      throw Error(fmt::format("a run of {} on {} MPI ranks on the GPU steps a GPU variant ({} by default), not {}",
                              info.name, ranks, p.spec.gpu_variant, variant));
  } else if (variant != info.fastest_cpu) {
    throw Error(fmt::format("a run of {} on {} MPI ranks steps its {} variant on the CPU, not {}", info.name, ranks,
                            info.fastest_cpu, variant));
  }
  p.decomposition = make_decomposition(config.size, ranks, dims, p.spec.ghost_width);
  return p;
}

/// A box's halo exchange: MPI on host buffers for a CPU box, a DeviceHaloExchange on the
/// box's stream for a GPU box.
struct BoxHalo {
  std::unique_ptr<HaloExchange> host;
  std::unique_ptr<DeviceHaloExchange> device;

  explicit operator bool() const { return host || device; }
  HaloFill& fill() { return host ? static_cast<HaloFill&>(*host) : *device; }
  double seconds() const { return host ? host->seconds() : device->seconds(); }
  void reset_timer() { host ? host->reset_timer() : device->reset_timer(); }
  void reset() {
    host.reset();
    device.reset();
  }
};

/// What one rank holds of a distributed run.
struct BoxRun {
  const Model* model = nullptr;
  ModelConfig config;
  std::string variant;
  Backend backend = Backend::cpu;
  DeviceTransport transport = DeviceTransport::staged;  ///< GPU halos (backend gpu)
  Plan plan;
  std::optional<CartComm> cart;
  BoxPlacement where;
  std::unique_ptr<BoxSimulation> box;
  BoxHalo halo;  // uses cart and, on the GPU, the box's stream: dropped first

  void drop() {
    halo.reset();
    box.reset();
    cart.reset();
  }
  const Decomposition& d() const { return plan.decomposition; }
  bool gpu() const { return backend == Backend::gpu; }
};

/// A new exchange for the box `run` holds (collective: NCCL makes its communicator here).
/// A GPU box's is made on the box's stream; should that be refused, the box goes too, so
/// that no command reaches a box without an exchange.
void make_halo(BoxRun& run) {
  const DistributedSpec& s = run.plan.spec;
  run.halo.reset();
  if (!run.gpu()) {
    run.halo.host = std::make_unique<HaloExchange>(*run.cart, run.where, run.box->grid(), s.ghost_width, s.edges, s.fields);
    return;
  }
  try {
    agree(run.cart->get(), [&] {
      if (!run.box->device_stream())
        throw Error(fmt::format("{}'s box for {} is not on the GPU", run.model->info().name, run.variant));
      run.halo.device = std::make_unique<DeviceHaloExchange>(*run.cart, run.where, run.box->grid(), s.ghost_width,
                                                             s.edges, s.fields, run.box->device_stream(),
                                                             run.transport);
    });
  } catch (const CollectiveError&) {
    run.halo.reset();
    run.box.reset();
    throw;
  }
}

/// What rank 0 gets back from a command.
struct Replies {
  std::array<std::vector<float>, 3> slices;
  std::vector<double> times;  ///< step: per rank, ms per step and exchange ms per step
  StepAccounting accounting;  ///< build: summed over the boxes
  SimState state;             ///< copy_state
  std::vector<Diagnostic> diagnostics;
  Seismogram traces;          ///< traces: the rows from the one asked for, every receiver
};

/// The cells of `b` cut from a whole-grid field (x fastest).
std::vector<float> cut_box(const std::vector<float>& global, const std::array<int, 3>& n, const Box& b) {
  std::vector<float> out(static_cast<std::size_t>(b.cells()));
  for (int k = 0; k < b.n[2]; ++k)
    for (int j = 0; j < b.n[1]; ++j) {
      const std::size_t from = (static_cast<std::size_t>(b.lo[2] + k) * n[1] + (b.lo[1] + j)) * n[0] + b.lo[0];
      std::copy_n(global.begin() + static_cast<std::ptrdiff_t>(from), b.n[0],
                  out.begin() + static_cast<std::ptrdiff_t>((static_cast<std::size_t>(k) * b.n[1] + j) * b.n[0]));
    }
  return out;
}

/// Runs command `c` on this rank's box (every rank, rank 0 included, in the same order).
/// Rank 0 passes `out` for what comes back and, for load_state, `in`.
void execute(const Command& c, const std::string& text, BoxRun& run, MPI_Comm world, Replies* out,
             const SimState* in) {
  int ranks = 1;
  MPI_Comm_size(world, &ranks);
  if (c.op == Op::drop) {
    run.drop();
    return;
  }
  if (c.op == Op::build) {
    run.drop();
    std::string transport;
    agree(world, [&] {
      ParsedConfig p = parse_config_text(text);
      run.model = p.model;
      run.config = std::move(p.config);
      run.variant = std::move(p.variant);
      run.backend = p.backend;
      transport = std::move(p.transport);
      run.plan = plan_run(*run.model, run.config, run.backend, run.variant, ranks);
    });
    // Each rank its own GPU (local rank modulo the node's GPUs), as the distributed bench.
    if (run.gpu()) agree(world, [&] { run.transport = select_rank_gpu(world, transport); });
    run.cart.emplace(world, run.d(), run.plan.spec.periodic);
    run.where = place_box(run.d(), run.cart->rank(), run.plan.spec.periodic);
    try {
      agree(run.cart->get(), [&] { run.box = run.model->create_box(run.config, run.where, run.variant); });
      make_halo(run);
    } catch (const CollectiveError&) {
      run.drop();
      throw;
    }
    run.box->refresh_ghosts(run.halo.fill());
    run.box->synchronize();
    const StepAccounting a = run.box->accounting();
    double sums[2] = {a.bytes, a.cell_updates};
    check_mpi(MPI_Reduce(run.cart->rank() == 0 ? MPI_IN_PLACE : sums, sums, 2, MPI_DOUBLE, MPI_SUM, 0, run.cart->get()),
              "MPI_Reduce");
    if (out) out->accounting = {sums[0], sums[1]};
    return;
  }
  if (!run.box) throw CollectiveError("the distributed run has no field (its last rebuild was refused)");
  MPI_Comm cart = run.cart->get();
  const bool root = run.cart->rank() == 0;
  switch (c.op) {
    case Op::step: {
      run.halo.reset_timer();
      const double t0 = MPI_Wtime();
      run.box->step(c.arg, run.halo.fill());
      run.box->synchronize();  // a GPU box's steps are queued: the batch's time is its end
      const double mine[2] = {(MPI_Wtime() - t0) * 1e3 / c.arg, run.halo.seconds() * 1e3 / c.arg};
      std::vector<double> all(root ? 2 * static_cast<std::size_t>(ranks) : 0);
      check_mpi(MPI_Gather(mine, 2, MPI_DOUBLE, all.data(), 2, MPI_DOUBLE, 0, cart), "MPI_Gather");
      if (out) out->times = std::move(all);
      return;
    }
    case Op::views: {
      std::vector<float> interior;
      agree(cart, [&] { interior = run.box->quantity_interior(text); });
      for (int v = 0; v < 3; ++v)
        if (c.arg & (1 << v)) {
          // View v shows the slice across axis 2 - v (XY cuts z, XZ cuts y, YZ cuts x).
          std::vector<float> s = gather_slice(*run.cart, run.d(), 2 - v, c.slices[v], interior);
          if (out) out->slices[static_cast<std::size_t>(v)] = std::move(s);
        }
      return;
    }
    case Op::paint: {
      const Sphere s{c.sphere[0], c.sphere[1], c.sphere[2], c.sphere[3], c.sphere[4]};
      agree(cart, [&] { run.box->paint(s); });
      run.box->refresh_ghosts(run.halo.fill());  // as the one-rank paint refreshes its ghosts
      return;
    }
    case Op::reset: {
      // A fresh field; the sources and the receivers stay, as the one-rank reset keeps them.
      const std::vector<SourceSpec> sources = run.box->sources();
      const std::optional<ReceiverLayout> receivers = run.box->receivers();
      if (run.gpu()) run.halo.reset();  // made on the old box's stream
      run.box.reset();
      agree(cart, [&] {
        run.box = run.model->create_box(run.config, run.where, run.variant);
        run.box->set_sources(sources);
        if (receivers) run.box->set_receivers(*receivers);
      });
      if (!run.halo) make_halo(run);
      run.box->refresh_ghosts(run.halo.fill());
      return;
    }
    case Op::set_order: {
      // The same boxes (the split does not depend on the radius; only its check does), a new
      // box of the new order holding the old one's field and step count.
      ModelConfig next = run.config;
      next.order = c.arg;
      Plan plan;
      std::unique_ptr<BoxSimulation> box;
      agree(cart, [&] {
        plan = plan_run(*run.model, next, run.backend, run.variant, ranks, run.d().dims);
        if (plan.spec.periodic != run.plan.spec.periodic) throw Error("the order changed which axes wrap");
        box = run.model->create_box(next, run.where, run.variant);
        box->set_sources(run.box->sources());  // the one-rank set_order keeps them, and the receivers
        if (const std::optional<ReceiverLayout> receivers = run.box->receivers()) box->set_receivers(*receivers);
        box->load_interiors(run.box->interiors(), run.box->steps_done());
        box->carry_over(*run.box);
      });
      run.halo.reset();  // of the old width (and, on the GPU, on the old box's stream)
      run.box = std::move(box);
      run.config = std::move(next);
      run.plan = plan;
      make_halo(run);
      run.box->refresh_ghosts(run.halo.fill());
      return;
    }
    case Op::set_sources: {
      // The whole list on every box (each injects the sources whose nodes it holds); the
      // model's checks refuse a bad list on every rank alike, keeping the old one.
      const std::vector<SourceSpec> list = source_list_of(text);
      agree(cart, [&] { run.box->set_sources(list); });
      return;
    }
    case Op::set_receivers: {
      // The layout on every box (each records the receivers whose nodes it holds); refused
      // on every rank alike, keeping the old ones.
      const ReceiverLayout layout = receiver_layout_of(text);
      agree(cart, [&] { run.box->set_receivers(layout); });
      return;
    }
    case Op::traces: {
      // Only the rows rank 0 does not have yet travel; each box sends its receivers' values.
      BoxTraces mine;
      agree(cart, [&] { mine = run.box->traces(c.arg); });
      Seismogram s = gather_traces(*run.cart, mine, c.arg);
      if (out) out->traces = std::move(s);
      return;
    }
    case Op::copy_state: {
      std::vector<std::vector<float>> fields = gather_interiors(*run.cart, run.d(), run.box->interiors());
      if (out) out->state = SimState{run.box->steps_done(), std::move(fields)};
      return;
    }
    case Op::load_state: {
      // Rank 0 cuts every rank's box out of the whole field and sends it; nothing else moves.
      std::vector<std::vector<float>> mine(static_cast<std::size_t>(c.arg));
      const Decomposition& d = run.d();
      for (int f = 0; f < c.arg; ++f) {
        std::vector<float>& dst = mine[static_cast<std::size_t>(f)];
        if (root) {
          const std::vector<float>& global = in->fields[static_cast<std::size_t>(f)];
          for (int r = 1; r < ranks; ++r) {
            const std::vector<float> part = cut_box(global, d.global, d.box_of(r));
            check_mpi(MPI_Send(part.data(), static_cast<int>(part.size()), MPI_FLOAT, r, 100 + f, cart), "MPI_Send");
          }
          dst = cut_box(global, d.global, d.box_of(0));
        } else {
          dst.resize(static_cast<std::size_t>(run.where.box.cells()));
          check_mpi(MPI_Recv(dst.data(), static_cast<int>(dst.size()), MPI_FLOAT, 0, 100 + f, cart, MPI_STATUS_IGNORE),
                    "MPI_Recv");
        }
      }
      agree(cart, [&] { run.box->load_interiors(mine, static_cast<long>(c.steps)); });
      run.box->refresh_ghosts(run.halo.fill());
      return;
    }
    case Op::diagnostics: {
      // Simulation::diagnostics' min, max and mean of each field, reduced over the boxes.
      const std::vector<std::vector<float>> fields = run.box->interiors();
      const double global_cells = static_cast<double>(run.d().global[0]) * run.d().global[1] * run.d().global[2];
      for (std::size_t f = 0; f < fields.size(); ++f) {
        double lo = std::numeric_limits<double>::infinity(), hi = -lo, sum = 0;
        for (float x : fields[f]) {
          lo = std::min<double>(lo, x);
          hi = std::max<double>(hi, x);
          sum += x;
        }
        check_mpi(MPI_Reduce(root ? MPI_IN_PLACE : &lo, &lo, 1, MPI_DOUBLE, MPI_MIN, 0, cart), "MPI_Reduce");
        check_mpi(MPI_Reduce(root ? MPI_IN_PLACE : &hi, &hi, 1, MPI_DOUBLE, MPI_MAX, 0, cart), "MPI_Reduce");
        check_mpi(MPI_Reduce(root ? MPI_IN_PLACE : &sum, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, cart), "MPI_Reduce");
        if (!out) continue;
        const std::string prefix = fields.size() > 1 ? fmt::format("field {} ", f) : std::string();
        const std::string& unit = run.model->info().views.value_unit;
        out->diagnostics.push_back({prefix + "min", unit, lo});
        out->diagnostics.push_back({prefix + "max", unit, hi});
        out->diagnostics.push_back({prefix + "mean", unit, sum / global_cells});
      }
      return;
    }
    default:
      throw Error(fmt::format("unknown command {} reached rank {}", static_cast<int>(c.op), world_rank()));
  }
}

// ---- rank 0's Simulation ------------------------------------------------------

class DistributedSimulation final : public Simulation {
 public:
  DistributedSimulation(DistributedService& service, const Model& model, const ModelConfig& config, Backend backend,
                        std::string_view variant, std::string_view transport)
      : world_(service.comm()), ranks_(service.ranks()), model_(model), config_(config), backend_(backend),
        variant_(variant) {
    Command c;
    c.op = Op::build;
    send(c, config_text(model, config, backend, variant, transport));
    accounting_ = replies_.accounting;
  }
  ~DistributedSimulation() override {
    Command c;
    c.op = Op::drop;
    send(c);  // a failure here ends the job (abort_job): nothing to throw from a destructor
  }
  DistributedSimulation(const DistributedSimulation&) = delete;
  DistributedSimulation& operator=(const DistributedSimulation&) = delete;

  const ModelInfo& info() const override { return model_.info(); }
  const ModelConfig& config() const override { return config_; }
  std::string backend_name() const override {
    if (backend_ == Backend::gpu)
      return fmt::format("GPU: {}, {} MPI ranks (a GPU each, halos {})", cuda_device_name(), ranks_,
                         to_string(run_.transport));
    return fmt::format("CPU, {} MPI ranks", ranks_);
  }
  /// False on GPU boxes too: the views rank 0 shows are gathered to host memory and a batch
  /// has ended when start_steps returns (the variant says where the boxes step).
  bool on_gpu() const override { return false; }
  std::size_t points() const override {
    return static_cast<std::size_t>(config_.size[0]) * config_.size[1] * config_.size[2];
  }
  double dt() const override { return run_.box ? run_.box->dt() : 0; }
  double time() const override { return run_.box ? run_.box->time() : 0; }
  double dt_limit() const override { return run_.box ? run_.box->dt_limit() : 0; }
  long steps_done() const override { return run_.box ? run_.box->steps_done() : 0; }
  StepAccounting accounting() const override { return accounting_; }
  std::string status_line() const override {
    const auto& n = config_.size;
    return fmt::format("{}, {} x {} x {} on {} ranks ({}), step {}, t = {:.6g}", info().title, n[0], n[1], n[2], ranks_,
                       run_.d().text(), steps_done(), time());
  }
  std::string decomposition_text() const override { return fmt::format("{} ranks, {}", ranks_, run_.d().text()); }
  std::vector<RankTiming> rank_timings() const override { return timings_; }

  void reset() override {
    Command c;
    c.op = Op::reset;
    forget_traces();
    changed(c);
  }
  void set_order(int order) override {
    refuse_unless_boxes_paint("an order change (it loads the field into boxes of the new order)");
    Command c;
    c.op = Op::set_order;
    c.arg = order;
    forget_traces();  // kept by the boxes, as on one rank; gathered again
    changed(c);
    config_.order = order;
  }
  void set_variant(std::string_view v) override {
    check_live_variant(info(), v);
    if (v != variant_)
      throw Error(fmt::format("a run on {} MPI ranks steps the {} variant only (the boxes run on the {})", ranks_,
                              variant_, backend_ == Backend::gpu ? "GPUs" : "CPU"));
  }
  const std::string& variant() const override { return variant_; }
  void start_steps(int n) override {
    if (n <= 0) return;
    const auto t0 = std::chrono::steady_clock::now();
    Command c;
    c.op = Op::step;
    c.arg = n;
    changed(c);
    last_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    timings_.clear();
    for (int r = 0; r < ranks_; ++r)
      timings_.push_back({r, run_.d().box_of(r), replies_.times[2 * static_cast<std::size_t>(r)],
                          replies_.times[2 * static_cast<std::size_t>(r) + 1]});
  }
  std::optional<double> finished_batch_ms() override { return last_ms_; }
  bool idle() const override { return true; }
  void wait() override {}
  void paint(int view, double u, double v, double radius, double value, const ViewPlacement& where) override {
    if (!info().paint_note.empty()) return;
    refuse_unless_boxes_paint("painting");
    const Sphere s = sphere_on_slice(view, u, v, radius, value, where);
    Command c;
    c.op = Op::paint;
    c.sphere[0] = s.x, c.sphere[1] = s.y, c.sphere[2] = s.z, c.sphere[3] = s.radius, c.sphere[4] = s.value;
    changed(c);
  }
  FieldView view(int view, const ViewPlacement& where) override {
    const std::size_t v = static_cast<std::size_t>(slice_axis_of_view(view));
    const std::string quantity = where.quantity.empty() ? info().views.quantities.front() : where.quantity;
    const auto& known = info().views.quantities;
    if (std::find(known.begin(), known.end(), quantity) == known.end())
      throw Error(fmt::format("{} has no view quantity '{}'", info().name, quantity));
    // The views are fetched together (one command) whenever the field or their place changed.
    Command c;
    c.op = Op::views;
    for (std::size_t k = 0; k < 3; ++k) {
      c.slices[k] = where.slices[k];
      const Cached& have = cached_[k];
      if (!have.valid || have.generation != generation_ || have.position != where.slices[k] ||
          have.quantity != quantity)
        c.arg |= 1 << k;
    }
    if (c.arg & (1 << v)) {
      send(c, quantity);
      for (std::size_t k = 0; k < 3; ++k)
        if (c.arg & (1 << k)) {
          cached_[k] = {true, generation_, where.slices[k], quantity};
          slices_[k] = std::move(replies_.slices[k]);
        }
    }
    const auto [nu, nv] = view_size(view);
    FieldView f;
    f.data = slices_[v].data();
    f.u_stride = 1;
    f.v_stride = static_cast<std::size_t>(nu);
    f.nu = nu;
    f.nv = nv;
    return f;
  }
  void copy_view(int v, const ViewPlacement& where, float* dst) override { copy_host_view(view(v, where), dst); }
  SimState copy_state() override {
    Command c;
    c.op = Op::copy_state;
    send(c);
    return std::move(replies_.state);
  }
  void load_state(const SimState& state) override {
    refuse_unless_boxes_paint("a loaded state");
    const std::size_t fields = run_.box ? run_.box->interiors().size() : 0;  // the shape of a state
    if (state.fields.size() != fields)
      throw Error(fmt::format("a {} state of {} fields does not fit this run ({} fields)", info().name,
                              state.fields.size(), fields));
    for (const std::vector<float>& f : state.fields)
      if (f.size() != points())
        throw Error(fmt::format("a {} state of {} cells per field does not fit this grid ({} cells)", info().name,
                                f.size(), points()));
    Command c;
    c.op = Op::load_state;
    c.arg = static_cast<int>(state.fields.size());
    c.steps = state.steps_done;
    forget_traces();
    changed(c, &state);
  }
  std::vector<SourceSpec> sources() const override { return run_.box ? run_.box->sources() : std::vector<SourceSpec>{}; }
  void add_source(const SourceSpec& source) override { set_sources(with_source(sources(), source)); }
  void remove_source(int index) override { set_sources(without_source(sources(), index)); }
  std::optional<ReceiverLayout> receivers() const override {
    return run_.box ? run_.box->receivers() : std::nullopt;
  }
  void set_receivers(const ReceiverLayout& layout) override {
    if (!receivers()) return Simulation::set_receivers(layout);  // "has no receivers"
    Command c;
    c.op = Op::set_receivers;
    forget_traces();
    send(c, receiver_layout_bytes(layout));
  }
  /// Each box records the receivers it holds at every step, with no collective; this gathers
  /// the rows rank 0 does not have yet (one command) and appends them to the ones it keeps.
  Seismogram seismogram() override {
    if (!receivers()) return {};
    Command c;
    c.op = Op::traces;
    c.arg = traces_.rows();
    send(c);
    Seismogram& got = replies_.traces;
    if (c.arg != 0 && (got.first_step != traces_.first_step || got.nodes != traces_.nodes))
      throw Error("the boxes' traces started again without rank 0 knowing");  // every such command forgets them
    const std::vector<float> rows = std::move(got.values);
    got.values = std::move(traces_.values);
    got.values.insert(got.values.end(), rows.begin(), rows.end());
    traces_ = std::move(got);
    return traces_;
  }
  std::vector<Diagnostic> diagnostics() override {
    Command c;
    c.op = Op::diagnostics;
    replies_.diagnostics.clear();
    send(c);
    return std::move(replies_.diagnostics);
  }

 private:
  struct Cached {
    bool valid = false;
    long generation = 0;
    int position = 0;
    std::string quantity;
  };

  /// Broadcasts `c` and runs it on rank 0's box. An agreed refusal propagates (the run
  /// stays usable); any other failure ends the job, since the other ranks may be inside a
  /// collective rank 0 left.
  void send(Command& c, const std::string& text = {}, const SimState* in = nullptr) {
    try {
      broadcast(world_, c, text);
      execute(c, text, run_, world_, &replies_, in);
    } catch (const CollectiveError&) {
      throw;
    } catch (const std::exception& e) {
      abort_job(e.what());
    }
  }
  void set_sources(const std::vector<SourceSpec>& list) {
    if (info().source_kinds.empty()) return Simulation::add_source({});  // "has no point sources"
    Command c;
    c.op = Op::set_sources;
    send(c, source_list_bytes(list));
  }
  /// The traces rank 0 keeps start again (the boxes' did, or may have).
  void forget_traces() { traces_ = Seismogram{}; }
  /// Refuses `what` on rank 0, before any command, where the model's GPU boxes cannot take
  /// a field from outside (DistributedSpec::gpu_boxes_paint).
  void refuse_unless_boxes_paint(const char* what) const {
    if (backend_ == Backend::gpu && run_.box && !run_.plan.spec.gpu_boxes_paint)
      throw Error(fmt::format("{}'s GPU boxes cannot be painted or loaded yet: {} is refused on {} MPI ranks "
                              "(--device cpu allows it)",
                              info().name, what, ranks_));
  }
  /// A command that changes the field: the views fetched before are stale.
  void changed(Command& c, const SimState* in = nullptr) {
    ++generation_;
    send(c, {}, in);
  }

  MPI_Comm world_;
  int ranks_;
  const Model& model_;
  ModelConfig config_;
  Backend backend_;
  std::string variant_;
  BoxRun run_;
  Replies replies_;
  StepAccounting accounting_;
  std::optional<double> last_ms_;
  std::vector<RankTiming> timings_;
  long generation_ = 0;
  std::array<Cached, 3> cached_;
  std::array<std::vector<float>, 3> slices_;
  Seismogram traces_;  ///< the rows gathered so far
};

}  // namespace

DistributedService::DistributedService() {
  check_mpi(MPI_Comm_dup(MPI_COMM_WORLD, &comm_), "MPI_Comm_dup");
  MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  MPI_Comm_size(comm_, &ranks_);
}

DistributedService::~DistributedService() {
  finish(1);
  if (comm_ != MPI_COMM_NULL && MPI_Comm_free(&comm_) != MPI_SUCCESS)
    std::fprintf(stderr, "stencilscope: MPI_Comm_free failed\n");
}

void DistributedService::finish(int status) {
  if (finished_) return;
  finished_ = true;
  Command c;
  c.op = Op::quit;
  c.arg = status;
  try {
    broadcast(comm_, c, {});
  } catch (const std::exception& e) {
    abort_job(e.what());
  }
}

void check_distributed_simulation(const Model& model, const ModelConfig& config, Backend backend,
                                  std::string_view variant, int ranks, std::string_view transport) {
  const bool gpu = backend == Backend::gpu;
  if (!transport.empty()) {
    if (!gpu) throw Error("--transport is for GPU halos (--device gpu)");
    if (parse_device_transport(transport) == DeviceTransport::nccl && !nccl_built())
      throw Error("this build has no NCCL: GPU halos go through MPI on pinned host buffers (--transport staged)");
  }
  const Plan plan = plan_run(model, config, backend, variant, ranks);
  if (!plan.spec.boxes_show)
    throw Error(fmt::format("{} runs on {} MPI ranks in bench, but its boxes do not give views yet: the window and "
                            "record show heat3d, acoustic3d and elastic3d over ranks (leave out mpirun for {})",
                            model.info().name, ranks, model.info().name));
  if (!gpu) return;
  if (!plan.spec.gpu_boxes_show)
    throw Error(fmt::format("{}'s GPU boxes do not give views yet: the window and record run its boxes on the CPU "
                            "under mpirun (--device cpu)",
                            model.info().name));
  std::string why;
  if (!cuda_available(&why)) throw Error("--device gpu: " + why);
}

std::string distributed_variant(const Model& model, const ModelConfig& config, Backend backend) {
  const ModelInfo& info = model.info();
  if (backend != Backend::gpu) return info.fastest_cpu;
  const std::string boxes = model.distributed(config).gpu_variant;
  return boxes.empty() ? info.fastest_gpu : boxes;
}

std::unique_ptr<Simulation> create_distributed_simulation(DistributedService& service, const Model& model,
                                                          const ModelConfig& config, Backend backend,
                                                          std::string_view variant, std::string_view transport) {
  return std::make_unique<DistributedSimulation>(service, model, config, backend, variant, transport);
}

int serve_distributed_simulation() {
  MPI_Comm world = MPI_COMM_NULL;
  check_mpi(MPI_Comm_dup(MPI_COMM_WORLD, &world), "MPI_Comm_dup");
  MPI_Comm_set_errhandler(world, MPI_ERRORS_RETURN);
  BoxRun run;
  std::string text;
  for (;;) {
    const Command c = receive(world, text);
    if (c.op == Op::quit) {
      run.drop();
      MPI_Comm_free(&world);
      return c.arg;
    }
    try {
      execute(c, text, run, world, nullptr, nullptr);
    } catch (const CollectiveError&) {
      // Agreed: rank 0 shows it and decides what comes next.
    }
  }
}

}  // namespace ss::dist
