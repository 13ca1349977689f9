// The one bound on JSON nesting: every JSON text the core parses (reports, rule
// files, JSON log lines) is checked first, so a document nested 100,000 levels
// deep is an error, not a stack overflow in the parser or in the code that walks
// or copies the result.
#ifndef OOMLENS_CORE_MODEL_JSON_DEPTH_H_
#define OOMLENS_CORE_MODEL_JSON_DEPTH_H_

#include <cstddef>
#include <string_view>

namespace oomlens {

/// Deeper than any report or rule file (they nest about 6 levels).
constexpr size_t kMaxJsonDepth = 64;

/// The offset of the first bracket that nests deeper than max_depth (brackets
/// inside strings do not count), or npos. Text that is not JSON may pass: the
/// parser then says what is wrong with it.
inline size_t JsonTooDeepAt(std::string_view text, size_t max_depth = kMaxJsonDepth) {
  size_t depth = 0;
  bool in_string = false, escaped = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return i;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return std::string_view::npos;
}

inline bool JsonDepthWithin(std::string_view text, size_t max_depth = kMaxJsonDepth) {
  return JsonTooDeepAt(text, max_depth) == std::string_view::npos;
}

}  // namespace oomlens

#endif  // OOMLENS_CORE_MODEL_JSON_DEPTH_H_
