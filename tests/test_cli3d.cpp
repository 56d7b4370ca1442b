// `bench deriv3d` and `bench heat3d` as a person meets them: one-line errors with
// a non-zero exit, the posts' error lines, JSON rows with the 3D keys.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "stencilscope/device.hpp"

namespace {

struct Result {
  int status = -1;
  std::string out;
};

Result run(const std::string& args) {
  const std::string cmd = std::string(STENCILSCOPE_EXE) + " " + args + " 2>&1";
  Result r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf;
  while (std::fgets(buf.data(), buf.size(), p)) r.out += buf.data();
  const int w = pclose(p);
  r.status = WIFEXITED(w) ? WEXITSTATUS(w) : -1;
  return r;
}

void expect_error(const std::string& args, const std::string& fragment) {
  const Result r = run(args);
  EXPECT_NE(r.status, 0) << args << "\n" << r.out;
  EXPECT_NE(r.out.find(fragment), std::string::npos) << args << " should mention '" << fragment << "':\n" << r.out;
  int lines = 0;
  for (char c : r.out) lines += c == '\n';
  EXPECT_EQ(lines, 1) << args << " should print one line:\n" << r.out;
}

TEST(Cli3D, BadInput) {
  expect_error("bench deriv3d --size 12x", "malformed --size '12x'");
  expect_error("bench deriv3d --size 64x64", "malformed --size '64x64'");
  expect_error("bench heat3d --size 4", "too small");
  expect_error("bench deriv3d --size 16 --axis w", "unknown axis 'w'");
  expect_error("bench deriv3d --size 16 --variant shared3d", "unknown variant 'shared3d'");
  expect_error("bench heat3d --size 16 --variant spencil", "unknown variant 'spencil'");
  expect_error("bench deriv3d --size 16 --order 3", "unknown stencil order 3");
  expect_error("bench heat3d --size 16 --dt 1", "stability limit");
  expect_error("bench heat3d --size 16 --axis x", "--axis applies to deriv3d only");
  expect_error("bench deriv3d --size 16 --variant stream --device cpu", "runs on the gpu");
  expect_error("bench deriv3d --size 16 --steps 0", "--steps must be at least 1");
  expect_error("bench heat3d --size 16 --device cpu --json /nonexistent-dir/x.json", "cannot write --json");
}

TEST(Cli3D, Deriv3DTableAndJson) {
  const std::string path = ::testing::TempDir() + "/deriv3d.json";
  const Result r = run("bench deriv3d --size 20x17x9 --order 6 --axis all --steps 2 --repeat 1 --json " + path);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("RMS error"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("MAX error"), std::string::npos) << r.out;
  std::ifstream in(path);
  ASSERT_TRUE(in);
  const auto j = nlohmann::json::parse(in);
  ASSERT_EQ(j["rows"].size(), 18u);  // 3 axes x (global spencil lpencil stream cpu reference)
  std::string why;
  const bool gpu = ss::cuda_available(&why);
  for (const auto& row : j["rows"]) {
    for (const char* k : {"model", "variant", "device", "order", "precision", "size", "steps", "time_ms",
                          "bandwidth_gbps", "mcups", "copy_ratio", "ref_l2_norm", "rel_linf", "rel_l2", "axis",
                          "rms_error", "max_error"})
      EXPECT_TRUE(row.contains(k)) << k << " in " << row.dump();
    EXPECT_EQ(row["size"], "20x17x9");
    EXPECT_EQ(row["model"], "deriv3d");
    if (row["device"] == "gpu" && !gpu) {
      EXPECT_EQ(row["skipped"].get<std::string>().rfind("no CUDA device", 0), 0u) << row.dump();  // plus why, in a CPU-only build
    } else {
      EXPECT_FALSE(row.contains("skipped")) << row.dump();
      EXPECT_LT(row["rms_error"].get<double>(), 1e-2);
      EXPECT_LT(row["rel_l2"].get<double>(), 1e-6);
    }
  }
}

TEST(Cli3D, Heat3DTableAndJsonToStdout) {
  const std::string cmd =
      std::string(STENCILSCOPE_EXE) + " bench heat3d --size 24x10x9 --steps 2 --order 4 --bc insulated --ic hot-disc --json - 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  std::array<char, 4096> buf;
  while (std::fgets(buf.data(), buf.size(), p)) out += buf.data();
  ASSERT_EQ(pclose(p), 0);
  const auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["config"]["model"], "heat3d");
  ASSERT_EQ(j["rows"].size(), 5u);  // global shared3d stream25d cpu reference
  for (const auto& row : j["rows"]) {
    EXPECT_EQ(row["size"], "24x10x9");
    EXPECT_FALSE(row.contains("axis"));
  }
}

}  // namespace
