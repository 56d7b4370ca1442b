#include "stencilscope/render/gpu_timer.hpp"

#include <glad/gl.h>

namespace ss::render {

GpuTimer::GpuTimer() {
  GLuint names[kQueries] = {};
  glGenQueries(kQueries, names);
  for (int k = 0; k < kQueries; ++k) queries_[static_cast<std::size_t>(k)] = GLQuery(names[k]);
  check_gl("creating timer queries");
}

void GpuTimer::begin() {
  last_ms();  // collect finished results, freeing their queries
  const std::size_t k = static_cast<std::size_t>(next_);
  if (in_flight_[k]) return;  // the GPU is more than kQueries frames behind: skip, never wait
  glBeginQuery(GL_TIME_ELAPSED, queries_[k].get());
  running_ = next_;
  next_ = (next_ + 1) % kQueries;
}

void GpuTimer::end() {
  if (running_ < 0) return;
  glEndQuery(GL_TIME_ELAPSED);
  in_flight_[static_cast<std::size_t>(running_)] = true;
  running_ = -1;
}

std::optional<double> GpuTimer::last_ms() {
  // Oldest first: queries finish in the order they were issued.
  for (int n = 0; n < kQueries; ++n) {
    const std::size_t k = static_cast<std::size_t>((next_ + n) % kQueries);
    if (!in_flight_[k]) continue;
    GLint available = 0;
    glGetQueryObjectiv(queries_[k].get(), GL_QUERY_RESULT_AVAILABLE, &available);
    if (!available) break;
    GLuint64 ns = 0;
    glGetQueryObjectui64v(queries_[k].get(), GL_QUERY_RESULT, &ns);
    last_ms_ = static_cast<double>(ns) * 1e-6;
    in_flight_[k] = false;
  }
  return last_ms_;
}

}  // namespace ss::render
