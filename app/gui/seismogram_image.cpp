#include "seismogram_image.hpp"

#include <algorithm>
#include <cmath>

#include "stencilscope/render/colormap.hpp"

namespace ss::app {

SeismogramImage seismogram_image(const Seismogram& s, int max_width, int max_height) {
  SeismogramImage img;
  const int rows = s.rows(), receivers = s.receivers(), comps = static_cast<int>(s.components.size());
  if (rows == 0 || receivers == 0 || comps == 0) return img;
  constexpr int kGap = 2;
  const int panel = std::max(1, std::min(receivers, (max_width - kGap * (comps - 1)) / comps));
  img.width = comps * panel + kGap * (comps - 1);
  img.height = std::min(rows, max_height);
  for (float v : s.values)
    if (std::isfinite(v)) img.peak = std::max(img.peak, static_cast<double>(std::abs(v)));
  const double scale = img.peak > 0 ? 0.5 / img.peak : 0;
  const render::ColormapTable& table = render::colormap_table(render::Colormap::blue_red);
  img.rgba.assign(static_cast<std::size_t>(img.width) * img.height * 4, 0);
  for (int y = 0; y < img.height; ++y) {
    const int row = static_cast<int>(static_cast<long long>(y) * rows / img.height);
    for (int c = 0; c < comps; ++c)
      for (int x = 0; x < panel; ++x) {
        const int r = static_cast<int>(static_cast<long long>(x) * receivers / panel);
        const float v = s.at(row, c, r);
        const render::Rgb rgb = render::colormap_color(table, std::isfinite(v) ? 0.5 + v * scale : 0.5);
        std::uint8_t* px = &img.rgba[(static_cast<std::size_t>(y) * img.width + c * (panel + kGap) + x) * 4];
        px[0] = static_cast<std::uint8_t>(std::lround(255 * rgb.r));
        px[1] = static_cast<std::uint8_t>(std::lround(255 * rgb.g));
        px[2] = static_cast<std::uint8_t>(std::lround(255 * rgb.b));
        px[3] = 255;
      }
  }
  return img;
}

std::vector<float> seismogram_field(const Seismogram& s, int width, int height) {
  const int rows = s.rows(), receivers = s.receivers(), comps = static_cast<int>(s.components.size());
  if (rows == 0 || receivers == 0 || comps == 0 || width < comps) return {};
  std::vector<float> out(static_cast<std::size_t>(width) * height, 0.0f);
  const int panel = std::max(1, (width - (comps - 1)) / comps);
  for (int y = 0; y < height; ++y) {
    const int row = static_cast<int>(static_cast<long long>(y) * rows / height);
    float* line = &out[static_cast<std::size_t>(height - 1 - y) * width];
    for (int c = 0; c < comps; ++c)
      for (int x = 0; x < panel && c * (panel + 1) + x < width; ++x) {
        const float v = s.at(row, c, static_cast<int>(static_cast<long long>(x) * receivers / panel));
        line[c * (panel + 1) + x] = std::isfinite(v) ? v : 0.0f;
      }
  }
  return out;
}

}  // namespace ss::app
