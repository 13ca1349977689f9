// A small matcher for the common shape of signature patterns, several times
// cheaper than RE2 on short lines (RE2 spends about a thousand instructions per
// call before it reads a byte). It takes a pattern only when it can give exactly
// RE2's answer:
//   - the pattern is a sequence of literal bytes, classes ([...], \d, \w, \s, .)
//     with quantifiers (?, *, +, {n}, {n,m}), and groups ((...), (?P<name>...),
//     (?:...)) around parts of it, not nested and not quantified;
//   - every repeated item is disjoint from what can come right after it, so a
//     greedy pass never has to give bytes back: the first match a backtracking
//     engine finds, which is what RE2 reports (leftmost-first), is the greedy one.
// Anything else (alternation, anchors, \b, lazy quantifiers, flags) is left to RE2.
#ifndef OOMLENS_CORE_RULES_SIMPLE_PATTERN_H_
#define OOMLENS_CORE_RULES_SIMPLE_PATTERN_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace oomlens {

class SimplePattern {
 public:
  /// Null when the pattern is outside the subset above.
  static std::unique_ptr<SimplePattern> Compile(std::string_view pattern);

  enum class Result { kNoMatch, kMatch, kGaveUp };
  /// The leftmost match starting at or after pos, as RE2::Match(UNANCHORED)
  /// finds it: sub[0] is the match, sub[i] group i (nsub may be 0). kGaveUp
  /// when the text makes the search costly (many near misses): ask RE2.
  Result Match(std::string_view text, size_t pos, std::string_view* sub, int nsub) const;
  /// Capturing groups, as RE2 counts them.
  int groups() const { return static_cast<int>(groups_.size()); }

 private:
  struct Item {
    std::array<uint64_t, 4> set{};  // bytes it matches
    uint32_t min = 1, max = 1;
    bool Has(unsigned char c) const { return (set[c >> 6] >> (c & 63)) & 1; }
  };
  struct Group {
    size_t first = 0, end = 0;  // items [first, end)
  };
  friend class SimplePatternParser;

  bool Attempt(std::string_view text, size_t start, size_t known, size_t* end, size_t* item_start) const;
  bool NeedsBacktracking() const;

  std::vector<Item> items_;
  std::vector<Group> groups_;  // by group number - 1
  std::string prefix_;         // the leading single bytes, searched with find()
};

}  // namespace oomlens

#endif  // OOMLENS_CORE_RULES_SIMPLE_PATTERN_H_
