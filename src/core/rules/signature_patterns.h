// RE2 behind one small wrapper: compiling rule patterns (with macros) and
// running fact patterns. The only place that converts to re2::StringPiece,
// besides the line cleaner's fixed prefixes.
#ifndef OOMLENS_CORE_RULES_SIGNATURE_PATTERNS_H_
#define OOMLENS_CORE_RULES_SIGNATURE_PATTERNS_H_

#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace re2 {
class RE2;
}

namespace oomlens {

struct FactPattern;
class SimplePattern;
struct FactInfo;
struct FactValue;

/// Expands macros ({size}, {int}, {id}) and compiles src, matching bytes (Latin-1)
/// so any input is safe. Returns nullptr and sets *error when invalid.
std::shared_ptr<re2::RE2> CompilePattern(const std::string& src, std::string* error);

/// A reminder of the pattern syntax, for error messages.
std::string PatternHelp();

/// The literal text every match of pattern starts with, or "" when the pattern
/// does not begin with one (or might not: an alternation anywhere, a flag, a
/// quantifier on the first character). Conservative: a shorter prefix is safe.
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

/// Reads what group captured as its fact (units applied); false with *error
/// when the text is no valid value.
bool ReadGroup(const FactGroup& group, std::string_view text, FactValue* value, std::string* error);

/// Calls found(capture) with group 1 of every non-overlapping match of re in text.
void ForEachCapture(const re2::RE2& re, std::string_view text,
                    const std::function<void(std::string_view)>& found);

}  // namespace oomlens

#endif  // OOMLENS_CORE_RULES_SIGNATURE_PATTERNS_H_
