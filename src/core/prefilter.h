// The cheap first pass: a line can start an OOM message only if it holds one of
// the signatures' literals. All literals are matched in one DFA pass per line.
#ifndef OOMLENS_CORE_PREFILTER_H_
#define OOMLENS_CORE_PREFILTER_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace re2 {
class RE2;
}

namespace oomlens {

class Prefilter {
 public:
  explicit Prefilter(std::vector<std::string> literals);
  ~Prefilter();
  Prefilter(const Prefilter&) = delete;
  Prefilter& operator=(const Prefilter&) = delete;
  /// True when text holds at least one literal.
  bool MayMatch(std::string_view text) const;
  /// Offset of the first literal in text, or npos.
  size_t Find(std::string_view text) const;

 private:
  std::vector<std::string> literals_;
  std::unique_ptr<re2::RE2> any_;
};

}  // namespace oomlens

#endif  // OOMLENS_CORE_PREFILTER_H_
