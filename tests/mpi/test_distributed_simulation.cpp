// The window's run on several ranks, driven from rank 0 (CTest runs this under mpirun -np 2
// and 3 on the CPU backend): rank 0 runs the tests with a DistributedSimulation next to the
// model's own one-rank Simulation of the same configuration, the other ranks serve its
// commands. Painting across the faces between boxes, the gathered views (every quantity),
// placed sources, the receivers and their gathered seismograms, order changes, reset, states
// and the refusals must give what one rank gives, bit for bit: heat3d, acoustic3d, elastic3d
// and hydro3d.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "sim/core/decomposition.hpp"
#include "sim/core/error.hpp"
#include "sim/core/stencil.hpp"  // radius_of_order
#include "sim/dist/distributed_simulation.hpp"
#include "sim/dist/mpi_comm.hpp"

using namespace ss;
using namespace ss::dist;

namespace {

DistributedService* g_service = nullptr;  // rank 0's, for the length of main

const std::array<int, 3> kGrid{23, 19, 17};  // no rank count divides it

ModelConfig heat3d(const std::string& boundary, int order, const std::string& initial = "hot-spots") {
  return make_config(find_model("heat3d"), kGrid, order, {{"boundary", boundary}, {"initial", initial}});
}

std::unique_ptr<Simulation> one_rank(const ModelConfig& c) {
  return find_model("heat3d").create(c, Backend::cpu, "cpu");
}

std::unique_ptr<Simulation> many_ranks(const Model& model, const ModelConfig& c) {
  return create_distributed_simulation(*g_service, model, c, Backend::cpu, model.info().fastest_cpu);
}

/// The state and the three views at `where`, bit for bit.
void expect_same(Simulation& one, Simulation& many, const ViewPlacement& where, const std::string& what) {
  SCOPED_TRACE(what);
  ASSERT_EQ(one.steps_done(), many.steps_done());
  const SimState a = one.copy_state(), b = many.copy_state();
  ASSERT_EQ(a.fields.size(), b.fields.size());
  EXPECT_EQ(a.steps_done, b.steps_done);
  for (std::size_t f = 0; f < a.fields.size(); ++f) {
    ASSERT_EQ(a.fields[f].size(), b.fields[f].size());
    EXPECT_EQ(std::memcmp(a.fields[f].data(), b.fields[f].data(), a.fields[f].size() * sizeof(float)), 0)
        << "field " << f;
  }
  for (int v = 0; v < 3; ++v) {
    const auto [nu, nv] = one.view_size(v);
    std::vector<float> x(static_cast<std::size_t>(nu) * nv), y(x.size(), -7.0f);
    one.copy_view(v, where, x.data());
    many.copy_view(v, where, y.data());
    EXPECT_EQ(std::memcmp(x.data(), y.data(), x.size() * sizeof(float)), 0) << "view " << v;
  }
}

/// The first cell of the last box: on a face (or an edge, a corner) between ranks.
std::array<int, 3> first_cell_of_last_box(int radius) {
  const Decomposition d = make_decomposition(kGrid, world_size(), std::nullopt, radius);
  return d.box_of(d.ranks - 1).lo;
}

}  // namespace

TEST(DistributedSimulation, PaintAcrossTheBoxesIsTheOneRanks) {
  for (const std::string boundary : {"fixed", "periodic", "insulated", "analytic"}) {
    const ModelConfig c = heat3d(boundary, 4);
    auto one = one_rank(c);
    auto many = many_ranks(find_model("heat3d"), c);
    const std::array<int, 3> at = first_cell_of_last_box(2);
    ViewPlacement where;
    where.slices = {at[2], at[1], at[0]};  // each view through that cell
    one->start_steps(3);
    many->start_steps(3);
    // A brush centred on the face between boxes, from each view: (u, v) in cell units,
    // the cell's lower corner.
    const double uv[3][2] = {{double(at[0]), double(at[1])}, {double(at[0]), double(at[2])},
                             {double(at[1]), double(at[2])}};
    for (int v = 0; v < 3; ++v) {
      one->paint(v, uv[v][0], uv[v][1], 3.5, 2.0 + v, where);
      many->paint(v, uv[v][0], uv[v][1], 3.5, 2.0 + v, where);
    }
    // Near the grid's own corner too (clipped there as on one rank).
    one->paint(0, 0.5, 0.5, 2.5, -1.0, where);
    many->paint(0, 0.5, 0.5, 2.5, -1.0, where);
    expect_same(*one, *many, where, boundary + ": painted");
    one->start_steps(4);
    many->start_steps(4);
    expect_same(*one, *many, where, boundary + ": painted, then 4 steps");
    where.slices = {0, kGrid[1] - 1, kGrid[0] / 2};
    expect_same(*one, *many, where, boundary + ": other slices");
  }
}

TEST(DistributedSimulation, OrderResetAndStatesFollowTheOneRank) {
  const ModelConfig c = heat3d("fixed", 2);
  auto one = one_rank(c);
  auto many = many_ranks(find_model("heat3d"), c);
  ViewPlacement where;
  where.slices = {5, 9, 13};
  one->start_steps(3);
  many->start_steps(3);
  EXPECT_EQ(one->dt(), many->dt());
  EXPECT_EQ(one->accounting().bytes, many->accounting().bytes);
  one->set_order(8);
  many->set_order(8);
  EXPECT_EQ(many->config().order, 8);
  EXPECT_EQ(one->dt(), many->dt());
  one->start_steps(2);
  many->start_steps(2);
  expect_same(*one, *many, where, "order 2, then 8");
  // Each rank's times came back with the batch.
  const std::vector<RankTiming> t = many->rank_timings();
  ASSERT_EQ(static_cast<int>(t.size()), world_size());
  long long cells = 0;
  for (const RankTiming& r : t) {
    EXPECT_GE(r.step_ms, r.exchange_ms);
    cells += r.box.cells();
  }
  EXPECT_EQ(cells, static_cast<long long>(kGrid[0]) * kGrid[1] * kGrid[2]);
  // Diagnostics reduced over the boxes: min and max exact, the mean up to the order of the sum.
  const std::vector<Diagnostic> da = one->diagnostics(), db = many->diagnostics();
  ASSERT_GE(da.size(), 3u);
  ASSERT_EQ(db.size(), 3u);
  for (std::size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(da[k].name, db[k].name);
    EXPECT_NEAR(da[k].value, db[k].value, 1e-12 * (1 + std::abs(da[k].value))) << da[k].name;
  }
  one->reset();
  many->reset();
  expect_same(*one, *many, where, "reset");
  // A state from the one-rank run, loaded into the boxes.
  one->start_steps(5);
  many->load_state(one->copy_state());
  expect_same(*one, *many, where, "loaded");
  one->start_steps(2);
  many->start_steps(2);
  expect_same(*one, *many, where, "loaded, then 2 steps");
}

TEST(DistributedSimulation, RefusalsLeaveTheRunUsable) {
  const ModelConfig c = heat3d("periodic", 4);
  auto one = one_rank(c);
  auto many = many_ranks(find_model("heat3d"), c);
  EXPECT_THROW(many->set_variant("global"), Error);
  EXPECT_FALSE(many->receivers().has_value());  // heat3d has none: refused as on one rank
  EXPECT_THROW(many->set_receivers(ReceiverLayout{}), Error);
  EXPECT_TRUE(many->seismogram().components.empty());
  EXPECT_THROW(many->load_state(SimState{}), Error);
  const Model& flat = find_model("heat2d");
  EXPECT_THROW(check_distributed_simulation(flat, make_config(flat, {32, 32, 1}, 8, {}), Backend::cpu, "cpu", world_size()),
               Error);
  EXPECT_THROW(check_distributed_simulation(find_model("heat3d"), c, Backend::gpu, "cpu", world_size()), Error);
  ViewPlacement where;
  where.slices = {1, 2, 3};
  where.quantity = "temperature";
  one->start_steps(2);
  many->start_steps(2);
  expect_same(*one, *many, where, "after the refusals");
  many.reset();
  // A quantity the model does not have: refused on rank 0, and the run goes on.
  const Model& fluid = find_model("hydro3d");
  const ModelConfig flow = make_config(fluid, {24, 20, 18}, 6, {});
  auto boxes = many_ranks(fluid, flow);
  std::vector<float> slice(static_cast<std::size_t>(24) * 20);
  where.quantity = "no such quantity";
  EXPECT_THROW(boxes->copy_view(0, where, slice.data()), Error);
  boxes->start_steps(2);
  EXPECT_EQ(boxes->steps_done(), 2);
  EXPECT_EQ(boxes->copy_state().steps_done, 2);
}

namespace {

/// The state and the views of every quantity the model offers, bit for bit.
void expect_same_everywhere(Simulation& one, Simulation& many, ViewPlacement where, const std::string& what) {
  for (const std::string& q : one.info().views.quantities) {
    where.quantity = q;
    expect_same(one, many, where, what + ", view of " + q);
  }
}

ModelConfig acoustic3d(const std::string& boundary, const std::string& top, int order) {
  return make_config(find_model("acoustic3d"), kGrid, order,
                     {{"boundary", boundary}, {"top", top}, {"medium", std::string("random")}});
}

/// The receivers and their seismograms, bit for bit: labels, nodes, first step, dt, values.
/// Returns the number of non-zero values (the wave reached the receivers).
long expect_same_seismogram(Simulation& one, Simulation& many, const std::string& what) {
  SCOPED_TRACE(what + ", seismogram");
  const std::optional<ReceiverLayout> ra = one.receivers(), rb = many.receivers();
  EXPECT_TRUE(ra.has_value());
  if (!ra || !rb) return 0;
  EXPECT_EQ(describe(*ra), describe(*rb));
  const Seismogram a = one.seismogram(), b = many.seismogram();
  EXPECT_EQ(a.components, b.components);
  EXPECT_EQ(a.unit, b.unit);
  EXPECT_EQ(a.nodes, b.nodes);
  EXPECT_EQ(a.first_step, b.first_step);
  EXPECT_EQ(a.dt, b.dt);
  EXPECT_EQ(a.rows(), b.rows());
  if (a.values.size() != b.values.size()) {
    ADD_FAILURE() << a.values.size() << " values on one rank, " << b.values.size() << " gathered";
    return 0;
  }
  EXPECT_EQ(std::memcmp(a.values.data(), b.values.data(), a.values.size() * sizeof(float)), 0);
  return std::count_if(a.values.begin(), a.values.end(), [](float v) { return v != 0.0f; });
}

/// A pressure source at `node` with its own wavelet.
SourceSpec pressure_at(std::array<int, 3> node, double f0) {
  SourceSpec s;
  s.kind = SourceKind::pressure;
  s.node = node;
  s.f0_hz = f0;
  s.amplitude = 3;
  return s;
}

}  // namespace

/// A watched run of `c` on the ranks against one rank: dt and accounting; steps with the
/// configured source, sources placed on a face between boxes and near the top (`placed`
/// makes one of a kind at a node with a peak frequency), a bad one refused; paint across
/// the face; one source removed; another order; reset; a loaded state: the state and the
/// views of every quantity bitwise after each.
template <typename MakeSource>
void expect_watched_run_is_the_one_ranks(const Model& model, const ModelConfig& c, const std::string& what,
                                         MakeSource placed) {
  SCOPED_TRACE(what);
  ASSERT_NO_THROW(check_distributed_simulation(model, c, Backend::cpu, "cpu", world_size()));
  auto one = model.create(c, Backend::cpu, "cpu");
  auto many = many_ranks(model, c);
  EXPECT_EQ(one->dt(), many->dt());
  EXPECT_EQ(one->dt_limit(), many->dt_limit());
  EXPECT_EQ(one->accounting().bytes, many->accounting().bytes);
  EXPECT_EQ(one->accounting().cell_updates, many->accounting().cell_updates);
  const std::array<int, 3> at = first_cell_of_last_box(radius_of_order(c.order));
  ViewPlacement where;
  where.slices = {at[2], at[1], at[0]};
  ASSERT_EQ(one->sources().size(), many->sources().size());
  const std::array<int, 3> face{std::max(at[0], 1), std::max(at[1], 1), std::max(at[2], 1)};  // sources: 1 to n - 1
  for (auto* sim : {one.get(), many.get()}) sim->start_steps(4);
  expect_same_seismogram(*one, *many, "4 steps, the configured receivers");
  for (auto* sim : {one.get(), many.get()}) {
    sim->add_source(placed(0, face, 25));
    sim->add_source(placed(1, {kGrid[0] - 2, 1, 1}, 40));
  }
  ASSERT_EQ(many->sources().size(), one->sources().size());
  EXPECT_EQ(describe(many->sources().back()), describe(one->sources().back()));
  for (auto* sim : {one.get(), many.get()}) sim->start_steps(9);
  expect_same_everywhere(*one, *many, where, "13 steps, two sources placed");
  EXPECT_GT(expect_same_seismogram(*one, *many, "13 steps, the rows since step 4 gathered"), 0);
  // Receivers on every node of the plane through the face between boxes, then a line through
  // the first node of the last box (and a bad layout refused on both, keeping them).
  int normal = 2;  // the axis the boxes are split along (the last box starts past 0 there)
  for (int a = 0; a < 3; ++a)
    if (at[a] > 0) normal = a;
  const ReceiverLayout plane{normal, std::max(at[normal], 1), ReceiverLayout::Shape::grid, 0, 1};
  const ReceiverLayout across{1, std::max(at[1], 1), ReceiverLayout::Shape::line, std::max(at[2], 1), 1};
  for (auto* sim : {one.get(), many.get()}) {
    sim->set_receivers(plane);
    sim->start_steps(3);
  }
  EXPECT_GT(expect_same_seismogram(*one, *many, "receivers on a plane where the boxes meet, 3 steps"), 0);
  EXPECT_THROW(one->set_receivers(ReceiverLayout{2, kGrid[2] + 4}), Error);
  EXPECT_THROW(many->set_receivers(ReceiverLayout{2, kGrid[2] + 4}), Error);
  for (auto* sim : {one.get(), many.get()}) sim->start_steps(2);
  expect_same_seismogram(*one, *many, "a bad layout refused, 2 steps");
  for (auto* sim : {one.get(), many.get()}) {
    sim->set_receivers(across);
    sim->start_steps(2);
  }
  expect_same_seismogram(*one, *many, "a line through the first node of the last box, 2 steps");
  // A bad source is refused on both, keeping the list.
  EXPECT_THROW(one->add_source(placed(0, {kGrid[0] + 3, 2, 2}, 10)), Error);
  EXPECT_THROW(many->add_source(placed(0, {kGrid[0] + 3, 2, 2}, 10)), Error);
  EXPECT_THROW(many->remove_source(7), Error);
  ASSERT_EQ(many->sources().size(), one->sources().size());
  // Paint across the boxes (and at the top).
  const double uv[3][2] = {{double(at[0]), double(at[1])}, {double(at[0]), double(at[2])},
                           {double(at[1]), double(at[2])}};
  for (auto* sim : {one.get(), many.get()}) {
    for (int v = 0; v < 3; ++v) sim->paint(v, uv[v][0], uv[v][1], 3.5, 0.5 + v, where);
    sim->paint(1, 5.5, 0.5, 2.5, -1.0, where);
  }
  expect_same_everywhere(*one, *many, where, "painted");
  for (auto* sim : {one.get(), many.get()}) {
    sim->remove_source(0);  // the configured one
    sim->start_steps(7);
  }
  expect_same_everywhere(*one, *many, where, "painted, one source removed, 7 steps");
  // Order, reset and a loaded state; the placed sources stay through each.
  const int other = c.order == 8 ? 4 : 8;
  for (auto* sim : {one.get(), many.get()}) {
    sim->set_order(other);
    sim->start_steps(3);
  }
  EXPECT_EQ(one->dt(), many->dt());
  expect_same_everywhere(*one, *many, where, "other order, 3 steps");
  expect_same_seismogram(*one, *many, "other order (the traces go on), 3 steps");
  for (auto* sim : {one.get(), many.get()}) {
    sim->reset();
    sim->start_steps(5);
  }
  ASSERT_EQ(many->sources().size(), one->sources().size());
  expect_same_everywhere(*one, *many, where, "reset, 5 steps");
  expect_same_seismogram(*one, *many, "reset (the receivers stay), 5 steps");
  // A loaded state starts the CPML's memory from 0, on one rank as on the boxes.
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

TEST(DistributedSimulation, Acoustic3DViewsPaintsSourcesAndStatesAreTheOneRanks) {
  const Model& model = find_model("acoustic3d");
  for (const WaveCase& k : {WaveCase{"sponge", "free", 4}, WaveCase{"sponge", "absorbing", 8},
                            WaveCase{"periodic", "free", 2}, WaveCase{"cpml", "free", 8},
                            WaveCase{"cpml", "absorbing", 4}})
    expect_watched_run_is_the_one_ranks(
        model, acoustic3d(k.boundary, k.top, k.order),
        k.boundary + ", top " + k.top + ", order " + std::to_string(k.order),
        [](int, std::array<int, 3> node, double f0) { return pressure_at(node, f0); });
}

TEST(DistributedSimulation, Elastic3DViewsPaintsSourcesAndStatesAreTheOneRanks) {
  // Every quantity, the derived ones (divergence, curl: first derivatives across the faces
  // between boxes) included; forces and moment tensors placed on those faces.
  const Model& model = find_model("elastic3d");
  for (const WaveCase& k : {WaveCase{"sponge", "free", 4}, WaveCase{"periodic", "free", 8},
                            WaveCase{"periodic_sides", "absorbing", 2}, WaveCase{"cpml", "free", 8},
                            WaveCase{"cpml", "absorbing", 4}}) {
    const ModelConfig c = make_config(model, kGrid, k.order,
                                      {{"boundary", k.boundary}, {"top", k.top}, {"medium", std::string("random")}});
    expect_watched_run_is_the_one_ranks(model, c, k.boundary + ", top " + k.top + ", order " + std::to_string(k.order),
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

TEST(DistributedSimulation, Hydro3DViewsKicksAndStatesAreTheOneRanks) {
  // Every quantity, the vorticity and divergence (sixth-order derivatives across the faces
  // between boxes) included; the kick of the mouse centred on a face between boxes.
  const Model& model = find_model("hydro3d");
  for (const std::string init : {"explosion", "turbulence"}) {  // turbulence: the forcing at global positions
    SCOPED_TRACE(init);
    const ModelConfig c = make_config(model, {24, 20, 18}, 6, {{"init", init}});
    ASSERT_NO_THROW(check_distributed_simulation(model, c, Backend::cpu, "cpu", world_size()));
    auto one = model.create(c, Backend::cpu, "cpu");
    auto many = many_ranks(model, c);
    EXPECT_EQ(one->dt(), many->dt());
    EXPECT_EQ(one->accounting().bytes, many->accounting().bytes);
    const Decomposition d = make_decomposition({24, 20, 18}, world_size(), std::nullopt, 3);
    const std::array<int, 3> at = d.box_of(d.ranks - 1).lo;
    ViewPlacement where;
    where.slices = {at[2], at[1], at[0]};
    for (auto* sim : {one.get(), many.get()}) sim->start_steps(3);
    expect_same_everywhere(*one, *many, where, "3 steps");
    for (auto* sim : {one.get(), many.get()}) {
      sim->paint(0, at[0], at[1], 6, 0.3, where);
      sim->paint(2, 1.5, 17.5, 4, -0.2, where);  // wraps around the periodic faces
    }
    expect_same_everywhere(*one, *many, where, "kicked");
    for (auto* sim : {one.get(), many.get()}) sim->start_steps(2);
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
    where.slices = {0, 19, 12};
    expect_same_everywhere(*one, *many, where, "loaded, 2 steps, other slices");
  }
}

int main(int argc, char** argv) {
  MpiSession mpi(&argc, &argv);
  if (world_rank() != 0) return serve_distributed_simulation();  // rank 0's tests decide
  ::testing::InitGoogleTest(&argc, argv);
  std::printf("running on %d MPI ranks (rank 0 tests, the others serve)\n", world_size());
  DistributedService service;
  g_service = &service;
  const int status = RUN_ALL_TESTS();
  service.finish(status);
  return status;
}
