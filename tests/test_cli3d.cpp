// `bench deriv3d` and `bench heat3d` as a person meets them: one-line errors with
// a non-zero exit, the posts' error lines, JSON rows with the 3D keys.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_run.hpp"
#include "sim/core/device.hpp"

namespace {

using ss::test::CliResult;
using ss::test::expect_cli_error;
using ss::test::run_cli;

TEST(Cli3D, BadInput) {
  expect_cli_error("bench deriv3d --size 12x", "malformed --size '12x'");
  expect_cli_error("bench deriv3d --size 64x64", "malformed --size '64x64'");
  expect_cli_error("bench heat3d --size 4", "too small");
  expect_cli_error("bench deriv3d --size 16 --axis w", "unknown axis 'w'");
  expect_cli_error("bench deriv3d --size 16 --variant shared3d", "unknown variant 'shared3d'");
  expect_cli_error("bench heat3d --size 16 --variant spencil", "unknown variant 'spencil'");
  expect_cli_error("bench deriv3d --size 16 --order 3", "unknown stencil order 3");
  expect_cli_error("bench heat3d --size 16 --dt 1", "stability limit");
  expect_cli_error("bench heat3d --size 16 --axis x", "--axis applies to deriv3d only");
  expect_cli_error("bench deriv3d --size 16 --variant stream --device cpu", "runs on the gpu");
  expect_cli_error("bench deriv3d --size 64 --variant posts-spencil --device cpu", "runs on the gpu");
  expect_cli_error("bench deriv3d --size 16 --steps 0", "--steps must be at least 1");
  expect_cli_error("bench heat3d --size 16 --device cpu --json /nonexistent-dir/x.json", "cannot write --json");
}

TEST(Cli3D, Deriv3DTableAndJson) {
  const std::string path = ::testing::TempDir() + "/deriv3d.json";
  const CliResult r = run_cli("bench deriv3d --size 20x17x9 --order 6 --axis all --steps 2 --repeat 1 --json " + path);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("RMS error"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("MAX error"), std::string::npos) << r.out;
  std::ifstream in(path);
  ASSERT_TRUE(in);
  const auto j = nlohmann::json::parse(in);
  // 3 axes x (global spencil lpencil stream posts-spencil posts-lpencil cpu reference)
  ASSERT_EQ(j["rows"].size(), 24u);
  std::string why;
  const bool gpu = ss::cuda_available(&why);
  for (const auto& row : j["rows"]) {
    for (const char* k : {"model", "variant", "device", "order", "precision", "size", "steps", "time_ms",
                          "bandwidth_gbps", "mcups", "copy_ratio", "ref_l2_norm", "rel_linf", "rel_l2", "axis",
                          "rms_error", "max_error"})
      EXPECT_TRUE(row.contains(k)) << k << " in " << row.dump();
    EXPECT_EQ(row["size"], "20x17x9");
    EXPECT_EQ(row["model"], "deriv3d");
    const bool posts = row["variant"].get<std::string>().rfind("posts-", 0) == 0;
    if (row["device"] == "gpu" && !gpu) {
      EXPECT_EQ(row["skipped"].get<std::string>().rfind("no CUDA device", 0), 0u) << row.dump();  // plus why, in a CPU-only build
    } else if (posts) {  // 20x17x9, order 6: not what the posts' kernels are compiled for
      EXPECT_EQ(row["skipped"].get<std::string>().rfind("the posts' kernels are compiled for 64^3 and 256^3", 0), 0u)
          << row.dump();
    } else {
      EXPECT_FALSE(row.contains("skipped")) << row.dump();
      EXPECT_LT(row["rms_error"].get<double>(), 1e-2);
      EXPECT_LT(row["rel_l2"].get<double>(), 1e-6);
    }
  }
}

TEST(Cli3D, PostsVariantsHaveTheirRowsAndSayWhyTheySkip) {
  const CliResult r = run_cli("bench deriv3d --size 16 --order 4 --axis y --variant posts-lpencil --repeat 1");
  ASSERT_EQ(r.status, 0) << r.out;
  std::string why;
  const std::string reason = ss::cuda_available(&why) ? "the posts' kernels are compiled for 64^3 and 256^3, order 8, float"
                                                      : "no CUDA device";
  EXPECT_NE(r.out.find("y    posts-lpencil gpu    float   skipped: " + reason), std::string::npos) << r.out;
}

TEST(Cli3D, Heat3DTableAndJsonToStdout) {
  const CliResult r = run_cli("bench heat3d --size 24x10x9 --steps 2 --order 4 --bc insulated --ic hot-disc --json -", false);
  ASSERT_EQ(r.status, 0);
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["config"]["model"], "heat3d");
  EXPECT_EQ(j["config"]["nz"], 9);
  EXPECT_EQ(j["config"]["boundary"], "insulated");
  EXPECT_EQ(j["config"]["initial"], "hot-disc");
  ASSERT_EQ(j["rows"].size(), 5u);  // global shared3d stream25d cpu reference
  for (const auto& row : j["rows"]) {
    EXPECT_EQ(row["size"], "24x10x9");
    EXPECT_FALSE(row.contains("axis"));
  }
}

TEST(Cli3D, Hydro3DPhysicsTests) {
  expect_cli_error("bench hydro3d --test nope", "hydro3d has no bench test 'nope' (choose decay, explosion, turbulence)");
  expect_cli_error("bench heat2d --test decay", "heat2d has no bench tests");
  expect_cli_error("bench hydro3d --size 16 --csv x.csv", "--csv writes a test's data series: it needs --test");
  expect_cli_error("bench hydro3d --test explosion --size 32x32x16 --variant cpu", "cubic grids of an even side");
  expect_cli_error("bench hydro3d --test explosion --size 32 --variant cpu --csv /nonexistent-dir/x.csv",
                   "cannot write --csv");
  const CliResult help = run_cli("bench --help");
  EXPECT_NE(help.out.find("--test"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("hydro3d turbulence"), std::string::npos) << help.out;
  // The CSV goes next to the JSON when --csv is not given.
  const std::string path = ::testing::TempDir() + "/explosion.json";
  const CliResult r = run_cli("bench hydro3d --test explosion --size 32 --variant cpu --json " + path);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("The paper (Fig. 6"), std::string::npos) << r.out;
  std::ifstream in(path);
  ASSERT_TRUE(in);
  const auto j = nlohmann::json::parse(in);
  ASSERT_EQ(j["rows"].size(), 4u);  // Re 20, 40, 80, 160; above Re 40 skipped at 32^3
  EXPECT_EQ(j["config"]["test"], "explosion");
  EXPECT_TRUE(j["rows"][1]["rel_std_speed"].is_number()) << j["rows"][1].dump();
  EXPECT_TRUE(j["rows"][2].contains("skipped")) << j["rows"][2].dump();
  std::ifstream csv(::testing::TempDir() + "/explosion.csv");
  ASSERT_TRUE(csv);
  std::string line;
  int lines = 0;
  while (std::getline(csv, line)) ++lines;
  EXPECT_EQ(lines, 1 + 4);  // the header, then rho - 1 and |u| of each of the two rows that ran
}

}  // namespace
