#pragma once
// Private helpers of the render library (need glad).
#include <glad/gl.h>

#include <string_view>

#include "stencilscope/render/gl.hpp"

namespace ss::render::detail {

/// Compiles and links a program from two embedded shader files; prints and throws the log on failure.
GLProgram link_program(std::string_view vertex_file, std::string_view fragment_file);

/// Throws GLError naming the status when the bound draw framebuffer is incomplete.
void check_framebuffer(const char* what);

/// Flips rows in place (GL reads bottom row first; PNG wants top row first).
void flip_rows(unsigned char* pixels, int width, int height, int bytes_per_pixel);

}  // namespace ss::render::detail
