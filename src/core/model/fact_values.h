// Making fact values that oomlens computes (derived facts, aggregates), and the
// label a fact is shown with. Values read from a log come from MakeFact instead.
#ifndef OOMLENS_CORE_MODEL_FACT_VALUES_H_
#define OOMLENS_CORE_MODEL_FACT_VALUES_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <string_view>

#include "oomlens/facts.h"
#include "oomlens/size.h"

namespace oomlens {

/// The value of the fact named name in facts, or null when it is absent.
inline const FactValue* FactIn(const Facts& facts, std::string_view name) {
  auto it = facts.find(std::string(name));
  return it == facts.end() ? nullptr : &it->second;
}

/// The text of the fact name in facts, "" when absent.
inline std::string FactTextIn(const Facts& facts, std::string_view name) {
  const FactValue* v = FactIn(facts, name);
  return v ? v->text : "";
}

/// A derived size. Beyond what int64 holds (a difference of absurd figures) the
/// integer saturates; the number and the text keep the value.
inline FactValue SizeValue(double bytes, double tolerance = 0) {
  FactValue v;
  v.type = FactType::kSize;
  constexpr double kLimit = 9.2e18;  // below 2^63
  v.integer = std::fabs(bytes) < kLimit ? static_cast<int64_t>(std::llround(bytes))
              : bytes > 0               ? std::numeric_limits<int64_t>::max()
                                        : std::numeric_limits<int64_t>::min();
  v.number = bytes;
  v.tolerance = tolerance;
  v.text = FormatComputedSize(bytes);
  return v;
}

/// *sum + bytes, stopping at int64's ends: a sum of counts a crafted record holds
/// never wraps, whatever the signs (an address a crafted snapshot gives may be negative).
inline void AddSaturating(int64_t bytes, int64_t* sum) {
  if (__builtin_add_overflow(*sum, bytes, sum))
    *sum = bytes > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
}

/// a - b computed in double: the difference of two sizes a crafted record gives
/// (int64's ends, opposite signs) never overflows; rounds beyond 2^53.
inline double Gap(int64_t a, int64_t b) { return static_cast<double>(a) - static_cast<double>(b); }

/// A count computed as a double, as int64 holds it: beyond its ends it saturates.
inline int64_t SaturatedCount(double n) {
  if (std::isnan(n)) return 0;
  if (n >= 0x1p63) return std::numeric_limits<int64_t>::max();
  if (n <= -0x1p63) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(n);
}

inline FactValue CountValue(int64_t n) {
  FactValue v;
  v.type = FactType::kCount;
  v.integer = n;
  v.number = static_cast<double>(n);
  v.text = std::to_string(n);
  return v;
}

inline FactValue RatioValue(double ratio) {
  FactValue v;
  v.type = FactType::kRatio;
  v.number = ratio;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", ratio);
  v.text = buf;
  return v;
}

inline FactValue TextValue(const std::string& text) {
  FactValue v;
  v.type = FactType::kText;
  v.text = text;
  return v;
}

/// How a fact is labelled for people: "requested_bytes" -> "requested",
/// "top_of_memory_reserved_bytes" -> "top of memory reserved".
inline std::string FactLabel(const std::string& fact) {
  std::string label = fact;
  const std::string suffix = "_bytes";
  if (label.size() > suffix.size() && label.compare(label.size() - suffix.size(), suffix.size(), suffix) == 0)
    label.resize(label.size() - suffix.size());
  std::replace(label.begin(), label.end(), '_', ' ');
  return label;
}

}  // namespace oomlens

#endif  // OOMLENS_CORE_MODEL_FACT_VALUES_H_
