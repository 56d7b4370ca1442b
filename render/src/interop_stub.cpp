// FieldInterop for builds without CUDA: connecting always fails, callers use host copies.
#include "stencilscope/render/gl.hpp"
#include "stencilscope/render/interop.hpp"

namespace ss::render {

struct FieldInterop::Impl {};
struct SharedFieldBuffer::Impl {};

bool interop_built() { return false; }
bool interop_probe(std::string_view) { return false; }

InteropSupport query_interop_support(std::string* why_not_external, std::string* why_not_shared) {
  InteropSupport s;
  const std::vector<std::string> advertised = gl_extensions();
  s.gl_external_objects = missing_external_gl_extensions(advertised).empty();
  s.gl_memory_objects = missing_gl_extensions(shared_gl_extensions(), advertised).empty();
  if (why_not_external) *why_not_external = "built without CUDA (STENCILSCOPE_CUDA=OFF)";
  if (why_not_shared) *why_not_shared = "built without CUDA (STENCILSCOPE_CUDA=OFF)";
  return s;
}

SharedFieldBuffer::SharedFieldBuffer(int, int) { throw Error("built without CUDA (STENCILSCOPE_CUDA=OFF)"); }
SharedFieldBuffer::~SharedFieldBuffer() = default;
SharedFieldBuffer::SharedFieldBuffer(SharedFieldBuffer&&) noexcept = default;
SharedFieldBuffer& SharedFieldBuffer::operator=(SharedFieldBuffer&&) noexcept = default;
void SharedFieldBuffer::write(const float*, std::size_t, std::size_t, void*) {}
FieldStats SharedFieldBuffer::last_stats() const { return {}; }
int SharedFieldBuffer::nx() const { return 0; }
int SharedFieldBuffer::ny() const { return 0; }
const float* SharedFieldBuffer::device_data() const { return nullptr; }
unsigned SharedFieldBuffer::gl_buffer() const { return 0; }
unsigned SharedFieldBuffer::buffer_texture() const { return 0; }

FieldInterop::FieldInterop(const FieldTexture&, InteropPath) {
  throw Error("built without CUDA (STENCILSCOPE_CUDA=OFF)");
}
FieldInterop::~FieldInterop() = default;
FieldInterop::FieldInterop(FieldInterop&&) noexcept = default;
FieldInterop& FieldInterop::operator=(FieldInterop&&) noexcept = default;
InteropPath FieldInterop::path() const { return InteropPath::host; }
void FieldInterop::write(const float*, std::size_t, void*) {}
void FieldInterop::write_strided(const float*, std::size_t, std::size_t, void*) {}
void FieldInterop::write_all(std::span<const Write>, void*) {}
FieldStats FieldInterop::last_stats() const { return {}; }

}  // namespace ss::render
