#include "sim/dist/distributed_bench.hpp"

#include <algorithm>
#include <cstring>
#include <memory>

#include <fmt/format.h>

#include "sim/core/build_info.hpp"
#include "sim/dist/gather.hpp"
#include "sim/core/device.hpp"
#include "sim/dist/halo_exchange.hpp"
#include "sim/dist/halo_exchange_device.hpp"
#include "sim/dist/rank_gpu.hpp"

namespace ss::dist {

Scaling parse_scaling(std::string_view word) {
  if (word == "strong") return Scaling::strong;
  if (word == "weak") return Scaling::weak;
  throw Error(fmt::format("unknown --scaling '{}' (choose strong or weak)", word));
}

namespace {

std::string size_text(const std::array<int, 3>& n) { return fmt::format("{}x{}x{}", n[0], n[1], n[2]); }

double median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

/// What the checks settle: the decomposition, the global configuration, the spec.
struct Plan {
  Decomposition decomposition;
  ModelConfig global;     ///< the whole grid the N ranks step
  ModelConfig one_rank;   ///< what rank 0 steps alone (the global grid, or one box for weak scaling)
  DistributedSpec spec;
};

Plan make_plan(const Model& model, const DistributedBenchRequest& r, int ranks) {
  const ModelInfo& info = model.info();
  if (info.dims != 3) throw Error(fmt::format("{} is a 2D model: distributed runs split 3D grids", info.name));
  if (r.bench.precision != Precision::f32) throw Error("distributed runs step in float (--precision float)");
  Plan p;
  const BenchRequest& b = r.bench;
  p.one_rank = make_config(model, b.config.size, b.config.order, b.given);
  p.spec = model.distributed(p.one_rank);
  if (!p.spec.supported) throw Error(p.spec.why_not);
  std::array<int, 3> global = b.config.size;
  std::optional<std::array<int, 3>> dims = r.decomp;
  if (r.scaling == Scaling::weak) {
    if (!dims) dims = choose_dims(ranks, b.config.size);
    for (int a = 0; a < 3; ++a) global[a] = b.config.size[static_cast<std::size_t>(a)] * (*dims)[static_cast<std::size_t>(a)];
  }
  p.decomposition = make_decomposition(global, ranks, dims, p.spec.ghost_width);
  p.global = r.scaling == Scaling::weak ? make_config(model, global, b.config.order, b.given) : p.one_rank;
  p.spec = model.distributed(p.global);
  if (r.backend == Backend::gpu) {
    if (p.spec.gpu_variant.empty())
      throw Error(fmt::format("{}'s boxes run on the CPU only (no GPU boxes yet): leave out --device gpu", info.name));
    if (!r.transport.empty()) parse_device_transport(r.transport);
    if (r.transport == "nccl" && !nccl_built())
      throw Error("this build has no NCCL: GPU halos go through MPI on pinned host buffers (--transport staged)");
  }
  return p;
}

/// No exchange: a box stepped with it shows what its steps cost without the halo.
class NoHalo final : public HaloFill {
 public:
  void fill(std::span<float* const>) override {}
};

/// A halo exchange and its timer, on the host or on the box's GPU.
struct TimedHalo {
  std::unique_ptr<HaloExchange> host;
  std::unique_ptr<DeviceHaloExchange> device;
  HaloFill& fill() { return host ? static_cast<HaloFill&>(*host) : *device; }
  double seconds() const { return host ? host->seconds() : device->seconds(); }
  void reset_timer() { host ? host->reset_timer() : device->reset_timer(); }
};

}  // namespace

void check_distributed_request(const Model& model, const DistributedBenchRequest& request, int ranks) {
  make_plan(model, request, ranks);
}

BenchReport run_distributed_bench(const Model& model, const DistributedBenchRequest& r) {
  const ModelInfo& info = model.info();
  MPI_Comm world = MPI_COMM_WORLD;
  const int ranks = world_size(), me = world_rank();
  const bool root = me == 0;
  const int steps = r.bench.steps, repeats = r.bench.repeats;
  Plan plan;
  agree(world, [&] { plan = make_plan(model, r, ranks); });
  const Decomposition& d = plan.decomposition;

  const bool gpu = r.backend == Backend::gpu;
  const std::string variant = gpu ? plan.spec.gpu_variant : info.fastest_cpu;
  DeviceTransport transport = DeviceTransport::staged;
  if (gpu) agree(world, [&] { transport = select_rank_gpu(world, r.transport); });

  // The one-rank run: rank 0 alone, the others wait without taking its cores.
  std::unique_ptr<Simulation> single;
  agree(world, [&] {
    if (root) single = model.create(plan.one_rank, r.backend, variant);
  });
  std::vector<double> single_ms;
  std::vector<std::vector<float>> single_fields;
  if (root) {
    if (r.bench.progress) r.bench.progress("one rank: " + size_text(plan.one_rank.size));
    for (int rep = 0; rep < repeats; ++rep) {
      const double t0 = MPI_Wtime();
      single->start_steps(steps);
      single->wait();
      single_ms.push_back((MPI_Wtime() - t0) * 1e3);
      if (rep == 0) single_fields = single->copy_state().fields;
    }
    single.reset();
  }
  idle_barrier(world);

  // The N-rank run.
  CartComm cart(world, d, plan.spec.periodic);
  const BoxPlacement where = place_box(d, cart.rank(), plan.spec.periodic);
  std::unique_ptr<BoxSimulation> box;
  TimedHalo halo;
  agree(cart.get(), [&] {
    box = model.create_box(plan.global, where, variant);
    if (gpu && !box->device_stream()) throw Error(info.name + "'s box for " + variant + " is not on the GPU");
  });
  if (gpu) {
    agree(cart.get(), [&] {  // collective: NCCL makes its communicator here
      halo.device = std::make_unique<DeviceHaloExchange>(cart, where, box->grid(), plan.spec.ghost_width,
                                                         plan.spec.edges, plan.spec.fields, box->device_stream(),
                                                         transport);
    });
  } else {
    halo.host = std::make_unique<HaloExchange>(cart, where, box->grid(), plan.spec.ghost_width, plan.spec.edges,
                                               plan.spec.fields);
  }
  box->refresh_ghosts(halo.fill());
  box->synchronize();
  std::vector<double> dist_ms, halo_ms_max, halo_ms_mean;
  std::vector<std::vector<float>> gathered;
  for (int rep = 0; rep < repeats; ++rep) {
    check_mpi(MPI_Barrier(cart.get()), "MPI_Barrier");
    halo.reset_timer();
    const double t0 = MPI_Wtime();
    box->step(steps, halo.fill());
    box->synchronize();
    double times[2] = {(MPI_Wtime() - t0) * 1e3, halo.seconds() * 1e3 / steps};  // slowest rank's step time
    double halo_sum = times[1];
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, times, 2, MPI_DOUBLE, MPI_MAX, cart.get()), "MPI_Allreduce");
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, &halo_sum, 1, MPI_DOUBLE, MPI_SUM, cart.get()), "MPI_Allreduce");
    dist_ms.push_back(times[0]);
    halo_ms_max.push_back(times[1]);
    halo_ms_mean.push_back(halo_sum / ranks);
    if (rep == 0) gathered = gather_interiors(cart, d, box->interiors());
  }
  // The same steps of the same boxes with no exchange at all (the ghosts keep what they
  // hold): what a step costs without the halo, so that the table can say how much of the
  // exchange the box hid behind its compute. Last, since it leaves the ghosts stale.
  std::vector<double> alone_ms;
  if (gpu) {  // the CPU boxes do not overlap their exchange
    NoHalo none;
    for (int rep = 0; rep < repeats; ++rep) {
      check_mpi(MPI_Barrier(cart.get()), "MPI_Barrier");
      const double t0 = MPI_Wtime();
      box->step(steps, none);
      box->synchronize();
      double ms = (MPI_Wtime() - t0) * 1e3;
      check_mpi(MPI_Allreduce(MPI_IN_PLACE, &ms, 1, MPI_DOUBLE, MPI_MAX, cart.get()), "MPI_Allreduce");
      alone_ms.push_back(ms);
    }
  }
  if (!root) return {};

  BenchReport report;
  report.model = info.name;
  const char* gpu_path = transport == DeviceTransport::nccl   ? "through NCCL"
                         : transport == DeviceTransport::peer ? "by the copy engines through CUDA IPC (peer)"
                                                              : "through MPI on pinned host buffers (staged)";
  const std::string halo_path = gpu ? fmt::format("GPU halos {}", gpu_path) : std::string("halos through MPI on host buffers");
  report.device = gpu ? fmt::format("{}, {} MPI ranks, {} GPU{} on rank 0's node", cuda_device_name(), ranks,
                                    cuda_device_count(), cuda_device_count() == 1 ? "" : "s")
                      : fmt::format("CPU, {} MPI ranks", ranks);
  report.commit = build_info().commit;
  const bool strong = r.scaling == Scaling::strong;
  report.title = fmt::format("{} over {} MPI ranks ({} backend, {} variant, {}): {} scaling, order {}, "
                             "float, {} steps, median of {} runs",
                             info.title, ranks, gpu ? "GPU" : "CPU", variant, halo_path, strong ? "strong" : "weak",
                             plan.global.order, steps, repeats);
  report.note = "one rank: the model's " + variant + " variant on rank 0 alone" + (gpu ? " (its GPU)" : "") +
                ", the others waiting; N ranks: each steps its box" + (gpu ? " on its GPU" : "") +
                ", time of the slowest rank";
  report.config = {{"model", info.name},
                   {"ranks", static_cast<long long>(ranks)},
                   {"decomposition", d.text()},
                   {"global", size_text(d.global)},
                   {"scaling", std::string(strong ? "strong" : "weak")},
                   {"order", static_cast<long long>(plan.global.order)},
                   {"steps", static_cast<long long>(steps)},
                   {"repeats", static_cast<long long>(repeats)},
                   {"backend", std::string(gpu ? "gpu" : "cpu")},
                   {"variant", variant},
                   {"transport", std::string(gpu ? to_string(transport) : "mpi-host")}};
  report.columns = {{"run", "run", 9, "{}", true},
                    {"ranks", "ranks", 5, "{}"},
                    {"decomp", "decomp", 7, "{}", true},
                    {"global", "global", 12, "{}", true},
                    {"box", "largest box", 12, "{}", true},
                    {"time_ms", "time (ms)", 10, "{:.3f}"},
                    {"gcells", "GCells/s", 9, "{:.4f}"},
                    {"gcells_per_rank", "per rank", 9, "{:.4f}"},
                    {"halo_ms", "halo ms/step", 12, "{:.4f}"},
                    {"halo_mean_ms", "mean", 8, "{:.4f}"},
                    {"halo_share", "halo %", 7, "{:.1f}"},
                    {"alone_ms", "no halo (ms)", 12, "{:.3f}"},
                    {"hidden", "hidden %", 8, "{:.1f}"},
                    {"efficiency", "efficiency", 10, "{:.3f}"},
                    {"bitwise_vs_one_rank", "bitwise", 8, "{}"}};
  auto row = [&](const std::string& run, int n, const std::string& decomp, const std::array<int, 3>& global,
                 const std::array<int, 3>& largest, double ms) {
    BenchRow w;
    w.model = info.name;
    w.variant = variant;
    w.device = gpu ? "gpu" : "cpu";
    w.order = plan.global.order;
    w.precision = "float";
    w.nx = global[0], w.ny = global[1], w.nz = global[2];
    w.steps = steps;
    w.time_ms = ms;
    const double cells = static_cast<double>(global[0]) * global[1] * global[2];
    w.mcups = cells * steps / (ms * 1e-3) / 1e6;
    w.labels = {{"run", run}, {"ranks", std::to_string(n)}, {"decomp", decomp}, {"global", size_text(global)},
                {"box", size_text(largest)}};
    w.figures = {{"gcells", w.mcups / 1e3}, {"gcells_per_rank", w.mcups / 1e3 / n}};
    return w;
  };
  const double t1 = median(single_ms), tn = median(dist_ms);
  BenchRow one = row("one rank", 1, "1x1x1", plan.one_rank.size, plan.one_rank.size, t1);
  one.figures.push_back({"efficiency", 1.0});
  one.labels.push_back({"bitwise_vs_one_rank", "base"});
  report.rows.push_back(one);
  std::array<int, 3> largest = d.box_of(0).n;  // the first boxes get the extra cells
  BenchRow many = row(fmt::format("{} ranks", ranks), ranks, d.text(), d.global, largest, tn);
  const double halo_ms = median(halo_ms_max);
  many.figures.push_back({"halo_ms", halo_ms});
  many.figures.push_back({"halo_mean_ms", median(halo_ms_mean)});
  many.figures.push_back({"halo_share", 100.0 * halo_ms * steps / tn});
  // Exposed: what a step with the exchange costs over the same step without it; hidden: the
  // rest of the exchange's time.
  if (!alone_ms.empty()) {
    const double alone = median(alone_ms), exposed = std::max(0.0, (tn - alone) / steps);
    many.figures.push_back({"alone_ms", alone});
    many.figures.push_back({"hidden", halo_ms > 0 ? 100.0 * std::clamp(1.0 - exposed / halo_ms, 0.0, 1.0) : 0.0});
  }
  many.figures.push_back({"efficiency", strong ? t1 / (ranks * tn) : t1 / tn});
  if (strong) {
    bool equal = gathered.size() == single_fields.size();
    for (std::size_t q = 0; equal && q < gathered.size(); ++q)
      equal = gathered[q].size() == single_fields[q].size() &&
              std::memcmp(gathered[q].data(), single_fields[q].data(), gathered[q].size() * sizeof(float)) == 0;
    many.bitwise_equal = equal;
    many.labels.push_back({"bitwise_vs_one_rank", equal ? "equal" : "DIFFERS"});
  } else {
    many.labels.push_back({"bitwise_vs_one_rank", "-"});
  }
  report.rows.push_back(many);
  report.footer = fmt::format(
      "GCells/s: cells x steps / time; halo: time in the exchange per step (slowest rank, and the mean; {}); "
      "{}efficiency: {}; bitwise: the field gathered after the first run of {} steps against the one-rank run's",
      gpu ? "on the exchange stream from the first pack to the last unpack, CUDA events; a box may overlap it with "
            "its interior (heat3d does)"
          : "wall time, not hidden",
      gpu ? "no halo: the same steps of the same boxes without any exchange (slowest rank); hidden: the share of the "
            "halo time that did not lengthen the step, 1 - (time - no halo) / (steps x halo); "
          : "",
      strong ? "T(1) / (N T(N)) on the same grid" : "T(1) / T(N), the grid growing with the ranks", steps);
  return report;
}

}  // namespace ss::dist
