// Fuzzes oomlens's own pattern matchers against RE2: the input is a pattern, a
// newline, then a text. Whatever the pattern, reading it never crashes; when
// PatternProgram (every start place allowed) or SimplePattern takes it and RE2
// compiles it, a search from each place gives RE2's match and groups, or gives up.
#include <re2/re2.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/rules/pattern_program.h"
#include "core/rules/simple_pattern.h"

namespace {

template <typename Matcher>
void CheckAgainstRe2(const Matcher& matcher, const RE2& re, const std::string& text, size_t pos) {
  int n = re.NumberOfCapturingGroups() + 1;
  std::vector<re2::StringPiece> expected(static_cast<size_t>(n));
  bool found = re.Match(text, pos, text.size(), RE2::UNANCHORED, expected.data(), n);
  std::vector<std::string_view> got(static_cast<size_t>(n));
  auto result = matcher.Match(text, pos, got.data(), n);
  if (result == oomlens::SimplePattern::Result::kGaveUp) return;
  if (found != (result == oomlens::SimplePattern::Result::kMatch)) std::abort();
  for (size_t g = 0; found && g < got.size(); ++g) {
    if (expected[g].data() == nullptr && got[g].data() == nullptr) continue;
    if (expected[g].data() != got[g].data() || expected[g].size() != got[g].size()) std::abort();
  }
}

// Debian's RE2 (2022-06-01) misreads alternatives that share a prefix holding a
// byte from 0x80 in Latin-1: "\xbb\xbbn|\xbb\xbbm" matches nothing, not even
// "\xbb\xbbn" (the factored prefix loses its Latin-1 reading). No built-in pattern
// has that shape; where a user's has, oomlens's own matchers give the right answer.
bool ReadWrongByRe2(const std::string& pattern) {
  bool high = false;
  for (char c : pattern) high |= static_cast<unsigned char>(c) >= 0x80;
  return high && pattern.find('|') != std::string::npos;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  size_t newline = input.find('\n');
  if (newline == std::string_view::npos || newline > 300) return 0;  // RE2's compile bounds the pace
  std::string pattern(input.substr(0, newline)), text(input.substr(newline + 1, 512));
  auto program = oomlens::PatternProgram::Compile(pattern, oomlens::PatternProgram::Starts::kAnywhere);
  auto simple = oomlens::SimplePattern::Compile(pattern);
  RE2::Options options(RE2::Latin1);
  options.set_log_errors(false);
  RE2 re(pattern, options);
  if (!re.ok() || ReadWrongByRe2(pattern)) return 0;
  for (size_t pos = 0; pos <= text.size(); pos += 1 + pos / 8) {
    if (program) CheckAgainstRe2(*program, re, text, pos);
    if (simple) CheckAgainstRe2(*simple, re, text, pos);
  }
  return 0;
}
