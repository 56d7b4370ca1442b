#pragma once
// Parsing the named values of an enum (variants, boundaries, axes, ...): one place
// that builds the "unknown X 'y' (choose a, b, c)" message.
#include <array>
#include <string>
#include <string_view>

#include "sim/core/error.hpp"

namespace ss {

/// The value among `values` whose to_string() is `s`; otherwise throws ss::Error
/// naming `what`, the bad word and the accepted ones.
template <typename E, std::size_t N>
E parse_word(std::string_view s, const std::array<E, N>& values, const char* what) {
  std::string accepted;
  for (E v : values) {
    if (to_string(v) == s) return v;
    accepted += accepted.empty() ? "" : ", ";
    accepted += to_string(v);
  }
  throw Error("unknown " + std::string(what) + " '" + std::string(s) + "' (choose " + accepted + ")");
}

}  // namespace ss
