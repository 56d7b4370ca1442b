#pragma once
// The table that cmake/EmbedFilesScript.cmake generates (shaders and assets, by relative path).
#include <cstddef>
#include <string_view>

namespace ss::render::detail {

struct EmbeddedFile {
  std::string_view name;   ///< path relative to the source tree, e.g. "shaders/field.frag"
  std::string_view bytes;  ///< the file's contents
};

extern const EmbeddedFile kEmbeddedFiles[];
extern const std::size_t kEmbeddedFileCount;

}  // namespace ss::render::detail
