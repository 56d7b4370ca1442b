#include "stencilscope/render/field_renderer.hpp"

#include <glad/gl.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "gl_util.hpp"

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#endif
#include <stb/stb_easy_font.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

namespace ss::render {

std::string_view to_string(Sampling s) { return s == Sampling::nearest ? "nearest" : "linear"; }

Sampling parse_sampling(std::string_view s) {
  if (s == "nearest") return Sampling::nearest;
  if (s == "linear") return Sampling::linear;
  throw Error("unknown sampling '" + std::string(s) + "' (choose nearest or linear)");
}

namespace {

/// One vertex of the overlay (ticks, outline, labels): pixels, top-left origin.
struct OverlayVertex {
  float x, y;
  std::uint8_t rgba[4];
};

constexpr std::uint8_t kLabelRgba[4] = {235, 235, 235, 255};
constexpr int kColormapTexels = 4096;  // samples of each colormap in its texture
constexpr float kTextScale = 1.5f;  // stb_easy_font's glyphs are ~7 px tall

void add_quad(std::vector<OverlayVertex>& v, float x0, float y0, float x1, float y1, const std::uint8_t* c) {
  const OverlayVertex a{x0, y0, {c[0], c[1], c[2], c[3]}}, b{x1, y0, {c[0], c[1], c[2], c[3]}},
      d{x1, y1, {c[0], c[1], c[2], c[3]}}, e{x0, y1, {c[0], c[1], c[2], c[3]}};
  v.insert(v.end(), {a, b, d, a, d, e});
}

/// Text as triangles, top-left corner at (x, y), through stb_easy_font.
void add_text(std::vector<OverlayVertex>& v, float x, float y, const std::string& text,
              const std::uint8_t* rgba = kLabelRgba) {
  struct EasyVertex {
    float x, y, z;
    std::uint8_t c[4];
  };
  static_assert(sizeof(EasyVertex) == 16);
  std::array<EasyVertex, 1024> quads{};
  const int n = stb_easy_font_print(0, 0, const_cast<char*>(text.c_str()), nullptr, quads.data(),
                                    static_cast<int>(sizeof(quads)));
  for (int q = 0; q < n; ++q) {
    const EasyVertex* k = &quads[static_cast<std::size_t>(q) * 4];
    add_quad(v, x + k[0].x * kTextScale, y + k[0].y * kTextScale, x + k[2].x * kTextScale, y + k[2].y * kTextScale,
             rgba);
  }
}

/// A line as a thin rectangle (two triangles) along its direction.
void add_line(std::vector<OverlayVertex>& v, const OverlayLine& line) {
  const float dx = line.x1 - line.x0, dy = line.y1 - line.y0;
  const float len = std::sqrt(dx * dx + dy * dy);
  if (len <= 0) return;
  const float nx = -dy / len * line.width * 0.5f, ny = dx / len * line.width * 0.5f;
  const auto& c = line.rgba;
  const OverlayVertex a{line.x0 + nx, line.y0 + ny, {c[0], c[1], c[2], c[3]}},
      b{line.x1 + nx, line.y1 + ny, {c[0], c[1], c[2], c[3]}}, d{line.x1 - nx, line.y1 - ny, {c[0], c[1], c[2], c[3]}},
      e{line.x0 - nx, line.y0 - ny, {c[0], c[1], c[2], c[3]}};
  v.insert(v.end(), {a, b, d, a, d, e});
}

std::string label(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

}  // namespace

struct FieldRenderer::Impl {
  GLProgram field_program;
  GLProgram overlay_program;
  GLVertexArray empty_vao;  // core profile draws need a bound VAO even without attributes
  GLVertexArray overlay_vao;
  GLBuffer overlay_vbo;
  std::array<GLTexture, kAllColormaps.size()> colormaps;
  GLint u_field_buffer = -1, u_field_in_buffer = -1, u_field_size = -1, u_field_linear = -1;
  GLint u_colormap_size = -1;
  GLint u_rect = -1, u_field = -1, u_colormap = -1, u_ramp = -1, u_range = -1, u_target_size = -1;
  GLint u_medium = -1, u_medium_opacity = -1, u_medium_range = -1;
  std::vector<OverlayVertex> overlay;
  GLint filter = GL_NEAREST;

  Impl() {
    field_program = detail::link_program("shaders/field.vert", "shaders/field.frag");
    overlay_program = detail::link_program("shaders/overlay.vert", "shaders/overlay.frag");
    u_rect = glGetUniformLocation(field_program.get(), "u_rect");
    u_field = glGetUniformLocation(field_program.get(), "u_field");
    u_field_buffer = glGetUniformLocation(field_program.get(), "u_field_buffer");
    u_colormap_size = glGetUniformLocation(field_program.get(), "u_colormap_size");
    u_field_in_buffer = glGetUniformLocation(field_program.get(), "u_field_in_buffer");
    u_field_size = glGetUniformLocation(field_program.get(), "u_field_size");
    u_field_linear = glGetUniformLocation(field_program.get(), "u_field_linear");
    u_colormap = glGetUniformLocation(field_program.get(), "u_colormap");
    u_ramp = glGetUniformLocation(field_program.get(), "u_ramp");
    u_range = glGetUniformLocation(field_program.get(), "u_range");
    u_medium = glGetUniformLocation(field_program.get(), "u_medium");
    u_medium_opacity = glGetUniformLocation(field_program.get(), "u_medium_opacity");
    u_medium_range = glGetUniformLocation(field_program.get(), "u_medium_range");
    u_target_size = glGetUniformLocation(overlay_program.get(), "u_target_size");

    GLuint names[2] = {0, 0};
    glGenVertexArrays(2, names);
    empty_vao = GLVertexArray(names[0]);
    overlay_vao = GLVertexArray(names[1]);
    GLuint vbo = 0;
    glGenBuffers(1, &vbo);
    overlay_vbo = GLBuffer(vbo);
    glBindVertexArray(overlay_vao.get());
    glBindBuffer(GL_ARRAY_BUFFER, vbo);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, sizeof(OverlayVertex), reinterpret_cast<void*>(0));
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, 4, GL_UNSIGNED_BYTE, GL_TRUE, sizeof(OverlayVertex),
                          reinterpret_cast<void*>(offsetof(OverlayVertex, rgba)));
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);

    // Each colormap as kColormapTexels samples of colormap_color, 10 bits a channel (one
    // 32-bit texel per lookup: a 128-bit RGBA32F texel and a second one to interpolate
    // with cost the H100's and H200's few pixel-shading SMs more than the view's
    // other work, docs/perf.md). test_colormap bounds its distance from colormap_color.
    for (Colormap c : kAllColormaps) {
      const ColormapTable& table = colormap_table(c);
      const std::vector<std::uint32_t> packed = colormap_texels(table, kColormapTexels);
      GLuint tex = 0;
      glGenTextures(1, &tex);
      colormaps[static_cast<std::size_t>(c)] = GLTexture(tex);
      glBindTexture(GL_TEXTURE_2D, tex);
      glTexImage2D(GL_TEXTURE_2D, 0, GL_RGB10_A2, kColormapTexels, 1, 0, GL_RGBA, GL_UNSIGNED_INT_2_10_10_10_REV,
                   packed.data());
      glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
      glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    }
    glBindTexture(GL_TEXTURE_2D, 0);
    check_gl("creating the field renderer");
  }

  /// A rectangle in pixels (top-left origin) as u_rect in normalized device coordinates.
  void set_rect(const PixelRect& r, const FrameLayout& l) {
    const float x0 = static_cast<float>(r.x / l.width * 2 - 1);
    const float x1 = static_cast<float>((r.x + r.width) / l.width * 2 - 1);
    const float y0 = static_cast<float>(1 - (r.y + r.height) / l.height * 2);  // bottom edge
    const float y1 = static_cast<float>(1 - r.y / l.height * 2);
    glUniform4f(u_rect, x0, y0, x1, y1);
  }

  /// Clears the target and binds the field program, the colormap and the range.
  void begin(const FrameLayout& l, const ViewStyle& style) {
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_CULL_FACE);
    glDisable(GL_BLEND);
    glDisable(GL_SCISSOR_TEST);
    glViewport(0, 0, l.width, l.height);
    glClearColor(kBackgroundRgb[0] / 255.0f, kBackgroundRgb[1] / 255.0f, kBackgroundRgb[2] / 255.0f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    glUseProgram(field_program.get());
    glActiveTexture(GL_TEXTURE1);
    glBindTexture(GL_TEXTURE_2D, colormaps[static_cast<std::size_t>(style.colormap)].get());
    glActiveTexture(GL_TEXTURE0);
    glUniform1i(u_field, 0);
    glUniform1i(u_field_buffer, 3);
    glUniform1i(u_colormap, 1);
    glUniform1i(u_colormap_size, kColormapTexels);
    glUniform1i(u_medium, 2);
    glUniform1f(u_medium_opacity, 0.0f);
    glUniform2f(u_range, static_cast<float>(style.range.lo), static_cast<float>(style.range.hi));
    glBindVertexArray(empty_vao.get());
    filter = style.sampling == Sampling::linear ? GL_LINEAR : GL_NEAREST;
  }

  /// The range and colormap the next fields are drawn with (the field program is bound).
  void set_look(const ValueRange& range, Colormap colormap) {
    glActiveTexture(GL_TEXTURE1);
    glBindTexture(GL_TEXTURE_2D, colormaps[static_cast<std::size_t>(colormap)].get());
    glActiveTexture(GL_TEXTURE0);
    glUniform2f(u_range, static_cast<float>(range.lo), static_cast<float>(range.hi));
  }

  /// One field in `area` (clipped to it) under `transform`; the field program is bound.
  void draw_field(const FieldTexture& field, const FrameLayout& l, const PixelRect& a, const ViewTransform& transform) {
    glUseProgram(field_program.get());
    glBindVertexArray(empty_vao.get());
    glUniform1i(u_ramp, 0);
    glUniform1i(u_field_linear, filter == GL_LINEAR ? 1 : 0);
    glUniform2i(u_field_size, field.nx(), field.ny());
    const unsigned buffer = field.shown_buffer_texture();
    glUniform1i(u_field_in_buffer, buffer ? 1 : 0);
    glActiveTexture(GL_TEXTURE3);
    glBindTexture(GL_TEXTURE_BUFFER, buffer);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, field.gl_name());  // bound either way: read only when no buffer is shown
    glEnable(GL_SCISSOR_TEST);
    glScissor(static_cast<GLint>(a.x), static_cast<GLint>(l.height - (a.y + a.height)), static_cast<GLsizei>(a.width),
              static_cast<GLsizei>(a.height));
    set_rect(field_rect(a, field.nx(), field.ny(), transform), l);
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    glDisable(GL_SCISSOR_TEST);
  }

  /// The medium the next fields are overlaid with (null: none); the field program is bound.
  void set_medium(const FieldTexture* medium, const ValueRange& range, float opacity) {
    glActiveTexture(GL_TEXTURE2);
    glBindTexture(GL_TEXTURE_2D, medium ? medium->gl_name() : 0);
    if (medium) {
      glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, filter);
      glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, filter);
    }
    glActiveTexture(GL_TEXTURE0);
    glUniform1f(u_medium_opacity, medium ? std::clamp(opacity, 0.0f, 1.0f) : 0.0f);
    glUniform2f(u_medium_range, static_cast<float>(range.lo), static_cast<float>(range.hi));
  }

  /// Draws `overlay` (pixels, blended) with the overlay program.
  void draw_overlay(const FrameLayout& l) {
    if (overlay.empty()) return;
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glUseProgram(overlay_program.get());
    glUniform2f(u_target_size, static_cast<float>(l.width), static_cast<float>(l.height));
    glBindVertexArray(overlay_vao.get());
    glBindBuffer(GL_ARRAY_BUFFER, overlay_vbo.get());
    glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(overlay.size() * sizeof(OverlayVertex)), overlay.data(),
                 GL_STREAM_DRAW);
    glDrawArrays(GL_TRIANGLES, 0, static_cast<GLsizei>(overlay.size()));
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    glDisable(GL_BLEND);
  }

  /// Unbinds what begin bound.
  void end() {
    glBindVertexArray(0);
    glUseProgram(0);
    glActiveTexture(GL_TEXTURE3);
    glBindTexture(GL_TEXTURE_BUFFER, 0);
    glActiveTexture(GL_TEXTURE2);
    glBindTexture(GL_TEXTURE_2D, 0);
    glActiveTexture(GL_TEXTURE1);
    glBindTexture(GL_TEXTURE_2D, 0);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, 0);
  }

  void draw_colorbar(const FrameLayout& l, const ViewStyle& style) {
    const PixelRect& bar = l.colorbar;
    glUniform1i(u_ramp, 1);
    set_rect(bar, l);
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);

    overlay.clear();
    const std::uint8_t frame_rgba[4] = {200, 200, 200, 255};
    const float x0 = static_cast<float>(bar.x), x1 = static_cast<float>(bar.x + bar.width);
    const float y0 = static_cast<float>(bar.y), y1 = static_cast<float>(bar.y + bar.height);
    add_quad(overlay, x0 - 1, y0 - 1, x1 + 1, y0, frame_rgba);
    add_quad(overlay, x0 - 1, y1, x1 + 1, y1 + 1, frame_rgba);
    add_quad(overlay, x0 - 1, y0, x0, y1, frame_rgba);
    add_quad(overlay, x1, y0, x1 + 1, y1, frame_rgba);
    std::vector<double> ticks = colorbar_ticks(style.range, std::max(2, static_cast<int>(bar.height / 45)));
    if (ticks.size() < 2) ticks = {style.range.lo, style.range.hi};
    for (double v : ticks) {
      const float y = static_cast<float>(bar.y + bar.height * (1 - normalized(v, style.range)));
      add_quad(overlay, x1, std::round(y) - 0.5f, x1 + 6, std::round(y) + 0.5f, frame_rgba);
      add_text(overlay, x1 + 9, y - 5 * kTextScale, label(v));
    }

    draw_overlay(l);
    glUseProgram(field_program.get());
  }
};

FieldRenderer::FieldRenderer() : impl_(std::make_unique<Impl>()) {}
FieldRenderer::~FieldRenderer() = default;
FieldRenderer::FieldRenderer(FieldRenderer&&) noexcept = default;
FieldRenderer& FieldRenderer::operator=(FieldRenderer&&) noexcept = default;

void FieldRenderer::draw(const FieldTexture& field, const FrameLayout& l, const ViewStyle& style,
                         std::span<const OverlayLine> lines) {
  Impl& d = *impl_;
  d.begin(l, style);
  d.draw_field(field, l, l.field_area, style.transform);
  if (style.colorbar && l.colorbar.width > 0) d.draw_colorbar(l, style);
  if (!lines.empty()) {
    d.overlay.clear();
    for (const OverlayLine& line : lines) add_line(d.overlay, line);
    d.draw_overlay(l);
  }
  d.end();
  check_gl("drawing the field");
}

void FieldRenderer::draw_panes(std::span<const FieldPane> panes, const FrameLayout& l, const ViewStyle& style,
                               std::span<const OverlayLine> lines) {
  Impl& d = *impl_;
  d.begin(l, style);
  for (const FieldPane& p : panes) {
    if (!p.field) continue;
    const bool own = p.range || p.colormap;
    if (own) d.set_look(p.range.value_or(style.range), p.colormap.value_or(style.colormap));
    const bool medium = style.medium_overlay && p.medium && p.medium->nx() == p.field->nx() &&
                        p.medium->ny() == p.field->ny() && style.medium_opacity > 0;
    if (medium) d.set_medium(p.medium, p.medium_range, style.medium_opacity);
    d.draw_field(*p.field, l, p.area, {});
    if (medium) d.set_medium(nullptr, {}, 0);
    if (own) d.set_look(style.range, style.colormap);
  }
  if (style.colorbar && l.colorbar.width > 0) d.draw_colorbar(l, style);
  d.overlay.clear();
  for (const OverlayLine& line : lines) add_line(d.overlay, line);
  for (const FieldPane& p : panes)
    if (!p.label.empty())
      add_text(d.overlay, static_cast<float>(p.area.x) + 4, static_cast<float>(p.area.y) + 4, p.label,
               p.label_rgba.data());
  d.draw_overlay(l);
  d.end();
  check_gl("drawing the slices");
}

}  // namespace ss::render
