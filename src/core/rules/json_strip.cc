#include "core/rules/json_strip.h"

#include "core/rules/json_skip.h"

namespace oomlens {

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
    size_t past = PastJsonString(text, i);
    size_t colon = PastJsonSpace(text, past);
    bool member = level == depth && colon < text.size() && text[colon] == ':' && past - i == key.size() + 2 &&
                  text.compare(i + 1, key.size(), key) == 0;
    if (!member) {
      i = past;
      continue;
    }
    size_t end = PastJsonValue(text, PastJsonSpace(text, colon + 1));
    size_t before = out.size() + (i - copied);  // where the key would start in out
    out.append(text, copied, i - copied);
    size_t comma = before;  // a comma before the member goes with it; else the one after
    while (comma > 0 && IsJsonSpace(out[comma - 1])) --comma;
    if (comma > 0 && out[comma - 1] == ',') {
      out.resize(comma - 1);
    } else {
      size_t after = PastJsonSpace(text, end);
      if (after < text.size() && text[after] == ',') end = PastJsonSpace(text, after + 1);
    }
    i = copied = end;
  }
  out.append(text, copied, std::string_view::npos);
  return out;
}

}  // namespace oomlens
