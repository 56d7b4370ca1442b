#include "resources.hpp"

#include <string>

#include "embedded_files.hpp"
#include "sim/core/error.hpp"

namespace ss::render {

std::string_view embedded_file(std::string_view name) {
  for (std::size_t k = 0; k < detail::kEmbeddedFileCount; ++k)
    if (detail::kEmbeddedFiles[k].name == name) return detail::kEmbeddedFiles[k].bytes;
  throw Error("no embedded file '" + std::string(name) + "' (was it listed in render/CMakeLists.txt?)");
}

}  // namespace ss::render
