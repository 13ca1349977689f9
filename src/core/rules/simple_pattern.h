// A small matcher for the common shape of signature patterns, several times
// cheaper than RE2 on short lines (RE2 spends about a thousand instructions per
// call before it reads a byte). It takes a pattern only when it can give exactly
// RE2's answer:
//   - the pattern is a sequence of literal bytes, classes ([...], \d \w \s and \D \W \S, .)
//     with quantifiers (?, *, +, {n}, {n,m}), and groups ((...), (?P<name>...),
//     (?:...)) around parts of it, not nested and not quantified;
//   - every repeated item is disjoint from what can come right after it, so a
//     greedy pass never has to give bytes back: the first match a backtracking
//     engine finds, which is what RE2 reports (leftmost-first), is the greedy one.
// A pattern outside that subset (alternation, case folding, \b, anchors, lazy
// quantifiers, nested groups) goes to a backtracking PatternProgram when it can
// give RE2's answer (pattern_program.h); anything else is left to RE2.
#ifndef OOMLENS_CORE_RULES_SIMPLE_PATTERN_H_
#define OOMLENS_CORE_RULES_SIMPLE_PATTERN_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "core/rules/pattern_syntax.h"

namespace oomlens {

class PatternProgram;

class SimplePattern {
 public:
  ~SimplePattern();
  /// The pattern's matcher: the flat subset's when it reads the pattern, else a
  /// PatternProgram read on the first search; when neither takes the pattern,
  /// every search gives up (RE2 answers).
  static std::unique_ptr<SimplePattern> Compile(std::string_view pattern);

  enum class Result { kNoMatch, kMatch, kGaveUp };
  /// The leftmost match starting at or after pos, as RE2::Match(UNANCHORED)
  /// finds it: sub[0] is the match, sub[i] group i (nsub may be 0). kGaveUp
  /// when the text makes the search costly (many near misses), or no matcher
  /// here takes the pattern: ask RE2.
  Result Match(std::string_view text, size_t pos, std::string_view* sub, int nsub) const;
  /// Whether other matches exactly where this does, whatever its groups capture
  /// (the same items: "a (?P<x>\d+)" and "a \d+"). False when either is left to a
  /// PatternProgram or RE2.
  bool MatchesAs(const SimplePattern& other) const;

 private:
  struct Item {
    ByteSet set{};  // bytes it matches
    uint32_t min = 1, max = 1;
    bool once = true;  // min == max == 1
  };
  struct Group {
    size_t first = 0, end = 0;  // items [first, end)
  };
  friend class SimplePatternParser;

  SimplePattern();
  bool Attempt(std::string_view text, size_t start, size_t known, size_t* end, size_t* item_start) const;
  // Where item k began in a match from start (a prefix item is not written to item_start).
  size_t ItemStart(size_t k, size_t start, const size_t* item_start) const {
    return k < prefix_.size() ? start + k : item_start[k];
  }
  bool NeedsBacktracking() const;

  std::vector<Item> items_;
  std::vector<Group> groups_;  // by group number - 1
  std::string prefix_;         // the leading single bytes, searched with find()
  struct LazyProgram {
    std::string pattern;
    std::once_flag once;
    std::unique_ptr<const PatternProgram> program;
  };
  const PatternProgram* Program() const;
  std::unique_ptr<LazyProgram> lazy_;  // instead of the items, when they could not be read
};

}  // namespace oomlens

#endif  // OOMLENS_CORE_RULES_SIMPLE_PATTERN_H_
