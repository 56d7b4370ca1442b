// The command line as a person meets it: bad input gets one line naming the
// problem and a non-zero exit; a run without a device still gives CPU rows.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_run.hpp"
#include "sim/core/device.hpp"

namespace {

using ss::test::CliResult;
using ss::test::expect_cli_error;
using ss::test::run_cli;

TEST(Cli, UnknownVariant) { expect_cli_error("bench heat2d --size 64 --variant fastest", "unknown variant 'fastest'"); }
TEST(Cli, UnknownOrder) { expect_cli_error("bench heat2d --size 64 --order 5", "unknown stencil order 5"); }
TEST(Cli, UnknownModel) { expect_cli_error("bench heat9d --size 64", "unknown model 'heat9d'"); }
TEST(Cli, MalformedSize) {
  expect_cli_error("bench heat2d --size 12x", "malformed --size '12x'");
  expect_cli_error("bench heat2d --size banana", "malformed --size 'banana'");
}
TEST(Cli, SizeTooSmall) { expect_cli_error("bench heat2d --size 4x100", "too small"); }
TEST(Cli, MalformedNumber) { expect_cli_error("bench heat2d --size 64 --steps ten", "--steps"); }
TEST(Cli, NegativeSteps) { expect_cli_error("bench heat2d --size 64 --steps -3", "--steps must be at least 1"); }
TEST(Cli, AGridBeyondHostMemoryIsOneLineNamingTheBytes) {
  // 200000^2 floats: 320 GB for the field and its scratch, more than any CI machine has.
  expect_cli_error("bench heat2d --size 200000x200000 --device cpu", "GB of host memory; this machine has");
  expect_cli_error("bench heat3d --size 5000 --device cpu", "GB of host memory; this machine has");
}
TEST(Cli, DtAboveStabilityLimit) { expect_cli_error("bench heat2d --size 64 --dt 1", "stability limit"); }
TEST(Cli, UnknownPrecision) { expect_cli_error("bench heat2d --size 64 --precision half", "unknown precision 'half'"); }
TEST(Cli, VariantOnTheWrongDevice) {
  expect_cli_error("bench heat2d --size 64 --variant global --device cpu", "runs on the gpu");
}
TEST(Cli, UnwritableJson) {
  expect_cli_error("bench heat2d --size 64 --device cpu --json /nonexistent-dir/x.json", "cannot write --json");
}
TEST(Cli, UnknownSubcommandOrFlag) {
  const CliResult r = run_cli("bench heat2d --size 64 --frobnicate");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("frobnicate"), std::string::npos) << r.out;
}

TEST(Cli, BenchWritesTheTableAndJson) {
  const std::string path = ::testing::TempDir() + "/bench.json";
  const CliResult r = run_cli("bench heat2d --size 100x37 --steps 3 --order 4 --json " + path);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("ref L2 norm"), std::string::npos) << r.out;
  std::ifstream in(path);
  ASSERT_TRUE(in) << "no JSON written";
  const auto j = nlohmann::json::parse(in);
  for (const char* k : {"device", "copy_gbps", "commit", "rows"}) EXPECT_TRUE(j.contains(k)) << k;
  ASSERT_EQ(j["rows"].size(), 6u);  // global block shared stream cpu reference
  std::string why;
  const bool gpu = ss::cuda_available(&why);
  for (const auto& row : j["rows"]) {
    for (const char* k : {"model", "variant", "device", "order", "precision", "size", "steps", "time_ms",
                          "bandwidth_gbps", "mcups", "copy_ratio", "ref_l2_norm", "rel_linf", "rel_l2"})
      EXPECT_TRUE(row.contains(k)) << k << " in " << row.dump();
    EXPECT_EQ(row["size"], "100x37");
    EXPECT_EQ(row["order"], 4);
    if (row["device"] == "gpu" && !gpu) {
      EXPECT_EQ(row["skipped"].get<std::string>().rfind("no CUDA device", 0), 0u) << row.dump();  // plus why, in a CPU-only build
    } else {
      EXPECT_FALSE(row.contains("skipped")) << row.dump();
      EXPECT_GT(row["time_ms"].get<double>(), 0.0);
      EXPECT_GT(row["ref_l2_norm"].get<double>(), 0.0);
      EXPECT_LT(row["rel_l2"].get<double>(), 1e-6);
    }
  }
}

TEST(Cli, JsonToStdoutKeepsTheTableOnStderr) {
  const CliResult r = run_cli("bench heat2d --size 48 --steps 2 --device cpu --json -", false);
  ASSERT_EQ(r.status, 0);
  const auto j = nlohmann::json::parse(r.out);  // throws if the table leaked into stdout
  EXPECT_EQ(j["rows"].size(), 2u);
  const auto& c = j["config"];
  EXPECT_EQ(c["model"], "heat2d");
  EXPECT_EQ(c["nx"], 48);
  EXPECT_EQ(c["ny"], 48);
  EXPECT_EQ(c["steps"], 2);
  EXPECT_EQ(c["boundary"], "analytic");
  EXPECT_GT(c["dt_limit"].get<double>(), c["dt"].get<double>());
  EXPECT_TRUE(j["copy_gbps"].is_null()) << "no GPU row ran";
  EXPECT_GT(j["host_copy_gbps"].get<double>(), 0.0);
}

// The device sweeps skip the double reference; the report says so and the rows carry no errors.
TEST(Cli, BenchWithoutTheReferenceSaysSo) {
  for (const std::string model : {"heat2d --size 40x33", "heat3d --size 20x17x15", "elastic3d --size 20",
                                  "acoustic3d --size 20"}) {
    const CliResult r = run_cli("bench " + model + " --steps 2 --device cpu --variant cpu --json -", false);
    ASSERT_EQ(r.status, 0) << model;
    const auto plain = nlohmann::json::parse(r.out);
    ASSERT_FALSE(plain["rows"].empty()) << model;
    EXPECT_FALSE(plain["rows"][0]["ref_l2_norm"].is_null()) << model << ": the reference runs by default";
    setenv("STENCILSCOPE_BENCH_NO_REFERENCE", "1", 1);  // the child inherits it
    const CliResult s = run_cli("bench " + model + " --steps 2 --device cpu --variant cpu --json -", false);
    unsetenv("STENCILSCOPE_BENCH_NO_REFERENCE");
    ASSERT_EQ(s.status, 0) << model;
    const auto j = nlohmann::json::parse(s.out);
    EXPECT_NE(j["note"].get<std::string>().find("STENCILSCOPE_BENCH_NO_REFERENCE"), std::string::npos) << model;
    ASSERT_FALSE(j["rows"].empty()) << model;
    EXPECT_TRUE(j["rows"][0]["ref_l2_norm"].is_null()) << model << ": " << j["rows"][0].dump();
  }
}

TEST(Cli, InfoNamesTheDevicesAndTheBuild) {
  const CliResult r = run_cli("info");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("CUDA backend"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("CUDA device"), std::string::npos) << r.out;
}

}  // namespace

TEST(Cli, ModelsListsTheRegistryAsTextAndJson) {
  const CliResult text = run_cli("models");
  ASSERT_EQ(text.status, 0) << text.out;
  const CliResult json_run = run_cli("models --json", false);
  ASSERT_EQ(json_run.status, 0) << json_run.out;
  const nlohmann::json all = nlohmann::json::parse(json_run.out);
  ASSERT_TRUE(all.is_array());
  ASSERT_GE(all.size(), 3u);
  for (const auto& m : all) {
    const std::string name = m["name"].get<std::string>();
    EXPECT_NE(text.out.find(name + " - "), std::string::npos) << name;
    ASSERT_FALSE(m["variants"].empty()) << name;
    bool has_cpu = false;
    for (const auto& v : m["variants"]) {
      EXPECT_TRUE(v["device"] == "gpu" || v["device"] == "cpu") << name;
      EXPECT_NE(text.out.find("variant " + v["name"].get<std::string>()), std::string::npos) << name;
      has_cpu = has_cpu || (v["device"] == "cpu" && v["live"].get<bool>());
    }
    EXPECT_TRUE(has_cpu) << name << " has no live CPU variant";
    for (const auto& p : m["params"]) EXPECT_FALSE(p["help"].get<std::string>().empty()) << name;
  }
  EXPECT_NE(text.out.find("--fixed-value"), std::string::npos) << "flags are listed as typed";
}

namespace {

std::string write_scene_text(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

}  // namespace

// bench --scene: the file's model, size, order and parameters; flags given override them.
TEST(Cli, BenchTakesTheSceneFilesModelAndSize) {
  const std::string scene = write_scene_text("bench_scene.toml",
                                             "model = \"heat3d\"\nsize = [20, 18, 16]\norder = 4\n"
                                             "[params]\nboundary = \"periodic\"\n");
  const std::string json = ::testing::TempDir() + "/bench_scene.json";
  const CliResult r = run_cli("bench --scene " + scene + " --device cpu --variant cpu --steps 2 --repeat 1 --json " + json);
  ASSERT_EQ(r.status, 0) << r.out;
  std::ifstream in(json);
  const auto j = nlohmann::json::parse(in);
  ASSERT_EQ(j["rows"].size(), 1u) << j.dump();
  EXPECT_EQ(j["rows"][0]["model"], "heat3d");
  EXPECT_EQ(j["rows"][0]["size"], "20x18x16");
  EXPECT_EQ(j["rows"][0]["order"], 4);
  EXPECT_NE(r.out.find("boundary periodic"), std::string::npos) << r.out;

  const CliResult over = run_cli("bench heat3d --scene " + scene + " --size 12 --order 2 --device cpu --variant cpu"
                                 " --steps 1 --repeat 1 --json " + json);
  ASSERT_EQ(over.status, 0) << over.out;
  std::ifstream in2(json);
  const auto j2 = nlohmann::json::parse(in2);
  EXPECT_EQ(j2["rows"][0]["size"], "12x12x12");
  EXPECT_EQ(j2["rows"][0]["order"], 2);
  EXPECT_NE(over.out.find("boundary periodic"), std::string::npos) << over.out;  // still the file's
}

TEST(Cli, BenchRefusesABadSceneInOneLine) {
  const std::string scene = write_scene_text("bench_bad.toml", "model = \"heat2d\"\nsize = [64, 64]\ncolour = 1\n");
  expect_cli_error("bench --scene " + scene + " --device cpu", scene + ":3: unknown key 'colour'");
  expect_cli_error("bench --device cpu", "bench needs a MODEL or --scene FILE");
}
