// `mpirun -np N stencilscope bench MODEL` as a person runs it: one table from rank 0 with
// the decomposition, the halo time and the bitwise check against one rank (strong and
// weak scaling); --seismogram's files the one-rank run's bit for bit; bad input (a --decomp that is not N, more ranks than cells along an
// axis, boxes thinner than the stencil radius, a model that does not distribute, a GPU
// variant its boxes do not step, --device gpu without a device) gives one line from rank 0 and a non-zero exit of the whole job, within a
// timeout (no rank left waiting).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cli_run.hpp"
#include "sim/core/device.hpp"

namespace {

/// Runs `mpirun -np ranks stencilscope args` (stderr merged) under a 120 s timeout.
ss::test::CliResult run_mpi(int ranks, const std::string& args) {
  const std::string cmd = std::string("env ") + STENCILSCOPE_MPI_ENV + " timeout 120 " + STENCILSCOPE_MPIEXEC + " -np " +
                          std::to_string(ranks) + " " + STENCILSCOPE_EXE + " " + args + " 2>&1";
  ss::test::CliResult r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf;
  while (std::fgets(buf.data(), buf.size(), p)) r.out += buf.data();
  const int w = pclose(p);
  r.status = WIFEXITED(w) ? WEXITSTATUS(w) : -1;
  return r;
}

int occurrences(const std::string& text, const std::string& word) {
  int n = 0;
  for (std::size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) ++n;
  return n;
}

/// Bad input: a non-zero exit (not the timeout's 124) and one line mentioning `fragment`.
void expect_mpi_error(int ranks, const std::string& args, const std::string& fragment) {
  const ss::test::CliResult r = run_mpi(ranks, args);
  EXPECT_NE(r.status, 0) << args << "\n" << r.out;
  EXPECT_NE(r.status, 124) << args << ": timed out (a rank kept waiting)\n" << r.out;
  EXPECT_NE(r.out.find(fragment), std::string::npos) << args << " should mention '" << fragment << "':\n" << r.out;
  EXPECT_EQ(ss::test::count_lines(r.out), 1) << args << " should print one line:\n" << r.out;
}

}  // namespace

TEST(CliMpi, StrongScalingPrintsOneTableBitwiseEqualToOneRank) {
  const auto r = run_mpi(3, "bench heat3d --size 19x17x13 --steps 3 --repeat 2 --boundary periodic");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(occurrences(r.out, "over 3 MPI ranks"), 1) << r.out;
  EXPECT_NE(r.out.find("strong scaling"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("3x1x1"), std::string::npos) << r.out;  // the split with the fewest cut cells
  EXPECT_NE(r.out.find("19x17x13"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("equal"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("DIFFERS"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("halo ms/step"), std::string::npos) << r.out;
}

TEST(CliMpi, ForcedDecompositionAndWeakScaling) {
  auto r = run_mpi(4, "bench heat3d --size 17x18x19 --steps 2 --repeat 1 --decomp 2x2x1 --boundary insulated");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("2x2x1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("equal"), std::string::npos) << r.out;
  r = run_mpi(2, "bench heat3d --size 12 --steps 2 --repeat 1 --scaling weak --decomp 2x1x1");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("weak scaling"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("24x12x12"), std::string::npos) << r.out;  // the grid grows with the ranks
}

TEST(CliMpi, AnotherModelThroughTheSameTable) {
  const auto r = run_mpi(3, "bench hydro3d --size 20x18x16 --steps 2 --repeat 1 --init turbulence");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(occurrences(r.out, "over 3 MPI ranks"), 1) << r.out;
  EXPECT_NE(r.out.find("equal"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("DIFFERS"), std::string::npos) << r.out;
}

TEST(CliMpi, Acoustic3DTableOnThreeRanks) {
  // The default rule (a sponge under a free top) and its source, on a grid no count divides.
  auto r = run_mpi(3, "bench acoustic3d --size 29x23x19 --steps 5");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(occurrences(r.out, "over 3 MPI ranks"), 1) << r.out;
  EXPECT_NE(r.out.find("29x23x19"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("equal"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("DIFFERS"), std::string::npos) << r.out;
  r = run_mpi(3, "bench acoustic3d --size 29x23x19 --steps 5 --repeat 1 --boundary cpml --order 4 --decomp 1x1x3");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("equal"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("DIFFERS"), std::string::npos) << r.out;
}

TEST(CliMpi, Elastic3DTableWithSpongeAndCpml) {
  auto r = run_mpi(2, "bench elastic3d --size 21x19x17 --steps 3 --repeat 1 --order 4");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(occurrences(r.out, "over 2 MPI ranks"), 1) << r.out;
  EXPECT_NE(r.out.find("equal"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("DIFFERS"), std::string::npos) << r.out;
  r = run_mpi(2, "bench elastic3d --size 21x19x17 --steps 3 --repeat 1 --boundary cpml --decomp 2x1x1");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("equal"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("DIFFERS"), std::string::npos) << r.out;
}

namespace {

std::string file_bytes(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

}  // namespace

TEST(CliMpi, SeismogramFilesAreTheOneRanksBitForBit) {
  // --point-source, --receivers, --seismogram: the live run before the table, on the boxes,
  // its traces gathered to rank 0. acoustic3d on 3 ranks (3x1x1, boxes from x 0, 8, 16):
  // every other node of the plane x 8, the face between two boxes; elastic3d on 2 ranks
  // (x 0, 12): a surface line across the face.
  const auto dir = std::filesystem::temp_directory_path() / ("stencilscope_cli_mpi_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  struct Case {
    int ranks;
    std::string args;
  };
  const Case cases[] = {
      {3, "bench acoustic3d --size 23x19x17 --order 4 --boundary cpml --steps 30 --repeat 1 --variant cpu"
          " --point-source pressure:8,9,8:f0=60 --receivers yz:8:grid:2"},
      {2, "bench elastic3d --size 23x19x17 --order 4 --steps 20 --repeat 1 --variant cpu"
          " --point-source force:12,9,8:f0=60:dir=1,0,0 --receivers xy:0:line:9"},
  };
  int n = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.args);
    const std::string one = (dir / ("one" + std::to_string(n))).string(), many = (dir / ("many" + std::to_string(n))).string();
    ++n;
    const ss::test::CliResult r1 = ss::test::run_cli(c.args + " --device cpu --seismogram " + one);
    ASSERT_EQ(r1.status, 0) << r1.out;
    const ss::test::CliResult r = run_mpi(c.ranks, c.args + " --seismogram " + many);
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_EQ(occurrences(r.out, "wrote " + many + ".npy"), 1) << r.out;
    EXPECT_NE(r.out.find("equal"), std::string::npos) << r.out;  // and the table follows
    for (const char* ext : {".npy", ".csv"}) {
      const std::string a = file_bytes(one + ext), b = file_bytes(many + ext);
      EXPECT_GT(a.size(), 1000u) << ext;
      EXPECT_TRUE(a == b) << ext << " differs from the one-rank file";
    }
  }
  std::filesystem::remove_all(dir);
  // Refused on rank 0 while the run is built: one line, every rank leaves.
  expect_mpi_error(2, "bench heat3d --size 16 --steps 1 --receivers xy:3 --seismogram /tmp/never", "no point sources");
  expect_mpi_error(3, "bench acoustic3d --size 16 --steps 1 --point-source pressure:40,3,3", "outside the grid");
  expect_mpi_error(2, "bench acoustic3d --size 16 --steps 1 --receivers qq:3", "unknown plane");
}

TEST(CliMpi, DecompThatIsNotTheRankCount) {
  expect_mpi_error(3, "bench heat3d --size 16 --steps 1 --decomp 2x2x1", "is 4 ranks, but the run has 3");
  expect_mpi_error(2, "bench heat3d --size 16 --steps 1 --decomp 2by1", "malformed --decomp");
}

TEST(CliMpi, MoreRanksThanCellsAlongAnAxis) {
  expect_mpi_error(9, "bench heat3d --size 8 --order 2 --steps 1 --decomp 9x1x1", "more ranks than cells");
}

TEST(CliMpi, BoxThinnerThanTheStencilRadius) {
  expect_mpi_error(4, "bench heat3d --size 12x8x8 --order 8 --steps 1 --decomp 4x1x1",
                   "thinner than the stencil radius 4");
}

TEST(CliMpi, ModelsAndVariantsThatDoNotRunDistributed) {
  expect_mpi_error(2, "bench deriv3d --size 16 --steps 1", "does not run distributed");
  expect_mpi_error(2, "bench heat3d --size 16 --steps 1 --variant shared3d", "on the CPU backend");
}

// --device gpu: each rank its box on a GPU (local rank modulo the GPUs). Without a CUDA
// device (this machine, CI) one line from rank 0; with one (tests/device/dist-check.sh) the
// table, bitwise equal to the one-GPU run, halos staged (works with both ranks on one GPU).
TEST(CliMpi, GpuBoxesTableOrOneLineWithoutADevice) {
  const std::string args = "bench heat3d --size 37x29x23 --steps 4 --repeat 1 --device gpu --transport staged";
  if (ss::cuda_device_count() == 0) {
    expect_mpi_error(2, args, "no CUDA device");
    return;
  }
  const auto r = run_mpi(2, args);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("GPU backend, stream25d variant"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("staged"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("equal"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("DIFFERS"), std::string::npos) << r.out;
}

TEST(CliMpi, GpuRunsThatCannotBe) {
  // deriv3d does not run distributed at all: its boxes run on no GPU either (hydro3d, heat3d
  // and acoustic3d have GPU boxes; elastic3d may get them).
  expect_mpi_error(2, "bench deriv3d --size 16 --steps 1 --device gpu", "do not run on the GPU yet");
  expect_mpi_error(2, "bench heat3d --size 16 --steps 1 --transport nccl", "--transport is for GPU halos");
  expect_mpi_error(2, "bench heat3d --size 16 --steps 1 --device gpu --transport carrier", "unknown --transport");
  // elastic3d's GPU boxes step every rule but cpml
  expect_mpi_error(2, "bench elastic3d --size 21x19x17 --steps 1 --boundary cpml --device gpu",
                   "do not run on the GPU yet");
}

TEST(CliMpi, AFailureOfRankZeroAloneStillEndsEveryRank) {
  // Only rank 0 opens the --json file: its failure reaches the others through agree().
  expect_mpi_error(3, "bench heat3d --size 16 --steps 1 --json /nonexistent-dir/x.json", "cannot write --json file");
}

TEST(CliMpi, OtherCommandsRefuseSeveralRanks) {
  expect_mpi_error(2, "export --model heat3d --size 16 --steps 1 --out /tmp/never.npy", "export runs on one");
}

TEST(CliMpi, WithoutMpirunOneRankAndTheTransportsSaid) {
  const auto info = ss::test::run_cli("info");
  EXPECT_EQ(info.status, 0) << info.out;
  EXPECT_NE(info.out.find("distributed: MPI on host buffers"), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("this run: 1 rank"), std::string::npos) << info.out;
  ss::test::expect_cli_error("bench heat3d --size 16 --steps 1 --decomp 1x1x2", "start them with mpirun");
}
