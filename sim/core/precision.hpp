#pragma once
// The value type a benchmark or solver runs in.
#include <string_view>

namespace ss {

enum class Precision { f32, f64 };

/// "float" / "double".
std::string_view to_string(Precision p);
/// Throws ss::Error naming the bad word and the accepted ones.
Precision parse_precision(std::string_view s);

}  // namespace ss
