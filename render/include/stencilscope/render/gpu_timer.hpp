#pragma once
// GPU time of a stretch of GL commands (GL_TIME_ELAPSED queries) without stalling:
// a small ring of queries is read back only once the GPU says a result is available,
// so the figure arrives a frame or two late and a frame is skipped rather than waited for.
#include <array>
#include <optional>

#include "stencilscope/render/gl.hpp"

namespace ss::render {

class GpuTimer {
 public:
  GpuTimer();
  /// Starts timing (skipped, without waiting, when every query is still in flight).
  void begin();
  /// Ends what begin() started; no-op when begin() skipped.
  void end();
  /// The most recent finished measurement in ms; empty until one has finished.
  std::optional<double> last_ms();

 private:
  static constexpr int kQueries = 4;
  std::array<GLQuery, kQueries> queries_;
  std::array<bool, kQueries> in_flight_{};
  int next_ = 0;
  int running_ = -1;
  std::optional<double> last_ms_;
};

}  // namespace ss::render
