#include "core/rules/json_skip.h"

#include <cstring>

namespace oomlens {

size_t PastJsonSpace(std::string_view text, size_t at) {
  while (at < text.size() && IsJsonSpace(text[at])) ++at;
  return at;
}

size_t PastJsonString(std::string_view text, size_t at) {
  for (size_t from = at + 1; from < text.size();) {
    const void* found = std::memchr(text.data() + from, '"', text.size() - from);
    if (!found) break;
    size_t quote = static_cast<size_t>(static_cast<const char*>(found) - text.data());
    size_t backslashes = 0;
    while (quote - backslashes > at + 1 && text[quote - backslashes - 1] == '\\') ++backslashes;
    if (backslashes % 2 == 0) return quote + 1;
    from = quote + 1;
  }
  return text.size();
}

size_t PastJsonValue(std::string_view text, size_t at) {
  if (at >= text.size()) return text.size();
  if (text[at] == '"') return PastJsonString(text, at);
  if (text[at] != '{' && text[at] != '[') {
    while (at < text.size() && text[at] != ',' && text[at] != '}' && text[at] != ']' &&
           !IsJsonSpace(text[at]))
      ++at;
    return at;
  }
  int nesting = 0;
  for (size_t i = at; i < text.size();) {
    char c = text[i];
    if (c == '"') {
      i = PastJsonString(text, i);
      continue;
    }
    if (c == '{' || c == '[') ++nesting;
    else if ((c == '}' || c == ']') && --nesting == 0) return i + 1;
    ++i;
  }
  return text.size();
}

}  // namespace oomlens
