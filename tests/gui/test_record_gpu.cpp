// On a CUDA device: `record --headless` with CUDA-GL interop must give the same pixels as
// the device -> host -> texture path on the same state, and the colormap of the CPU
// backend's field (the GPU variants are bitwise equal to it). Skips without a device.
#include <utility>
#include <vector>

#include "app_runner.hpp"
#include "sim/core/device.hpp"

using namespace ss;
using namespace ss::test;

namespace {

std::string frame_name(int k) {
  char name[32];
  std::snprintf(name, sizeof name, "frame_%05d.png", k);
  return name;
}

void expect_same_frames(const std::filesystem::path& a, const std::filesystem::path& b, int frames) {
  for (int k = 0; k < frames; ++k) {
    const render::Image x = render::read_png((a / frame_name(k)).string());
    const render::Image y = render::read_png((b / frame_name(k)).string());
    ASSERT_EQ(x.width, y.width);
    ASSERT_EQ(x.height, y.height);
    std::size_t differing = 0;
    for (std::size_t p = 0; p < x.rgba.size(); ++p) differing += x.rgba[p] != y.rgba[p];
    EXPECT_EQ(differing, 0u) << "frame " << k << ": interop and host copy differ in " << differing << " bytes";
  }
}

}  // namespace

TEST(RecordGpu, InteropAndHostCopyDrawTheSamePixelsAsTheCpuField) {
  std::string why;
  if (!cuda_available(&why)) GTEST_SKIP() << "no CUDA device: " << why;
  const auto dir = scratch_dir("record_gpu");
  // 300x200: not a multiple of the interop kernel's 32x8 tiles.
  for (const char* range : {"-1.2:1.3", "auto"}) {
    SCOPED_TRACE(range);
    const std::string common = std::string(" --headless --device gpu --frames 3 --steps-per-frame 7 --size 300x200") +
                               " --width 640 --height 400 --colormap inferno --sampling nearest --range " + range;
    const auto interop = dir / (std::string("interop_") + (range[0] == 'a' ? "auto" : "fixed"));
    const auto host = dir / (std::string("host_") + (range[0] == 'a' ? "auto" : "fixed"));
    const RunResult a = run_app("record --upload interop --out '" + interop.string() + "'" + common, "env -u DISPLAY");
    ASSERT_EQ(a.exit_code, 0) << a.output;
    EXPECT_NE(a.output.find("CUDA-GL interop"), std::string::npos) << a.output;
    const RunResult b = run_app("record --upload host-copy --out '" + host.string() + "'" + common, "env -u DISPLAY");
    ASSERT_EQ(b.exit_code, 0) << b.output;
    EXPECT_NE(b.output.find("host -> texture"), std::string::npos) << b.output;
    std::fprintf(stderr, "%s%s", a.output.c_str(), b.output.c_str());
    expect_same_frames(interop, host, 3);
    if (range[0] != 'a') {
      const render::Image last = render::read_png((interop / frame_name(2)).string());
      EXPECT_GE(expect_field_pixels(last, cpu_field(300, 200, 14), render::Colormap::inferno, {-1.2, 1.3}, 13), 300);
    }
  }
  std::filesystem::remove_all(dir);
}

// STENCILSCOPE_INTEROP forces each CUDA-GL path: the record says which ran, and both
// draw what the host copy draws (heat2d, and heat3d's three slices in one write). Skips
// the external path where the record says the GL context or CUDA cannot take it.
TEST(RecordGpu, ExternalAndMapPathsDrawTheSamePixelsAsTheHostCopy) {
  std::string why;
  if (!cuda_available(&why)) GTEST_SKIP() << "no CUDA device: " << why;
  const auto dir = scratch_dir("record_gpu_paths");
  const std::vector<std::pair<std::string, std::string>> scenes{
      {"2d", " --size 300x200 --steps-per-frame 7 --colormap inferno"},
      {"3d", " --model heat3d --variant stream25d --size 67x45x38 --steps-per-frame 5 --colormap viridis"}};
  for (const auto& [name, scene] : scenes) {
    SCOPED_TRACE(name);
    const std::string common =
        " --headless --device gpu --frames 3 --width 640 --height 400 --sampling nearest --range auto" + scene;
    const auto host = dir / ("host" + name);
    const RunResult h = run_app("record --upload host-copy --out '" + host.string() + "'" + common, "env -u DISPLAY");
    ASSERT_EQ(h.exit_code, 0) << h.output;
    for (const std::string path : {"map", "external"}) {
      const auto out = dir / (path + name);
      const RunResult r = run_app("record --upload interop --out '" + out.string() + "'" + common,
                                  "env -u DISPLAY STENCILSCOPE_INTEROP=" + path);
      std::fprintf(stderr, "%s", r.output.c_str());
      if (path == "external" && r.exit_code != 0 &&
          (r.output.find("lacks") != std::string::npos || r.output.find("cannot export") != std::string::npos))
        GTEST_SKIP() << "the external path is not supported here: " << r.output;
      ASSERT_EQ(r.exit_code, 0) << r.output;
      EXPECT_NE(r.output.find(path == "map" ? "CUDA-GL interop (map)" : "CUDA-GL interop (external memory)"),
                std::string::npos)
          << r.output;
      expect_same_frames(out, host, 3);
    }
  }
  std::filesystem::remove_all(dir);
}

TEST(RecordGpu, Heat3DSlicesThroughInteropAndHostCopyDrawTheSamePixelsAsTheCpuSlices) {
  std::string why;
  if (!cuda_available(&why)) GTEST_SKIP() << "no CUDA device: " << why;
  const auto dir = scratch_dir("record_gpu3d");
  // 67x45x38: no side a multiple of the 32x8 tiles; the YZ slice is the strided one.
  const std::string common =
      " --headless --model heat3d --device gpu --variant stream25d --frames 3 --steps-per-frame 5 --size 67x45x38"
      " --width 800 --height 600 --colormap viridis --sampling nearest --range auto";
  const RunResult a = run_app("record --upload interop --out '" + (dir / "interop").string() + "'" + common,
                              "env -u DISPLAY");
  ASSERT_EQ(a.exit_code, 0) << a.output;
  EXPECT_NE(a.output.find("CUDA-GL interop"), std::string::npos) << a.output;
  const RunResult b = run_app("record --upload host-copy --out '" + (dir / "host").string() + "'" + common,
                              "env -u DISPLAY");
  ASSERT_EQ(b.exit_code, 0) << b.output;
  EXPECT_NE(b.output.find("host -> texture"), std::string::npos) << b.output;
  std::fprintf(stderr, "%s%s", a.output.c_str(), b.output.c_str());
  expect_same_frames(dir / "interop", dir / "host", 3);
  // Recordings wait for each batch, so the auto range of frame 2 is that of its own slices.
  const render::Image last = render::read_png((dir / "interop" / frame_name(2)).string());
  EXPECT_GE(expect_slice_pixels(last, cpu_field3d(67, 45, 38, 10), render::Colormap::viridis, 5), 150);
  std::filesystem::remove_all(dir);
}
