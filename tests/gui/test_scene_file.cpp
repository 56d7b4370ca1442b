// Scene files (app/scene_file.hpp): every registered model's settings survive a write
// and a read; bad files are refused with one line naming the file, the line and the
// key; every scene in assets/scenes opens.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "checkpoint.hpp"
#include "scene_file.hpp"
#include "settings.hpp"
#include "sim/core/error.hpp"
#include "sim/core/npy.hpp"

using namespace ss;
using namespace ss::app;

namespace {

/// A scratch file of the running test: ctest runs the tests of this binary as processes side
/// by side, and two that wrote the same file read each other's text now and then.
std::filesystem::path scratch(const std::string& name) {
  const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string owner = test ? std::string(test->name()) + "_" : std::string();
  return std::filesystem::path(::testing::TempDir()) / ("stencilscope_scene_" + owner + name + ".toml");
}

/// Settings away from every default: a non-default size, order, variant, parameter
/// values inside their ranges, slices, steps per frame, and a fixed range.
void unusual_settings(const Model& model, SimSettings& s, ViewSettings& v) {
  const ModelInfo& info = model.info();
  switch_model(s, model, false);
  s.nx = info.default_size[0] / 2 + 3;
  s.ny = info.default_size[1] / 2 + 5;
  if (info.dims == 3) s.nz = info.default_size[2] / 2 + 7;
  s.order = info.orders.front();
  s.probes = {{1, 2, info.dims == 3 ? 3 : 0}, {0, 0, 0}};
  for (const VariantSpec& var : info.variants)
    if (var.live && var.name != s.variant) s.variant = var.name;
  for (const ParamSpec& p : info.params) {
    if (p.kind == ParamKind::choice) {
      s.params[p.name] = p.choices.back();
    } else if (p.kind == ParamKind::file) {
      // none: a file must fit the grid (SceneFile.AFileParameterIsRelativeToTheScene)
    } else if (!p.zero_means_auto) {
      const double lo = std::max(p.min, -1e6), hi = std::min(p.max, 1e6);
      double x = lo + (hi - lo) * 0.3183098861837907;  // not a round number: checks the digits survive
      if (p.kind == ParamKind::integer) x = std::floor(x);
      s.params[p.name] = x;
    }
  }
  if (info.dims == 3) s.slice = {1, 2, 3};
  s.quantity = info.views.quantities.back();
  s.adaptive_steps = false;
  s.steps_per_frame = 17;
  v.style.colormap = render::Colormap::magma;
  v.style.sampling = render::Sampling::linear;
  v.style.colorbar = false;
  v.range_mode = render::RangeMode::fixed;
  v.fixed_range = {-0.1234567890123, 2.5e-7};
  v.style.transform = {3.7071067811865475, 12.25, -0.3333333333333333};
}

std::string write_text(const std::string& name, const std::string& text) {
  const auto path = scratch(name);
  std::ofstream(path) << text;
  return path.string();
}

/// The one-line error reading `text` gives.
std::string error_of(const std::string& text) {
  const std::string path = write_text("bad", text);
  try {
    SimSettings s;
    ViewSettings v;
    apply_scene_file(read_scene(path), s, v);
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    return m;
  }
  ADD_FAILURE() << "accepted:\n" << text;
  return {};
}

const std::string kGood =
    "model = \"heat3d\"\n"           // 1
    "size = [24, 20, 16]\n"          // 2
    "order = 4\n"                    // 3
    "[params]\n"                     // 4
    "boundary = \"periodic\"\n"      // 5
    "alpha = 0.5\n"                  // 6
    "[view]\n"                       // 7
    "colormap = \"inferno\"\n"       // 8
    "range = \"auto\"\n";            // 9

std::string replace(std::string text, const std::string& from, const std::string& to) {
  text.replace(text.find(from), from.size(), to);
  return text;
}

}  // namespace

TEST(SceneFile, EveryModelRoundTrips) {
  for (const Model* m : models()) {
    SCOPED_TRACE(m->info().name);
    SimSettings s;
    ViewSettings v;
    unusual_settings(*m, s, v);
    const std::string path = scratch("round_trip_" + m->info().name).string();
    write_scene(path, s, v);
    SimSettings s2;
    ViewSettings v2;
    apply_scene_file(read_scene(path), s2, v2);
    EXPECT_EQ(s2.model, s.model);
    EXPECT_EQ(s2.nx, s.nx);
    EXPECT_EQ(s2.ny, s.ny);
    EXPECT_EQ(s2.nz, s.nz);
    EXPECT_EQ(s2.order, s.order);
    EXPECT_EQ(s2.variant, s.variant);
    EXPECT_EQ(s2.params, to_model_config(s).params);  // every parameter, bit for bit
    EXPECT_EQ(s2.params.size(), m->info().params.size());
    EXPECT_EQ(s2.slice, s.slice);
    EXPECT_EQ(s2.quantity, s.quantity);
    EXPECT_EQ(s2.adaptive_steps, s.adaptive_steps);
    EXPECT_EQ(s2.steps_per_frame, s.steps_per_frame);
    EXPECT_EQ(v2.style.colormap, v.style.colormap);
    EXPECT_EQ(v2.style.sampling, v.style.sampling);
    EXPECT_EQ(v2.style.colorbar, v.style.colorbar);
    EXPECT_EQ(v2.range_mode, v.range_mode);
    EXPECT_EQ(v2.fixed_range.lo, v.fixed_range.lo);
    EXPECT_EQ(v2.fixed_range.hi, v.fixed_range.hi);
    EXPECT_EQ(v2.style.transform.zoom, v.style.transform.zoom);
    EXPECT_EQ(v2.style.transform.pan_x, v.style.transform.pan_x);
    EXPECT_EQ(v2.style.transform.pan_y, v.style.transform.pan_y);
    // Written again, the text is the same.
    EXPECT_EQ(scene_text(to_scene_file(s2, v2)), scene_text(to_scene_file(s, v)));
    std::filesystem::remove(path);
  }
}

TEST(SceneFile, DefaultScenesRoundTripToo) {
  for (const Model* m : models()) {
    SimSettings s;
    ViewSettings v;
    switch_model(s, *m, false);
    const SceneFile f = parse_scene(scene_text(to_scene_file(s, v)), "x.toml");
    SimSettings s2;
    ViewSettings v2;
    apply_scene_file(f, s2, v2);
    EXPECT_EQ(scene_text(to_scene_file(s2, v2)), scene_text(to_scene_file(s, v))) << m->info().name;
  }
}

TEST(SceneFile, AGoodFileReads) {
  const SceneFile f = parse_scene(kGood, "good.toml");
  EXPECT_EQ(f.model, "heat3d");
  EXPECT_EQ(f.size, (std::array<int, 3>{24, 20, 16}));
  EXPECT_EQ(f.order, 4);
  EXPECT_TRUE(f.variant.empty());
  EXPECT_EQ(std::get<std::string>(f.params.at("boundary")), "periodic");
  EXPECT_EQ(std::get<double>(f.params.at("alpha")), 0.5);
  EXPECT_EQ(f.params.size(), find_model("heat3d").info().params.size());  // the rest at their defaults
  EXPECT_EQ(f.where("params.alpha"), "good.toml:6");
}

TEST(SceneFile, BadFilesNameFileLineAndKey) {
  const std::string path = scratch("bad").string();
  EXPECT_EQ(error_of(replace(kGood, "order = 4\n", "order = 4\ncolour = 1\n")),
            path + ":4: unknown key 'colour' (a scene has model, size, order, variant, params, view, ab, receivers, sources)");
  EXPECT_EQ(error_of(replace(kGood, "alpha = 0.5", "alfa = 0.5")).rfind(path + ":6: params.alfa is not a parameter of heat3d", 0), 0u);
  EXPECT_EQ(error_of(replace(kGood, "alpha = 0.5", "alpha = -1")),
            path + ":6: params.alpha = -1 is out of range (1e-12 to 1e+12)");
  EXPECT_EQ(error_of(replace(kGood, "alpha = 0.5", "alpha = \"hot\"")).rfind(path + ":6: params.alpha must be a number", 0), 0u);
  EXPECT_EQ(error_of(replace(kGood, "order = 4", "order = \"4\"")).rfind(path + ":3: order must be an integer", 0), 0u);
  EXPECT_EQ(error_of(replace(kGood, "boundary = \"periodic\"", "boundary = 3")).rfind(path + ":5: params.boundary must be a string", 0), 0u);
  EXPECT_EQ(error_of(replace(kGood, "heat3d", "heat9d")).rfind(path + ":1: model: unknown model 'heat9d'", 0), 0u);
  EXPECT_EQ(error_of(replace(kGood, "alpha = 0.5", "alpha = 0.5 =")).rfind(path + ":6: TOML syntax error", 0), 0u);
  EXPECT_EQ(error_of(replace(kGood, "order = 4", "order = 4\nvariant = \"fastest\"")).rfind(path + ":4: variant: unknown variant 'fastest'", 0), 0u);
  EXPECT_EQ(error_of(replace(kGood, "order = 4", "order = 4\nvariant = \"reference\"")).rfind(path + ":4: variant:", 0), 0u);
  EXPECT_EQ(error_of(replace(kGood, "inferno", "infernal")).rfind(path + ":8: view.colormap: unknown colormap 'infernal'", 0), 0u);
  EXPECT_EQ(error_of(replace(kGood, "\"auto\"", "[2, 1]")).rfind(path + ":9: view.range must be", 0), 0u);
  EXPECT_EQ(error_of(replace(kGood, "order = 4", "order = 5")).rfind(path + ":3: order = 5 is not a stencil order", 0), 0u);
  EXPECT_EQ(error_of(replace(kGood, "[24, 20, 16]", "[24, 20]")).rfind(path + ":2: size must be [nx, ny, nz]", 0), 0u);
  EXPECT_EQ(error_of(replace(kGood, "range = \"auto\"", "slices = [0, 0, 99]")).rfind(path + ":9: view.slices x = 99 is outside", 0), 0u);
  EXPECT_EQ(error_of(replace(kGood, "alpha = 0.5", "dt = 1")).rfind(path + ":6: params.dt: ", 0), 0u);  // the model's own check
  EXPECT_EQ(error_of("size = [8, 8]\n").rfind(path + ": no model", 0), 0u);
  EXPECT_EQ(error_of(replace(kGood, "range = \"auto\"", "probes = [[0, 0, 16]]")).rfind(path + ":9: view.probes [ 0, 0, 16 ] is outside", 0), 0u);
  EXPECT_EQ(error_of(replace(kGood, "range = \"auto\"", "probes = [1, 2]")).rfind(path + ":9: each of view.probes must be [x, y, z]", 0), 0u);
  EXPECT_EQ(error_of(replace(kGood, "[view]", "[view]\nzooom = 2")).rfind(path + ":8: unknown key 'view.zooom'", 0), 0u);
  EXPECT_EQ(error_of(replace(kGood, "[view]", "[view]\nzoom = 0")),
            path + ":8: view.zoom must be a number from 0.05 to 1000, not 0");
  EXPECT_EQ(error_of(replace(kGood, "[view]", "[view]\npan = [1, nan]")).rfind(path + ":8: view.pan must be finite", 0), 0u);
  EXPECT_EQ(error_of(replace(kGood, "[view]", "[view]\npan = 3")).rfind(path + ":8: view.pan must be [x, y]", 0), 0u);
  std::filesystem::remove(path);
}

TEST(SceneFile, AMissingFileIsNamed) {
  try {
    read_scene("/nonexistent-dir/scene.toml");
    FAIL() << "accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-dir/scene.toml"), std::string::npos) << e.what();
  }
}

TEST(SceneFile, EveryAssetSceneValidates) {
  int n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(STENCILSCOPE_SCENES_DIR)) {
    if (entry.path().extension() != ".toml") continue;
    SCOPED_TRACE(entry.path().string());
    SimSettings s;
    ViewSettings v;
    EXPECT_NO_THROW(apply_scene_file(read_scene(entry.path().string()), s, v));
    EXPECT_NO_THROW(to_model_config(s));
    ++n;
  }
  EXPECT_GE(n, 3);
}

// assets/scenes holds every model's presets (issue 20 item 3): for each preset, a scene of
// that model whose parameters include the preset's values, which validates as above.
TEST(SceneFile, EveryModelsPresetsHaveAnAssetScene) {
  std::vector<std::pair<std::string, SimSettings>> scenes;
  for (const auto& entry : std::filesystem::directory_iterator(STENCILSCOPE_SCENES_DIR)) {
    if (entry.path().extension() != ".toml") continue;
    SimSettings s;
    ViewSettings v;
    apply_scene_file(read_scene(entry.path().string()), s, v);
    scenes.emplace_back(entry.path().filename().string(), s);
  }
  int presets = 0;
  for (const Model* m : models())
    for (const Preset& p : m->info().presets) {
      ++presets;
      const auto holds = [&](const SimSettings& s) {
        if (s.model != m->info().name) return false;
        return std::all_of(p.values.begin(), p.values.end(), [&](const auto& kv) {
          const auto it = s.params.find(kv.first);
          return it != s.params.end() && it->second == kv.second;
        });
      };
      const auto found = std::find_if(scenes.begin(), scenes.end(), [&](const auto& sc) { return holds(sc.second); });
      EXPECT_NE(found, scenes.end()) << m->info().name << "'s preset \"" << p.name << "\" has no scene in assets/scenes";
    }
  EXPECT_GE(presets, 18);
}

TEST(SceneFile, AFileParameterIsRelativeToTheScene) {
  // A scene in its own folder names vp.npy beside it; read from any working directory, the
  // path is resolved against the scene's folder, and a scene written elsewhere names it
  // relative to its own folder.
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "stencilscope_scene_media";
  std::filesystem::create_directories(dir / "sub");
  const std::vector<float> vp(16 * 16 * 16, 1800.f);
  write_npy((dir / "vp.npy").string(), vp.data(), {16, 16, 16});
  const std::string scene = (dir / "scene.toml").string();
  std::ofstream(scene) << "model = \"acoustic3d\"\nsize = [16, 16, 16]\n[params]\nvp_file = \"vp.npy\"\n";
  const SceneFile f = read_scene(scene);
  EXPECT_EQ(std::get<std::string>(f.params.at("vp_file")), (dir / "vp.npy").string());
  const std::string moved = (dir / "sub" / "moved.toml").string();
  write_scene(moved, f);
  std::ifstream in(moved);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("vp_file = \"../vp.npy\""), std::string::npos) << text;
  EXPECT_EQ(std::get<std::string>(read_scene(moved).params.at("vp_file")), (dir / "vp.npy").string());
  // A file that does not fit is refused naming the scene and the file.
  std::ofstream(scene) << "model = \"acoustic3d\"\nsize = [16, 16, 20]\n[params]\nvp_file = \"vp.npy\"\n";
  try {
    read_scene(scene);
    ADD_FAILURE() << "a file of another shape was accepted";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("scene.toml"), std::string::npos) << m;
    EXPECT_NE(m.find("vp.npy"), std::string::npos) << m;
    EXPECT_NE(m.find("(16, 16, 16)"), std::string::npos) << m;
  }
}

namespace {

// An acoustic3d scene with two sources, receivers, A/B and the overlay (lines numbered).
const std::string kWave =
    "model = \"acoustic3d\"\n"            // 1
    "size = [30, 26, 22]\n"               // 2
    "[view]\n"                            // 3
    "overlay = true\n"                    // 4
    "overlay_opacity = 0.7\n"             // 5
    "[ab]\n"                              // 6
    "enabled = true\n"                    // 7
    "order = 2\n"                         // 8
    "[receivers]\n"                       // 9
    "plane = \"xz\"\n"                    // 10
    "position = 12\n"                     // 11
    "shape = \"grid\"\n"                  // 12
    "spacing = 3\n"                       // 13
    "[[sources]]\n"                       // 14
    "kind = \"pressure\"\n"               // 15
    "node = [8, 9, 7]\n"                  // 16
    "f0 = 15\n"                           // 17
    "[[sources]]\n"                       // 18
    "kind = \"pressure\"\n"               // 19
    "node = [20, 12, 10]\n"               // 20
    "amplitude = -0.25\n"                 // 21
    "delay = 0.0125\n";                   // 22

}  // namespace

// Sources, receivers, A/B and the overlay survive save and load (the file's text too).
TEST(SceneFile, SourcesReceiversAbAndOverlayRoundTrip) {
  const SceneFile f = parse_scene(kWave, "wave.toml");
  ASSERT_TRUE(f.sources);
  ASSERT_EQ(f.sources->size(), 2u);
  EXPECT_EQ((*f.sources)[0].node, (std::array<int, 3>{8, 9, 7}));
  EXPECT_EQ((*f.sources)[0].f0_hz, 15);
  EXPECT_EQ((*f.sources)[1].amplitude, -0.25);
  EXPECT_EQ((*f.sources)[1].delay_s, 0.0125);
  ASSERT_TRUE(f.receivers);
  EXPECT_EQ(f.receivers->axis, 1);
  EXPECT_EQ(f.receivers->position, 12);
  EXPECT_EQ(f.receivers->shape, ReceiverLayout::Shape::grid);
  EXPECT_EQ(f.receivers->spacing, 3);
  EXPECT_EQ(f.where("sources[1].node"), "wave.toml:20");

  SimSettings s;
  ViewSettings v;
  apply_scene_file(f, s, v);
  EXPECT_TRUE(s.ab.enabled);
  EXPECT_EQ(s.ab.order, 2);
  EXPECT_TRUE(v.style.medium_overlay);
  EXPECT_FLOAT_EQ(v.style.medium_opacity, 0.7f);

  // Through the settings and the running simulation, as the window saves it.
  const Model& m = find_model("acoustic3d");
  auto sim = m.create(to_model_config(s), Backend::cpu, "cpu");
  apply_scene_sources(f, *sim);
  const std::string path = scratch("wave").string();
  write_scene(path, s, v, *sim);
  const SceneFile back = read_scene(path);
  {
    std::ifstream in(path);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("\noverlay_opacity = 0.7  #"), std::string::npos) << text;  // the float's short form
  }
  ASSERT_TRUE(back.sources);
  ASSERT_EQ(back.sources->size(), 2u);
  for (std::size_t k = 0; k < 2; ++k) {
    EXPECT_EQ((*back.sources)[k].node, (*f.sources)[k].node);
    EXPECT_EQ((*back.sources)[k].f0_hz, (*f.sources)[k].f0_hz);
    EXPECT_EQ((*back.sources)[k].amplitude, (*f.sources)[k].amplitude);
    EXPECT_EQ((*back.sources)[k].delay_s, (*f.sources)[k].delay_s);
  }
  ASSERT_TRUE(back.receivers);
  EXPECT_EQ(describe(*back.receivers), describe(*f.receivers));
  SimSettings s2;
  ViewSettings v2;
  apply_scene_file(back, s2, v2);
  EXPECT_EQ(scene_text(back), scene_text(to_scene_file(s, v, *sim)));
  EXPECT_TRUE(v2.style.medium_overlay);
  EXPECT_EQ(s2.ab.order, 2);

  // Force and moment sources keep their direction and tensor (elastic3d).
  SceneFile e = parse_scene("model = \"elastic3d\"\nsize = [24, 24, 24]\n"
                            "[[sources]]\nkind = \"force\"\nnode = [5, 6, 7]\ndirection = [1, 0, 0.5]\n"
                            "[[sources]]\nkind = \"moment\"\nnode = [9, 9, 9]\nmoment = [0, 0, 0, 1, 0, -2]\n",
                            "e.toml");
  const SceneFile e2 = parse_scene(scene_text(e), "e2.toml");
  ASSERT_TRUE(e2.sources);
  ASSERT_EQ(e2.sources->size(), 2u);
  EXPECT_EQ((*e2.sources)[0].direction, (std::array<double, 3>{1, 0, 0.5}));
  EXPECT_EQ((*e2.sources)[1].moment, (std::array<double, 6>{0, 0, 0, 1, 0, -2}));
  // An empty list stays empty: no source at all, not the model's own.
  e.sources = std::vector<SourceSpec>{};
  const SceneFile e3 = parse_scene(scene_text(e), "e3.toml");
  ASSERT_TRUE(e3.sources);
  EXPECT_TRUE(e3.sources->empty());
  std::filesystem::remove(path);
}

TEST(SceneFile, BadSourcesReceiversAndAbNameFileLineAndKey) {
  const std::string path = scratch("bad").string();
  EXPECT_EQ(error_of(replace(kWave, "kind = \"pressure\"\nnode = [8", "kind = \"wobble\"\nnode = [8"))
                .rfind(path + ":15: sources[0].kind: ", 0), 0u);
  EXPECT_EQ(error_of(replace(kWave, "kind = \"pressure\"\nnode = [8", "kind = \"force\"\nnode = [8")),
            path + ":15: sources[0].kind: this model has no force sources (it takes pressure)");
  EXPECT_EQ(error_of(replace(kWave, "[20, 12, 10]", "[20, 40, 10]")),
            path + ":20: sources[1].node: source at (x 20, y 40, z 10) is outside the grid: y runs 1 to 25");
  EXPECT_EQ(error_of(replace(kWave, "[20, 12, 10]", "[20, 12]")).rfind(path + ":20: sources[1].node must be [x, y, z]", 0), 0u);
  EXPECT_EQ(error_of(replace(kWave, "f0 = 15", "f0 = -1")).rfind(path + ":17: sources[0].f0: ", 0), 0u);
  EXPECT_EQ(error_of(replace(kWave, "f0 = 15", "fo = 15")).rfind(path + ":17: unknown key 'sources[0].fo'", 0), 0u);
  EXPECT_EQ(error_of(replace(kWave, "f0 = 15", "direction = [1, 0, 0]")),
            path + ":17: sources[0].direction applies to force sources only");
  EXPECT_EQ(error_of(replace(kWave, "plane = \"xz\"", "plane = \"xw\"")),
            path + ":10: receivers.plane = \"xw\" is not a plane (choose xy, xz or yz)");
  EXPECT_EQ(error_of(replace(kWave, "position = 12", "position = 26")).rfind(path + ":11: receivers: receivers on the xz plane", 0), 0u);
  EXPECT_EQ(error_of(replace(kWave, "shape = \"grid\"", "shape = \"ring\"")).rfind(path + ":12: receivers.shape", 0), 0u);
  EXPECT_EQ(error_of(replace(kWave, "spacing = 3", "spacing = 0")).rfind(path + ":13: receivers.spacing = 0 is out of range", 0), 0u);
  EXPECT_EQ(error_of(replace(kWave, "order = 2", "order = 3")).rfind(path + ":8: ab.order = 3 is not a stencil order", 0), 0u);
  EXPECT_EQ(error_of(replace(kWave, "enabled = true", "enabled = 1")).rfind(path + ":7: ab.enabled must be true or false", 0), 0u);
  EXPECT_EQ(error_of(replace(kWave, "order = 2", "order = 2\nvariant = \"fastest\"")).rfind(path + ":9: ab.variant: unknown variant", 0), 0u);
  EXPECT_EQ(error_of(replace(kWave, "order = 2", "order = 2\n[ab.params]\nc_max = -4")).rfind(path + ":10: ab.params.", 0), 0u);
  EXPECT_EQ(error_of(replace(kWave, "overlay_opacity = 0.7", "overlay_opacity = 2")).rfind(path + ":5: view.overlay_opacity must be", 0), 0u);
  EXPECT_EQ(error_of(replace(kGood, "range = \"auto\"", "range = \"auto\"\n[[sources]]\nkind = \"pressure\"\nnode = [1, 1, 1]"))
                .rfind(path + ":10: sources: heat3d has no point sources", 0), 0u);
  std::filesystem::remove(path);
}

// A checkpoint written after two sources were placed mid-run resumes with them and the
// receivers, and goes on bit for bit as the run that was never interrupted.
TEST(SceneFile, ACheckpointKeepsPlacedSourcesAndResumesBitForBit) {
  if (!checkpoints_built()) GTEST_SKIP() << "built without HDF5";
  const Model& m = find_model("acoustic3d");
  SimSettings s;
  ViewSettings v;
  switch_model(s, m, false);
  s.nx = 30, s.ny = 26, s.nz = 22;
  s.variant = "cpu";
  const ModelConfig config = to_model_config(s);
  ReceiverLayout receivers;
  receivers.axis = 1;
  receivers.position = 12;
  receivers.line_at = 10;
  receivers.spacing = 2;
  // Places a source firing now, as a click does (LiveSimulation::place_source).
  auto place = [](Simulation& sim, std::array<int, 3> node, double f0) {
    SourceSpec src;
    src.node = node;
    src.f0_hz = f0;
    src.delay_s = sim.time();
    sim.add_source(src);
  };
  auto whole = m.create(config, Backend::cpu, "cpu");
  auto cut = m.create(config, Backend::cpu, "cpu");
  for (Simulation* sim : {whole.get(), cut.get()}) {
    sim->set_receivers(receivers);
    sim->start_steps(7);
    sim->wait();
    place(*sim, {8, 9, 7}, 40);
    sim->start_steps(5);
    sim->wait();
    place(*sim, {20, 12, 10}, 30);
    sim->start_steps(6);
    sim->wait();
  }
  const std::string path = (std::filesystem::path(::testing::TempDir()) / "stencilscope_scene_sources.h5").string();
  write_checkpoint(path, m.info().name, config.size, 3, scene_text(to_scene_file(s, v, *cut)), cut->copy_state(),
                   cut->time());
  cut.reset();
  const Checkpoint c = read_checkpoint(path);
  const SceneFile scene = parse_scene(c.scene, path + " (its scene)");
  ASSERT_TRUE(scene.sources);
  EXPECT_EQ(scene.sources->size(), whole->sources().size());
  SimSettings s2;
  ViewSettings v2;
  apply_scene_file(scene, s2, v2);
  auto resumed = m.create(to_model_config(s2), Backend::cpu, "cpu");
  resumed->load_state(c.state);
  apply_scene_sources(scene, *resumed);
  ASSERT_EQ(resumed->sources().size(), whole->sources().size());
  for (std::size_t k = 0; k < whole->sources().size(); ++k)
    EXPECT_EQ(describe(resumed->sources()[k]), describe(whole->sources()[k]));
  ASSERT_TRUE(resumed->receivers());
  EXPECT_EQ(describe(*resumed->receivers()), describe(receivers));
  whole->start_steps(40);
  resumed->start_steps(40);
  whole->wait();
  resumed->wait();
  const SimState a = whole->copy_state(), b = resumed->copy_state();
  EXPECT_EQ(a.steps_done, b.steps_done);
  ASSERT_EQ(a.fields.size(), b.fields.size());
  for (std::size_t f = 0; f < a.fields.size(); ++f) EXPECT_EQ(a.fields[f], b.fields[f]) << "field " << f;
  EXPECT_EQ(whole->time(), resumed->time());
  // The resumed receivers recorded the same steps the whole run did over them.
  const Seismogram sa = whole->seismogram(), sb = resumed->seismogram();
  ASSERT_GT(sb.rows(), 0);
  const std::size_t per_row = sb.components.size() * sb.nodes.size();
  ASSERT_GE(sa.values.size(), sb.values.size());
  EXPECT_TRUE(std::equal(sb.values.begin(), sb.values.end(), sa.values.end() - static_cast<long>(sb.rows() * per_row)));
  std::filesystem::remove(path);
}

// hydro3d: a scene's fixed dt is kept (benchmarks, bitwise comparisons); dt = 0 follows the
// flow, and a checkpoint of such a run resumes with its time and goes on bit for bit.
TEST(SceneFile, Hydro3DKeepsAFixedDtAndAnAutoDtResumesFromACheckpoint) {
  const char* fixed_text = "model = \"hydro3d\"\nsize = [16, 16, 16]\norder = 6\nvariant = \"cpu\"\n\n[params]\n"
                           "init = \"explosion\"\ndt = 0.02\n";
  SimSettings s;
  ViewSettings v;
  apply_scene_file(parse_scene(fixed_text, "fixed.toml"), s, v);
  const Model& m = find_model("hydro3d");
  auto fixed = m.create(to_model_config(s), Backend::cpu, "cpu");
  fixed->start_steps(30);
  EXPECT_EQ(fixed->dt(), 0.02);
  EXPECT_EQ(fixed->time(), 30 * 0.02);
  EXPECT_EQ(fixed->health(), "");
  EXPECT_NE(scene_text(to_scene_file(s, v)).find("dt = 0.02"), std::string::npos) << "written back as given";

  if (!checkpoints_built()) GTEST_SKIP() << "no HDF5: checkpoints are not built";
  const char* auto_text = "model = \"hydro3d\"\nsize = [16, 16, 16]\norder = 6\nvariant = \"cpu\"\n\n[params]\n"
                          "init = \"explosion\"\ndt = 0\n";
  SimSettings sa;
  ViewSettings va;
  apply_scene_file(parse_scene(auto_text, "auto.toml"), sa, va);
  auto run = m.create(to_model_config(sa), Backend::cpu, "cpu");
  run->start_steps(25);
  const std::string path = (std::filesystem::path(::testing::TempDir()) / "stencilscope_scene_hydro.h5").string();
  write_checkpoint(path, "hydro3d", {16, 16, 16}, 3, scene_text(to_scene_file(sa, va)), run->copy_state(), run->time());
  const Checkpoint c = read_checkpoint(path);
  SimSettings s2;
  ViewSettings v2;
  apply_scene_file(parse_scene(c.scene, path), s2, v2);
  auto resumed = m.create(to_model_config(s2), Backend::cpu, "cpu");
  SimState st = c.state;
  st.time = c.time;  // as --resume and export --resume pass it
  resumed->load_state(st);
  EXPECT_EQ(resumed->time(), run->time());
  run->start_steps(20);
  resumed->start_steps(20);
  EXPECT_EQ(resumed->dt(), run->dt()) << "dt every step: a function of the state alone";
  EXPECT_EQ(resumed->time(), run->time());
  const SimState a = run->copy_state(), b = resumed->copy_state();
  for (std::size_t f = 0; f < a.fields.size(); ++f) EXPECT_EQ(a.fields[f], b.fields[f]) << "field " << f;
}
