// The suite every registered model passes through the model interface (sim/core/model.hpp),
// so that a new model gets these checks by registering: its description is complete and
// consistent; reset gives the initial state; n steps then n steps equal 2n steps; a live
// order or variant switch keeps the field; copy/load round-trips bit for bit (also from
// one backend to the other); bad parameter values are refused naming the parameter and
// its range. Built twice: on the CPU backend (label host) and, with
// STENCILSCOPE_TEST_GPU, on the GPU backend (label gpu; skipped without a device).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "sim/core/device.hpp"
#include "sim/core/error.hpp"
#include "sim/core/model.hpp"

using namespace ss;

namespace {

#ifdef STENCILSCOPE_TEST_GPU
constexpr Backend kBackend = Backend::gpu;
#else
constexpr Backend kBackend = Backend::cpu;
#endif

/// A small configuration of the model whose sides are no multiple of any tile.
ModelConfig small_config(const Model& m, int order = 0) {
  const ModelInfo& info = m.info();
  const std::array<int, 3> size = info.dims == 2 ? std::array{37, 29, 1} : std::array{19, 15, 13};
  return make_config(m, size, order == 0 ? info.default_order : order, {});
}

/// The variants of the backend under test that step live.
std::vector<std::string> live_variants(const ModelInfo& info) {
  std::vector<std::string> out;
  for (const VariantSpec& v : info.variants)
    if (v.live && v.gpu == (kBackend == Backend::gpu)) out.push_back(v.name);
  return out;
}

std::string fastest(const ModelInfo& info) { return kBackend == Backend::gpu ? info.fastest_gpu : info.fastest_cpu; }

/// Every view, copied to the host (after queued work).
std::vector<std::vector<float>> all_views(Simulation& sim, const ViewPlacement& where) {
  std::vector<std::vector<float>> out;
  for (int v = 0; v < sim.views(); ++v) {
    const auto [nu, nv] = sim.view_size(v);
    out.emplace_back(static_cast<std::size_t>(nu) * nv);
    sim.copy_view(v, where, out.back().data());
  }
  return out;
}

/// The middle slices of a 3D model (unused by 2D ones).
ViewPlacement middle(const ModelConfig& c) { return ViewPlacement{{c.size[2] / 2, c.size[1] / 2, c.size[0] / 2}, {}}; }

bool same_bits(const std::vector<std::vector<float>>& a, const std::vector<std::vector<float>>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t k = 0; k < a.size(); ++k)
    if (a[k].size() != b[k].size() || std::memcmp(a[k].data(), b[k].data(), a[k].size() * sizeof(float)) != 0)
      return false;
  return true;
}

void run(Simulation& sim, int n) {
  sim.start_steps(n);
  sim.wait();
}

class EveryModel : public ::testing::TestWithParam<const Model*> {
 protected:
  void SetUp() override {
    if (kBackend == Backend::gpu) {
      std::string why;
      if (!cuda_available(&why)) GTEST_SKIP() << "no CUDA device: " << why;
    }
  }
  /// Skips a model with no live variant on the backend under test (a CPU-only model on the GPU).
  void require_variants() {
    if (live_variants(info()).empty()) GTEST_SKIP() << info().name << " has no variant on this backend";
  }
  const Model& model() const { return *GetParam(); }
  const ModelInfo& info() const { return GetParam()->info(); }
  std::unique_ptr<Simulation> make(const std::string& variant, int order = 0) const {
    return model().create(small_config(model(), order), kBackend, variant);
  }
  /// The live variants that run this configuration: a model may refuse one for it (the
  /// posts' own deriv3d kernels exist for 64^3 and 256^3 only), never its fastest.
  std::vector<std::string> runnable() const {
    std::vector<std::string> out;
    for (const std::string& v : live_variants(info())) {
      try {
        make(v);
        out.push_back(v);
      } catch (const Error& e) {
        if (v == fastest(info())) ADD_FAILURE() << "the fastest variant " << v << " is refused: " << e.what();
        else std::printf("[ NOTE     ] %s %s not run here: %s\n", info().name.c_str(), v.c_str(), e.what());
      }
    }
    return out;
  }
};

std::string name_of(const ::testing::TestParamInfo<const Model*>& p) { return p.param->info().name; }

}  // namespace

TEST(ModelRegistry, NamesAreUniqueAndFoundAndAnUnknownNameListsThem) {
  ASSERT_FALSE(models().empty());
  for (const Model* m : models()) EXPECT_EQ(&find_model(m->info().name), m);
  for (std::size_t a = 0; a < models().size(); ++a)
    for (std::size_t b = a + 1; b < models().size(); ++b) EXPECT_NE(models()[a]->info().name, models()[b]->info().name);
  try {
    find_model("heat9d");
    FAIL() << "an unknown model was found";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("heat9d"), std::string::npos) << e.what();
    for (const Model* m : models()) EXPECT_NE(std::string(e.what()).find(m->info().name), std::string::npos) << e.what();
  }
}

TEST_P(EveryModel, DescriptionIsCompleteAndItsDefaultsAreAccepted) {
  const ModelInfo& i = info();
  EXPECT_FALSE(i.title.empty());
  EXPECT_FALSE(i.description.empty());
  EXPECT_TRUE(i.dims == 2 || i.dims == 3);
  ASSERT_FALSE(i.orders.empty());
  EXPECT_NE(std::find(i.orders.begin(), i.orders.end(), i.default_order), i.orders.end());
  ASSERT_FALSE(i.views.quantities.empty());
  if (!i.views.overlay_quantity.empty())  // the medium overlay reads a quantity the views show
    EXPECT_NE(std::find(i.views.quantities.begin(), i.views.quantities.end(), i.views.overlay_quantity),
              i.views.quantities.end());
  for (const ParamSpec& p : i.params) {
    EXPECT_FALSE(p.label.empty()) << p.name;
    EXPECT_FALSE(p.help.empty()) << p.name;
    if (p.takes_text()) {
      EXPECT_NO_THROW(check_param(p, p.default_value())) << p.name;
    } else {
      EXPECT_LE(p.min, p.max) << p.name;
      EXPECT_NO_THROW(check_param(p, p.default_number)) << p.name;
    }
  }
  const VariantSpec* cpu = i.variant(i.fastest_cpu);
  ASSERT_NE(cpu, nullptr) << "fastest_cpu names no variant";
  EXPECT_TRUE(!cpu->gpu && cpu->live);
  bool has_gpu_variant = false;
  for (const VariantSpec& v : i.variants) has_gpu_variant = has_gpu_variant || (v.gpu && v.live);
  if (has_gpu_variant) {  // a model without GPU variants leaves fastest_gpu empty
    const VariantSpec* gpu = i.variant(i.fastest_gpu);
    ASSERT_NE(gpu, nullptr) << "fastest_gpu names no variant";
    EXPECT_TRUE(gpu->gpu && gpu->live);
  } else {
    EXPECT_TRUE(i.fastest_gpu.empty());
  }
  for (const VariantSpec& v : i.variants) EXPECT_FALSE(v.help.empty()) << v.name;
  for (const Preset& pr : i.presets) {
    for (const auto& [name, value] : pr.values) {
      const ParamSpec* p = i.param(name);
      ASSERT_NE(p, nullptr) << pr.name << " sets unknown " << name;
      EXPECT_NO_THROW(check_param(*p, value)) << pr.name << ": " << name;
    }
  }
  // The app's default scene and the bench's default configuration are valid.
  EXPECT_NO_THROW(make_config(model(), i.default_size, i.default_order, {}));
  EXPECT_NO_THROW(make_config(model(), i.bench.default_size, i.default_order, {}, true));
  EXPECT_GE(i.bench.default_steps, 1);
}

TEST_P(EveryModel, BadParameterValuesAreRefusedNamingTheParameterAndItsRange) {
  const std::array<int, 3> size = small_config(model()).size;
  for (const ParamSpec& p : info().params) {
    ParamValues bad;
    std::string expect;
    if (p.kind == ParamKind::choice) {
      bad[p.name] = std::string("no-such-word");
      expect = p.choices.front();
    } else if (p.kind == ParamKind::file) {
      bad[p.name] = std::string("/no/such/file.npy");
      expect = "/no/such/file.npy";
    } else if (p.min > -1e299) {
      bad[p.name] = p.min - (p.min == 0 ? 1.0 : std::abs(p.min) * 2 + 1);
      expect = fmt::format("{:g}", p.min);
      if (p.zero_means_auto && p.min == 0) expect = "positive";
    } else {
      bad[p.name] = p.max * 2 + 1;
      expect = fmt::format("{:g}", p.max);
    }
    try {
      make_config(model(), size, info().default_order, bad);
      ADD_FAILURE() << p.name << " = " << to_string(bad[p.name]) << " was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(p.name), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(expect), std::string::npos) << "the range is named: " << e.what();
    }
  }
  try {
    make_config(model(), size, info().default_order, {{"no_such_parameter", 1.0}});
    ADD_FAILURE() << "an unknown parameter was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no_such_parameter"), std::string::npos) << e.what();
  }
  EXPECT_THROW(make_config(model(), size, 5, {}), Error) << "order 5";
  EXPECT_THROW(make_config(model(), {2, 2, 2}, info().default_order, {}), Error) << "a grid below the stencil";
}

TEST_P(EveryModel, ResetGivesTheInitialState) {
  require_variants();
  for (const std::string& v : runnable()) {
    auto sim = make(v);
    const ViewPlacement where = middle(sim->config());
    const SimState s0 = sim->copy_state();
    const auto views0 = all_views(*sim, where);
    run(*sim, 3);
    EXPECT_EQ(sim->steps_done(), 3) << v;
    sim->reset();
    EXPECT_EQ(sim->steps_done(), 0) << v;
    EXPECT_EQ(sim->copy_state().fields, s0.fields) << v;
    EXPECT_TRUE(same_bits(all_views(*sim, where), views0)) << v;
  }
}

TEST_P(EveryModel, NStepsThenNStepsEqualTwoNSteps) {
  require_variants();
  for (const std::string& v : runnable()) {
    auto a = make(v), b = make(v);
    const ViewPlacement where = middle(a->config());
    run(*a, 3);
    run(*a, 3);
    run(*b, 6);
    EXPECT_EQ(a->steps_done(), 6) << v;
    EXPECT_EQ(b->steps_done(), 6) << v;
    EXPECT_TRUE(same_bits(a->copy_state().fields, b->copy_state().fields)) << v;
    EXPECT_TRUE(same_bits(all_views(*a, where), all_views(*b, where))) << v;
  }
}

TEST_P(EveryModel, LiveOrderAndVariantSwitchesKeepTheField) {
  require_variants();
  const std::vector<std::string> variants = runnable();
  ASSERT_FALSE(variants.empty());
  auto sim = make(variants.front());
  run(*sim, 2);
  const SimState before = sim->copy_state();
  for (int order : info().orders) {
    sim->set_order(order);
    EXPECT_EQ(sim->config().order, order);
    const SimState after = sim->copy_state();
    EXPECT_EQ(after.steps_done, before.steps_done) << "order " << order;
    EXPECT_TRUE(same_bits(after.fields, before.fields)) << "order " << order;
  }
  for (const std::string& v : variants) {
    const SimState prior = sim->copy_state();
    sim->set_variant(v);
    EXPECT_EQ(sim->variant(), v);
    EXPECT_TRUE(same_bits(sim->copy_state().fields, prior.fields)) << v;
    run(*sim, 1);  // and it steps
    EXPECT_EQ(sim->steps_done(), prior.steps_done + 1) << v;
  }
  // A variant of the other backend, or one that does not step live, is refused.
  for (const VariantSpec& v : info().variants) {
    if (v.gpu != (kBackend == Backend::gpu) || !v.live) {
      EXPECT_THROW(sim->set_variant(v.name), Error) << v.name;
    }
  }
}

TEST_P(EveryModel, CopyAndLoadRoundTripBitwise) {
  require_variants();
  auto sim = make(fastest(info()));
  const ViewPlacement where = middle(sim->config());
  run(*sim, 2);
  const SimState saved = sim->copy_state();
  const auto views = all_views(*sim, where);
  run(*sim, 3);
  sim->load_state(saved);
  EXPECT_EQ(sim->steps_done(), saved.steps_done);
  EXPECT_TRUE(same_bits(sim->copy_state().fields, saved.fields));
  EXPECT_TRUE(same_bits(all_views(*sim, where), views));
  // Into a fresh simulation of the same configuration: it continues bit for bit.
  auto other = make(fastest(info()));
  other->load_state(saved);
  run(*sim, 2);
  run(*other, 2);
  EXPECT_TRUE(same_bits(all_views(*sim, where), all_views(*other, where)));
  // A state of another shape is refused.
  SimState wrong = saved;
  wrong.fields.emplace_back(3, 0.0f);
  EXPECT_THROW(sim->load_state(wrong), Error);
}

TEST_P(EveryModel, DiagnosticsAreNamedAndFinite) {
  require_variants();
  auto sim = make(fastest(info()));
  run(*sim, 2);
  const std::vector<Diagnostic> d = sim->diagnostics();
  if (sim->copy_state().fields.empty()) return;  // a model with no state of its own may report nothing
  ASSERT_FALSE(d.empty());
  for (const Diagnostic& x : d) {
    EXPECT_FALSE(x.name.empty());
    EXPECT_TRUE(std::isfinite(x.value)) << x.name;
  }
}

// health() pauses the window's loop when it says something (asked twice a second of the
// models whose checks_health() is true): the default scene runs healthy.
TEST_P(EveryModel, TheDefaultSceneRunsHealthy) {
  require_variants();
  auto sim = make(fastest(info()));
  run(*sim, 2);
  EXPECT_EQ(sim->health(), "") << info().name << (sim->checks_health() ? " (checks its health)" : "");
}

#ifdef STENCILSCOPE_TEST_GPU
TEST_P(EveryModel, AStateMovesBetweenTheCpuAndTheGpuAndStepsTheSameBits) {
  require_variants();
  const ModelConfig c = small_config(model());
  auto cpu = model().create(c, Backend::cpu, info().fastest_cpu);
  auto gpu = model().create(c, Backend::gpu, info().fastest_gpu);
  const ViewPlacement where = middle(c);
  run(*cpu, 3);
  gpu->load_state(cpu->copy_state());
  run(*cpu, 2);
  run(*gpu, 2);
  EXPECT_TRUE(same_bits(all_views(*cpu, where), all_views(*gpu, where)));
  EXPECT_TRUE(same_bits(cpu->copy_state().fields, gpu->copy_state().fields));
}
#endif

// What the app's probes and `export --out F.vti` read: one cell of each quantity (on the
// GPU only that value crosses the bus) is that cell of the XY view through it, and the
// cells lie on a grid of positive spacing.
TEST_P(EveryModel, ReadCellIsTheCellOfTheXYViewForEveryQuantity) {
  require_variants();
  auto sim = make(fastest(info()));
  run(*sim, 2);
  const auto& n = sim->config().size;
  const std::vector<std::array<int, 3>> cells = {{0, 0, 0}, {n[0] - 1, n[1] - 1, n[2] - 1}, {n[0] / 3, n[1] / 2, n[2] / 2}};
  std::vector<std::string> quantities = info().views.quantities;
  quantities.push_back("");  // the default
  for (const std::string& q : quantities)
    for (const auto& c : cells) {
      ViewPlacement where = middle(sim->config());
      where.slices[0] = c[2];
      where.quantity = q;
      std::vector<float> xy(static_cast<std::size_t>(n[0]) * n[1]);
      sim->copy_view(0, where, xy.data());
      const float want = xy[static_cast<std::size_t>(c[1]) * n[0] + c[0]];
      const float got = sim->read_cell(c, q);
      EXPECT_EQ(std::memcmp(&want, &got, sizeof want), 0)
          << "'" << q << "' at (" << c[0] << ", " << c[1] << ", " << c[2] << "): " << got << " != " << want;
    }
  EXPECT_THROW(sim->read_cell({n[0], 0, 0}), Error);
  const GridGeometry g = sim->geometry();
  for (double h : g.spacing) EXPECT_GT(h, 0);
}

INSTANTIATE_TEST_SUITE_P(Registered, EveryModel, ::testing::ValuesIn(models()), name_of);
