// FieldTexture's two stores (field_texture.hpp): the values in a 2D texture, or in a
// buffer read as a buffer texture (the external CUDA-GL path's store). The renderer
// reads both with texelFetch and filters in the shader, so the same field draws the same
// pixels from either store; host uploads and read-backs work on both. On Mesa's headless
// EGL here and in CI (skipped without a headless context).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "stencilscope/render/field_renderer.hpp"
#include "stencilscope/render/field_texture.hpp"
#include "stencilscope/render/headless_context.hpp"
#include "stencilscope/render/render_target.hpp"
#include "stencilscope/render/view_layout.hpp"

namespace ss::render {
namespace {

std::unique_ptr<HeadlessContext> context_or_skip(std::string* why) {
  try {
    return std::make_unique<HeadlessContext>();
  } catch (const Error& e) {
    *why = e.what();
    return nullptr;
  }
}

/// A field with structure at every scale, a NaN and an Inf: rows `pitch` floats apart.
std::vector<float> field_values(int nx, int ny, int pitch) {
  std::vector<float> f(static_cast<std::size_t>(pitch) * ny, -7.0f);  // the padding must not show
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i)
      f[static_cast<std::size_t>(j) * pitch + i] = std::sin(0.37f * i) * std::cos(0.23f * j) + 0.01f * ((i * 7 + j * 3) % 11);
  f[static_cast<std::size_t>(ny / 2) * pitch + nx / 3] = std::numeric_limits<float>::quiet_NaN();
  f[static_cast<std::size_t>(ny / 3) * pitch + nx / 2] = std::numeric_limits<float>::infinity();
  return f;
}

std::vector<std::uint8_t> draw(FieldRenderer& renderer, const FieldTexture& field, Sampling sampling, double zoom) {
  RenderTarget target(331, 217);  // the field neither a multiple nor a divisor of the area
  target.bind();
  ViewStyle style;
  style.range = {-1.0, 1.0};
  style.sampling = sampling;
  style.transform.zoom = zoom;
  style.transform.pan_x = 0.13;
  renderer.draw(field, frame_layout(target.width(), target.height(), true), style);
  return target.read_rgba();
}

TEST(FieldTexture, TheBufferStoreDrawsTheTexturesPixels) {
  std::string why;
  const auto context = context_or_skip(&why);
  if (!context) GTEST_SKIP() << "no headless GL context: " << why;
  constexpr int nx = 53, ny = 29, pitch = 61;
  const std::vector<float> f = field_values(nx, ny, pitch);
  FieldTexture in_texture(nx, ny), in_buffer(nx, ny);
  in_buffer.use_new_buffer(static_cast<std::size_t>(nx) * ny + 100);  // longer than the field, as CUDA's granularity makes it
  ASSERT_TRUE(in_buffer.in_buffer());
  ASSERT_FALSE(in_texture.in_buffer());
  in_texture.upload_host(f.data(), pitch);
  in_buffer.upload_host(f.data(), pitch);
  const std::vector<float> a = in_texture.download(), b = in_buffer.download();
  ASSERT_EQ(a.size(), static_cast<std::size_t>(nx) * ny);
  ASSERT_EQ(b.size(), a.size());
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      const float want = f[static_cast<std::size_t>(j) * pitch + i];
      const std::size_t k = static_cast<std::size_t>(j) * nx + i;
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(a[k]) && std::isnan(b[k])) << i << "," << j;
      } else {
        EXPECT_EQ(a[k], want) << i << "," << j;
        EXPECT_EQ(b[k], want) << i << "," << j;
      }
    }
  FieldRenderer renderer;
  for (Sampling s : {Sampling::nearest, Sampling::linear})
    for (double zoom : {1.0, 3.7}) {
      SCOPED_TRACE(std::string(to_string(s)) + " zoom " + std::to_string(zoom));
      const std::vector<std::uint8_t> pa = draw(renderer, in_texture, s, zoom), pb = draw(renderer, in_buffer, s, zoom);
      ASSERT_EQ(pa.size(), pb.size());
      std::size_t differ = 0, field_pixels = 0;
      for (std::size_t p = 0; p + 3 < pa.size(); p += 4) {
        differ += pa[p] != pb[p] || pa[p + 1] != pb[p + 1] || pa[p + 2] != pb[p + 2];
        field_pixels += pa[p] != kBackgroundRgb[0] || pa[p + 1] != kBackgroundRgb[1] || pa[p + 2] != kBackgroundRgb[2];
      }
      EXPECT_EQ(differ, 0u);
      EXPECT_GT(field_pixels, 331u * 217u / 3) << "the field is drawn";
    }
}

TEST(FieldTexture, BackToTheTextureStoreAndAShortBufferRefused) {
  std::string why;
  const auto context = context_or_skip(&why);
  if (!context) GTEST_SKIP() << "no headless GL context: " << why;
  FieldTexture t(7, 5);
  const std::vector<float> f = field_values(7, 5, 7);
  t.upload_host(f.data(), 7);
  t.use_new_buffer(35);
  const std::vector<float> g(35, 2.5f);
  t.upload_host(g.data(), 7);
  EXPECT_EQ(t.download(), g);
  t.use_texture();  // the 2D store holds what it held before
  EXPECT_FALSE(t.in_buffer());
  const std::vector<float> back = t.download();
  for (std::size_t k = 0; k < back.size(); ++k)
    if (!std::isnan(f[k])) EXPECT_EQ(back[k], f[k]) << k;
  FieldTexture small(7, 5);
  EXPECT_THROW(small.use_new_buffer(20), GLError) << "a buffer shorter than the field is refused";
  EXPECT_GE(FieldTexture::max_buffer_texels(), 65536) << "GL 3.1's least GL_MAX_TEXTURE_BUFFER_SIZE";
}

}  // namespace
}  // namespace ss::render
