#pragma once
// Files embedded in the binary at build time: shaders/*.vert|frag and assets/colormaps/*.txt.
#include <string_view>

namespace ss::render {

/// The contents of an embedded file ("shaders/field.frag"); throws ss::Error for an unknown name.
std::string_view embedded_file(std::string_view name);

}  // namespace ss::render
