#pragma once
// Paths inside scene files (file parameters, e.g. a medium's .npy): written relative to the
// scene file's folder, read back against it. Apart from scene_file.cpp so that <filesystem>
// (and std::quoted) stays out of it.
#include <string>

namespace ss::app {

/// `path` as written in the scene file `scene` read: relative paths are relative to the
/// scene's folder; an absolute or empty path, or an empty `scene`, is returned unchanged.
std::string resolve_scene_path(const std::string& path, const std::string& scene);

/// `path` (absolute, or relative to the working directory) as the scene file `scene` to be
/// written names it: relative to the scene's folder; empty stays empty.
std::string scene_relative_path(const std::string& path, const std::string& scene);

}  // namespace ss::app
