// RE2 behind one small wrapper: compiling rule patterns (with macros) and
// running fact patterns. The only place that converts to re2::StringPiece,
// besides the line cleaner's fixed prefixes.
#ifndef OOMLENS_CORE_RULES_SIGNATURE_PATTERNS_H_
#define OOMLENS_CORE_RULES_SIGNATURE_PATTERNS_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace re2 {
class RE2;
}

namespace oomlens {

struct FactPattern;
class SimplePattern;
struct FactInfo;
struct FactValue;

/// A rule's pattern, compiled by RE2 the first time it is matched, or at once when
/// asked: most of the built-in rules' patterns are never needed by a scan (their
/// literals never hit, or SimplePattern answers for them), and compiling them all
/// was most of the start-up. Copies share one compiled RE2, which is immutable and
/// safe to match from several threads; the first use compiles it under a lock.
class LazyRegex {
 public:
  LazyRegex() = default;
  explicit operator bool() const { return state_ != nullptr; }
  const re2::RE2& operator*() const { return *Compiled(); }
  const re2::RE2* operator->() const { return Compiled(); }
  bool operator==(const LazyRegex& other) const { return state_ == other.state_; }
  bool operator!=(const LazyRegex& other) const { return state_ != other.state_; }
  /// The pattern as RE2 reads it (macros expanded), without compiling it.
  const std::string& pattern() const;
  /// The named groups and their indices, and how many groups there are: read from
  /// the pattern's text until it is compiled, then RE2's own.
  const std::map<std::string, int>& named_groups() const;
  int groups() const;
  /// Whether RE2 has compiled it yet.
  bool compiled() const;
  /// Compiles it now; false with *error when RE2 refuses it, or numbers its groups
  /// otherwise than the pattern's text was read (then a fact would be misread).
  bool Compile(std::string* error) const;

 private:
  struct State;
  friend LazyRegex CompilePattern(const std::string& src, std::string* error, bool now);
  const re2::RE2* Compiled() const;
  std::shared_ptr<State> state_;
};

/// Expands macros ({size}, {int}, {id}) of src, to be matched as bytes (Latin-1) so
/// any input is safe. now: compiled at once, and an empty LazyRegex with *error when
/// RE2 refuses it (rules a user loads, and every rule checked); else on first use
/// (the built-in rules, which the build's tests compile and check).
LazyRegex CompilePattern(const std::string& src, std::string* error, bool now = true);

/// The capturing groups of an RE2 pattern, read from its text: sets *named (name
/// -> index) and returns how many there are. Escapes, \Q...\E and classes hold none;
/// "(?P<name>" and "(?<name>" open a named one, any other "(?" none.
int ReadCapturingGroups(std::string_view pattern, std::map<std::string, int>* named);

/// A reminder of the pattern syntax, for error messages.
std::string PatternHelp();

/// The literal text every match of pattern starts with, or "" when the pattern
/// does not begin with one (or might not: an alternation outside every group, a
/// flag, a quantifier on the first character). Conservative: a shorter prefix is
/// safe.
std::string LiteralPrefix(std::string_view pattern);

/// True when re matches somewhere in text.
bool Contains(const re2::RE2& re, std::string_view text);
/// The same, with simple (may be null) answering instead of RE2 when it can.
bool Contains(const re2::RE2& re, const SimplePattern* simple, std::string_view text);

struct FactGroup;

/// Calls found(group, text) for each named group of pattern that matched in text.
void MatchFacts(const FactPattern& pattern, std::string_view text,
                const std::function<void(const FactGroup&, std::string_view)>& found);

/// Like MatchFacts, from byte offset pos; sets *end to where the match ended.
/// Returns false when nothing matched.
bool MatchFactsFrom(const FactPattern& pattern, std::string_view text, size_t pos, size_t* end,
                    const std::function<void(const FactGroup&, std::string_view)>& found);

/// One match of a fact pattern, kept to read its facts from later: the spans of
/// its groups (0: the whole match) in text.
struct FactMatch {
  std::string_view text;
  std::vector<std::string_view> spans;
};
/// The leftmost match of pattern in text into *match (its room kept); false when none.
bool MatchFactSpans(const FactPattern& pattern, std::string_view text, FactMatch* match);
/// What MatchFacts calls found with, from a match MatchFactSpans made.
void ReadFactMatch(const FactPattern& pattern, const FactMatch& match,
                   const std::function<void(const FactGroup&, std::string_view)>& found);

/// Reads what group captured as its fact (units applied); false with *error
/// when the text is no valid value.
bool ReadGroup(const FactGroup& group, std::string_view text, FactValue* value, std::string* error);

/// Calls found(capture) with group 1 of every non-overlapping match of re in text.
void ForEachCapture(const re2::RE2& re, std::string_view text,
                    const std::function<void(std::string_view)>& found);

}  // namespace oomlens

#endif  // OOMLENS_CORE_RULES_SIGNATURE_PATTERNS_H_
