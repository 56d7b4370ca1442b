#pragma once
// Errors that reach the person: every failure in the library is an ss::Error
// whose message names the problem in one line (never abort() in library code).
#include <stdexcept>
#include <string>

namespace ss {

/// A failure the user can act on; what() is one line naming the problem.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace ss
