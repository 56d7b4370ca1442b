// Media read from .npy files (the file parameters of acoustic3d and elastic3d): a file of
// the homogeneous or layered medium gives bitwise the field of that medium; the velocity
// at the nodes is the file's; dt follows the file's fastest velocity; bad files are refused
// in one line naming the file (and the node); `export --param vp_file=F` on the command line.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <random>
#include <vector>

#include <fmt/format.h>

#include "cli_run.hpp"
#include "sim/core/error.hpp"
#include "sim/core/model.hpp"
#include "sim/core/npy.hpp"
#include "sim/models/elastic3d/elastic3d.hpp"

using namespace ss;
using ss::test::expect_cli_error;
using ss::test::run_cli;

namespace {

constexpr int kNx = 20, kNy = 18, kNz = 16;

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("stencilscope-media-" + name)).string();
}

/// Writes one value per node (x fastest) as an (nz, ny, nx) float32 file.
std::string write_volume(const std::string& name, const std::vector<float>& v, int nx = kNx, int ny = kNy,
                         int nz = kNz) {
  const std::string path = temp_path(name);
  write_npy(path, v.data(), {static_cast<std::size_t>(nz), static_cast<std::size_t>(ny), static_cast<std::size_t>(nx)});
  return path;
}

std::vector<float> constant(float x) { return std::vector<float>(static_cast<std::size_t>(kNx) * kNy * kNz, x); }

/// acoustic3d's layered medium as a file: vp x 1, 1.25, 1.5, 1.75 in four layers from the top.
std::vector<float> layered(double vp, const double (&factor)[4]) {
  std::vector<float> v(static_cast<std::size_t>(kNx) * kNy * kNz);
  for (int k = 0; k < kNz; ++k)
    for (int e = 0; e < kNx * kNy; ++e)
      v[static_cast<std::size_t>(k) * kNx * kNy + e] = static_cast<float>(vp * factor[std::min(3, 4 * k / kNz)]);
  return v;
}

std::unique_ptr<Simulation> make(const std::string& model, const ParamValues& values) {
  const Model& m = find_model(model);
  const ModelConfig c = make_config(m, {kNx, kNy, kNz}, 8, values);
  return m.create(c, Backend::cpu, m.info().fastest_cpu);
}

/// The state after `steps` steps.
SimState run(const std::string& model, const ParamValues& values, int steps = 12) {
  auto sim = make(model, values);
  sim->start_steps(steps);
  sim->wait();
  return sim->copy_state();
}

void expect_bitwise_equal(const SimState& a, const SimState& b) {
  ASSERT_EQ(a.fields.size(), b.fields.size());
  for (std::size_t f = 0; f < a.fields.size(); ++f) {
    ASSERT_EQ(a.fields[f].size(), b.fields[f].size());
    EXPECT_EQ(std::memcmp(a.fields[f].data(), b.fields[f].data(), a.fields[f].size() * sizeof(float)), 0) << "field " << f;
  }
  double peak = 0;
  for (float x : a.fields[0]) peak = std::max(peak, static_cast<double>(std::abs(x)));
  EXPECT_GT(peak, 0) << "the source has reached the field";
}

/// make_config's refusal: one line that names every fragment.
void expect_refused(const std::string& model, const ParamValues& values, const std::vector<std::string>& fragments) {
  try {
    make_config(find_model(model), {kNx, kNy, kNz}, 8, values);
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    for (const std::string& f : fragments) EXPECT_NE(m.find(f), std::string::npos) << "'" << f << "' in: " << m;
  }
}

}  // namespace

TEST(MediaFiles, AcousticHomogeneousFileGivesBitwiseTheHomogeneousField) {
  const std::string vp = write_volume("a-homogeneous.npy", constant(2500));
  const SimState file = run("acoustic3d", {{"vp_file", vp}, {"vp", 2500.0}});  // vp still scales the source
  const SimState plain = run("acoustic3d", {{"medium", std::string("homogeneous")}, {"vp", 2500.0}});
  expect_bitwise_equal(file, plain);
}

TEST(MediaFiles, AcousticLayeredFileGivesBitwiseTheLayeredField) {
  const std::string vp = write_volume("a-layered.npy", layered(2000, {1.0, 1.25, 1.5, 1.75}));
  const SimState file = run("acoustic3d", {{"vp_file", vp}});
  const SimState plain = run("acoustic3d", {{"medium", std::string("layered")}, {"vp", 2000.0}});
  expect_bitwise_equal(file, plain);
}

TEST(MediaFiles, AcousticVelocityViewIsTheFileAndDtFollowsItsFastestNode) {
  std::vector<float> v = layered(1500, {1.0, 1.2, 1.4, 1.6});
  v[(static_cast<std::size_t>(3) * kNy + 4) * kNx + 5] = 6000;  // one fast node (x 5, y 4, z 3)
  const std::string path = write_volume("a-fast-node.npy", v);
  auto sim = make("acoustic3d", {{"vp_file", path}});
  auto homogeneous = make("acoustic3d", {{"vp", 6000.0}});
  EXPECT_EQ(sim->dt_limit(), homogeneous->dt_limit());
  EXPECT_EQ(sim->dt(), homogeneous->dt());
  ViewPlacement where;
  where.quantity = "velocity";
  where.slices = {3, 4, 5};
  std::vector<float> xy(static_cast<std::size_t>(kNx) * kNy);
  sim->copy_view(0, where, xy.data());
  for (int j = 0; j < kNy; ++j)
    for (int i = 0; i < kNx; ++i)
      ASSERT_EQ(xy[static_cast<std::size_t>(j) * kNx + i], v[(static_cast<std::size_t>(3) * kNy + j) * kNx + i]);
}

TEST(MediaFiles, ElasticHomogeneousFilesGiveBitwiseTheHomogeneousField) {
  const std::string vp = write_volume("e-vp.npy", constant(3000)), vs = write_volume("e-vs.npy", constant(1750)),
                    rho = write_volume("e-rho.npy", constant(2200));
  const ParamValues plain = {{"vp", 3000.0}, {"vs", 1750.0}, {"rho", 2200.0}};
  const SimState base = run("elastic3d", plain, 8);
  expect_bitwise_equal(run("elastic3d", {{"vp_file", vp}, {"vs_file", vs}, {"rho_file", rho}}, 8), base);
  // A quantity without a file takes its parameter everywhere.
  expect_bitwise_equal(run("elastic3d", {{"vp_file", vp}, {"vs", 1750.0}, {"rho", 2200.0}}, 8), base);
}

TEST(MediaFiles, ElasticDtFollowsTheFastestNodeOfTheFile) {
  std::vector<float> vp = constant(3000);
  vp[(static_cast<std::size_t>(9) * kNy + 2) * kNx + 11] = 5200;  // one fast node
  const std::string path = write_volume("e-fast-node.npy", vp);
  auto file = make("elastic3d", {{"vp_file", path}, {"vs", 1500.0}});
  auto fast = make("elastic3d", {{"vp", 5200.0}, {"vs", 1500.0}});
  EXPECT_EQ(file->dt_limit(), fast->dt_limit());
  EXPECT_EQ(file->dt(), fast->dt());
}

TEST(MediaFiles, ElasticLayeredFilesGiveTheLayeredMedium) {
  // The layered preset scales the stiffness of the top layer; from files the stiffness
  // comes from each layer's vp, vs and rho: the same medium to float rounding.
  const double speed[4] = {1.0, 1.25, 1.5, 1.75}, density[4] = {1.0, 1.1, 1.2, 1.3};
  const std::string vp = write_volume("e-layered-vp.npy", layered(3000, speed)),
                    vs = write_volume("e-layered-vs.npy", layered(1600, speed)),
                    rho = write_volume("e-layered-rho.npy", layered(2000, density));
  auto file = make("elastic3d", {{"vp_file", vp}, {"vs_file", vs}, {"rho_file", rho}});
  auto preset = make("elastic3d", {{"medium", std::string("layered")}, {"vp", 3000.0}, {"vs", 1600.0}, {"rho", 2000.0}});
  EXPECT_NEAR(file->dt_limit(), preset->dt_limit(), 1e-6 * preset->dt_limit());
  ViewPlacement where;
  where.quantity = "vp";
  const std::vector<float> expected = layered(3000, speed);
  for (int x = 0; x < kNx; x += 7) {
    where.slices = {0, 0, x};
    std::vector<float> yz(static_cast<std::size_t>(kNy) * kNz), yz_preset(yz.size());
    file->copy_view(2, where, yz.data());
    preset->copy_view(2, where, yz_preset.data());
    const auto n = file->view_size(2);
    for (int v = 0; v < n[1]; ++v)
      for (int u = 0; u < n[0]; ++u) {
        const float got = yz[static_cast<std::size_t>(v) * n[0] + u];
        EXPECT_NEAR(got, yz_preset[static_cast<std::size_t>(v) * n[0] + u], 1e-6 * got);
        // (u, v) of the YZ view are (y, z).
        EXPECT_NEAR(got, expected[(static_cast<std::size_t>(v) * kNy + u) * kNx + x], 1e-6 * got) << u << " " << v;
      }
  }
}

// VTI per node from Thomsen's parameters in files (anisotropy thomsen): constant files give
// bitwise the homogeneous Thomsen medium; dt follows the node of the fastest phase
// velocity (a fast node in epsilon alone); the files need anisotropy thomsen.
TEST(MediaFiles, ElasticThomsenFilesGiveTheVtiMediumPerNode) {
  const ParamValues thomsen = {{"anisotropy", std::string("thomsen")}, {"vp", 3000.0}, {"vs", 1700.0},
                               {"epsilon", 0.25}, {"delta", 0.1}, {"gamma", 0.15}};
  ParamValues files = thomsen;
  files["epsilon_file"] = write_volume("t-eps.npy", constant(0.25f));
  files["delta_file"] = write_volume("t-delta.npy", constant(0.1f));
  files["gamma_file"] = write_volume("t-gamma.npy", constant(0.15f));
  // Thomsen's values are rounded to float in the files: the same medium as the parameters
  // rounded the same way.
  ParamValues rounded = thomsen;
  rounded["epsilon"] = static_cast<double>(0.25f);
  rounded["delta"] = static_cast<double>(0.1f);
  rounded["gamma"] = static_cast<double>(0.15f);
  expect_bitwise_equal(run("elastic3d", files, 8), run("elastic3d", rounded, 8));
  EXPECT_EQ(make("elastic3d", files)->dt_limit(), make("elastic3d", rounded)->dt_limit());

  // One node with a larger epsilon: the horizontal qP there is the fastest wave.
  std::vector<float> eps = constant(0.0f);
  eps[(static_cast<std::size_t>(4) * kNy + 6) * kNx + 8] = 0.6f;
  ParamValues one = {{"anisotropy", std::string("thomsen")}, {"vp", 3000.0}, {"vs", 1700.0}, {"delta", 0.0},
                     {"gamma", 0.0}, {"epsilon_file", write_volume("t-eps-node.npy", eps)}};
  ParamValues fast = {{"anisotropy", std::string("thomsen")}, {"vp", 3000.0}, {"vs", 1700.0}, {"delta", 0.0},
                      {"gamma", 0.0}, {"epsilon", static_cast<double>(0.6f)}};
  EXPECT_EQ(make("elastic3d", one)->dt_limit(), make("elastic3d", fast)->dt_limit());
  // The fast node changes the field from the medium without it.
  ParamValues none = fast;
  none["epsilon"] = 0.0;
  none["dt"] = one.count("dt") ? one["dt"] : make("elastic3d", one)->dt();
  ParamValues one_dt = one;
  one_dt["dt"] = none["dt"];
  const SimState with_node = run("elastic3d", one_dt, 40), without = run("elastic3d", none, 40);
  EXPECT_NE(std::memcmp(with_node.fields[0].data(), without.fields[0].data(), with_node.fields[0].size() * sizeof(float)),
            0);

  // Refused: Thomsen files without anisotropy thomsen; a node that is not positive definite.
  expect_refused("elastic3d", {{"epsilon_file", files["epsilon_file"]}}, {"epsilon_file", "anisotropy thomsen"});
  expect_refused("elastic3d", {{"anisotropy", std::string("stiffness")}, {"vp_file", write_volume("t-vp.npy", constant(3000))}},
                 {"stiffness", "empty"});
  std::vector<float> bad = constant(0.1f);
  bad[(static_cast<std::size_t>(7) * kNy + 5) * kNx + 3] = std::numeric_limits<float>::quiet_NaN();
  const std::string bad_path = write_volume("t-delta-bad.npy", bad);
  expect_refused("elastic3d", {{"anisotropy", std::string("thomsen")}, {"delta_file", bad_path}},
                 {bad_path, "delta", "node (x 3, y 5, z 7)"});
}

// The closed-form fastest phase velocity (which ranks a file's nodes) against the finely
// sampled one, over isotropic media and random positive-definite VTI media, including
// delta > epsilon, where the qP maximum lies between the axes.
TEST(MediaFiles, ClosedFormFastestPhaseVelocityMatchesTheSampledOne) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> vp(1500, 6000), ratio(0.3, 0.7), eps(-0.2, 0.6), del(-0.2, 0.6), gam(-0.2, 0.6),
      rho(1000, 3000);
  int checked = 0, oblique = 0;
  for (int k = 0; k < 400; ++k) {
    const double p = vp(rng), s = p * ratio(rng), r = rho(rng);
    const Vti c = k % 10 == 0 ? isotropic_stiffness(p, s, r) : thomsen_stiffness(p, s, eps(rng), del(rng), gam(rng), r);
    if (!(c.c11 - c.c66 > 0 && (c.c11 - c.c66) * c.c33 > c.c13 * c.c13)) continue;  // not positive definite
    const double exact = vti_max_phase_velocity_exact(c, r), sampled = vti_max_phase_velocity(c, r);
    // The sampled one carries a margin of 1e-6 and can miss the peak by O(1e-7).
    EXPECT_LE(exact, sampled * (1 + 1e-9)) << k;
    EXPECT_GE(exact, sampled / (1 + 2e-6)) << k;
    const double axes = std::sqrt(std::max({c.c11, c.c33, c.c44, c.c66}) / r);
    if (exact > axes * (1 + 1e-4)) ++oblique;
    ++checked;
  }
  EXPECT_GT(checked, 300);
  EXPECT_GT(oblique, 0) << "some media have their fastest qP between the axes";
}

TEST(MediaFiles, BadFilesAreRefusedInOneLineNamingTheFileAndTheNode) {
  const std::string missing = temp_path("no-such-file.npy");
  std::filesystem::remove(missing);
  expect_refused("acoustic3d", {{"vp_file", missing}}, {"vp_file", missing});
  expect_refused("elastic3d", {{"rho_file", missing}}, {"rho_file", missing});

  const std::string small = write_volume("wrong-shape.npy", std::vector<float>(8 * 9 * 10, 2000.f), 10, 9, 8);
  expect_refused("acoustic3d", {{"vp_file", small}}, {small, "(8, 9, 10)", "(nz, ny, nx) = (16, 18, 20)"});
  expect_refused("elastic3d", {{"vs_file", small}}, {"vs_file", small, "(8, 9, 10)", "(16, 18, 20)"});

  const std::string text = temp_path("not-npy.npy");
  { std::FILE* f = std::fopen(text.c_str(), "w"); ASSERT_NE(f, nullptr); std::fputs("vp\n2000\n", f); std::fclose(f); }
  expect_refused("acoustic3d", {{"vp_file", text}}, {text, "not a version 1 .npy"});

  const std::size_t node = (static_cast<std::size_t>(7) * kNy + 5) * kNx + 3;  // (x 3, y 5, z 7)
  for (float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(), 0.f, -1500.f}) {
    std::vector<float> v = constant(2000);
    v[node] = bad;
    const std::string path = write_volume("bad-value.npy", v);
    expect_refused("acoustic3d", {{"vp_file", path}}, {path, "node (x 3, y 5, z 7)", "positive"});
    expect_refused("elastic3d", {{"vp_file", path}}, {path, "node (x 3, y 5, z 7)", "vp", "positive"});
    expect_refused("elastic3d", {{"rho_file", path}}, {path, "node (x 3, y 5, z 7)", "density", "positive"});
  }
  std::vector<float> vs = constant(1500);
  vs[node] = 3500;  // above vp = 3000
  const std::string vs_path = write_volume("vs-above-vp.npy", vs);
  expect_refused("elastic3d", {{"vs_file", vs_path}, {"vp", 3000.0}},
                 {vs_path, "node (x 3, y 5, z 7)", "vs = 3500 m/s", "above vp = 3000 m/s"});
  // Under anisotropy thomsen the same file is checked the same way (vs0 above vp0).
  expect_refused("elastic3d", {{"vs_file", vs_path}, {"anisotropy", std::string("thomsen")}},
                 {vs_path, "node (x 3, y 5, z 7)", "above vp = 3000 m/s"});
}

TEST(MediaFiles, AFloat64FileIsRoundedToFloat32) {
  // numpy.save's default dtype: the same layered medium written as float64 by hand.
  const std::vector<float> v = layered(2000, {1.0, 1.25, 1.5, 1.75});
  const std::string path = temp_path("a-layered-f64.npy");
  std::string header = fmt::format("{{'descr': '<f8', 'fortran_order': False, 'shape': ({}, {}, {}), }}", kNz, kNy, kNx);
  header += std::string(63 - (10 + header.size()) % 64, ' ') + "\n";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  const unsigned char magic[8] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
  const unsigned char length[2] = {static_cast<unsigned char>(header.size() & 0xff),
                                   static_cast<unsigned char>(header.size() >> 8)};
  std::fwrite(magic, 1, 8, f);
  std::fwrite(length, 1, 2, f);
  std::fwrite(header.data(), 1, header.size(), f);
  const std::vector<double> wide(v.begin(), v.end());
  std::fwrite(wide.data(), sizeof(double), wide.size(), f);
  std::fclose(f);
  expect_bitwise_equal(run("acoustic3d", {{"vp_file", path}}), run("acoustic3d", {{"medium", std::string("layered")}}));
}

TEST(MediaFiles, AnEmptyPathMeansNoFile) {
  expect_bitwise_equal(run("acoustic3d", {{"vp_file", std::string()}}), run("acoustic3d", {}));
}

TEST(MediaFiles, ExportWithAFileParameterOnTheCommandLine) {
  const std::string vp = write_volume("cli-layered.npy", layered(2000, {1.0, 1.25, 1.5, 1.75}));
  const std::string a = temp_path("cli-file.npy"), b = temp_path("cli-flag.npy"), c = temp_path("cli-layered-out.npy");
  const std::string common = fmt::format("export --model acoustic3d --size {}x{}x{} --device cpu --steps 10 ", kNx, kNy, kNz);
  ASSERT_EQ(run_cli(common + "--param vp_file=" + vp + " --out " + a).status, 0);
  ASSERT_EQ(run_cli(common + "--vp-file " + vp + " --out " + b).status, 0);
  ASSERT_EQ(run_cli(common + "--medium layered --vp 2000 --out " + c).status, 0);
  const NpyArray fa = read_npy(a), fb = read_npy(b), fc = read_npy(c);
  EXPECT_EQ(fa.values, fc.values) << "the layered file gives the layered medium's field";
  EXPECT_EQ(fb.values, fc.values) << "--vp-file is --param vp_file=";
  expect_cli_error(common + "--param vp_file=" + temp_path("missing.npy") + " --out " + a, "missing.npy");
  const std::string small = write_volume("cli-wrong-shape.npy", std::vector<float>(8 * 9 * 10, 2000.f), 10, 9, 8);
  expect_cli_error(common + "--vp-file " + small + " --out " + a, "(8, 9, 10)");
}
