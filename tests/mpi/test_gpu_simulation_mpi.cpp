// The window's run on GPU boxes (`mpirun -np N stencilscope --device gpu`, and `record`),
// driven from rank 0: rank 0 runs the tests with a DistributedSimulation on the GPU backend
// (each rank its box on its own GPU, local rank modulo the node's GPUs, halos through
// DeviceHaloExchange) next to the model's own one-GPU Simulation of the same configuration
// and variant (Model::create with the GPU backend), the other ranks serve its commands.
// The gathered slices of every view quantity, the state, the seismograms, paints across the
// faces between boxes, order changes, reset and loaded states must be the one GPU's bit for
// bit: heat3d in every boundary rule, acoustic3d and elastic3d in what their GPU boxes step,
// hydro3d. What a model's GPU boxes cannot do yet (DistributedSpec::gpu_boxes_paint: heat3d's
// paint, order change and loaded state) must be refused in one line, the run going on.
// The transport comes from STENCILSCOPE_TEST_TRANSPORT (empty: the default, peer on one node
// whose GPUs reach each other). Skips, saying why, without a CUDA device (then it
// checks that a GPU run is refused in one line on every rank and the ranks go on serving),
// and for nccl without NCCL or with ranks sharing a GPU.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "sim/core/decomposition.hpp"
#include "sim/core/device.hpp"
#include "sim/core/error.hpp"
#include "sim/core/stencil.hpp"  // radius_of_order
#include "sim/dist/distributed_simulation.hpp"
#include "sim/dist/halo_exchange_device.hpp"
#include "sim/dist/mpi_comm.hpp"

using namespace ss;
using namespace ss::dist;

namespace {

DistributedService* g_service = nullptr;  // rank 0's, for the length of main

const std::array<int, 3> kGrid{23, 19, 17};  // no rank count divides it

std::string transport() {
  const char* t = std::getenv("STENCILSCOPE_TEST_TRANSPORT");
  return t ? t : "";
}

/// Why GPU boxes cannot run here (empty: they can). The ranks of a ctest run share one host.
std::string why_not_here() {
  const int devices = cuda_device_count();
  if (devices == 0) return "no CUDA device: the window's run on GPU boxes is not tested here";
  if (!transport().empty() && parse_device_transport(transport()) == DeviceTransport::nccl) {
    if (!nccl_built()) return "this build has no NCCL";
    if (devices < world_size())
      return fmt::format("NCCL needs a GPU per rank: {} ranks share {} GPU(s)", world_size(), devices);
  }
  return {};
}

std::unique_ptr<Simulation> on_the_gpus(const Model& model, const ModelConfig& c, const std::string& variant) {
  return create_distributed_simulation(*g_service, model, c, Backend::gpu, variant, transport());
}

/// The state and the three views at `where`, bit for bit.
void expect_same(Simulation& one, Simulation& many, const ViewPlacement& where, const std::string& what) {
  SCOPED_TRACE(what);
  ASSERT_EQ(one.steps_done(), many.steps_done());
  const SimState a = one.copy_state(), b = many.copy_state();
  ASSERT_EQ(a.fields.size(), b.fields.size());
  for (std::size_t f = 0; f < a.fields.size(); ++f) {
    ASSERT_EQ(a.fields[f].size(), b.fields[f].size());
    std::size_t differ = 0;
    for (std::size_t e = 0; e < a.fields[f].size(); ++e)
      differ += std::memcmp(&a.fields[f][e], &b.fields[f][e], sizeof(float)) != 0;
    EXPECT_EQ(differ, 0u) << "field " << f << ": cells that differ";
  }
  for (int v = 0; v < 3; ++v) {
    const auto [nu, nv] = one.view_size(v);
    std::vector<float> x(static_cast<std::size_t>(nu) * nv), y(x.size(), -7.0f);
    one.copy_view(v, where, x.data());
    many.copy_view(v, where, y.data());
    EXPECT_EQ(std::memcmp(x.data(), y.data(), x.size() * sizeof(float)), 0)
        << "view " << v << " of " << (where.quantity.empty() ? "the default quantity" : where.quantity);
  }
}

/// ... for every quantity the model's views offer.
void expect_same_everywhere(Simulation& one, Simulation& many, ViewPlacement where, const std::string& what) {
  for (const std::string& q : one.info().views.quantities) {
    where.quantity = q;
    expect_same(one, many, where, what + ", view of " + q);
  }
}

/// The first cell of the last box: on a face (or an edge, a corner) between ranks.
std::array<int, 3> first_cell_of_last_box(const std::array<int, 3>& grid, int radius) {
  const Decomposition d = make_decomposition(grid, world_size(), std::nullopt, radius);
  return d.box_of(d.ranks - 1).lo;
}

/// Each view through `at`.
ViewPlacement through(const std::array<int, 3>& at) {
  ViewPlacement where;
  where.slices = {at[2], at[1], at[0]};
  return where;
}

/// A brush centred on `at` from each view, and one near the grid's corner.
void paint_across(Simulation& sim, const std::array<int, 3>& at, const ViewPlacement& where) {
  const double uv[3][2] = {{double(at[0]), double(at[1])}, {double(at[0]), double(at[2])},
                           {double(at[1]), double(at[2])}};
  for (int v = 0; v < 3; ++v) sim.paint(v, uv[v][0], uv[v][1], 3.5, 0.5 + v, where);
  sim.paint(1, 5.5, 0.5, 2.5, -1.0, where);
}

/// The receivers and their seismograms, bit for bit. Returns the number of non-zero values.
long expect_same_seismogram(Simulation& one, Simulation& many, const std::string& what) {
  SCOPED_TRACE(what + ", seismogram");
  const std::optional<ReceiverLayout> ra = one.receivers(), rb = many.receivers();
  EXPECT_EQ(ra.has_value(), rb.has_value());
  if (!ra || !rb) return 0;
  EXPECT_EQ(describe(*ra), describe(*rb));
  const Seismogram a = one.seismogram(), b = many.seismogram();
  EXPECT_EQ(a.components, b.components);
  EXPECT_EQ(a.nodes, b.nodes);
  EXPECT_EQ(a.first_step, b.first_step);
  EXPECT_EQ(a.dt, b.dt);
  EXPECT_EQ(a.rows(), b.rows());
  if (a.values.size() != b.values.size()) {
    ADD_FAILURE() << a.values.size() << " values on one GPU, " << b.values.size() << " gathered";
    return 0;
  }
  EXPECT_EQ(std::memcmp(a.values.data(), b.values.data(), a.values.size() * sizeof(float)), 0);
  return std::count_if(a.values.begin(), a.values.end(), [](float v) { return v != 0.0f; });
}

/// Per-rank times of the last batch: a row per rank, their boxes covering the grid.
void expect_rank_timings(const Simulation& many, const std::array<int, 3>& grid) {
  const std::vector<RankTiming> t = many.rank_timings();
  ASSERT_EQ(static_cast<int>(t.size()), world_size());
  long long cells = 0;
  for (const RankTiming& r : t) {
    EXPECT_GT(r.step_ms, 0.0);
    EXPECT_GE(r.exchange_ms, 0.0);
    cells += r.box.cells();
  }
  EXPECT_EQ(cells, static_cast<long long>(grid[0]) * grid[1] * grid[2]);
}

}  // namespace

TEST(GpuSimulation, WithoutADeviceEveryRankRefusesInOneLine) {
  if (cuda_device_count() > 0) GTEST_SKIP() << "there is a CUDA device: the refusal is not reached here";
  const Model& model = find_model("heat3d");
  const ModelConfig c = make_config(model, kGrid, 4, {{"boundary", std::string("fixed")}});
  try {
    check_distributed_simulation(model, c, Backend::gpu, "stream25d", world_size());
    ADD_FAILURE() << "rank 0's check let a GPU run through without a device";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no CUDA device"), std::string::npos) << e.what();
  }
  // Built anyway (rank 0's check skipped): every rank meets the refusal, rank 0 throws it.
  try {
    on_the_gpus(model, c, "stream25d");
    ADD_FAILURE() << "a GPU run was built without a device";
  } catch (const CollectiveError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("no CUDA device"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
  // The other ranks went on serving: a CPU run on them works.
  auto cpu = create_distributed_simulation(*g_service, model, c, Backend::cpu, "cpu");
  cpu->start_steps(2);
  EXPECT_EQ(cpu->copy_state().steps_done, 2);
}

TEST(GpuSimulation, RefusalsBeforeAnyBoxIsBuilt) {
  const Model& heat = find_model("heat3d");
  const ModelConfig c = make_config(heat, kGrid, 4, {});
  // A CPU variant on the GPU backend, a GPU halo transport on the CPU, an unknown transport.
  EXPECT_THROW(check_distributed_simulation(heat, c, Backend::gpu, "cpu", world_size()), Error);
  EXPECT_THROW(check_distributed_simulation(heat, c, Backend::cpu, "cpu", world_size(), "staged"), Error);
  EXPECT_THROW(check_distributed_simulation(heat, c, Backend::gpu, "stream25d", world_size(), "carrier"), Error);
  // elastic3d's GPU boxes do not run the cpml rule: no GPU variant for it, one line.
  const Model& elastic = find_model("elastic3d");
  const ModelConfig cpml = make_config(elastic, kGrid, 4, {{"boundary", std::string("cpml")}});
  try {
    check_distributed_simulation(elastic, cpml, Backend::gpu, distributed_variant(elastic, cpml, Backend::gpu),
                                 world_size());
    ADD_FAILURE() << "elastic3d's cpml boxes on the GPU were not refused";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no GPU boxes yet"), std::string::npos) << e.what();
  }
  EXPECT_EQ(distributed_variant(heat, c, Backend::gpu), "stream25d");
  EXPECT_EQ(distributed_variant(heat, c, Backend::cpu), "cpu");
}

// heat3d in every boundary rule, through stream25d's box form (the default) and global: the
// views and the state after steps, reset and more steps are the one GPU's; so are a paint
// across the boxes, an order change and a loaded state (DistributedSpec::gpu_boxes_paint; a
// model whose GPU boxes say no must refuse them in one line).
TEST(GpuSimulation, Heat3DEveryRuleIsTheOneGpus) {
  if (const std::string why = why_not_here(); !why.empty()) GTEST_SKIP() << why;
  const Model& model = find_model("heat3d");
  struct Case {
    std::string boundary, variant;
    int order;
  };
  for (const Case& k : {Case{"fixed", "stream25d", 2}, Case{"periodic", "stream25d", 8}, Case{"insulated", "stream25d", 4},
                        Case{"analytic", "stream25d", 8}, Case{"analytic", "global", 4}, Case{"insulated", "global", 8}}) {
    const std::string what = fmt::format("{}, {}, order {}", k.boundary, k.variant, k.order);
    SCOPED_TRACE(what);
    const ModelConfig c = make_config(model, kGrid, k.order, {{"boundary", k.boundary}});
    ASSERT_NO_THROW(check_distributed_simulation(model, c, Backend::gpu, k.variant, world_size(), transport()));
    auto one = model.create(c, Backend::gpu, k.variant);
    auto many = on_the_gpus(model, c, k.variant);
    EXPECT_NE(many->backend_name().find("GPU"), std::string::npos) << many->backend_name();
    EXPECT_EQ(many->variant(), k.variant);
    EXPECT_EQ(one->dt(), many->dt());
    EXPECT_EQ(one->accounting().bytes, many->accounting().bytes);
    const std::array<int, 3> at = first_cell_of_last_box(kGrid, radius_of_order(k.order));
    ViewPlacement where = through(at);
    for (auto* sim : {one.get(), many.get()}) sim->start_steps(7);
    expect_same(*one, *many, where, "7 steps");
    expect_rank_timings(*many, kGrid);
    const DistributedSpec spec = model.distributed(c);
    if (spec.gpu_boxes_paint) {
      for (auto* sim : {one.get(), many.get()}) paint_across(*sim, at, where);
      expect_same(*one, *many, where, "painted across the boxes");
      for (auto* sim : {one.get(), many.get()}) sim->set_order(k.order == 8 ? 4 : 8);
      const auto saved = one->copy_state();  // loaded into both after 3 more steps
      for (auto* sim : {one.get(), many.get()}) sim->start_steps(3);
      for (auto* sim : {one.get(), many.get()}) sim->load_state(saved);
      expect_same(*one, *many, where, "painted, order changed, a state loaded");
    } else {
      try {
        paint_across(*many, at, where);
        ADD_FAILURE() << "a paint of heat3d's GPU boxes was not refused";
      } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("cannot be painted"), std::string::npos) << e.what();
      }
      EXPECT_THROW(many->set_order(k.order == 8 ? 4 : 8), Error);
      EXPECT_EQ(many->config().order, k.order);
      EXPECT_THROW(many->load_state(one->copy_state()), Error);
    }
    EXPECT_THROW(many->set_variant(k.variant == "global" ? "shared3d" : "global"), Error);
    for (auto* sim : {one.get(), many.get()}) sim->start_steps(5);
    expect_same(*one, *many, where, "after the refusals (or the paint and the order), 5 steps");
    for (auto* sim : {one.get(), many.get()}) {
      sim->reset();
      sim->start_steps(3);
    }
    where.slices = {0, kGrid[1] - 1, kGrid[0] / 2};
    expect_same(*one, *many, where, "reset, 3 steps, other slices");
  }
}

namespace {

/// A watched run of a wave model on the GPUs against one GPU, the variant the same: dt and
/// accounting; steps with the configured source and receivers; sources placed on a face
/// between boxes and near a corner; receivers on a plane through that face; paint across it;
/// the configured source removed; another order; reset; a loaded state: the state, the
/// views of every quantity and the seismogram bitwise after each.
template <typename MakeSource>
void expect_watched_run_is_the_one_gpus(const Model& model, const ModelConfig& c, const std::string& variant,
                                        const std::string& what, MakeSource placed) {
  SCOPED_TRACE(what + ", " + variant);
  ASSERT_NO_THROW(check_distributed_simulation(model, c, Backend::gpu, variant, world_size(), transport()));
  ASSERT_TRUE(model.distributed(c).gpu_boxes_paint);
  auto one = model.create(c, Backend::gpu, variant);
  auto many = on_the_gpus(model, c, variant);
  EXPECT_EQ(one->dt(), many->dt());
  EXPECT_EQ(one->dt_limit(), many->dt_limit());
  EXPECT_EQ(one->accounting().bytes, many->accounting().bytes);
  const std::array<int, 3> at = first_cell_of_last_box(kGrid, radius_of_order(c.order));
  ViewPlacement where = through(at);
  const std::array<int, 3> face{std::max(at[0], 1), std::max(at[1], 1), std::max(at[2], 1)};
  for (auto* sim : {one.get(), many.get()}) sim->start_steps(4);
  expect_same_everywhere(*one, *many, where, "4 steps");
  expect_same_seismogram(*one, *many, "4 steps, the configured receivers");
  expect_rank_timings(*many, kGrid);
  for (auto* sim : {one.get(), many.get()}) {
    sim->add_source(placed(0, face, 25));
    sim->add_source(placed(1, {kGrid[0] - 2, 1, 1}, 40));
    sim->start_steps(9);
  }
  ASSERT_EQ(many->sources().size(), one->sources().size());
  expect_same_everywhere(*one, *many, where, "13 steps, two sources placed");
  EXPECT_GT(expect_same_seismogram(*one, *many, "13 steps"), 0);
  int normal = 2;  // the axis the boxes are split along
  for (int a = 0; a < 3; ++a)
    if (at[a] > 0) normal = a;
  const ReceiverLayout plane{normal, std::max(at[normal], 1), ReceiverLayout::Shape::grid, 0, 1};
  for (auto* sim : {one.get(), many.get()}) {
    sim->set_receivers(plane);
    sim->start_steps(3);
  }
  EXPECT_GT(expect_same_seismogram(*one, *many, "receivers on a plane where the boxes meet, 3 steps"), 0);
  EXPECT_THROW(many->add_source(placed(0, {kGrid[0] + 3, 2, 2}, 10)), Error);  // outside: refused, list kept
  ASSERT_EQ(many->sources().size(), one->sources().size());
  for (auto* sim : {one.get(), many.get()}) paint_across(*sim, at, where);
  expect_same_everywhere(*one, *many, where, "painted across the boxes");
  for (auto* sim : {one.get(), many.get()}) {
    sim->remove_source(0);  // the configured one
    sim->start_steps(7);
  }
  expect_same_everywhere(*one, *many, where, "painted, one source removed, 7 steps");
  const int other = c.order == 8 ? 4 : 8;
  for (auto* sim : {one.get(), many.get()}) {
    sim->set_order(other);
    sim->start_steps(3);
  }
  EXPECT_EQ(many->config().order, other);
  EXPECT_EQ(one->dt(), many->dt());
  expect_same_everywhere(*one, *many, where, "order " + std::to_string(other) + ", 3 steps");
  expect_same_seismogram(*one, *many, "another order (the traces go on), 3 steps");
  for (auto* sim : {one.get(), many.get()}) {
    sim->reset();
    sim->start_steps(5);
  }
  expect_same_everywhere(*one, *many, where, "reset, 5 steps");
  expect_same_seismogram(*one, *many, "reset (the receivers stay), 5 steps");
  const SimState state = one->copy_state();
  for (auto* sim : {one.get(), many.get()}) {
    sim->load_state(state);
    sim->start_steps(4);
  }
  where.slices = {0, kGrid[1] - 1, kGrid[0] / 2};
  expect_same_everywhere(*one, *many, where, "loaded, 4 steps, other slices");
  expect_same_seismogram(*one, *many, "loaded (the traces start again), 4 steps");
}

struct WaveCase {
  std::string boundary, top;
  int order;
};

}  // namespace

TEST(GpuSimulation, Acoustic3DViewsPaintsSourcesAndStatesAreTheOneGpus) {
  if (const std::string why = why_not_here(); !why.empty()) GTEST_SKIP() << why;
  const Model& model = find_model("acoustic3d");
  for (const WaveCase& k : {WaveCase{"sponge", "free", 4}, WaveCase{"periodic", "free", 2},
                            WaveCase{"cpml", "absorbing", 8}, WaveCase{"cpml", "free", 4}})
    for (const std::string variant : {"global", "stream25d"}) {
      const ModelConfig c = make_config(model, kGrid, k.order,
                                        {{"boundary", k.boundary}, {"top", k.top}, {"medium", std::string("random")}});
      expect_watched_run_is_the_one_gpus(model, c, variant,
                                         k.boundary + ", top " + k.top + ", order " + std::to_string(k.order),
                                         [](int, std::array<int, 3> node, double f0) {
                                           SourceSpec s;
                                           s.kind = SourceKind::pressure;
                                           s.node = node;
                                           s.f0_hz = f0;
                                           s.amplitude = 3;
                                           return s;
                                         });
    }
}

TEST(GpuSimulation, Elastic3DViewsPaintsSourcesAndStatesAreTheOneGpus) {
  if (const std::string why = why_not_here(); !why.empty()) GTEST_SKIP() << why;
  // Every quantity, the derived ones (divergence, curl: the one GPU's view kernel on each
  // box, first derivatives across the faces between boxes) included. No cpml: refused above.
  const Model& model = find_model("elastic3d");
  for (const WaveCase& k : {WaveCase{"sponge", "free", 4}, WaveCase{"periodic", "free", 8},
                            WaveCase{"periodic_sides", "absorbing", 2}})
    for (const std::string variant : {"steps", "fused"}) {
      const ModelConfig c = make_config(model, kGrid, k.order,
                                        {{"boundary", k.boundary}, {"top", k.top}, {"medium", std::string("random")}});
      expect_watched_run_is_the_one_gpus(model, c, variant,
                                         k.boundary + ", top " + k.top + ", order " + std::to_string(k.order),
                                         [](int which, std::array<int, 3> node, double f0) {
                                           SourceSpec s;
                                           s.node = node;
                                           s.f0_hz = f0;
                                           s.amplitude = 1e3;
                                           if (which == 0) {
                                             s.kind = SourceKind::force;
                                             s.direction = {1, -2, 0.5};
                                           } else {
                                             s.kind = SourceKind::moment;
                                             s.moment = {1, -0.5, 0.25, 0.3, 0, -0.2};
                                           }
                                           return s;
                                         });
    }
}

TEST(GpuSimulation, Hydro3DViewsKicksAndStatesAreTheOneGpus) {
  if (const std::string why = why_not_here(); !why.empty()) GTEST_SKIP() << why;
  const Model& model = find_model("hydro3d");
  const std::array<int, 3> grid{24, 20, 18};
  for (const std::string init : {"explosion", "turbulence"}) {
    SCOPED_TRACE(init);
    const ModelConfig c = make_config(model, grid, 6, {{"init", init}});
    const std::string variant = distributed_variant(model, c, Backend::gpu);
    ASSERT_NO_THROW(check_distributed_simulation(model, c, Backend::gpu, variant, world_size(), transport()));
    auto one = model.create(c, Backend::gpu, variant);
    auto many = on_the_gpus(model, c, variant);
    const std::array<int, 3> at = first_cell_of_last_box(grid, 3);
    ViewPlacement where = through(at);
    for (auto* sim : {one.get(), many.get()}) sim->start_steps(3);
    EXPECT_EQ(one->dt(), many->dt());
    expect_same_everywhere(*one, *many, where, "3 steps");
    for (auto* sim : {one.get(), many.get()}) {
      sim->paint(0, at[0], at[1], 6, 0.3, where);
      sim->paint(2, 1.5, 17.5, 4, -0.2, where);  // wraps around the periodic faces
      sim->start_steps(2);
    }
    expect_same_everywhere(*one, *many, where, "kicked, 2 steps");
    for (auto* sim : {one.get(), many.get()}) {
      sim->reset();
      sim->start_steps(1);
    }
    expect_same_everywhere(*one, *many, where, "reset, 1 step");
    const SimState state = one->copy_state();
    for (auto* sim : {one.get(), many.get()}) {
      sim->load_state(state);
      sim->start_steps(2);
    }
    where.slices = {0, grid[1] - 1, 12};
    expect_same_everywhere(*one, *many, where, "loaded, 2 steps, other slices");
  }
}

int main(int argc, char** argv) {
  MpiSession mpi(&argc, &argv);
  if (world_rank() != 0) return serve_distributed_simulation();  // rank 0's tests decide
  ::testing::InitGoogleTest(&argc, argv);
  const int devices = cuda_device_count();
  std::printf("running on %d MPI ranks (rank 0 tests, the others serve), %d GPU(s) here, transport %s\n",
              world_size(), devices, transport().empty() ? "by default" : transport().c_str());
  DistributedService service;
  g_service = &service;
  const int status = RUN_ALL_TESTS();
  service.finish(status);
  return status;
}
