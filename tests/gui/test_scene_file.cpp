// Scene files (app/scene_file.hpp): every registered model's settings survive a write
// and a read; bad files are refused with one line naming the file, the line and the
// key; every scene in assets/scenes opens.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "scene_file.hpp"
#include "settings.hpp"
#include "sim/core/error.hpp"
#include "sim/core/npy.hpp"

using namespace ss;
using namespace ss::app;

namespace {

std::filesystem::path scratch(const std::string& name) {
  return std::filesystem::path(::testing::TempDir()) / ("stencilscope_scene_" + name + ".toml");
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
            path + ":4: unknown key 'colour' (a scene has model, size, order, variant, params, view)");
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
  EXPECT_EQ(error_of(replace(kGood, "[view]", "[view]\nzoom = 2")).rfind(path + ":8: unknown key 'view.zoom'", 0), 0u);
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
