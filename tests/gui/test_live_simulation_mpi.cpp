// The app's LiveSimulation over MPI ranks, as the window drives it (CTest runs this under
// mpirun -np 2 and 3, CPU backend, a headless EGL context on rank 0): rank 0 runs a
// LiveSimulation made with the distributed factory beside a one-rank one, and makes the
// edits a person makes in the panels (frames, a brush across the boxes, the order, the
// size, a model whose boxes give no views); the other ranks serve. The states must stay
// bitwise equal, a refused edit must leave a note and the run going.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstring>
#include <memory>
#include <string>

#include "live_simulation.hpp"
#include "sim/core/decomposition.hpp"
#include "sim/core/error.hpp"
#include "sim/dist/distributed_simulation.hpp"
#include "sim/dist/mpi_comm.hpp"
#include "stencilscope/render/headless_context.hpp"

using namespace ss;
using namespace ss::app;

namespace {

ss::dist::DistributedService* g_service = nullptr;  // rank 0's, for the length of main

/// What main gives the app under mpirun.
SimulationFactory distributed_factory() {
  SimulationFactory f;
  const int ranks = g_service->ranks();
  f.check = [ranks](const Model& m, const ModelConfig& c, Backend b, std::string_view v, std::string_view t) {
    dist::check_distributed_simulation(m, c, b, v, ranks, t);
  };
  f.create = [](const Model& m, const ModelConfig& c, Backend b, std::string_view v, std::string_view t) {
    return dist::create_distributed_simulation(*g_service, m, c, b, v, t);
  };
  f.default_variant = dist::distributed_variant;
  f.note = "test";
  return f;
}

void expect_same_state(LiveSimulation& one, LiveSimulation& many, const std::string& what) {
  SCOPED_TRACE(what);
  const SimState a = one.copy_state(), b = many.copy_state();
  ASSERT_EQ(a.steps_done, b.steps_done);
  ASSERT_EQ(a.fields.size(), b.fields.size());
  for (std::size_t f = 0; f < a.fields.size(); ++f) {
    ASSERT_EQ(a.fields[f].size(), b.fields[f].size());
    EXPECT_EQ(std::memcmp(a.fields[f].data(), b.fields[f].data(), a.fields[f].size() * sizeof(float)), 0);
  }
}

}  // namespace

TEST(LiveSimulationMpi, PanelEditsKeepTheRunsEqual) {
  std::unique_ptr<render::HeadlessContext> context;
  try {
    context = std::make_unique<render::HeadlessContext>();
  } catch (const Error& e) {
    GTEST_SKIP() << "no headless GL context: " << e.what();
  }
  SimSettings s;
  s.model = "heat3d";
  s.nx = 23, s.ny = 19, s.nz = 17;
  s.order = 4;
  s.variant = "cpu";
  s.adaptive_steps = false;
  s.steps_per_frame = 3;
  s.params["initial"] = std::string("hot-spots");
  SimSettings a = s, b = s;
  LiveSimulation one(a);
  LiveSimulation many(b, distributed_factory());
  EXPECT_FALSE(many.status().distributed.empty());
  for (int k = 0; k < 2; ++k) {
    one.advance(a, false);
    many.advance(b, false);
  }
  EXPECT_EQ(static_cast<int>(many.status().ranks.size()), g_service->ranks()) << "the per-rank table's rows";
  expect_same_state(one, many, "two frames");
  // The brush on the XZ view, centred on the first cell of the last box: across a face.
  const Decomposition d = make_decomposition({23, 19, 17}, g_service->ranks(), std::nullopt, 2);
  const Box last = d.box_of(d.ranks - 1);
  b.slice[1] = a.slice[1] = last.lo[1];
  one.apply(a);
  many.apply(b);
  one.paint_view(1, last.lo[0], last.lo[2], 4.0, 1.5);
  many.paint_view(1, last.lo[0], last.lo[2], 4.0, 1.5);
  one.advance(a, false);
  many.advance(b, false);
  expect_same_state(one, many, "painted");
  // The order on the live field, then a new size (a rebuild on every rank).
  a.order = b.order = 8;
  one.apply(a);
  many.apply(b);
  EXPECT_EQ(many.config().order, 8) << many.status().note;
  one.advance(a, false);
  many.advance(b, false);
  expect_same_state(one, many, "order 8");
  a.nx = b.nx = 26;
  one.apply(a);
  many.apply(b);
  EXPECT_EQ(many.config().size[0], 26) << many.status().note;
  one.advance(a, false);
  many.advance(b, false);
  expect_same_state(one, many, "26x19x17");
  // A model that does not split into boxes (2D): refused with a note, the run goes on.
  // (Every 3D model's boxes now give views, so no 3D model is refused for that.)
  SimSettings other = b;
  switch_model(other, find_model("heat2d"), false);  // as the panel's model menu does
  many.apply(other);
  EXPECT_EQ(other.model, "heat3d") << "the refused model is put back";
  EXPECT_NE(many.status().note.find("2D model"), std::string::npos) << many.status().note;
  one.advance(a, false);
  many.advance(other, false);
  EXPECT_TRUE(many.status().error.empty()) << many.status().error;
  expect_same_state(one, many, "after the refusal");
  one.reset();
  many.reset();
  expect_same_state(one, many, "reset");
}

int main(int argc, char** argv) {
  dist::MpiSession mpi(&argc, &argv);
  if (dist::world_rank() != 0) return dist::serve_distributed_simulation();  // rank 0's test decides
  ::testing::InitGoogleTest(&argc, argv);
  dist::DistributedService service;
  g_service = &service;
  const int status = RUN_ALL_TESTS();
  service.finish(status);
  return status;
}
