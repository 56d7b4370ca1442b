#include "gl_util.hpp"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "resources.hpp"

namespace ss::render::detail {

namespace {

std::string shader_log(GLuint shader) {
  GLint length = 0;
  glGetShaderiv(shader, GL_INFO_LOG_LENGTH, &length);
  std::string log(static_cast<std::size_t>(std::max(length, 1)), '\0');
  glGetShaderInfoLog(shader, length, nullptr, log.data());
  return log.c_str();
}

GLuint compile(GLenum type, std::string_view file) {
  const std::string_view source = embedded_file(file);
  const GLuint shader = glCreateShader(type);
  const char* text = source.data();
  const GLint length = static_cast<GLint>(source.size());
  glShaderSource(shader, 1, &text, &length);
  glCompileShader(shader);
  GLint ok = GL_FALSE;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  const std::string log = shader_log(shader);
  if (!log.empty()) std::fprintf(stderr, "stencilscope: %s compile log:\n%s\n", std::string(file).c_str(), log.c_str());
  if (!ok) {
    glDeleteShader(shader);
    throw GLError("shader " + std::string(file) + " failed to compile: " + log);
  }
  return shader;
}

}  // namespace

GLProgram link_program(std::string_view vertex_file, std::string_view fragment_file) {
  const GLuint vs = compile(GL_VERTEX_SHADER, vertex_file);
  GLuint fs = 0;
  try {
    fs = compile(GL_FRAGMENT_SHADER, fragment_file);
  } catch (...) {
    glDeleteShader(vs);
    throw;
  }
  GLProgram program(glCreateProgram());
  glAttachShader(program.get(), vs);
  glAttachShader(program.get(), fs);
  glLinkProgram(program.get());
  glDetachShader(program.get(), vs);
  glDetachShader(program.get(), fs);
  glDeleteShader(vs);
  glDeleteShader(fs);
  GLint ok = GL_FALSE, length = 0;
  glGetProgramiv(program.get(), GL_LINK_STATUS, &ok);
  glGetProgramiv(program.get(), GL_INFO_LOG_LENGTH, &length);
  std::string log(static_cast<std::size_t>(std::max(length, 1)), '\0');
  glGetProgramInfoLog(program.get(), length, nullptr, log.data());
  log = log.c_str();
  const std::string name = std::string(vertex_file) + " + " + std::string(fragment_file);
  if (!log.empty()) std::fprintf(stderr, "stencilscope: %s link log:\n%s\n", name.c_str(), log.c_str());
  if (!ok) throw GLError("program " + name + " failed to link: " + log);
  check_gl("linking shaders");
  return program;
}

void check_framebuffer(const char* what) {
  const GLenum status = glCheckFramebufferStatus(GL_DRAW_FRAMEBUFFER);
  if (status != GL_FRAMEBUFFER_COMPLETE)
    throw GLError(std::string(what) + ": framebuffer incomplete (status 0x" + [&] {
      char buf[16];
      std::snprintf(buf, sizeof buf, "%04x", status);
      return std::string(buf);
    }() + ")");
}

void flip_rows(unsigned char* pixels, int width, int height, int bytes_per_pixel) {
  const std::size_t row = static_cast<std::size_t>(width) * bytes_per_pixel;
  std::vector<unsigned char> tmp(row);
  for (int y = 0; y < height / 2; ++y) {
    unsigned char* a = pixels + row * y;
    unsigned char* b = pixels + row * (height - 1 - y);
    std::copy(a, a + row, tmp.data());
    std::copy(b, b + row, a);
    std::copy(tmp.data(), tmp.data() + row, b);
  }
}

}  // namespace ss::render::detail
