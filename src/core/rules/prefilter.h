// The cheap first pass: a line can start an OOM message only if it holds one of
// the signatures' literals. All literals are searched in one pass (LiteralSearch;
// RE2's DFA over their alternation when the literals do not suit it). A literal
// that holds another ("CUDA error: out of memory" holds "out of memory") cannot
// add a line to that pass, so the pass searches only the others; telling which
// literals a candidate line holds (Which) searches them all.
#ifndef OOMLENS_CORE_RULES_PREFILTER_H_
#define OOMLENS_CORE_RULES_PREFILTER_H_

#include <re2/re2.h>
#include <re2/set.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/rules/literal_search.h"

namespace oomlens {

class Prefilter {
 public:
  explicit Prefilter(std::vector<std::string> literals);
  ~Prefilter();
  Prefilter(const Prefilter&) = delete;
  Prefilter& operator=(const Prefilter&) = delete;
  /// True when text holds at least one literal.
  bool MayMatch(std::string_view text) const;
  /// Offset of a literal in the first line of text that holds one, or npos.
  /// *counted, when given, gets the newlines the search counted on its way.
  size_t Find(std::string_view text, NewlineTally* counted = nullptr) const;
  /// Lists in *present the index of every literal text holds (an index may
  /// appear more than once), in one pass. Returns false when none is there.
  bool Which(std::string_view text, std::vector<size_t>* present) const;

 private:
  std::vector<std::string> literals_;
  std::unique_ptr<LiteralSearch> first_pass_;  // the literals that hold no other; null when unsuited
  std::unique_ptr<LiteralSearch> search_;      // all literals; null when the literals do not suit it
  std::unique_ptr<re2::RE2> any_;
  std::unique_ptr<re2::RE2::Set> each_;  // the literals one by one, to tell which are present
};

}  // namespace oomlens

#endif  // OOMLENS_CORE_RULES_PREFILTER_H_
