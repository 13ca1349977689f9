#include "core/rules/json_strip.h"

#include <cstring>

namespace oomlens {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; }  // JSON's four

// Past the string that opens at text[at]; text.size() when it does not close. A
// quote closes it unless an odd run of backslashes escapes it.
size_t PastString(std::string_view text, size_t at) {
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

// Past the value that starts at text[at] (a string, a list or object, a scalar).
size_t PastValue(std::string_view text, size_t at) {
  if (at >= text.size()) return at;
  if (text[at] == '"') return PastString(text, at);
  if (text[at] != '{' && text[at] != '[') {
    while (at < text.size() && text[at] != ',' && text[at] != '}' && text[at] != ']' && !IsSpace(text[at]))
      ++at;
    return at;
  }
  int nesting = 0;
  for (size_t i = at; i < text.size();) {
    char c = text[i];
    if (c == '"') {
      i = PastString(text, i);
      continue;
    }
    if (c == '{' || c == '[') ++nesting;
    else if ((c == '}' || c == ']') && --nesting == 0) return i + 1;
    ++i;
  }
  return text.size();
}

size_t SkipSpace(std::string_view text, size_t at) {
  while (at < text.size() && IsSpace(text[at])) ++at;
  return at;
}

}  // namespace

std::string WithoutMembers(std::string_view text, int depth, std::string_view key) {
  std::string out;
  out.reserve(text.size());
  int level = 0;
  size_t copied = 0;  // text[copied, i) is still to be copied
  for (size_t i = 0; i < text.size();) {
    char c = text[i];
    if (c == '{' || c == '[') ++level;
    if (c == '}' || c == ']') --level;
    if (c != '"') {
      ++i;
      continue;
    }
    size_t past = PastString(text, i);
    size_t colon = SkipSpace(text, past);
    bool member = level == depth && colon < text.size() && text[colon] == ':' && past - i == key.size() + 2 &&
                  text.compare(i + 1, key.size(), key) == 0;
    if (!member) {
      i = past;
      continue;
    }
    size_t end = PastValue(text, SkipSpace(text, colon + 1));
    size_t before = out.size() + (i - copied);  // where the key would start in out
    out.append(text, copied, i - copied);
    size_t comma = before;  // a comma before the member goes with it; else the one after
    while (comma > 0 && IsSpace(out[comma - 1])) --comma;
    if (comma > 0 && out[comma - 1] == ',') {
      out.resize(comma - 1);
    } else {
      size_t after = SkipSpace(text, end);
      if (after < text.size() && text[after] == ',') end = SkipSpace(text, after + 1);
    }
    i = copied = end;
  }
  out.append(text, copied, std::string_view::npos);
  return out;
}

}  // namespace oomlens
