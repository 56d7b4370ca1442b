// Sources, receivers and seismograms through the model interface, for every registered
// model that injects point sources (ModelInfo::source_kinds): two sources superpose; an
// isotropic moment tensor is the explosion bit for bit; receivers read the field at their
// nodes; the seismogram's .npy and CSV files read back; a click on a slice places a source
// at the clicked node; bad sources and receivers are refused in one line and change
// nothing. Built twice: CPU backend (label host) and, with STENCILSCOPE_TEST_GPU, every GPU
// variant against `cpu` bit for bit with several sources (label gpu; skipped without a device).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "sim/core/device.hpp"
#include "sim/core/error.hpp"
#include "sim/core/model.hpp"
#include "sim/core/npy.hpp"

using namespace ss;

namespace {

std::vector<const Model*> source_models() {
  std::vector<const Model*> out;
  for (const Model* m : models())
    if (!m->info().source_kinds.empty()) out.push_back(m);
  return out;
}

std::string name_of(const ::testing::TestParamInfo<const Model*>& p) { return p.param->info().name; }

/// A small grid (no side a multiple of a tile) with the model's defaults.
ModelConfig small(const Model& m) { return make_config(m, {26, 23, 21}, m.info().default_order, {}); }

std::unique_ptr<Simulation> cpu_sim(const Model& m, const ModelConfig& c) {
  return m.create(c, Backend::cpu, m.info().fastest_cpu);
}

void clear_sources(Simulation& sim) {
  while (!sim.sources().empty()) sim.remove_source(0);
}

SourceSpec source(SourceKind kind, std::array<int, 3> node, double f0 = 12) {
  SourceSpec s;
  s.kind = kind;
  s.node = node;
  s.f0_hz = f0;
  s.direction = {0.3, -0.5, 1};
  return s;
}

void run(Simulation& sim, int n) {
  sim.start_steps(n);
  sim.wait();
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

class SourceModel : public ::testing::TestWithParam<const Model*> {};

#ifndef STENCILSCOPE_TEST_GPU

// The scheme is linear in its sources: the field of A and B together is the field of A
// plus the field of B, to rounding (float sums in another order).
TEST_P(SourceModel, TwoSourcesSuperpose) {
  const Model& m = *GetParam();
  const ModelConfig c = small(m);
  const SourceKind kind = m.info().source_kinds.front();
  const SourceSpec a = source(kind, {8, 9, 7}), b = source(kind, {17, 12, 13}, 9);
  auto field = [&](const std::vector<SourceSpec>& list) {
    auto sim = cpu_sim(m, c);
    clear_sources(*sim);
    for (const SourceSpec& s : list) sim->add_source(s);
    run(*sim, 60);
    return sim->copy_state().fields;
  };
  const auto fa = field({a}), fb = field({b}), fab = field({a, b});
  for (std::size_t f = 0; f < fab.size(); ++f) {
    double peak = 0, diff = 0;
    for (std::size_t e = 0; e < fab[f].size(); ++e) {
      peak = std::max(peak, std::abs(static_cast<double>(fab[f][e])));
      diff = std::max(diff, std::abs(static_cast<double>(fab[f][e]) - (static_cast<double>(fa[f][e]) + fb[f][e])));
    }
    ASSERT_GT(peak, 0.0) << "field " << f << " never moved";
    EXPECT_LE(diff, 1e-5 * peak) << "field " << f;
    std::printf("[ MEASURED ] %s field %zu: max |AB - (A + B)| / max |AB| = %.2e\n", m.info().name.c_str(), f,
                diff / peak);
  }
}

// An explosion is the isotropic moment tensor (1, 1, 1, 0, 0, 0): the same bits.
TEST_P(SourceModel, IsotropicMomentTensorIsTheExplosion) {
  const Model& m = *GetParam();
  const auto& kinds = m.info().source_kinds;
  if (std::find(kinds.begin(), kinds.end(), SourceKind::moment) == kinds.end() ||
      std::find(kinds.begin(), kinds.end(), SourceKind::explosion) == kinds.end())
    GTEST_SKIP() << m.info().name << " has no moment tensor and explosion sources";
  const ModelConfig c = small(m);
  auto run_with = [&](SourceSpec s) {
    auto sim = cpu_sim(m, c);
    clear_sources(*sim);
    sim->add_source(s);
    run(*sim, 40);
    return std::pair{sim->copy_state().fields, sim->seismogram().values};
  };
  SourceSpec moment = source(SourceKind::moment, {12, 11, 9});
  moment.moment = {1, 1, 1, 0, 0, 0};
  const auto [fm, tm] = run_with(moment);
  const auto [fe, te] = run_with(source(SourceKind::explosion, {12, 11, 9}));
  for (std::size_t f = 0; f < fm.size(); ++f) EXPECT_TRUE(same_bits(fm[f], fe[f])) << "field " << f;
  EXPECT_TRUE(same_bits(tm, te));
  // And a deviatoric tensor is another field.
  moment.moment = {0, 0, 0, 1, 0, 0};
  EXPECT_FALSE(same_bits(run_with(moment).first[0], fe[0]));
}

// Row r of the seismogram holds, per component, the field (state field c) at each
// receiver after step first_step + r + 1.
TEST_P(SourceModel, ReceiversReadTheFieldAtTheirNodes) {
  const Model& m = *GetParam();
  const ModelConfig c = small(m);
  for (const char* layout : {"yz:6:grid:3", "xz:11:line:5:2", "xy:0"}) {
    auto sim = cpu_sim(m, c);
    run(*sim, 3);
    sim->set_receivers(parse_receiver_layout(layout));
    run(*sim, 25);
    const Seismogram s = sim->seismogram();
    ASSERT_EQ(s.rows(), 25) << layout;
    EXPECT_EQ(s.first_step, 3);
    EXPECT_EQ(s.nodes, receiver_nodes(parse_receiver_layout(layout), c.size)) << layout;
    const SimState st = sim->copy_state();
    for (std::size_t comp = 0; comp < s.components.size(); ++comp)
      for (int r = 0; r < s.receivers(); ++r) {
        const auto& n = s.nodes[static_cast<std::size_t>(r)];
        const std::size_t e = (static_cast<std::size_t>(n[2]) * c.size[1] + n[1]) * c.size[0] + n[0];
        EXPECT_EQ(s.at(24, static_cast<int>(comp), r), st.fields[comp][e]) << layout << " receiver " << r;
      }
  }
}

TEST_P(SourceModel, SeismogramFilesReadBack) {
  const Model& m = *GetParam();
  auto sim = cpu_sim(m, small(m));
  sim->set_receivers(parse_receiver_layout("xz:11:line:9:3"));
  run(*sim, 30);
  const Seismogram s = sim->seismogram();
  const auto dir = std::filesystem::temp_directory_path();
  const std::string npy = (dir / ("ss_seismo_" + m.info().name + ".npy")).string();
  const std::string csv = (dir / ("ss_seismo_" + m.info().name + ".csv")).string();
  write_seismogram_npy(npy, s);
  write_seismogram_csv(csv, s);
  const NpyArray a = read_npy(npy);
  EXPECT_EQ(a.shape, (std::vector<std::size_t>{30, s.components.size(), s.nodes.size()}));
  EXPECT_TRUE(same_bits(a.values, s.values));
  const Seismogram b = read_seismogram_csv(csv);
  EXPECT_EQ(b.components, s.components);
  EXPECT_EQ(b.nodes, s.nodes);
  EXPECT_EQ(b.first_step, s.first_step);
  EXPECT_NEAR(b.dt, s.dt, 1e-15 * s.dt);
  EXPECT_TRUE(same_bits(b.values, s.values));
  std::filesystem::remove(npy);
  std::filesystem::remove(csv);
}

// A click at (u, v) of a slice means the node under the cursor in the slice's layer.
TEST_P(SourceModel, ClickOnASlicePlacesASourceAtThatNode) {
  const Model& m = *GetParam();
  const ModelConfig c = small(m);
  auto sim = cpu_sim(m, c);
  const ViewPlacement where{{5, 9, 14}, {}};  // z of XY, y of XZ, x of YZ
  const std::array<std::array<int, 3>, 3> expected = {{{7, 11, 5}, {7, 9, 11}, {14, 7, 11}}};
  for (int view = 0; view < 3; ++view) {
    SourceSpec s = source(m.info().source_kinds.front(), node_on_slice(view, 7.6, 11.2, where));
    EXPECT_EQ(s.node, expected[static_cast<std::size_t>(view)]) << "view " << view;
    const std::size_t before = sim->sources().size();
    sim->add_source(s);
    ASSERT_EQ(sim->sources().size(), before + 1);
    EXPECT_EQ(sim->sources().back().node, expected[static_cast<std::size_t>(view)]);
  }
  run(*sim, 2);  // steps with all of them
}

TEST_P(SourceModel, BadSourcesAndReceiversAreRefusedAndChangeNothing) {
  const Model& m = *GetParam();
  const ModelConfig c = small(m);
  auto sim = cpu_sim(m, c);
  const auto kind = m.info().source_kinds.front();
  const std::vector<SourceSpec> before = sim->sources();
  const auto expect_refused = [&](auto&& f, const std::string& words) {
    try {
      f();
      ADD_FAILURE() << "not refused: " << words;
    } catch (const Error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(words), std::string::npos) << what;
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    }
  };
  // A click right of the XY slice: the node x = 26 of a 26-node axis.
  expect_refused([&] { sim->add_source(source(kind, node_on_slice(0, 26.3, 4, ViewPlacement{{3, 0, 0}, {}}))); },
                 "outside the grid: x runs 1 to 25");
  expect_refused([&] { sim->add_source(source(kind, {4, -1, 4})); }, "outside the grid: y runs");
  SourceSpec slow = source(kind, {5, 5, 5});
  slow.f0_hz = 0;
  expect_refused([&] { sim->add_source(slow); }, "peak frequency must be positive");
  for (SourceKind k : {SourceKind::pressure, SourceKind::force})
    if (std::find(m.info().source_kinds.begin(), m.info().source_kinds.end(), k) == m.info().source_kinds.end())
      expect_refused([&] { sim->add_source(source(k, {5, 5, 5})); }, fmt::format("no {} sources", to_string(k)));
  expect_refused([&] { sim->remove_source(7); }, "no source 8");
  EXPECT_EQ(sim->sources().size(), before.size());
  for (int n = static_cast<int>(before.size()); n < kMaxSources; ++n) sim->add_source(source(kind, {5, 5, 5}));
  expect_refused([&] { sim->add_source(source(kind, {5, 5, 5})); }, fmt::format("at most {} sources", kMaxSources));
  EXPECT_EQ(sim->sources().size(), static_cast<std::size_t>(kMaxSources));
  const ReceiverLayout old = sim->receivers().value();
  expect_refused([&] { sim->set_receivers(parse_receiver_layout("xy:21")); }, "outside the grid: z runs 0 to 20");
  expect_refused([&] { sim->set_receivers(parse_receiver_layout("xz:3:line:40")); }, "outside the grid: z runs 0 to 20");
  expect_refused([] { parse_receiver_layout("xq:3"); }, "unknown plane 'xq'");
  EXPECT_EQ(sim->receivers()->position, old.position);
  EXPECT_EQ(sim->receivers()->line_at, old.line_at);
  run(*sim, 2);
  EXPECT_EQ(sim->seismogram().rows(), 2);
}

#else  // the GPU variants against `cpu`, bit for bit, with several sources

TEST_P(SourceModel, GpuVariantsMatchCpuWithSeveralSources) {
  std::string why;
  if (!cuda_available(&why)) GTEST_SKIP() << "no CUDA device: " << why;
  const Model& m = *GetParam();
  const ModelConfig c = small(m);
  std::vector<SourceSpec> list;
  for (SourceKind k : m.info().source_kinds) {
    list.push_back(source(k, {8, 9, 7}));
    list.push_back(source(k, {8, 9, 7}, 15));  // the same node: summed in list order
    list.push_back(source(k, {12, 11, 10}, 9));  // overlapping band-limited boxes (elastic)
  }
  list.back().moment = {0.5, -1, 0.25, 1, -0.5, 2};
  list.resize(std::min<std::size_t>(list.size(), kMaxSources));
  auto setup = [&](Simulation& sim) {
    clear_sources(sim);
    for (const SourceSpec& s : list) sim.add_source(s);
    sim.set_receivers(parse_receiver_layout("xz:9:grid:2"));
  };
  auto host = cpu_sim(m, c);
  setup(*host);
  run(*host, 30);
  const SimState want = host->copy_state();
  const Seismogram want_traces = host->seismogram();
  for (const VariantSpec& v : m.info().variants) {
    if (!v.gpu || !v.live) continue;
    auto gpu = m.create(c, Backend::gpu, v.name);
    setup(*gpu);
    run(*gpu, 30);
    const SimState got = gpu->copy_state();
    ASSERT_EQ(got.fields.size(), want.fields.size());
    for (std::size_t f = 0; f < got.fields.size(); ++f)
      EXPECT_TRUE(same_bits(got.fields[f], want.fields[f])) << v.name << " field " << f;
    EXPECT_TRUE(same_bits(gpu->seismogram().values, want_traces.values)) << v.name << " traces";
  }
}

#endif

INSTANTIATE_TEST_SUITE_P(Sources, SourceModel, ::testing::ValuesIn(source_models()), name_of);

}  // namespace
