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
constexpr std::array<std::string_view, 2> kSharedGlExtensions{"GL_EXT_memory_object", "GL_EXT_memory_object_fd"};
}  // namespace

std::string_view to_string(InteropPath p) {
  switch (p) {
    case InteropPath::shared: return "shared";
    case InteropPath::external: return "external";
    case InteropPath::map: return "map";
    case InteropPath::host: return "host";
  }
  return "?";
}

std::optional<InteropPath> parse_interop_path(std::string_view value) {
  if (value.empty()) return std::nullopt;
  for (InteropPath p : {InteropPath::shared, InteropPath::external, InteropPath::map, InteropPath::host})
    if (value == to_string(p)) return p;
  throw Error("STENCILSCOPE_INTEROP='" + std::string(value) +
              "' is not a CUDA-GL upload path: choose shared, map, external or host (or leave it unset to choose "
              "automatically)");
}

std::optional<InteropPath> interop_override() {
  const char* v = std::getenv("STENCILSCOPE_INTEROP");
  return parse_interop_path(v ? v : "");
}

std::span<const std::string_view> external_gl_extensions() { return kExternalGlExtensions; }

std::span<const std::string_view> shared_gl_extensions() { return kSharedGlExtensions; }

std::vector<std::string_view> missing_gl_extensions(std::span<const std::string_view> wanted,
                                                    std::span<const std::string> advertised) {
  std::vector<std::string_view> missing;
  for (std::string_view e : wanted)
    if (std::find(advertised.begin(), advertised.end(), e) == advertised.end()) missing.push_back(e);
  return missing;
}

std::vector<std::string_view> missing_external_gl_extensions(std::span<const std::string> advertised) {
  return missing_gl_extensions(kExternalGlExtensions, advertised);
}

std::vector<InteropPath> interop_paths_to_try(const InteropSupport& s, std::optional<InteropPath> forced) {
  std::vector<InteropPath> paths;
  if (forced) {
    if (*forced != InteropPath::host) paths.push_back(*forced);  // shared: the slots' path, not a texture's
  } else if (s.cuda_device) {
    // map, the faster on the GPUs measured (session 18, H200: heat2d 4096^2 0.947 of bench
    // by map against 0.860 by external memory, whose GL-side copy into the texture costs a
    // frame more than a map and unmap); external only when forced (STENCILSCOPE_INTEROP).
    paths.push_back(InteropPath::map);
  }
  paths.push_back(InteropPath::host);
  return paths;
}

std::vector<InteropPath> texture_paths_to_try(const InteropSupport& s, std::optional<InteropPath> forced) {
  if (forced == InteropPath::shared) return {InteropPath::map, InteropPath::host};
  return interop_paths_to_try(s, forced);
}

bool use_shared_slots(const InteropSupport& s, std::optional<InteropPath> forced) {
  if (forced) return *forced == InteropPath::shared;
  return s.cuda_device && s.cuda_export && s.gl_memory_objects;
}

}  // namespace ss::render
