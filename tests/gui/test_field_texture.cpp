// FieldTexture's two stores on a headless GL context (Mesa here, NVIDIA's EGL on the
// device): a field shown from a buffer texture (the shared path's staging slots, here a
// buffer GL allocates itself) draws the same pixels as the same values in the texture's
// own store, nearest and linear, whole and zoomed; download() reads what is shown, and
// show_own() goes back to the own store. Skips without a headless context.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <glad/gl.h>

#include "sim/core/error.hpp"
#include "stencilscope/render/field_renderer.hpp"
#include "stencilscope/render/field_texture.hpp"
#include "stencilscope/render/gl.hpp"
#include "stencilscope/render/headless_context.hpp"
#include "stencilscope/render/render_target.hpp"
#include "stencilscope/render/view_layout.hpp"

using namespace ss;
using namespace ss::render;

namespace {

constexpr int kNx = 37, kNy = 23;  // odd sizes: no row is 4-byte-aligned by luck of the width

/// A smooth field with structure on every scale the views below show.
std::vector<float> values(float shift) {
  std::vector<float> v(static_cast<std::size_t>(kNx) * kNy);
  for (int j = 0; j < kNy; ++j)
    for (int i = 0; i < kNx; ++i)
      v[static_cast<std::size_t>(j) * kNx + static_cast<std::size_t>(i)] =
          std::sin(0.31f * static_cast<float>(i) + shift) * std::cos(0.47f * static_cast<float>(j)) +
          0.01f * static_cast<float>(i * j % 7);
  return v;
}

/// A GL buffer holding `v` and an R32F buffer texture over it.
struct BufferStore {
  GLBuffer buffer;
  GLTexture texture;
  explicit BufferStore(const std::vector<float>& v) {
    GLuint b = 0, t = 0;
    glGenBuffers(1, &b);
    buffer = GLBuffer(b);
    glBindBuffer(GL_TEXTURE_BUFFER, b);
    glBufferData(GL_TEXTURE_BUFFER, static_cast<GLsizeiptr>(v.size() * sizeof(float)), v.data(), GL_STATIC_DRAW);
    glBindBuffer(GL_TEXTURE_BUFFER, 0);
    glGenTextures(1, &t);
    texture = GLTexture(t);
    glBindTexture(GL_TEXTURE_BUFFER, t);
    glTexBuffer(GL_TEXTURE_BUFFER, GL_R32F, b);
    glBindTexture(GL_TEXTURE_BUFFER, 0);
    check_gl("making the test's buffer store");
  }
};

class FieldTextureStores : public ::testing::Test {
 protected:
  void SetUp() override {
    try {
      context_ = std::make_unique<HeadlessContext>();
    } catch (const Error& e) {
      GTEST_SKIP() << "no headless GL context: " << e.what();
    }
    renderer_ = std::make_unique<FieldRenderer>();
  }
  /// The RGBA pixels of `field` drawn at 160x96 with `style`.
  std::vector<std::uint8_t> draw(const FieldTexture& field, const ViewStyle& style) {
    RenderTarget target(160, 96);
    target.bind();
    renderer_->draw(field, frame_layout(160, 96, style.colorbar), style);
    finish_gl();
    return target.read_rgba();
  }
  std::unique_ptr<HeadlessContext> context_;
  std::unique_ptr<FieldRenderer> renderer_;
};

}  // namespace

TEST_F(FieldTextureStores, ABufferStoreDrawsThePixelsOfTheOwnStore) {
  const std::vector<float> v = values(0.0f);
  FieldTexture own(kNx, kNy);
  own.upload_host(v.data(), kNx);
  FieldTexture shown(kNx, kNy);
  shown.upload_host(values(2.0f).data(), kNx);  // other values in its own store: must not show
  const BufferStore store(v);
  shown.show_buffer(store.texture.get(), store.buffer.get());
  EXPECT_EQ(shown.shown_buffer_texture(), store.texture.get());
  int cases = 0;
  for (Sampling sampling : {Sampling::nearest, Sampling::linear})
    for (double zoom : {1.0, 3.7}) {
      SCOPED_TRACE(std::string(to_string(sampling)) + ", zoom " + std::to_string(zoom));
      ViewStyle style;
      style.range = {-1.0, 1.1};
      style.sampling = sampling;
      style.transform.zoom = zoom;
      style.transform.pan_x = zoom > 1 ? 0.13 : 0.0;
      const std::vector<std::uint8_t> a = draw(own, style), b = draw(shown, style);
      ASSERT_EQ(a.size(), b.size());
      EXPECT_EQ(a, b);
      // Not a blank frame: the field's colours vary across it.
      int distinct = 0;
      for (std::size_t k = 4; k < a.size(); k += 4) distinct += a[k] != a[k - 4];
      EXPECT_GT(distinct, 100);
      ++cases;
    }
  EXPECT_EQ(cases, 4);
}

TEST_F(FieldTextureStores, DownloadReadsTheStoreShownAndShowOwnGoesBack) {
  const std::vector<float> in_buffer = values(0.5f), in_texture = values(-1.0f);
  FieldTexture t(kNx, kNy);
  t.upload_host(in_texture.data(), kNx);
  const BufferStore store(in_buffer);
  t.show_buffer(store.texture.get(), store.buffer.get());
  EXPECT_EQ(t.download(), in_buffer);
  ViewStyle style;
  style.range = {-1.0, 1.1};
  const std::vector<std::uint8_t> from_buffer = draw(t, style);
  t.show_own();
  EXPECT_EQ(t.shown_buffer_texture(), 0u);
  EXPECT_EQ(t.download(), in_texture);
  EXPECT_NE(draw(t, style), from_buffer) << "the own store's other values are drawn again";
}
