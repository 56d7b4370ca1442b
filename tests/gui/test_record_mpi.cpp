// `mpirun -np N stencilscope record --headless ...`: rank 0 records, every rank steps a box
// of the grid, the slices are gathered to rank 0. The frames must be the one-rank
// recording's byte for byte (the gathered slices equal the one-rank slices, and the colour
// range follows them; the wave models' seismogram pane shows the traces gathered from the
// boxes), and so must the probes read through the gathered views and the --seismogram files;
// the window's screenshot (with a display) is the one-rank window's. A failure
// on rank 0 before or while the run is built leaves every rank with one line and a
// non-zero status, within a timeout (no rank left waiting for commands).
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "app_runner.hpp"
#include "sim/core/device.hpp"

using namespace ss::test;

namespace {

/// The launcher's prefix for `ranks` ranks: loopback and shared memory only, a timeout;
/// without a display unless `display`.
std::string mpi_prefix(int ranks, bool display = false) {
  return std::string(display ? "env " : "env -u DISPLAY -u WAYLAND_DISPLAY ") + STENCILSCOPE_MPI_ENV + " timeout 60 " +
         STENCILSCOPE_MPIEXEC + " -np " + std::to_string(ranks);
}

std::string file_bytes(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

int lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

// An uneven grid (no rank count divides it), slices off the middle, a probe near a box face.
const std::string kScene =
    " --headless --model heat3d --size 23x19x17 --order 4 --steps-per-frame 5 --width 320 --height 240"
    " --colormap inferno --slice-z 3 --slice-y 11 --slice-x 20 --probe 11,9,8 --probe 0,18,16";

}  // namespace

TEST(RecordMpi, FramesAndProbesOnTwoAndThreeRanksAreTheOneRanksBitForBit) {
  const auto dir = scratch_dir("record_mpi");
  const auto one = dir / "one";
  const RunResult r1 = run_app("record" + kScene + " --frames 3 --device cpu --out '" + one.string() + "' --probes-csv '" +
                                   (dir / "one.csv").string() + "'",
                               "env -u DISPLAY -u WAYLAND_DISPLAY");
  ASSERT_EQ(r1.exit_code, 0) << r1.output;
  for (int ranks : {2, 3}) {
    SCOPED_TRACE(std::to_string(ranks) + " ranks");
    const auto many = dir / ("np" + std::to_string(ranks));
    const auto csv = dir / ("np" + std::to_string(ranks) + ".csv");
    const RunResult r = run_app("record" + kScene + " --frames 3 --out '" + many.string() + "' --probes-csv '" + csv.string() + "'",
                                mpi_prefix(ranks));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find(std::to_string(ranks) + " MPI ranks"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("step 10"), std::string::npos) << r.output;
    for (int k = 0; k < 3; ++k) {
      char name[32];
      std::snprintf(name, sizeof name, "frame_%05d.png", k);
      ASSERT_TRUE(std::filesystem::exists(many / name)) << name << "\n" << r.output;
      EXPECT_EQ(file_bytes(one / name), file_bytes(many / name)) << name << " differs from the one-rank frame";
    }
    EXPECT_EQ(file_bytes(dir / "one.csv"), file_bytes(csv));
  }
  // The panels (the Performance section's per-rank table) draw into the frames too.
  const RunResult ui = run_app("record" + kScene + " --ui --frames 1 --out '" + (dir / "ui").string() + "'", mpi_prefix(2));
  EXPECT_EQ(ui.exit_code, 0) << ui.output;
  std::filesystem::remove_all(dir);
}

TEST(RecordMpi, Acoustic3DFramesProbesAndSeismogramOnTwoAndThreeRanksAreTheOneRanksBitForBit) {
  // A source placed from the command line on the face between the two boxes of 2 ranks (x 12
  // of 23), the slices and a probe through it: the wave crosses the face in the frames. The
  // receivers: every node of the plane z 8, which every box cuts (faces between boxes in it);
  // the seismogram pane of each frame and the --seismogram files are the one rank's.
  const auto dir = scratch_dir("record_mpi_acoustic");
  const std::string scene =
      " --headless --model acoustic3d --size 23x19x17 --order 4 --steps-per-frame 20 --width 320 --height 240"
      " --slice-z 8 --slice-y 9 --slice-x 12 --point-source pressure:12,9,8:f0=60 --probe 12,9,7 --frames 3"
      " --receivers xy:8:grid";
  const RunResult r1 = run_app("record" + scene + " --device cpu --out '" + (dir / "one").string() + "' --probes-csv '" +
                                   (dir / "one.csv").string() + "' --seismogram '" + (dir / "seismogram_one").string() + "'",
                               "env -u DISPLAY -u WAYLAND_DISPLAY");
  ASSERT_EQ(r1.exit_code, 0) << r1.output;
  const std::string probes = file_bytes(dir / "one.csv");
  EXPECT_NE(probes.find(",20,-0."), std::string::npos) << probes;  // the wave reached the probe
  const std::string npy = file_bytes(dir / "seismogram_one.npy"), csv = file_bytes(dir / "seismogram_one.csv");
  EXPECT_GT(npy.size(), 60000u);  // 40 steps x 437 receivers
  for (int ranks : {2, 3}) {
    SCOPED_TRACE(std::to_string(ranks) + " ranks");
    const std::string n = "np" + std::to_string(ranks);
    const RunResult r = run_app("record" + scene + " --out '" + (dir / n).string() + "' --probes-csv '" +
                                    (dir / (n + ".csv")).string() + "' --seismogram '" + (dir / ("seismogram_" + n)).string() + "'",
                                mpi_prefix(ranks));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find(std::to_string(ranks) + " MPI ranks"), std::string::npos) << r.output;
    for (int k = 0; k < 3; ++k) {
      char name[32];
      std::snprintf(name, sizeof name, "frame_%05d.png", k);
      ASSERT_TRUE(std::filesystem::exists(dir / n / name)) << name << "\n" << r.output;
      EXPECT_EQ(file_bytes(dir / "one" / name), file_bytes(dir / n / name)) << name << " differs from the one-rank frame";
    }
    EXPECT_EQ(probes, file_bytes(dir / (n + ".csv")));
    EXPECT_TRUE(npy == file_bytes(dir / ("seismogram_" + n + ".npy"))) << "the .npy differs";
    EXPECT_TRUE(csv == file_bytes(dir / ("seismogram_" + n + ".csv"))) << "the seismogram's CSV differs";
  }
  std::filesystem::remove_all(dir);
}

TEST(RecordMpi, Elastic3DAndHydro3DFramesOnTwoRanksAreTheOneRanksBitForBit) {
  // The one-rank side runs with the machine's OpenMP threads (each rank has one under the
  // tests' mpirun): a recording reads its seismogram every frame, not a few times a second,
  // so its frames do not depend on the machine's speed. elastic3d's receivers are its
  // default line along x on the surface, across the face between the boxes (x 12).
  const auto dir = scratch_dir("record_mpi_more");
  const std::string scenes[] = {
      " --headless --model elastic3d --size 23x19x17 --order 4 --steps-per-frame 20 --slice-x 12"
      " --point-source force:12,9,8:f0=60:dir=1,0,0",
      " --headless --model hydro3d --size 24x20x18 --steps-per-frame 3 --slice-x 12",
  };
  int n = 0;
  for (const std::string& scene : scenes) {
    SCOPED_TRACE(scene);
    const bool seismic = scene.find("elastic3d") != std::string::npos;  // hydro3d: no sources, no seismogram
    const std::string common = "record" + scene + " --width 320 --height 240 --frames 3 --out '";
    const auto one = dir / ("one" + std::to_string(n)), two = dir / ("two" + std::to_string(n));
    ++n;
    auto seismogram = [&](const std::filesystem::path& base) {
      return seismic ? " --seismogram '" + base.string() + "_seismogram'" : std::string();
    };
    const RunResult r1 = run_app(common + one.string() + "' --device cpu" + seismogram(one),
                                 "env -u DISPLAY -u WAYLAND_DISPLAY OMP_NUM_THREADS=2");
    ASSERT_EQ(r1.exit_code, 0) << r1.output;
    const RunResult r2 = run_app(common + two.string() + "'" + seismogram(two), mpi_prefix(2));
    ASSERT_EQ(r2.exit_code, 0) << r2.output;
    for (int k = 0; k < 3; ++k) {
      char name[32];
      std::snprintf(name, sizeof name, "frame_%05d.png", k);
      ASSERT_TRUE(std::filesystem::exists(two / name)) << name << "\n" << r2.output;
      EXPECT_EQ(file_bytes(one / name), file_bytes(two / name)) << name << " differs from the one-rank frame";
    }
    if (!seismic) continue;
    for (const char* ext : {".npy", ".csv"}) {
      const std::string a = file_bytes(one.string() + "_seismogram" + ext);
      EXPECT_FALSE(a.empty()) << ext;
      EXPECT_TRUE(a == file_bytes(two.string() + "_seismogram" + ext)) << ext << " differs from the one-rank file";
    }
  }
  std::filesystem::remove_all(dir);
}

// --device gpu: each rank steps its box on a GPU of its own (the model's GPU boxes, halos
// through DeviceHaloExchange). Without a CUDA device (this machine, CI): one line from rank 0
// and a non-zero exit of every rank, within the timeout. With one: heat3d's frames and probes
// and acoustic3d's frames and seismogram files on 2 ranks are the one-rank CPU recording's
// bit for bit (the GPU variants are bitwise equal to the CPU), staged halos (also when both
// ranks share one GPU).
TEST(RecordMpi, GpuBoxesFramesOrOneLineWithoutADevice) {
  const auto dir = scratch_dir("record_mpi_gpu");
  if (ss::cuda_device_count() == 0) {
    for (const std::string model : {"heat3d", "acoustic3d"}) {
      const std::string args = "record --headless --model " + model + " --size 23x19x17 --device gpu --frames 2 --out '" +
                               (dir / "f").string() + "'";
      const RunResult r = run_app(args, mpi_prefix(2));
      EXPECT_NE(r.exit_code, 0) << args << "\n" << r.output;
      EXPECT_NE(r.exit_code, 124) << args << ": timed out (a rank kept waiting)\n" << r.output;
      EXPECT_NE(r.output.find("no usable CUDA device"), std::string::npos) << args << "\n" << r.output;
      EXPECT_EQ(lines(r.output), 1) << args << "\n" << r.output;
    }
    std::filesystem::remove_all(dir);
    return;  // the refusal is what runs here (a skip would hide its failures from ctest)
  }
  auto frames_equal = [&](const std::string& a, const std::string& b, const std::string& out) {
    for (int k = 0; k < 3; ++k) {
      char name[32];
      std::snprintf(name, sizeof name, "frame_%05d.png", k);
      ASSERT_TRUE(std::filesystem::exists(dir / b / name)) << name << "\n" << out;
      EXPECT_EQ(file_bytes(dir / a / name), file_bytes(dir / b / name)) << name << " differs from the one-rank frame";
    }
  };
  const RunResult one = run_app("record" + kScene + " --frames 3 --device cpu --out '" + (dir / "one").string() +
                                    "' --probes-csv '" + (dir / "one.csv").string() + "'",
                                "env -u DISPLAY -u WAYLAND_DISPLAY");
  ASSERT_EQ(one.exit_code, 0) << one.output;
  const RunResult two = run_app("record" + kScene + " --frames 3 --device gpu --transport staged --out '" +
                                    (dir / "gpu").string() + "' --probes-csv '" + (dir / "gpu.csv").string() + "'",
                                mpi_prefix(2));
  ASSERT_EQ(two.exit_code, 0) << two.output;
  frames_equal("one", "gpu", two.output);
  EXPECT_EQ(file_bytes(dir / "one.csv"), file_bytes(dir / "gpu.csv"));
  const std::string waves =
      " --headless --model acoustic3d --size 23x19x17 --order 4 --steps-per-frame 20 --width 320 --height 240"
      " --slice-z 8 --slice-y 9 --slice-x 12 --point-source pressure:12,9,8:f0=60 --frames 3 --receivers xy:8:grid";
  const RunResult a1 = run_app("record" + waves + " --device cpu --out '" + (dir / "wave_one").string() +
                                   "' --seismogram '" + (dir / "s_one").string() + "'",
                               "env -u DISPLAY -u WAYLAND_DISPLAY");
  ASSERT_EQ(a1.exit_code, 0) << a1.output;
  const RunResult a2 = run_app("record" + waves + " --device gpu --transport staged --out '" +
                                   (dir / "wave_gpu").string() + "' --seismogram '" + (dir / "s_gpu").string() + "'",
                               mpi_prefix(2));
  ASSERT_EQ(a2.exit_code, 0) << a2.output;
  frames_equal("wave_one", "wave_gpu", a2.output);
  for (const char* ext : {".npy", ".csv"})
    EXPECT_TRUE(file_bytes(dir / (std::string("s_one") + ext)) == file_bytes(dir / (std::string("s_gpu") + ext)))
        << ext << " differs from the one-rank seismogram";
  std::filesystem::remove_all(dir);
}

TEST(WindowMpi, TheWindowOnRankZeroShowsWhatOneRankShows) {
  const char* display = std::getenv("DISPLAY");
  if (!display || !*display) GTEST_SKIP() << "no DISPLAY: run under Xvfb (./run test does)";
  const auto dir = scratch_dir("window_mpi");
  // A fixed number of steps per frame: frame k shows 3k steps, on one rank as on two.
  const std::string scene = "--model heat3d --size 23x19x17 --steps-per-frame 3 --frames 6 --width 640 --height 400"
                            " --device cpu --slice-x 7 --screenshot '";
  const RunResult one = run_app(scene + (dir / "one.png").string() + "'");
  ASSERT_EQ(one.exit_code, 0) << one.output;
  const RunResult two = run_app(scene + (dir / "two.png").string() + "'", mpi_prefix(2, true));
  ASSERT_EQ(two.exit_code, 0) << two.output;
  EXPECT_NE(two.output.find("step 18"), std::string::npos) << two.output;
  EXPECT_EQ(file_bytes(dir / "one.png"), file_bytes(dir / "two.png"));
  std::filesystem::remove_all(dir);
}

TEST(RecordMpi, ARefusalOnRankZeroEndsEveryRankInOneLine) {
  const auto dir = scratch_dir("record_mpi_errors");
  const std::string out = " --frames 2 --out '" + (dir / "f").string() + "'";
  struct Case {
    std::string args, fragment;
  };
  const Case cases[] = {
      // Found by rank 0 while reading the options, before any run exists.
      {"record --headless --model heat3d --size 16 --alpha -1" + out, "alpha"},
      // Found while the run is built: a 2D model does not split into boxes.
      {"record --headless --model heat2d --size 32x32" + out, "2D model"},
      // Receivers outside the grid: refused by rank 0 as the run is set up (the boxes record
      // receivers; a bad layout ends the command as on one rank).
      {"record --headless --model acoustic3d --size 24 --receivers xy:30" + out, "outside the grid"},
      // The window without a display: rank 0 cannot open it, the others were serving.
      {"--model heat3d --size 16 --frames 2 --screenshot '" + (dir / "w.png").string() + "'", "cannot open a window"},
      // GPU halos asked for a run on the CPU: refused by rank 0's check.
      {"record --headless --model heat3d --size 16 --device cpu --transport staged" + out, "--transport is for GPU halos"},
      // Every rank agrees: the boxes would be thinner than the stencil radius.
      {"record --headless --model heat3d --size 8x8x8 --order 8" + out, "thinner than the stencil radius"},
  };
  for (const Case& c : cases) {
    const RunResult r = run_app(c.args, mpi_prefix(3));
    EXPECT_NE(r.exit_code, 0) << c.args << "\n" << r.output;
    EXPECT_NE(r.exit_code, 124) << c.args << ": timed out (a rank kept waiting)\n" << r.output;
    EXPECT_NE(r.output.find(c.fragment), std::string::npos) << c.args << "\n" << r.output;
    EXPECT_EQ(lines(r.output), 1) << c.args << "\n" << r.output;
  }
  std::filesystem::remove_all(dir);
}
