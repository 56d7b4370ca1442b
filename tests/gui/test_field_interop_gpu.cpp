// On a CUDA device with an NVIDIA EGL context: the external CUDA-GL upload path
// (render/interop.hpp) writes a known field into the texture and GL reads it back bit for
// bit, with the CPU never waiting for CUDA between the write and the read (GL's semaphore
// wait orders them on the GPU; a long copy queued first makes a missing wait show). Frames
// in a row each show their own field (CUDA's next write waits for GL's copy), strided
// views of several textures go in one write_all, map and external textures mix, and the
// stats come back. Skips, saying why, without a device, a headless context, or the GL
// extensions and CUDA export the path needs.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/device.hpp"
#include "sim/core/error.hpp"
#include "stencilscope/render/field_renderer.hpp"
#include "stencilscope/render/field_texture.hpp"
#include "stencilscope/render/headless_context.hpp"
#include "stencilscope/render/interop.hpp"
#include "stencilscope/render/render_target.hpp"
#include "stencilscope/render/view_layout.hpp"

using namespace ss;
using namespace ss::render;

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw Error(std::string(what) + ": " + cudaGetErrorString(e));
}

/// A finite float with scattered bits for cell (i, j) of field `k`: every texel differs
/// from its neighbours and from the same texel of other fields.
float texel(int i, int j, int k) {
  std::uint32_t h = static_cast<std::uint32_t>(i) * 73856093u ^ static_cast<std::uint32_t>(j) * 19349663u ^
                    static_cast<std::uint32_t>(k + 1) * 83492791u;
  h ^= h >> 13;
  h *= 0x5bd1e995u;
  h ^= h >> 15;
  const std::uint32_t exponent = 100u + (h >> 24) % 50u;  // about 2^-27 .. 2^22: finite, normal
  const std::uint32_t bits = (h & 0x80000000u) | (exponent << 23) | (h & 0x7fffffu);
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

/// Device memory of floats, freed on scope exit.
struct DeviceField {
  float* p = nullptr;
  explicit DeviceField(std::size_t n) { check(cudaMalloc(&p, n * sizeof(float)), "cudaMalloc"); }
  ~DeviceField() { cudaFree(p); }
  DeviceField(const DeviceField&) = delete;
  DeviceField& operator=(const DeviceField&) = delete;
  void upload(const std::vector<float>& host) {
    check(cudaMemcpy(p, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
  }
};

/// A CUDA device and a headless GL context on it, or why not (for GTEST_SKIP).
std::string open_cuda_and_gl(std::unique_ptr<HeadlessContext>& context) {
  std::string why;
  if (!cuda_available(&why)) return "no CUDA device: " + why;
  try {
    context = std::make_unique<HeadlessContext>();
  } catch (const Error& e) {
    return std::string("no headless GL context: ") + e.what();
  }
  std::fprintf(stderr, "context: %s\n", context->description().c_str());
  return {};
}

class ExternalInteropTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string skip = open_cuda_and_gl(context_); !skip.empty()) GTEST_SKIP() << skip;
    std::string why;
    const InteropSupport s = query_interop_support(&why);
    if (!s.gl_external_objects || !s.cuda_export)
      GTEST_SKIP() << "the external path is not supported here (" << why << "): " << context_->description();
    EXPECT_EQ(interop_paths_to_try(s, InteropPath::external).front(), InteropPath::external) << "tried when forced";
    check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
    check(cudaMalloc(&busy_, kBusyBytes), "cudaMalloc");
  }
  void TearDown() override {
    if (stream_) cudaStreamSynchronize(stream_);
    if (busy_) cudaFree(busy_);
    if (stream_) cudaStreamDestroy(stream_);
  }
  /// Queues long copies on the stream (about 5 ms on an H200): a write queued behind them
  /// finishes well after the CPU has issued GL's read (one copy of about a millisecond
  /// was not always enough: the CPU's GL calls took longer once).
  void keep_stream_busy() {
    check(cudaMemsetAsync(busy_, 0, kBusyBytes / 2, stream_), "cudaMemsetAsync");
    for (int k = 0; k < 8; ++k)
      check(cudaMemcpyAsync(busy_ + kBusyBytes / 2, busy_, kBusyBytes / 2, cudaMemcpyDeviceToDevice, stream_),
            "cudaMemcpyAsync");
  }
  /// Fills the texture with NaN, so a read of old contents never passes.
  static void poison(FieldTexture& t) {
    const std::vector<float> nan(static_cast<std::size_t>(t.nx()) * t.ny(), std::numeric_limits<float>::quiet_NaN());
    t.upload_host(nan.data(), static_cast<std::size_t>(t.nx()));
  }

  static constexpr std::size_t kBusyBytes = std::size_t{1} << 31;
  std::unique_ptr<HeadlessContext> context_;
  cudaStream_t stream_ = nullptr;
  char* busy_ = nullptr;
};

}  // namespace

TEST_F(ExternalInteropTest, AWrittenFieldReadsBackBitForBitWithoutTheCpuWaiting) {
  const int nx = 300, ny = 200, pitch = 307;  // not multiples of the 32x8 tiles; padded rows
  std::vector<float> padded(static_cast<std::size_t>(pitch) * ny, -1.0f), expected;
  float lo = std::numeric_limits<float>::infinity(), hi = -lo;
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      const float v = texel(i, j, 0);
      padded[static_cast<std::size_t>(j) * pitch + i] = v;
      expected.push_back(v);
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  DeviceField field(padded.size());
  field.upload(padded);
  FieldTexture texture(nx, ny);
  poison(texture);
  FieldInterop interop(texture, InteropPath::external);
  ASSERT_EQ(interop.path(), InteropPath::external);
  // A first write, waited for: the kernels' first launch (lazy module loading) may wait
  // for the device, which would empty the stream before the check below.
  interop.write(field.p, pitch, stream_);
  check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
  finish_gl();
  poison(texture);

  keep_stream_busy();
  interop.write(field.p, pitch, stream_);
  EXPECT_EQ(cudaStreamQuery(stream_), cudaErrorNotReady) << "the write should still be queued when GL reads";
  EXPECT_TRUE(same_bits(texture.download(), expected)) << "GL's read must wait for CUDA's write, on the GPU";

  check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
  const FieldStats st = interop.last_stats();
  EXPECT_TRUE(st.finite);
  EXPECT_EQ(st.range.lo, lo);
  EXPECT_EQ(st.range.hi, hi);
}

TEST_F(ExternalInteropTest, FramesInARowEachShowTheirOwnField) {
  const int nx = 129, ny = 67;
  const std::size_t n = static_cast<std::size_t>(nx) * ny;
  constexpr int kFrames = 24;
  std::vector<std::vector<float>> fields(kFrames);
  for (int k = 0; k < kFrames; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) fields[k].push_back(texel(i, j, k));
  std::vector<std::unique_ptr<DeviceField>> device;
  for (const auto& f : fields) {
    device.push_back(std::make_unique<DeviceField>(n));
    device.back()->upload(f);
  }
  FieldTexture texture(nx, ny);
  poison(texture);
  FieldInterop interop(texture, InteropPath::external);
  for (int k = 0; k < kFrames; ++k) {
    if (k % 3 == 0) keep_stream_busy();
    interop.write(device[k]->p, nx, stream_);  // waits (on the GPU) for GL's copy of frame k-1
    ASSERT_TRUE(same_bits(texture.download(), fields[k])) << "frame " << k;
  }
  // Two writes with no read between: the texture holds the second.
  interop.write(device[3]->p, nx, stream_);
  keep_stream_busy();
  interop.write(device[5]->p, nx, stream_);
  EXPECT_TRUE(same_bits(texture.download(), fields[5]));
}

TEST_F(ExternalInteropTest, StridedSlicesOfAVolumeInOneWriteAll) {
  const int nx = 23, ny = 17, nz = 13;  // x fastest
  std::vector<float> volume;
  for (int z = 0; z < nz; ++z)
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x) volume.push_back(texel(x, y, z));
  DeviceField field(volume.size());
  field.upload(volume);
  const std::size_t sx = 1, sy = nx, sz = static_cast<std::size_t>(nx) * ny;
  const int kz = 5, ky = 11, kx = 2;
  auto at = [&](int x, int y, int z) { return volume[x * sx + y * sy + z * sz]; };
  // XY (u = x, v = y), XZ (u = x, v = z), YZ (u = y, v = z: neither stride is 1).
  std::vector<float> xy, xz, yz;
  for (int y = 0; y < ny; ++y)
    for (int x = 0; x < nx; ++x) xy.push_back(at(x, y, kz));
  for (int z = 0; z < nz; ++z)
    for (int x = 0; x < nx; ++x) xz.push_back(at(x, ky, z));
  for (int z = 0; z < nz; ++z)
    for (int y = 0; y < ny; ++y) yz.push_back(at(kx, y, z));
  FieldTexture t_xy(nx, ny), t_xz(nx, nz), t_yz(ny, nz);
  for (FieldTexture* t : {&t_xy, &t_xz, &t_yz}) poison(*t);
  FieldInterop i_xy(t_xy, InteropPath::external), i_xz(t_xz, InteropPath::external), i_yz(t_yz, InteropPath::external);
  for (int round = 0; round < 3; ++round) {
    keep_stream_busy();
    const std::vector<FieldInterop::Write> writes{{&i_xy, field.p + kz * sz, sx, sy},
                                                  {&i_xz, field.p + ky * sy, sx, sz},
                                                  {&i_yz, field.p + kx * sx, sy, sz}};
    FieldInterop::write_all(writes, stream_);
    EXPECT_TRUE(same_bits(t_xy.download(), xy)) << "round " << round;
    EXPECT_TRUE(same_bits(t_xz.download(), xz)) << "round " << round;
    EXPECT_TRUE(same_bits(t_yz.download(), yz)) << "round " << round;
  }
}

TEST_F(ExternalInteropTest, MapAndExternalTexturesMixInOneWriteAllAndAgree) {
  const int nx = 77, ny = 45;
  std::vector<float> f;
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) f.push_back(texel(i, j, 7));
  DeviceField field(f.size());
  field.upload(f);
  FieldTexture mapped(nx, ny), shared(nx, ny);
  poison(mapped);
  poison(shared);
  FieldInterop by_map(mapped, InteropPath::map), by_external(shared, InteropPath::external);
  EXPECT_EQ(by_map.path(), InteropPath::map);
  keep_stream_busy();
  const std::vector<FieldInterop::Write> writes{{&by_map, field.p, 1, static_cast<std::size_t>(nx)},
                                                {&by_external, field.p, 1, static_cast<std::size_t>(nx)}};
  FieldInterop::write_all(writes, stream_);
  EXPECT_TRUE(same_bits(mapped.download(), f));
  EXPECT_TRUE(same_bits(shared.download(), f));
}

TEST_F(ExternalInteropTest, TheStatsSeeANonFiniteCell) {
  const int nx = 40, ny = 9;
  std::vector<float> f(static_cast<std::size_t>(nx) * ny, 0.5f);
  f[123] = std::numeric_limits<float>::infinity();
  f[7] = -2.0f;
  DeviceField field(f.size());
  field.upload(f);
  FieldTexture texture(nx, ny);
  FieldInterop interop(texture, InteropPath::external);
  interop.write(field.p, nx, stream_);
  EXPECT_TRUE(same_bits(texture.download(), f));
  check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
  const FieldStats st = interop.last_stats();
  EXPECT_FALSE(st.finite);
  EXPECT_EQ(st.range.lo, -2.0f);
  EXPECT_EQ(st.range.hi, 0.5f);
}

namespace {

// The shared path (render/interop.hpp): a staging slot's view in memory CUDA writes and
// GL draws in place, ordered on the host only (the CPU sees CUDA's write finish before GL
// reads; GL's last read finish before CUDA writes again). Skips where the GL context
// lacks GL_EXT_memory_object_fd or CUDA cannot export memory.
class SharedSlotTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string skip = open_cuda_and_gl(context_); !skip.empty()) GTEST_SKIP() << skip;
    std::string why;
    const InteropSupport s = query_interop_support(nullptr, &why);
    if (!use_shared_slots(s, std::nullopt))
      GTEST_SKIP() << "the shared path is not supported here (" << why << "): " << context_->description();
    check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
  }
  void TearDown() override {
    if (stream_) cudaStreamDestroy(stream_);
  }
  std::vector<std::uint8_t> draw(const FieldTexture& field, Sampling sampling) {
    FieldRenderer renderer;
    RenderTarget target(320, 200);
    target.bind();
    ViewStyle style;
    style.range = {-2.0, 2.0};
    style.sampling = sampling;
    style.transform.zoom = 2.3;
    renderer.draw(field, frame_layout(320, 200, true), style);
    finish_gl();
    return target.read_rgba();
  }
  std::unique_ptr<HeadlessContext> context_;
  cudaStream_t stream_ = nullptr;
};

}  // namespace

// A strided view (every second column of a padded field) written into the shared buffer
// reads back bit for bit through GL, draws the pixels the same values draw from a
// texture's own store, and its stats come back; frames in a row each show their own field.
TEST_F(SharedSlotTest, AWrittenViewIsWhatGlDrawsInPlace) {
  const int nx = 150, ny = 97, pitch = 307;  // the view: columns 0, 2, 4, ... of rows 307 apart
  SharedFieldBuffer shared(nx, ny);
  EXPECT_EQ(shared.nx(), nx);
  EXPECT_EQ(shared.ny(), ny);
  FieldTexture shown(nx, ny), own(nx, ny);
  shown.show_buffer(shared.buffer_texture(), shared.gl_buffer());
  DeviceField field(static_cast<std::size_t>(pitch) * ny);
  for (int frame = 0; frame < 4; ++frame) {
    SCOPED_TRACE("frame " + std::to_string(frame));
    std::vector<float> padded(static_cast<std::size_t>(pitch) * ny, std::numeric_limits<float>::quiet_NaN()), expected;
    float lo = std::numeric_limits<float>::infinity(), hi = -lo;
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) {
        const float v = std::sin(0.1f * static_cast<float>(i + frame)) + 0.5f * texel(i, j, frame) * 1e-30f;
        padded[static_cast<std::size_t>(j) * pitch + 2 * static_cast<std::size_t>(i)] = v;
        expected.push_back(v);
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
    field.upload(padded);
    shared.write(field.p, 2, pitch, stream_);
    check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");  // the CPU has seen the write finish
    EXPECT_TRUE(same_bits(shown.download(), expected));
    const FieldStats st = shared.last_stats();
    EXPECT_TRUE(st.finite);
    EXPECT_EQ(st.range.lo, lo);
    EXPECT_EQ(st.range.hi, hi);
    own.upload_host(expected.data(), nx);
    for (Sampling sampling : {Sampling::nearest, Sampling::linear})
      EXPECT_EQ(draw(shown, sampling), draw(own, sampling)) << to_string(sampling);
    GLFence drawn;  // GL's reads finish before CUDA writes the next frame
    drawn.set();
    drawn.wait();
    EXPECT_FALSE(drawn.pending());
  }
}

TEST_F(SharedSlotTest, TheStatsSeeANonFiniteCell) {
  const int nx = 40, ny = 9;
  std::vector<float> f(static_cast<std::size_t>(nx) * ny, 0.5f);
  f[123] = std::numeric_limits<float>::quiet_NaN();
  f[7] = -2.0f;
  DeviceField field(f.size());
  field.upload(f);
  SharedFieldBuffer shared(nx, ny);
  shared.write(field.p, 1, nx, stream_);
  check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
  const FieldStats st = shared.last_stats();
  EXPECT_FALSE(st.finite);
  EXPECT_EQ(st.range.lo, -2.0f);
  EXPECT_EQ(st.range.hi, 0.5f);
}

TEST_F(SharedSlotTest, AViewLargerThanABufferTextureIsRefusedSayingSo) {
  try {
    SharedFieldBuffer b(1 << 16, 1 << 16);  // 2^32 texels: above any GL_MAX_TEXTURE_BUFFER_SIZE
    ADD_FAILURE() << "a 65536^2 buffer texture was made";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("GL_MAX_TEXTURE_BUFFER_SIZE"), std::string::npos) << e.what();
  }
}
