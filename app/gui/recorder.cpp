#include "recorder.hpp"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <string_view>

#include <fmt/format.h>

#include "sim/core/error.hpp"

namespace ss::app {

namespace fs = std::filesystem;

bool ffmpeg_available() {
  const char* path = std::getenv("PATH");
  if (!path) return false;
  std::string_view rest(path);
  while (!rest.empty()) {
    const std::size_t colon = rest.find(':');
    const std::string dir(rest.substr(0, colon));
    rest = colon == std::string_view::npos ? std::string_view{} : rest.substr(colon + 1);
    const std::string candidate = (dir.empty() ? std::string(".") : dir) + "/ffmpeg";
    if (::access(candidate.c_str(), X_OK) == 0) return true;
  }
  return false;
}

std::string timestamped_name(const char* prefix) {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", &local);
  return fmt::format("{}-{}", prefix, buf);
}

namespace {
std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}
bool is_video_name(const fs::path& p) {
  const std::string ext = p.extension().string();
  return ext == ".mp4" || ext == ".mkv" || ext == ".mov" || ext == ".webm";
}
}  // namespace

FrameRecorder::FrameRecorder(const std::string& out, int width, int height, int fps) : width_(width), height_(height) {
  if (out.empty()) throw Error("no output given for the recording");
  if (width <= 0 || height <= 0) throw Error(fmt::format("frame size {}x{} must be positive", width, height));
  if (fps <= 0) throw Error(fmt::format("frame rate {} must be positive", fps));
  const fs::path path(out);
  if (is_video_name(path) && ffmpeg_available()) {
    if (path.has_parent_path() && !fs::is_directory(path.parent_path()))
      throw Error("cannot write '" + out + "': folder '" + path.parent_path().string() + "' does not exist");
    // Raw RGBA frames in; H.264 in yuv420p out (needs even sides: pad by one pixel when odd).
    const std::string cmd = fmt::format(
        "ffmpeg -hide_banner -loglevel error -y -f rawvideo -pix_fmt rgba -s {}x{} -r {} -i - "
        "-vf 'pad=ceil(iw/2)*2:ceil(ih/2)*2' -c:v libx264 -pix_fmt yuv420p -crf 18 {}",
        width, height, fps, shell_quote(out));
    std::signal(SIGPIPE, SIG_IGN);  // a dying ffmpeg must not kill the app: fwrite reports it
    pipe_ = ::popen(cmd.c_str(), "w");
    if (!pipe_) throw Error("cannot start ffmpeg: " + std::string(std::strerror(errno)));
    description_ = fmt::format("{} via ffmpeg: {}", path.extension().string().substr(1), out);
    return;
  }
  directory_ = is_video_name(path) ? (path.parent_path() / path.stem()).string() : out;
  std::error_code ec;
  fs::create_directories(directory_, ec);
  if (ec || !fs::is_directory(directory_))
    throw Error("cannot create folder '" + directory_ + "' for the frames" + (ec ? ": " + ec.message() : ""));
  description_ = is_video_name(path) ? fmt::format("PNG sequence in {}/ (ffmpeg not found on PATH)", directory_)
                                     : fmt::format("PNG sequence in {}/", directory_);
}

FrameRecorder::~FrameRecorder() {
  if (pipe_) ::pclose(pipe_);
}

void FrameRecorder::add(const render::Image& frame) {
  if (frame.width != width_ || frame.height != height_)
    throw Error(fmt::format("frame is {}x{}, the recording {}x{}", frame.width, frame.height, width_, height_));
  if (pipe_) {
    if (std::fwrite(frame.rgba.data(), 1, frame.rgba.size(), pipe_) != frame.rgba.size())
      throw Error("ffmpeg stopped taking frames (see its message above)");
  } else {
    render::write_png(fmt::format("{}/frame_{:05d}.png", directory_, frames_), frame);
  }
  ++frames_;
}

void FrameRecorder::finish() {
  if (!pipe_) return;
  const int status = ::pclose(pipe_);
  pipe_ = nullptr;
  if (status != 0) throw Error(fmt::format("ffmpeg failed (exit status {})", WEXITSTATUS(status)));
}

}  // namespace ss::app
