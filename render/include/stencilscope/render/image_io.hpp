#pragma once
// PNG files through stb_image_write / stb_image (no GL).
#include <cstdint>
#include <string>
#include <vector>

namespace ss::render {

/// An 8-bit RGBA image, top row first.
struct Image {
  int width = 0, height = 0;
  std::vector<std::uint8_t> rgba;
};

/// Writes an RGBA PNG; throws ss::Error naming the path when it cannot.
void write_png(const std::string& path, const Image& image);
/// Reads a PNG as RGBA; throws ss::Error naming the path when it cannot.
Image read_png(const std::string& path);

}  // namespace ss::render
