// The cheap first pass: a line can start an OOM message only if it holds one of
// the signatures' literals. Misses (nearly every line) cost a few memchr/memcmp.
#ifndef OOMLENS_CORE_PREFILTER_H_
#define OOMLENS_CORE_PREFILTER_H_

#include <string>
#include <string_view>
#include <vector>

namespace oomlens {

class Prefilter {
 public:
  explicit Prefilter(std::vector<std::string> literals);
  /// True when text holds at least one literal.
  bool MayMatch(std::string_view text) const;

 private:
  std::vector<std::string> literals_;
};

}  // namespace oomlens

#endif  // OOMLENS_CORE_PREFILTER_H_
