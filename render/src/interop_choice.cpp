// Which CUDA-GL path a texture takes: host code, built with and without CUDA, and
// tested without a GPU (tests/gui/test_interop_choice.cpp).
#include <algorithm>
#include <array>
#include <cstdlib>

#include "stencilscope/render/interop.hpp"

namespace ss::render {

namespace {
constexpr std::array<std::string_view, 4> kExternalGlExtensions{
    "GL_EXT_memory_object", "GL_EXT_memory_object_fd", "GL_EXT_semaphore", "GL_EXT_semaphore_fd"};
}  // namespace

std::string_view to_string(InteropPath p) {
  switch (p) {
    case InteropPath::external: return "external";
    case InteropPath::map: return "map";
    case InteropPath::host: return "host";
  }
  return "?";
}

std::optional<InteropPath> parse_interop_path(std::string_view value) {
  if (value.empty()) return std::nullopt;
  for (InteropPath p : {InteropPath::external, InteropPath::map, InteropPath::host})
    if (value == to_string(p)) return p;
  throw Error("STENCILSCOPE_INTEROP='" + std::string(value) +
              "' is not a CUDA-GL upload path: choose map, external or host (or leave it unset to choose "
              "automatically)");
}

std::optional<InteropPath> interop_override() {
  const char* v = std::getenv("STENCILSCOPE_INTEROP");
  return parse_interop_path(v ? v : "");
}

std::span<const std::string_view> external_gl_extensions() { return kExternalGlExtensions; }

std::vector<std::string_view> missing_external_gl_extensions(std::span<const std::string> advertised) {
  std::vector<std::string_view> missing;
  for (std::string_view e : kExternalGlExtensions)
    if (std::find(advertised.begin(), advertised.end(), e) == advertised.end()) missing.push_back(e);
  return missing;
}

std::vector<InteropPath> interop_paths_to_try(const InteropSupport& s, std::optional<InteropPath> forced) {
  std::vector<InteropPath> paths;
  if (forced) {
    if (*forced != InteropPath::host) paths.push_back(*forced);
  } else {
    if (s.gl_external_objects && s.cuda_device && s.cuda_export) paths.push_back(InteropPath::external);
    if (s.cuda_device) paths.push_back(InteropPath::map);
  }
  paths.push_back(InteropPath::host);
  return paths;
}

}  // namespace ss::render
