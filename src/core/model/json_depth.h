// The JSON structure the core checks before parsing: nesting (every JSON text the
// core parses, reports, rule files and JSON log lines, is checked first, so a
// document nested 100,000 levels deep is an error, not a stack overflow in the
// parser or in code that walks or copies the result), and where the first value
// of a stream ends (one report, or a log of JSON lines?).
#ifndef OOMLENS_CORE_MODEL_JSON_DEPTH_H_
#define OOMLENS_CORE_MODEL_JSON_DEPTH_H_

#include <cstddef>
#include <string_view>

namespace oomlens {

/// Deeper than any report or rule file (they nest about 6 levels).
constexpr size_t kMaxJsonDepth = 64;

/// Follows the brackets of JSON text fed in pieces (brackets inside strings do
/// not count). Text that is not JSON may pass: the parser then says what is wrong.
class JsonBrackets {
 public:
  /// Feeds the next piece. Returns the offset in piece just after the bracket that
  /// closes the first top-level array or object, or npos when it is not closed yet.
  size_t Feed(std::string_view piece) {
    size_t closes_at = std::string_view::npos;
    for (size_t i = 0; i < piece.size(); ++i) {
      char c = piece[i];
      if (in_string_) {
        if (escaped_) escaped_ = false;
        else if (c == '\\') escaped_ = true;
        else if (c == '"') in_string_ = false;
      } else if (c == '"') {
        in_string_ = true;
      } else if (c == '[' || c == '{') {
        if (++depth_ > kMaxJsonDepth && too_deep_at_ == std::string_view::npos) too_deep_at_ = seen_ + i;
      } else if ((c == ']' || c == '}') && depth_ > 0) {
        if (--depth_ == 0 && !closed_) {
          closed_ = true;
          closes_at = i + 1;
        }
      }
    }
    seen_ += piece.size();
    return closes_at;
  }
  /// Offset (from the start of all text fed) of the first bracket deeper than
  /// kMaxJsonDepth, or npos.
  size_t too_deep_at() const { return too_deep_at_; }

 private:
  size_t depth_ = 0, seen_ = 0;
  size_t too_deep_at_ = std::string_view::npos;
  bool in_string_ = false, escaped_ = false, closed_ = false;
};

/// The offset of the first bracket in text that nests deeper than kMaxJsonDepth, or npos.
inline size_t JsonTooDeepAt(std::string_view text) {
  JsonBrackets brackets;
  brackets.Feed(text);
  return brackets.too_deep_at();
}

inline bool JsonDepthWithin(std::string_view text) { return JsonTooDeepAt(text) == std::string_view::npos; }

}  // namespace oomlens

#endif  // OOMLENS_CORE_MODEL_JSON_DEPTH_H_
