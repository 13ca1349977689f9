// Reading and comparing text as ASCII, whatever the locale: the classes of bytes
// the readers test on every line (inline: <cctype>'s are calls that ask the locale),
// format names, fact labels, and names in the order people count them (host-2 before host-10).
#ifndef OOMLENS_CORE_MODEL_ASCII_H_
#define OOMLENS_CORE_MODEL_ASCII_H_

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace oomlens {

inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }
inline bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
inline bool IsAlnum(char c) { return IsDigit(c) || IsAlpha(c); }
inline bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }
inline bool IsLower(char c) { return c >= 'a' && c <= 'z'; }
/// Printable and neither a letter, a digit nor a space: "C"'s ispunct.
inline bool IsPunct(char c) { return c > ' ' && c < 0x7f && !IsAlnum(c); }

/// Whether the n bytes at a and b are equal. The strings compared on every
/// candidate line (literals, a pattern's leading bytes, a series' key) are short:
/// one or two word compares, overlapping where n is no multiple of the word,
/// instead of a call to memcmp. Reads only [a, a + n) and [b, b + n).
inline bool SameBytes(const char* a, const char* b, size_t n) {
  auto word8 = [](const char* p) {
    uint64_t w;
    std::memcpy(&w, p, sizeof w);
    return w;
  };
  auto word4 = [](const char* p) {
    uint32_t w;
    std::memcpy(&w, p, sizeof w);
    return w;
  };
  if (n >= 8) {
    if (word8(a) != word8(b) || word8(a + n - 8) != word8(b + n - 8)) return false;
    return n <= 16 || std::memcmp(a + 8, b + 8, n - 16) == 0;
  }
  if (n >= 4) return word4(a) == word4(b) && word4(a + n - 4) == word4(b + n - 4);
  for (size_t i = 0; i < n; ++i)
    if (a[i] != b[i]) return false;
  return true;
}

inline bool SameBytes(std::string_view a, std::string_view b) {
  return a.size() == b.size() && SameBytes(a.data(), b.data(), a.size());
}

/// text.find(needle, from) for a short, non-empty needle: memchr to each place
/// its first byte is, SameBytes for the rest there.
inline size_t FindBytes(std::string_view text, std::string_view needle, size_t from) {
  if (from > text.size() || needle.size() > text.size() - from) return std::string_view::npos;
  const char* p = text.data() + from;
  const char* last = text.data() + (text.size() - needle.size());  // the last place it may start
  while (p <= last) {
    const void* hit = std::memchr(p, needle[0], static_cast<size_t>(last - p) + 1);
    if (!hit) return std::string_view::npos;
    p = static_cast<const char*>(hit);
    if (SameBytes(p + 1, needle.data() + 1, needle.size() - 1)) return static_cast<size_t>(p - text.data());
    ++p;
  }
  return std::string_view::npos;
}

/// text.find("  ", from): the first two spaces in a row, eight places at a time
/// (find calls memchr at every single space, and a line of words has many).
inline size_t FindTwoSpaces(std::string_view text, size_t from) {
  const char* p = text.data();
  size_t i = from;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  constexpr uint64_t kSpaces = 0x2020202020202020ull, kOnes = 0x0101010101010101ull;
  for (; i + 9 <= text.size(); i += 8) {
    uint64_t here, next;
    std::memcpy(&here, p + i, 8);
    std::memcpy(&next, p + i + 1, 8);
    uint64_t both = (here ^ kSpaces) | (next ^ kSpaces);    // a zero byte: a space with one after it
    uint64_t zero = (both - kOnes) & ~both & (kOnes << 7);  // exact in its lowest set bit: the first
    if (zero != 0) return i + static_cast<size_t>(__builtin_ctzll(zero) / 8);
  }
#endif
  for (; i + 1 < text.size(); ++i)
    if (p[i] == ' ' && p[i + 1] == ' ') return i;
  return std::string_view::npos;
}

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
