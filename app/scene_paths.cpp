#include "scene_paths.hpp"

#include <filesystem>

namespace ss::app {

std::string resolve_scene_path(const std::string& path, const std::string& scene) {
  const std::filesystem::path p(path);
  if (path.empty() || p.is_absolute() || scene.empty()) return path;
  return (std::filesystem::path(scene).parent_path() / p).lexically_normal().string();
}

std::string scene_relative_path(const std::string& path, const std::string& scene) {
  if (path.empty()) return path;
  const std::filesystem::path dir = std::filesystem::absolute(scene).parent_path();
  const std::filesystem::path rel = std::filesystem::absolute(path).lexically_normal().lexically_relative(dir);
  return rel.empty() ? path : rel.string();
}

}  // namespace ss::app
