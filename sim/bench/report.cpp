#include "sim/bench/report.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/core/error.hpp"

namespace ss {

const std::string* BenchRow::label(const std::string& key) const {
  for (const auto& [k, v] : labels)
    if (k == key) return &v;
  return nullptr;
}

std::optional<double> BenchRow::figure(const std::string& key) const {
  for (const auto& [k, v] : figures)
    if (k == key) return v;
  return std::nullopt;
}

template <typename T>
ErrorNorms compare_to_reference(const std::vector<T>& a, const std::vector<double>& ref) {
  if (a.size() != ref.size()) throw Error("compare_to_reference: sizes differ");
  ErrorNorms e;
  double sum_ref = 0, sum_err = 0, max_ref = 0, max_err = 0;
  for (std::size_t k = 0; k < ref.size(); ++k) {
    const double x = static_cast<double>(a[k]);
    if (!std::isfinite(x)) e.finite = false;
    const double d = std::abs(x - ref[k]);
    sum_ref += ref[k] * ref[k];
    sum_err += d * d;
    max_ref = std::max(max_ref, std::abs(ref[k]));
    max_err = std::max(max_err, d);
  }
  e.ref_l2 = std::sqrt(sum_ref);
  const double inf = std::numeric_limits<double>::infinity();
  e.rel_l2 = !e.finite ? inf : (e.ref_l2 > 0 ? std::sqrt(sum_err) / e.ref_l2 : std::sqrt(sum_err));
  e.rel_linf = !e.finite ? inf : (max_ref > 0 ? max_err / max_ref : max_err);
  return e;
}

template ErrorNorms compare_to_reference<float>(const std::vector<float>&, const std::vector<double>&);
template ErrorNorms compare_to_reference<double>(const std::vector<double>&, const std::vector<double>&);
}  // namespace ss
