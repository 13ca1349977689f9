// Reading and comparing text as ASCII, whatever the locale: the classes of bytes
// the readers test on every line (inline: <cctype>'s are calls that ask the locale),
// format names, fact labels, and names in the order people count them (host-2 before host-10).
#ifndef OOMLENS_CORE_MODEL_ASCII_H_
#define OOMLENS_CORE_MODEL_ASCII_H_

#include <algorithm>
#include <cctype>
#include <string_view>

namespace oomlens {

inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }
inline bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
inline bool IsAlnum(char c) { return IsDigit(c) || IsAlpha(c); }

inline bool EqualIgnoringCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

/// "worker-2" < "worker-10" < "worker-10-a": runs of digits compare as numbers (leading
/// zeros aside; on a tie the shorter run first), everything else byte by byte.
inline bool NaturalLess(std::string_view a, std::string_view b) {
  auto digit = IsDigit;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (!digit(a[i]) || !digit(b[j])) {
      if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
      ++i, ++j;
      continue;
    }
    size_t ai = i, bj = j;
    while (ai < a.size() && a[ai] == '0') ++ai;
    while (bj < b.size() && b[bj] == '0') ++bj;
    size_t ae = ai, be = bj;
    while (ae < a.size() && digit(a[ae])) ++ae;
    while (be < b.size() && digit(b[be])) ++be;
    std::string_view x = a.substr(ai, ae - ai), y = b.substr(bj, be - bj);
    if (x.size() != y.size()) return x.size() < y.size();
    if (x != y) return x < y;
    if (ae - i != be - j) return ae - i < be - j;  // "7" before "07"
    i = ae, j = be;
  }
  return a.size() - i < b.size() - j;
}

}  // namespace oomlens

#endif  // OOMLENS_CORE_MODEL_ASCII_H_
