// FieldInterop for builds without CUDA: connecting always fails, callers use host copies.
#include "stencilscope/render/gl.hpp"
#include "stencilscope/render/interop.hpp"

namespace ss::render {

struct FieldInterop::Impl {};

bool interop_built() { return false; }
bool interop_probe(std::string_view) { return false; }

InteropSupport query_interop_support(std::string* why_not_external) {
  InteropSupport s;
  s.gl_external_objects = missing_external_gl_extensions(gl_extensions()).empty();
  if (why_not_external) *why_not_external = "built without CUDA (STENCILSCOPE_CUDA=OFF)";
  return s;
}

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
