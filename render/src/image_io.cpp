#include "stencilscope/render/image_io.hpp"

#include <stb/stb_image.h>
#include <stb/stb_image_write.h>

#include "sim/core/error.hpp"

namespace ss::render {

void write_png(const std::string& path, const Image& image) {
  if (image.rgba.size() != static_cast<std::size_t>(image.width) * image.height * 4)
    throw Error("internal: image of " + std::to_string(image.width) + "x" + std::to_string(image.height) +
                " has the wrong number of bytes");
  if (!stbi_write_png(path.c_str(), image.width, image.height, 4, image.rgba.data(), image.width * 4))
    throw Error("cannot write PNG '" + path + "'");
}

Image read_png(const std::string& path) {
  int w = 0, h = 0, channels = 0;
  unsigned char* data = stbi_load(path.c_str(), &w, &h, &channels, 4);
  if (!data) throw Error("cannot read PNG '" + path + "': " + (stbi_failure_reason() ? stbi_failure_reason() : "?"));
  Image img{w, h, std::vector<std::uint8_t>(data, data + static_cast<std::size_t>(w) * h * 4)};
  stbi_image_free(data);
  return img;
}

}  // namespace ss::render
