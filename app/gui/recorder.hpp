#pragma once
// Writes frames to a video (ffmpeg through a pipe) or to numbered PNG files.
#include <cstdio>
#include <string>

#include "stencilscope/render/image_io.hpp"

namespace ss::app {

/// True when an executable `ffmpeg` is on PATH.
bool ffmpeg_available();

/// "stencilscope-YYYYMMDD-HHMMSS" in local time (for screenshots and recordings).
std::string timestamped_name(const char* prefix = "stencilscope");

class FrameRecorder {
 public:
  /// `out` ending in .mp4, .mkv, .mov or .webm: a video through ffmpeg when it is on PATH;
  /// without ffmpeg, a PNG sequence in the directory named like `out` without its extension.
  /// Any other `out` is a directory (created) for frame_00000.png, frame_00001.png, ...
  /// Throws ss::Error when the output cannot be opened.
  FrameRecorder(const std::string& out, int width, int height, int fps);
  ~FrameRecorder();
  FrameRecorder(const FrameRecorder&) = delete;
  FrameRecorder& operator=(const FrameRecorder&) = delete;

  /// Appends a frame of exactly width x height; throws ss::Error when writing fails.
  void add(const render::Image& frame);
  /// Closes the output (waits for ffmpeg); throws ss::Error when ffmpeg failed.
  void finish();

  /// One line saying where the frames go and how ("MP4 via ffmpeg: out.mp4", ...).
  const std::string& description() const { return description_; }
  int frames() const { return frames_; }

 private:
  std::FILE* pipe_ = nullptr;
  std::string directory_;
  std::string description_;
  int width_ = 0, height_ = 0, frames_ = 0;
};

}  // namespace ss::app
