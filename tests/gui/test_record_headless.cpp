// `record --headless`: no display, no GLFW; an EGL context (Mesa surfaceless here,
// NVIDIA's device platform on a GPU) renders frames whose pixels must match the colormap.
#include <fstream>
#include <set>

#include <fmt/format.h>

#include "app_runner.hpp"
#include "sim/core/model.hpp"
#include "sim/core/npy.hpp"
#include "sim/core/sources.hpp"

using namespace ss;
using namespace ss::test;

TEST(RecordHeadless, WritesNumberedFramesThatShowTheFieldAfterKBatches) {
  const auto dir = scratch_dir("record");
  const auto frames = dir / "frames";
  // 4 frames, 5 steps each: frame k shows step 5k. Fixed range, magma, nearest.
  const RunResult r = run_app("record --headless --frames 4 --out '" + frames.string() +
                                  "' --width 320 --height 240 --size 40x30 --steps-per-frame 5 --device cpu"
                                  " --range -1.2:1.3 --colormap magma --sampling nearest",
                              "env -u DISPLAY -u WAYLAND_DISPLAY");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("EGL"), std::string::npos) << r.output;
  for (int k = 0; k < 4; ++k) {
    char name[32];
    std::snprintf(name, sizeof name, "frame_%05d.png", k);
    ASSERT_TRUE(std::filesystem::exists(frames / name)) << name << "\n" << r.output;
  }
  EXPECT_FALSE(std::filesystem::exists(frames / "frame_00004.png"));

  for (int k : {0, 3}) {
    char name[32];
    std::snprintf(name, sizeof name, "frame_%05d.png", k);
    const render::Image img = render::read_png((frames / name).string());
    ASSERT_EQ(img.width, 320);
    ASSERT_EQ(img.height, 240);
    SCOPED_TRACE(name);
    EXPECT_GE(expect_field_pixels(img, cpu_field(40, 30, 5 * k), render::Colormap::magma, {-1.2, 1.3}, 3), 100);
  }
  std::filesystem::remove_all(dir);
}

TEST(RecordHeadless, Heat3DFramesShowTheSlicesAfterKBatches) {
  const auto dir = scratch_dir("record3d");
  const auto frames = dir / "frames";
  // Slices away from the middle, chosen on the command line.
  const RunResult r = run_app("record --headless --model heat3d --frames 3 --out '" + frames.string() +
                                  "' --width 480 --height 360 --size 21x17x13 --steps-per-frame 4 --device cpu"
                                  " --colormap inferno --sampling nearest --slice-z 2 --slice-y 15 --slice-x 0",
                              "env -u DISPLAY -u WAYLAND_DISPLAY");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("step 8"), std::string::npos) << r.output;
  const render::Image img = render::read_png((frames / "frame_00002.png").string());
  EXPECT_GE(expect_slice_pixels(img, cpu_field3d(21, 17, 13, 8), render::Colormap::inferno, 2, {2, 15, 0}), 100);
  std::filesystem::remove_all(dir);
}

// df/dx = df/dy = df/dz for this f: the pixels check the slices and their positions; the
// LiveSimulation test tells the axes apart (bitwise).
TEST(RecordHeadless, Deriv3DFramesShowSlicesOfTheDerivative) {
  const auto dir = scratch_dir("record_deriv3d");
  const RunResult r = run_app("record --headless --model deriv3d --axis z --order 4 --frames 2 --out '" +
                                  (dir / "frames").string() +
                                  "' --width 480 --height 360 --size 20x18x16 --device cpu --colormap grey"
                                  " --sampling nearest --slice-x 3",
                              "env -u DISPLAY -u WAYLAND_DISPLAY");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  Deriv3DConfig c;
  c.nx = 20;
  c.ny = 18;
  c.nz = 16;
  c.order = 4;
  const Deriv3DSetup s = make_deriv3d_setup(c);
  const std::vector<float> in = deriv3d_input<float>(s);
  std::vector<float> out = in;
  deriv3d_cpu(s, Axis::z, in.data(), out.data());
  const render::Image img = render::read_png((dir / "frames" / "frame_00001.png").string());
  EXPECT_GE(expect_slice_pixels(img, out, s.grid, render::Colormap::grey, 2, {-1, -1, 3}), 100);
  std::filesystem::remove_all(dir);
}

TEST(RecordHeadless, UiOverlayIsDrawnIntoTheFrames) {
  const auto dir = scratch_dir("record_ui");
  const std::string common = " --headless --frames 1 --width 640 --height 480 --size 32 --device cpu";
  ASSERT_EQ(run_app("record --out '" + (dir / "plain").string() + "'" + common, "env -u DISPLAY").exit_code, 0);
  const RunResult r = run_app("record --ui --out '" + (dir / "ui").string() + "'" + common, "env -u DISPLAY");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const render::Image a = render::read_png((dir / "plain" / "frame_00000.png").string());
  const render::Image b = render::read_png((dir / "ui" / "frame_00000.png").string());
  int differing = 0;
  for (int y = 12; y < 200; y += 4)
    for (int x = 12; x < 300; x += 4) differing += pixel(a, x, y) != pixel(b, x, y);
  EXPECT_GT(differing, 500) << "the Simulation panel should cover the top left";
  std::filesystem::remove_all(dir);
}

TEST(RecordHeadless, VideoNameWithoutFfmpegFallsBackToPngsAndSaysSo) {
  const auto dir = scratch_dir("record_mp4");
  // PATH without ffmpeg: the recorder must fall back to a PNG sequence named after the video.
  const RunResult r = run_app("record --headless --frames 2 --out '" + (dir / "clip.mp4").string() +
                                  "' --width 160 --height 120 --size 16 --device cpu",
                              "env -u DISPLAY PATH=/nonexistent");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("ffmpeg not found"), std::string::npos) << r.output;
  EXPECT_TRUE(std::filesystem::exists(dir / "clip" / "frame_00001.png")) << r.output;
  std::filesystem::remove_all(dir);
}

TEST(GuiCommandLine, BadInputIsOneLineAndANonZeroExit) {
  for (const std::string args : {"record --out x --range 2:1", "record --out x --colormap jet", "record --frames 3",
                                 "record --out x --sampling cubic", "record --out x --size 3x3",
                                 "--frames 5", "record --out x --variant warp", "record --out x --device tpu",
                                 "record --out x --model heat4d", "record --out x --model heat3d --size 12x12",
                                 "record --out x --model heat3d --variant stream",
                                 "record --out x --model heat3d --variant reference",
                                 "record --out x --model heat3d --device cpu --variant stream25d",
                                 "record --out x --model heat3d --size 8 --slice-z 8",
                                 "record --out x --model deriv3d --axis w",
                                 "record --out x --model deriv3d --variant stream25d",
                                 "record --out x --ab order=3", "record --out x --ab colour=red", "record --out x --ab order",
                                 "record --out x --ab alpha=-1", "record --out x --ab variant=warp",
                                 "record --out x --size 16 --probe 16,0", "record --out x --probe 1,2,3",
                                 "record --out x --model heat3d --size 8 --probe 1,2", "record --out x --draw-every 0",
                                 "record --out x --frame-budget 0.5", "record --out x --frame-budget 60",
                                 "record --out x --frame-budget -1"}) {
    const RunResult r = run_app(args, "env -u DISPLAY");
    EXPECT_NE(r.exit_code, 0) << args;
    EXPECT_NE(r.output.find("error"), std::string::npos) << args << ": " << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << args << ": " << r.output;
  }
}

// STENCILSCOPE_INTEROP (render/interop.hpp) forces a CUDA-GL upload path: another value,
// or host with --upload interop, fails in one line before anything runs; a valid value
// leaves a CPU run as it is.
TEST(GuiCommandLine, ABadInteropPathIsRefusedInOneLine) {
  for (const char* bad : {"mapped", "EXTERNAL", "host-copy"}) {
    const RunResult r =
        run_app("record --headless --frames 1 --out x --size 16", std::string("env -u DISPLAY STENCILSCOPE_INTEROP=") + bad);
    EXPECT_NE(r.exit_code, 0) << bad;
    EXPECT_NE(r.output.find(std::string("STENCILSCOPE_INTEROP='") + bad + "'"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("choose shared, map, external or host"), std::string::npos) << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
  }
  const RunResult both = run_app("record --headless --frames 1 --out x --size 16 --upload interop",
                                 "env -u DISPLAY STENCILSCOPE_INTEROP=host");
  EXPECT_NE(both.exit_code, 0);
  EXPECT_NE(both.output.find("STENCILSCOPE_INTEROP=host forces the host copy"), std::string::npos) << both.output;

  const auto dir = scratch_dir("record_interop_env");
  for (const char* good : {"map", "external", "host", ""}) {
    const RunResult r = run_app("record --headless --frames 1 --device cpu --size 16 --out '" + (dir / "f").string() + "'",
                                std::string("env -u DISPLAY STENCILSCOPE_INTEROP=") + good);
    EXPECT_EQ(r.exit_code, 0) << good << ": " << r.output;
    EXPECT_NE(r.output.find("CPU backend"), std::string::npos) << r.output;
  }
  std::filesystem::remove_all(dir);
}

TEST(RecordHeadless, VideoThroughFfmpegWhenItIsThere) {
  if (std::system("command -v ffmpeg >/dev/null 2>&1") != 0) GTEST_SKIP() << "ffmpeg is not on PATH";
  const auto dir = scratch_dir("record_ffmpeg");
  const auto clip = dir / "clip.mp4";
  // Odd sizes: the recorder pads to even sides for yuv420p.
  const RunResult r = run_app("record --headless --frames 6 --out '" + clip.string() +
                                  "' --width 161 --height 121 --size 24 --device cpu",
                              "env -u DISPLAY");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("via ffmpeg"), std::string::npos) << r.output;
  ASSERT_TRUE(std::filesystem::exists(clip)) << r.output;
  EXPECT_GT(std::filesystem::file_size(clip), 500u);
  EXPECT_FALSE(std::filesystem::exists(dir / "clip")) << "no PNG fallback when ffmpeg works";
  // ffprobe counts the frames when it is there (it comes with ffmpeg).
  const std::string probe = "ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames "
                            "-of csv=p=0 '" + clip.string() + "'";
  if (std::FILE* p = ::popen(probe.c_str(), "r")) {
    char buf[64] = {};
    const bool read = std::fgets(buf, sizeof buf, p) != nullptr;
    ::pclose(p);
    if (read) {
      EXPECT_EQ(std::atoi(buf), 6) << buf;
    }
  }
  std::filesystem::remove_all(dir);
}

TEST(RecordHeadless, MeasureRunsTheWindowLoopAndReportsFps) {
  const RunResult r = run_app("record --headless --measure --frames 20 --size 96x64 --ui", "env -u DISPLAY");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  double fps = 0;
  long steps = 0;
  const auto at = r.output.find("frames: ");
  ASSERT_NE(at, std::string::npos) << r.output;
  ASSERT_EQ(std::sscanf(r.output.c_str() + at, "frames: %lf fps", &fps), 1) << r.output;
  EXPECT_GT(fps, 0.0);
  const auto st = r.output.find("per frame), ");
  ASSERT_NE(st, std::string::npos) << r.output;
  ASSERT_EQ(std::sscanf(r.output.c_str() + st, "per frame), %ld steps done", &steps), 1) << r.output;
  EXPECT_GT(steps, 20);  // adaptive batches: more than one step per frame on a tiny grid
  double steps_per_s = 0;
  const auto sps = r.output.find("measure: ", r.output.find("steps done"));
  ASSERT_NE(sps, std::string::npos) << r.output;
  ASSERT_EQ(std::sscanf(r.output.c_str() + sps, "measure: %lf steps/s", &steps_per_s), 1) << r.output;
  EXPECT_GT(steps_per_s, 0.0);
}

// Frames are paced as vsync paces the window (60 Hz unless --display-hz says otherwise;
// 0 unpaced), so the measured frame rate cannot exceed the display's.
TEST(RecordHeadless, MeasurePacesFramesAsTheDisplayDoes) {
  const RunResult r = run_app("record --headless --measure --frames 15 --size 64x48 --display-hz 25", "env -u DISPLAY");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("paced at 25 Hz, batches of about 10 ms"), std::string::npos) << r.output;  // automatic on the CPU
  double fps = 0;
  const auto at = r.output.find("frames: ");
  ASSERT_NE(at, std::string::npos) << r.output;
  ASSERT_EQ(std::sscanf(r.output.c_str() + at, "frames: %lf fps", &fps), 1) << r.output;
  EXPECT_GT(fps, 0.0);  // no lower bound: a loaded machine (CI, 2 cores) may draw slower than the display
  EXPECT_LE(fps, 25.5) << "frames came faster than a 25 Hz display shows them";
  const RunResult unpaced = run_app("record --headless --measure --frames 5 --size 64x48 --display-hz 0", "env -u DISPLAY");
  ASSERT_EQ(unpaced.exit_code, 0) << unpaced.output;
  EXPECT_NE(unpaced.output.find(", unpaced"), std::string::npos) << unpaced.output;
  // --frame-budget sets how long each adaptive batch aims to run.
  const RunResult budget = run_app("record --headless --measure --frames 5 --size 64x48 --frame-budget 4.5", "env -u DISPLAY");
  ASSERT_EQ(budget.exit_code, 0) << budget.output;
  EXPECT_NE(budget.output.find("batches of about 4.5 ms"), std::string::npos) << budget.output;
  const RunResult bad = run_app("record --headless --measure --display-hz -5", "env -u DISPLAY");
  EXPECT_NE(bad.exit_code, 0) << bad.output;
  // --no-draw leaves the frame's GL work out, and says so.
  const RunResult bare = run_app("record --headless --measure --frames 5 --size 64x48 --no-draw", "env -u DISPLAY");
  ASSERT_EQ(bare.exit_code, 0) << bare.output;
  EXPECT_NE(bare.output.find(", no drawing"), std::string::npos) << bare.output;
  const RunResult alone = run_app("record --headless --no-draw --out /tmp/x", "env -u DISPLAY");
  EXPECT_NE(alone.exit_code, 0);
  EXPECT_NE(alone.output.find("--no-draw goes with --measure"), std::string::npos) << alone.output;
}

// --against-bench: the kernel alone on the same configuration, and the window's share of it.
TEST(RecordHeadless, MeasureAgainstBenchPrintsTheRatio) {
  const RunResult r =
      run_app("record --headless --measure --against-bench --frames 5 --size 64x48 --variant cpu", "env -u DISPLAY");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto at = r.output.find("measure: bench heat2d cpu: ");
  ASSERT_NE(at, std::string::npos) << r.output;
  double bench = 0, ratio = 0;
  ASSERT_EQ(std::sscanf(r.output.c_str() + at, "measure: bench heat2d cpu: %lf steps/s", &bench), 1) << r.output;
  const auto q = r.output.find("window / bench = ", at);
  ASSERT_NE(q, std::string::npos) << r.output;
  ASSERT_EQ(std::sscanf(r.output.c_str() + q, "window / bench = %lf", &ratio), 1) << r.output;
  EXPECT_GT(bench, 0.0);
  EXPECT_GT(ratio, 0.0);  // a tiny grid: far below 1 (frames of a few steps against the kernel alone)
  const RunResult alone = run_app("record --headless --against-bench --out /tmp/x", "env -u DISPLAY");
  EXPECT_NE(alone.exit_code, 0);
  EXPECT_NE(alone.output.find("goes with --measure"), std::string::npos) << alone.output;
}

// A scene file sets the model, size, parameters and view; flags given override it.
TEST(RecordHeadless, SceneFileSetsTheSceneAndFlagsOverrideIt) {
  const auto dir = scratch_dir("record_scene");
  const auto scene = dir / "scene.toml";
  std::ofstream(scene) << "model = \"heat3d\"\nsize = [21, 17, 13]\norder = 4\n[params]\nboundary = \"periodic\"\n"
                          "[view]\ncolormap = \"inferno\"\nsampling = \"nearest\"\nslices = [2, 15, 0]\n"
                          "steps_per_frame = 4\n";
  const RunResult r = run_app("record --headless --scene '" + scene.string() + "' --frames 2 --out '" +
                                  (dir / "frames").string() + "' --width 480 --height 360 --device cpu --order 8",
                              "env -u DISPLAY -u WAYLAND_DISPLAY");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  ASSERT_TRUE(std::filesystem::exists(dir / "frames" / "frame_00001.png")) << r.output;
  EXPECT_NE(r.output.find("(step 4)"), std::string::npos) << r.output;  // frame k shows the file's 4 steps per frame, k times
  Heat3DConfig c;
  c.nx = 21;
  c.ny = 17;
  c.nz = 13;
  c.order = 8;  // --order overrides the file's 4
  c.boundary = Boundary::periodic;
  HostHeat3D<float> sim(make_heat3d_setup(c));
  sim.step(4);
  const render::Image img = render::read_png((dir / "frames" / "frame_00001.png").string());
  EXPECT_GE(expect_slice_pixels(img, sim, render::Colormap::inferno, 2, {2, 15, 0}), 100);

  // A bad scene: one line naming the file, the line and the key; a non-zero exit.
  std::ofstream(scene) << "model = \"heat2d\"\n[params]\nalpha = -1\n";
  const RunResult bad = run_app("record --headless --scene '" + scene.string() + "' --frames 2 --out '" +
                                    (dir / "bad").string() + "' --device cpu",
                                "env -u DISPLAY -u WAYLAND_DISPLAY");
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_EQ(bad.output, "stencilscope: error: " + scene.string() + ":3: params.alpha = -1 is out of range (1e-12 to 1e+12)\n");
  EXPECT_FALSE(std::filesystem::exists(dir / "bad"));
  std::filesystem::remove_all(dir);
}

TEST(RecordHeadless, ResumesACheckpointFromItsStepAndRefusesChangesToItsGrid) {
#ifndef STENCILSCOPE_HAVE_HDF5
  GTEST_SKIP() << "this build has no HDF5 (libhdf5-dev): no checkpoints";
#endif
  const std::string checkpoint = (std::filesystem::temp_directory_path() / "stencilscope-resume.h5").string();
  const std::string dir = (std::filesystem::temp_directory_path() / "stencilscope-resume-frames").string();
  std::filesystem::remove_all(dir);
  ASSERT_EQ(run_app("export --model heat3d --size 21x17x13 --steps 6 --device cpu --checkpoint '" + checkpoint + "'").exit_code, 0);
  const RunResult r = run_app("record --headless --resume '" + checkpoint + "' --frames 2 --steps-per-frame 3 --width 160 "
                              "--height 120 --device cpu --out '" + dir + "'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("(step 9)"), std::string::npos) << "6 steps in the checkpoint, then one batch of 3: " << r.output;
  for (const std::string& args : {"record --headless --resume '" + checkpoint + "' --size 8 --out x",
                                 "record --headless --resume '" + checkpoint + "' --alpha 2 --out x",
                                 std::string("record --headless --resume /no/such.h5 --out x")}) {
    const RunResult bad = run_app(args, "env -u DISPLAY");
    EXPECT_NE(bad.exit_code, 0) << args;
    EXPECT_EQ(std::count(bad.output.begin(), bad.output.end(), '\n'), 1) << args << ": " << bad.output;
  }
  std::filesystem::remove_all(dir);
  std::filesystem::remove(checkpoint);
}

TEST(RecordHeadless, CheckpointsDuringARecordingResumeBitForBit) {
#ifndef STENCILSCOPE_HAVE_HDF5
  GTEST_SKIP() << "this build has no HDF5 (libhdf5-dev): no checkpoints";
#endif
  const auto tmp = std::filesystem::temp_directory_path();
  const std::string checkpoint = (tmp / "stencilscope-record.h5").string(), frames = (tmp / "stencilscope-record-frames").string();
  const std::string whole = (tmp / "stencilscope-record-whole.npy").string(), resumed = (tmp / "stencilscope-record-resumed.npy").string();
  std::filesystem::remove_all(frames);
  // 4 frames of 3 steps: frame 0 is the initial field, so the recording ends at step 9,
  // with checkpoints written at steps 3, 6 and 9 (every 3 steps) and at the end.
  const RunResult r = run_app("record --headless --size 40x30 --boundary periodic --steps-per-frame 3 --frames 4 --width 160 "
                              "--height 120 --device cpu --out '" + frames + "' --checkpoint '" + checkpoint +
                              "' --checkpoint-every 3");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::size_t written = 0;
  for (std::size_t at = r.output.find("checkpoint "); at != std::string::npos; at = r.output.find("checkpoint ", at + 1))
    ++written;
  EXPECT_GE(written, 3u) << r.output;
  ASSERT_EQ(run_app("export --resume '" + checkpoint + "' --steps 3 --device cpu --out '" + resumed + "'").exit_code, 0);
  ASSERT_EQ(run_app("export --model heat2d --size 40x30 --boundary periodic --steps 12 --device cpu --out '" + whole + "'").exit_code, 0);
  std::ifstream a(whole, std::ios::binary), b(resumed, std::ios::binary);
  const std::string bytes_a((std::istreambuf_iterator<char>(a)), {}), bytes_b((std::istreambuf_iterator<char>(b)), {});
  EXPECT_FALSE(bytes_a.empty());
  EXPECT_EQ(bytes_a, bytes_b) << "record to step 9, checkpoint, resume 3 steps == 12 steps in one run";
  for (const std::string& f : {checkpoint, whole, resumed}) std::filesystem::remove(f);
  std::filesystem::remove_all(frames);
}


// A/B and probes from the command line: the frames show A, B and B - A, and --probe's cells
// are marked (record draws the window's views).
TEST(RecordHeadless, ABFramesShowTheThreePanesAndTheProbes) {
  const auto dir = scratch_dir("record_ab");
  const RunResult r = run_app("record --headless --frames 2 --width 640 --height 480 --size 64 --device cpu "
                              "--initial hot-spots --ab order=2 --probe 10,20 --out '" + dir.string() + "'",
                              "env -u DISPLAY -u WAYLAND_DISPLAY");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const render::Image img = render::read_png((dir / "frame_00001.png").string());
  // The field area split 2x2 with a 4-pixel gap (the app's slice_layout): A, B, B - A.
  const render::PixelRect a = render::frame_layout(640, 480, true).field_area;
  const double w = (a.width - 4) / 2, h = (a.height - 4) / 2;
  const render::PixelRect panes[3] = {{a.x, a.y, w, h}, {a.x + w + 4, a.y, w, h}, {a.x, a.y + h + 4, w, h}};
  // The probe's magenta cross at cell (10, 20) in each of the three panes.
  for (int k = 0; k < 3; ++k) {
    const render::PixelRect f = render::field_rect(panes[k], 64, 64, {});
    const double s = f.width / 64;
    const int x = static_cast<int>(f.x + 10.5 * s), y = static_cast<int>(f.y + (64 - 20.5) * s);
    const std::size_t i = (static_cast<std::size_t>(y) * 640 + x) * 4;
    EXPECT_GT(img.rgba[i], 200) << "pane " << k;
    EXPECT_LT(img.rgba[i + 1], 140) << "pane " << k;
    EXPECT_GT(img.rgba[i + 2], 200) << "pane " << k;
  }
  std::filesystem::remove_all(dir);
}

// record --probe ... --probes-csv: a row per frame's step, each value the field's cell there.
TEST(RecordHeadless, ProbesCsvHasARowPerFrameWithTheFieldsCells) {
  const auto dir = scratch_dir("record_probes");
  const std::string csv = (dir / "probes.csv").string();
  const RunResult r = run_app("record --headless --frames 3 --width 320 --height 240 --size 40x30 --steps-per-frame 5 "
                              "--device cpu --probe 3,4 --probe 39,29 --probes-csv '" + csv + "' --out '" +
                                  (dir / "frames").string() + "'",
                              "env -u DISPLAY -u WAYLAND_DISPLAY");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ifstream f(csv);
  std::vector<std::string> lines;
  for (std::string line; std::getline(f, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 4u) << r.output;
  EXPECT_EQ(lines[0], "time,step,temperature at x=3 y=4,temperature at x=39 y=29");
  // The last row is step 10: the CPU heat field after 10 steps at those cells.
  const Model& m = find_model("heat2d");
  auto sim = m.create(make_config(m, {40, 30, 1}, 8, {}), Backend::cpu, "cpu");
  sim->start_steps(10);
  const std::vector<float> field = sim->copy_state().fields.at(0);
  EXPECT_EQ(lines[3].substr(lines[3].find(',') + 1),
            fmt::format("10,{:.9g},{:.9g}", field[4 * 40 + 3], field[29 * 40 + 39]));
  EXPECT_EQ(lines[1].substr(lines[1].find(',') + 1, 2), "0,");
  std::filesystem::remove_all(dir);
}

// record writes the receivers' traces when asked (--seismogram), with the sources and
// receivers of the command line; a source outside the grid ends it in one line.
TEST(RecordHeadless, WritesTheSeismogramOfItsSourcesAndReceivers) {
  const auto dir = scratch_dir("record_seismogram");
  const std::string base = (dir / "seis").string();
  const RunResult r = run_app("record --headless --model acoustic3d --size 30x26x22 --device cpu --frames 3 "
                              "--steps-per-frame 4 --out '" + (dir / "frames").string() +
                              "' --point-source pressure:8,9,7:f0=15 --point-source pressure:20,12,10 "
                              "--receivers xz:12:grid:3 --seismogram '" + base + "'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const NpyArray a = read_npy(base + ".npy");
  ASSERT_EQ(a.shape.size(), 3u);
  EXPECT_GT(a.shape[0], 0u);
  EXPECT_EQ(a.shape[1], 1u);
  EXPECT_EQ(a.shape[2], 10u * 8u);  // x 0, 3, .., 27 by z 0, 3, .., 21
  const Seismogram csv = read_seismogram_csv(base + ".csv");
  EXPECT_EQ(csv.values, a.values);
  const RunResult bad = run_app("record --headless --model acoustic3d --size 30x26x22 --device cpu --frames 1 --out '" +
                                (dir / "bad").string() + "' --point-source pressure:8,26,7");
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.output.find("outside the grid: y runs 1 to 25"), std::string::npos) << bad.output;
  std::filesystem::remove_all(dir);
}

// A scene's medium overlay is drawn by `record` as the window draws it: the layered
// medium's bands show through the XZ slice, and the same scene without the overlay has
// none (it was left out of recordings before session 21).
TEST(RecordHeadless, ASceneMediumOverlayIsRecorded) {
  const auto dir = scratch_dir("record_scene_overlay");
  const auto run = [&](const std::string& name, bool overlay) {
    const auto scene = dir / (name + ".toml");
    std::ofstream(scene) << "model = \"acoustic3d\"\nsize = [32, 32, 32]\nvariant = \"cpu\"\n[params]\n"
                            "medium = \"layered\"\n[view]\ncolormap = \"grey\"\nrange = [-1, 1]\n"
                         << "overlay = " << (overlay ? "true" : "false") << "\noverlay_opacity = 0.8\n";
    const RunResult r = run_app("record --headless --scene '" + scene.string() + "' --frames 2 --out '" +
                                    (dir / name).string() + "' --width 640 --height 400 --steps-per-frame 1",
                                "env -u DISPLAY -u WAYLAND_DISPLAY");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return render::read_png((dir / name / "frame_00001.png").string());
  };
  const render::Image with = run("on", true), without = run("off", false);
  ASSERT_EQ(with.rgba.size(), without.rgba.size());
  // Grey levels down the middle column of the frame's upper right quarter (the XZ slice):
  // the medium's layers are bands of different grey with the overlay, one grey without.
  const auto levels = [](const render::Image& img) {
    std::set<int> seen;
    const int x = img.width * 5 / 8;
    for (int y = img.height / 16; y < img.height * 7 / 16; ++y) seen.insert(img.rgba[(static_cast<std::size_t>(y) * img.width + x) * 4]);
    return seen.size();
  };
  EXPECT_GE(levels(with), 3u) << "the layers drawn over the slice";
  EXPECT_LE(levels(without), 2u) << "no overlay: the quiet field is one grey";
  std::filesystem::remove_all(dir);
}

// A scene file's [[sources]] and [receivers] run as the same --point-source and
// --receivers would: the same seismogram, value for value.
TEST(RecordHeadless, SceneSourcesRecordTheSameSeismogramAsPointSources) {
  const auto dir = scratch_dir("record_scene_sources");
  const std::string common = "record --headless --device cpu --frames 3 --steps-per-frame 4 ";
  const RunResult flags = run_app(common + "--model acoustic3d --size 30x26x22 --out '" + (dir / "a").string() +
                                  "' --point-source pressure:8,9,7:f0=15 --point-source pressure:20,12,10:amp=-0.5 "
                                  "--receivers xz:12:line:10:2 --seismogram '" + (dir / "flags").string() + "'");
  ASSERT_EQ(flags.exit_code, 0) << flags.output;
  const std::string scene = (dir / "scene.toml").string();
  std::ofstream(scene) << "model = \"acoustic3d\"\nsize = [30, 26, 22]\nvariant = \"cpu\"\n"
                          "[receivers]\nplane = \"xz\"\nposition = 12\nshape = \"line\"\nline_at = 10\nspacing = 2\n"
                          "[[sources]]\nkind = \"pressure\"\nnode = [8, 9, 7]\nf0 = 15\n"
                          "[[sources]]\nkind = \"pressure\"\nnode = [20, 12, 10]\namplitude = -0.5\n";
  const RunResult file = run_app(common + "--scene '" + scene + "' --out '" + (dir / "b").string() + "' --seismogram '" +
                                 (dir / "scene").string() + "'");
  ASSERT_EQ(file.exit_code, 0) << file.output;
  const NpyArray a = read_npy((dir / "flags.npy").string()), b = read_npy((dir / "scene.npy").string());
  EXPECT_EQ(a.shape, b.shape);
  EXPECT_GT(a.shape[0], 0u);
  EXPECT_EQ(a.values, b.values);
  // A source outside the grid ends the command in one line naming the file, line and key.
  std::ofstream(scene) << "model = \"acoustic3d\"\nsize = [30, 26, 22]\n[[sources]]\nkind = \"pressure\"\nnode = [8, 26, 7]\n";
  const RunResult bad = run_app(common + "--scene '" + scene + "' --out '" + (dir / "c").string() + "'");
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.output.find(scene + ":5: sources[0].node: source at (x 8, y 26, z 7) is outside the grid: y runs 1 to 25"),
            std::string::npos)
      << bad.output;
  std::filesystem::remove_all(dir);
}
