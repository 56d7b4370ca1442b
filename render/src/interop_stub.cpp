// FieldInterop for builds without CUDA: registration always fails, callers use host copies.
#include "stencilscope/render/interop.hpp"

namespace ss::render {

struct FieldInterop::Impl {};

bool interop_built() { return false; }
bool interop_probe(std::string_view) { return false; }

FieldInterop::FieldInterop(const FieldTexture&) { throw Error("built without CUDA (STENCILSCOPE_CUDA=OFF)"); }
FieldInterop::~FieldInterop() = default;
FieldInterop::FieldInterop(FieldInterop&&) noexcept = default;
FieldInterop& FieldInterop::operator=(FieldInterop&&) noexcept = default;
void FieldInterop::write(const float*, std::size_t, void*) {}
void FieldInterop::write_strided(const float*, std::size_t, std::size_t, void*) {}
void FieldInterop::write_all(std::span<const Write>, void*) {}
FieldStats FieldInterop::last_stats() const { return {}; }

}  // namespace ss::render
