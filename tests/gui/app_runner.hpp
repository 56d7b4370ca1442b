#pragma once
// Runs the stencilscope executable and checks the pictures it writes against the
// colormap applied to a field computed here with the CPU backend.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "sim/models/deriv3d/deriv3d.hpp"
#include "sim/models/heat2d/heat2d_solver.hpp"
#include "sim/models/heat3d/heat3d_solver.hpp"
#include "sim/core/slice3d.hpp"
#include "stencilscope/render/colormap.hpp"
#include "stencilscope/render/field_renderer.hpp"
#include "stencilscope/render/image_io.hpp"
#include "stencilscope/render/view_layout.hpp"

namespace ss::test {

struct RunResult {
  int exit_code = -1;
  std::string output;  ///< stdout and stderr
};

/// Runs `stencilscope <args>` through the shell, prefixed by `env` (e.g. "env -u DISPLAY").
inline RunResult run_app(const std::string& args, const std::string& env = "") {
  const std::string cmd = (env.empty() ? "" : env + " ") + "'" STENCILSCOPE_EXE "' " + args + " 2>&1";
  RunResult r;
  std::FILE* pipe = ::popen(cmd.c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buf{};
  while (std::fgets(buf.data(), static_cast<int>(buf.size()), pipe)) r.output += buf.data();
  const int status = ::pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

/// A fresh, empty directory for one test's files.
inline std::filesystem::path scratch_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("stencilscope_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

/// The field the app shows after `steps` steps of the CPU backend.
inline HostHeat2D<float> cpu_field(int nx, int ny, int steps) {
  Heat2DConfig c;
  c.nx = nx;
  c.ny = ny;
  HostHeat2D<float> sim(make_heat2d_setup(c));
  if (steps > 0) sim.step(steps);
  return sim;
}

inline render::ValueRange interior_range(const HostHeat2D<float>& sim) {
  const Grid2D& g = sim.setup().grid;
  float lo = sim.field()[g.index(0, 0)], hi = lo;
  for (int j = 0; j < g.ny; ++j)
    for (int i = 0; i < g.nx; ++i) {
      lo = std::min(lo, sim.field()[g.index(i, j)]);
      hi = std::max(hi, sim.field()[g.index(i, j)]);
    }
  return {lo, hi};
}

/// Checks the pixel at the centre of every `stride`-th cell against the colormap of the
/// field value there (nearest sampling, default zoom). Returns the number of cells checked.
inline int expect_field_pixels(const render::Image& img, const HostHeat2D<float>& sim, render::Colormap map,
                               const render::ValueRange& range, int stride, int tolerance = 2) {
  const Grid2D& g = sim.setup().grid;
  const render::FrameLayout layout = render::frame_layout(img.width, img.height, true);
  const render::PixelRect rect = render::field_rect(layout.field_area, g.nx, g.ny, {});
  const double s = rect.width / g.nx;
  const auto& table = render::colormap_table(map);
  int checked = 0, failures = 0;
  for (int j = 0; j < g.ny; j += stride)
    for (int i = 0; i < g.nx; i += stride) {
      const int px = static_cast<int>(rect.x + (i + 0.5) * s);
      const int py = static_cast<int>(rect.y + (g.ny - j - 0.5) * s);
      const float v = sim.field()[g.index(i, j)];
      const render::Rgb want = render::colormap_color(table, render::normalized(v, range));
      const std::uint8_t* got = &img.rgba[(static_cast<std::size_t>(py) * img.width + px) * 4];
      const int want8[3] = {static_cast<int>(std::lround(want.r * 255)), static_cast<int>(std::lround(want.g * 255)),
                            static_cast<int>(std::lround(want.b * 255))};
      bool ok = true;
      for (int c = 0; c < 3; ++c) ok = ok && std::abs(got[c] - want8[c]) <= tolerance;
      if (!ok && ++failures <= 5)
        ADD_FAILURE() << "cell (" << i << ", " << j << ") value " << v << " at pixel (" << px << ", " << py << "): got rgb("
                      << int(got[0]) << ", " << int(got[1]) << ", " << int(got[2]) << "), want rgb(" << want8[0]
                      << ", " << want8[1] << ", " << want8[2] << ")";
      ++checked;
    }
  EXPECT_EQ(failures, 0) << "of " << checked << " cells";
  return checked;
}

/// The heat 3D field the app shows after `steps` steps of the CPU backend (its defaults: order 8, analytic).
inline HostHeat3D<float> cpu_field3d(int nx, int ny, int nz, int steps) {
  Heat3DConfig c;
  c.nx = nx;
  c.ny = ny;
  c.nz = nz;
  HostHeat3D<float> sim(make_heat3d_setup(c));
  if (steps > 0) sim.step(steps);
  return sim;
}

/// The three slice panes of a heat 3D frame, worked out here independently of the app:
/// the field area split 2x2 with a 4-pixel gap, XY top left, XZ top right, YZ bottom left.
inline std::array<render::PixelRect, 3> slice_panes(const render::PixelRect& a) {
  const double w = (a.width - 4) / 2, h = (a.height - 4) / 2;
  return {render::PixelRect{a.x, a.y, w, h}, render::PixelRect{a.x + w + 4, a.y, w, h},
          render::PixelRect{a.x, a.y + h + 4, w, h}};
}
inline std::array<render::PixelRect, 3> slice_panes(int width, int height) {
  return slice_panes(render::frame_layout(width, height, true).field_area);
}

/// Checks the pixels of the three slices at `at` (z of XY, y of XZ, x of YZ; -1: the
/// middle, the app's default) against the colormap over the range spanning all three;
/// the label strip at the top of each pane is skipped. Returns the number of cells checked.
inline int expect_slice_pixels(const render::Image& img, const std::vector<float>& field, const Grid3D& g,
                               render::Colormap map, int stride, std::array<int, 3> at = {-1, -1, -1},
                               int tolerance = 2) {
  const int positions[3] = {at[0] < 0 ? g.nz / 2 : at[0], at[1] < 0 ? g.ny / 2 : at[1], at[2] < 0 ? g.nx / 2 : at[2]};
  std::array<std::vector<float>, 3> slices;
  float lo = 1e30f, hi = -1e30f;
  for (SliceAxis axis : kAllSliceAxes) {
    auto& s = slices[static_cast<std::size_t>(axis)];
    extract_slice(field, g, axis, positions[static_cast<int>(axis)], s);
    for (float v : s) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  const render::ValueRange range{lo, hi};
  const auto panes = slice_panes(img.width, img.height);
  const auto& table = render::colormap_table(map);
  int checked = 0, failures = 0;
  for (SliceAxis axis : kAllSliceAxes) {
    const int a = static_cast<int>(axis);
    const SliceView view = slice_view(g, axis, positions[a]);
    const render::PixelRect rect = render::field_rect(panes[a], view.nu, view.nv, {});
    const double s = rect.width / view.nu;
    for (int v = 0; v < view.nv; v += stride)
      for (int u = 0; u < view.nu; u += stride) {
        const int px = static_cast<int>(rect.x + (u + 0.5) * s);
        const int py = static_cast<int>(rect.y + (view.nv - v - 0.5) * s);
        if (py < panes[a].y + 20) continue;  // the pane's label
        const float value = slices[a][static_cast<std::size_t>(v) * view.nu + u];
        const render::Rgb want = render::colormap_color(table, render::normalized(value, range));
        const std::uint8_t* got = &img.rgba[(static_cast<std::size_t>(py) * img.width + px) * 4];
        const int want8[3] = {static_cast<int>(std::lround(want.r * 255)), static_cast<int>(std::lround(want.g * 255)),
                              static_cast<int>(std::lround(want.b * 255))};
        bool ok = true;
        for (int c = 0; c < 3; ++c) ok = ok && std::abs(got[c] - want8[c]) <= tolerance;
        if (!ok && ++failures <= 5)
          ADD_FAILURE() << to_string(axis) << " cell (" << u << ", " << v << ") value " << value << " at pixel (" << px
                        << ", " << py << "): got rgb(" << int(got[0]) << ", " << int(got[1]) << ", " << int(got[2])
                        << "), want rgb(" << want8[0] << ", " << want8[1] << ", " << want8[2] << ")";
        ++checked;
      }
  }
  EXPECT_EQ(failures, 0) << "of " << checked << " cells";
  return checked;
}

inline int expect_slice_pixels(const render::Image& img, const HostHeat3D<float>& sim, render::Colormap map,
                               int stride, std::array<int, 3> at = {-1, -1, -1}, int tolerance = 2) {
  return expect_slice_pixels(img, sim.field(), sim.setup().grid, map, stride, at, tolerance);
}

/// The RGB of pixel (x, y).
inline std::array<int, 3> pixel(const render::Image& img, int x, int y) {
  const std::uint8_t* p = &img.rgba[(static_cast<std::size_t>(y) * img.width + x) * 4];
  return {p[0], p[1], p[2]};
}

}  // namespace ss::test
