#include "oomlens/size.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "core/model/ascii.h"
#include "core/model/from_chars.h"

namespace oomlens {
namespace {

constexpr double kMaxBytes = 9.2e18;  // just under INT64_MAX

// ASCII only, without the C locale's function calls: sizes are read on every figure line.
bool IsSpace(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

// std::llround for |x| <= kMaxBytes, without the library call (a size is read on
// every figure line): truncated, then half away from zero. x - t is exact: below
// 2^53 both are close doubles, above it x is already whole.
int64_t RoundBytes(double x) {
  auto t = static_cast<int64_t>(x);
  double rest = x - static_cast<double>(t);
  if (rest >= 0.5) ++t;
  else if (rest <= -0.5) --t;
  return t;
}

// Up to 15 significant digits with at most 22 decimals: the integer of the
// digits divided by a power of ten is exact in both parts, and the one IEEE
// division rounds as reading the decimal would (Clinger's fast path).
constexpr double kTens[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                            1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};  // all exact

// The digits of such a number as they are read: false past 15 of them.
struct Mantissa {
  uint64_t digits = 0;
  int count = 0;
  bool Add(char digit) {
    digits = digits * 10 + static_cast<uint64_t>(digit - '0');
    return ++count <= 15;
  }
  double Over(int decimals) const { return static_cast<double>(digits) / kTens[decimals < 0 ? 0 : decimals]; }
};

bool PlainDecimal(const char* digits, size_t length, double* value) {
  bool negative = length > 0 && digits[0] == '-';
  Mantissa mantissa;
  int decimals = -1;
  for (size_t k = negative ? 1 : 0; k < length; ++k) {
    if (digits[k] == '.') {
      decimals = 0;
      continue;
    }
    if (!mantissa.Add(digits[k])) return false;
    if (decimals >= 0) ++decimals;
  }
  if (decimals > 22) return false;
  *value = mantissa.Over(decimals);
  if (negative) *value = -*value;
  return true;
}

// Exactly three digits at s[i], then no digit: a group after a thousands separator.
bool ThreeDigitsAt(std::string_view s, size_t i) {
  for (size_t k = i; k < i + 3; ++k)
    if (k >= s.size() || !IsDigit(s[k])) return false;
  return i + 3 >= s.size() || !IsDigit(s[i + 3]);
}

// Reads "-1,234.56" from the front of *s. Returns false when no digit is there.
bool ReadNumber(std::string_view* s, double* value, int* decimals) {
  char small[48];  // the digits without thousands separators; longer numbers use `large`
  std::string large;
  size_t length = 0;
  auto put = [&](char c) {
    if (length < sizeof small) small[length] = c;
    else if (large.empty()) large.assign(small, length), large += c;
    else large += c;
    ++length;
  };
  size_t i = 0;
  if (i < s->size() && ((*s)[i] == '-' || (*s)[i] == '+')) {
    if ((*s)[i] == '-') put('-');
    ++i;
  }
  bool any = false, dot = false;
  *decimals = 0;
  for (; i < s->size(); ++i) {
    char c = (*s)[i];
    if (IsDigit(c)) {
      put(c);
      any = true;
      if (dot) ++*decimals;
    } else if (c == ',' && any && !dot && ThreeDigitsAt(*s, i + 1)) {
      continue;  // thousands separator: "1,234", never the decimal comma of "1,5"
    } else if (c == '.' && !dot && i + 1 < s->size() && IsDigit((*s)[i + 1])) {
      put(c);
      dot = true;
    } else {
      break;
    }
  }
  if (!any) return false;
  const char* digits = length <= sizeof small ? small : large.data();
  if (PlainDecimal(digits, length, value)) {
    s->remove_prefix(i);
    return true;
  }
  // from_chars: no locale, no allocation; out of range gives inf, as strtod did
  std::errc status = DoubleFromChars(digits, digits + length, value);
  if (status == std::errc::result_out_of_range) *value = digits[0] == '-' ? -HUGE_VAL : HUGE_VAL;
  else if (status != std::errc()) return false;
  s->remove_prefix(i);
  return true;
}

// "e+09" after a number: scales *value (and the precision its digits carried).
// False for an exponent no size can have; *s is left alone when there is none.
bool ReadExponent(std::string_view* s, double* value, int* decimals) {
  std::string_view t = *s;
  if (t.empty() || (t[0] != 'e' && t[0] != 'E')) return true;
  size_t i = 1;
  bool negative = i < t.size() && t[i] == '-';
  if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
  if (i >= t.size() || !IsDigit(t[i])) return true;  // "5e" then a unit letter: not an exponent
  int exponent = 0;
  for (; i < t.size() && IsDigit(t[i]); ++i) {
    if (exponent > 400) return false;
    exponent = exponent * 10 + (t[i] - '0');
  }
  if (exponent > 30) return false;  // 1e30 bytes is already no size
  *value *= std::pow(10.0, negative ? -exponent : exponent);
  *decimals = std::max(0, *decimals + (negative ? exponent : -exponent));
  s->remove_prefix(i);
  return true;
}

// 10^-decimals, exact for the usual few decimals.
double TenToMinus(int decimals) {
  static const double kPowers[] = {1, 1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9};
  return decimals < 10 ? kPowers[decimals] : std::pow(10.0, -decimals);
}

// The multipliers of the prefixes k, m, g, t, p, e.
constexpr double kBinary[] = {0x1p10, 0x1p20, 0x1p30, 0x1p40, 0x1p50, 0x1p60};
constexpr double kDecimal[] = {1e3, 1e6, 1e9, 1e12, 1e15, 1e18};

// A unit of one to three letters, any case: "B", "G", "GB", "GiB"; 0 when unknown.
// The usual spellings, read in a few instructions.
double ShortUnitMultiplier(std::string_view unit, bool decimal) {
  int i = -1;  // in "kmgtpe"
  switch (Lower(unit[0])) {
    case 'k': i = 0; break;
    case 'm': i = 1; break;
    case 'g': i = 2; break;
    case 't': i = 3; break;
    case 'p': i = 4; break;
    case 'e': i = 5; break;
    default: break;
  }
  bool b_last = Lower(unit.back()) == 'b';
  if (i < 0) return unit.size() == 1 && b_last ? 1 : 0;                           // "B"
  if (unit.size() == 3) return Lower(unit[1]) == 'i' && b_last ? kBinary[i] : 0;  // "GiB"
  if (unit.size() == 2 && !b_last) return 0;
  return decimal ? kDecimal[i] : kBinary[i];  // "G", "GB"
}

// Maps a unit spelling to its multiplier; 0 when unknown. No allocation: it runs
// for every size read. Longer units are words: "bytes", "megabytes", "gigabyte".
double UnitMultiplier(std::string_view unit, bool decimal) {
  if (unit.empty()) return 1;
  if (unit.size() <= 3) return ShortUnitMultiplier(unit, decimal);
  auto is = [](std::string_view text, std::string_view word) {
    if (text.size() != word.size()) return false;
    for (size_t i = 0; i < word.size(); ++i)
      if (Lower(text[i]) != word[i]) return false;
    return true;
  };
  if (is(unit, "byte") || is(unit, "bytes")) return 1;
  std::string_view singular = unit;
  if (singular.size() > 5 && Lower(singular.back()) == 's') singular.remove_suffix(1);
  static const char* const kWords[] = {"kilobyte", "megabyte", "gigabyte", "terabyte", "petabyte", "exabyte"};
  for (int i = 0; i < 6; ++i)  // "2048 megabytes" is binary unless SI is asked for, as "MB" is
    if (is(singular, kWords[i])) return decimal ? kDecimal[i] : kBinary[i];
  return 0;
}

// Finds an exact count in "(4,237,689,856 bytes)", "(33554432B)" or "(rounded to N)".
std::optional<int64_t> ExactCount(std::string_view rest) {
  rest = Trim(rest);
  if (rest.size() < 3 || rest.front() != '(' || rest.back() != ')') return std::nullopt;
  rest = Trim(rest.substr(1, rest.size() - 2));
  constexpr std::string_view kRounded = "rounded to";
  if (rest.substr(0, kRounded.size()) == kRounded) rest = Trim(rest.substr(kRounded.size()));
  double value;
  int decimals;
  if (!ReadNumber(&rest, &value, &decimals) || decimals > 0) return std::nullopt;
  rest = Trim(rest);
  if (!(rest.empty() || rest == "B" || rest == "bytes")) return std::nullopt;
  if (std::fabs(value) > kMaxBytes) return std::nullopt;
  return static_cast<int64_t>(value);
}

// The shape of nearly every size in a log, "3.30G" or "147.64MiB": digits, a
// decimal point followed by a digit, then only letters. Read without the general
// reader's trimming and copying; false (the general reader takes over) for
// anything else, errors included.
bool SimpleSize(std::string_view text, bool decimal_units, Size* out) {
  const char* p = text.data();
  const size_t n = text.size();
  size_t i = 0;
  uint64_t digits = 0;  // wraps past 19 digits: such a number is refused below
  while (i < n && IsDigit(p[i])) digits = digits * 10 + static_cast<uint64_t>(p[i++] - '0');
  const size_t whole = i;
  if (whole == 0) return false;
  int decimals = 0;
  if (i + 1 < n && p[i] == '.' && IsDigit(p[i + 1])) {
    const size_t point = ++i;
    while (i < n && IsDigit(p[i])) digits = digits * 10 + static_cast<uint64_t>(p[i++] - '0');
    decimals = static_cast<int>(i - point);
  }
  if (whole + static_cast<size_t>(decimals) > 15)
    return false;  // PlainDecimal's limit: the general reader's number
  for (size_t u = i; u < n; ++u)
    if (!IsAlpha(p[u])) return false;
  double multiplier = UnitMultiplier(text.substr(i), decimal_units);
  if (multiplier == 0) return false;
  double bytes = static_cast<double>(digits) / kTens[decimals] * multiplier;
  if (!std::isfinite(bytes) || std::fabs(bytes) > kMaxBytes) return false;
  out->bytes = RoundBytes(bytes);
  out->tolerance = multiplier > 1 ? 0.5 * TenToMinus(decimals) * multiplier : 0;
  return true;
}

}  // namespace

std::optional<Size> ParseSize(std::string_view text, std::string* error, bool decimal_units) {
  Size simple;
  if (SimpleSize(text, decimal_units, &simple)) return simple;
  std::string_view s = Trim(text);
  double value;
  int decimals;
  if (!ReadNumber(&s, &value, &decimals)) {
    *error = "'" + std::string(text) + "' is not a size (no number)";
    return std::nullopt;
  }
  if (!ReadExponent(&s, &value, &decimals)) {
    *error = "'" + std::string(text) + "' has an exponent out of range";
    return std::nullopt;
  }
  s = Trim(s);
  size_t unit_end = 0;
  while (unit_end < s.size() && IsAlpha(s[unit_end])) ++unit_end;
  double multiplier = UnitMultiplier(s.substr(0, unit_end), decimal_units);
  if (multiplier == 0) {
    *error =
        "'" + std::string(text) + "' has an unknown size unit '" + std::string(s.substr(0, unit_end)) + "'";
    return std::nullopt;
  }
  std::string_view rest = Trim(s.substr(unit_end));
  if (!rest.empty()) {
    if (auto exact = ExactCount(rest)) return Size{*exact, 0};
    *error = "'" + std::string(text) + "' is not a size oomlens can read (a decimal comma, or digits apart?)";
    return std::nullopt;
  }
  double bytes = value * multiplier;
  if (!std::isfinite(bytes) || std::fabs(bytes) > kMaxBytes) {
    *error = "'" + std::string(text) + "' is too large to be a byte count";
    return std::nullopt;
  }
  double tolerance = multiplier > 1 ? 0.5 * TenToMinus(decimals) * multiplier : 0;
  return Size{RoundBytes(bytes), tolerance};
}

namespace {

// magnitude (>= 1024) scaled to the largest unit that keeps it under 1024.
std::string FormatScaled(double magnitude, bool negative) {
  static const char kUnits[] = "KMGTPE";
  int unit = 0;
  double scaled = magnitude / 1024;
  while (scaled >= 1023.995 && unit < 5) {
    scaled /= 1024;
    ++unit;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s%.2f%c", negative ? "-" : "", scaled, kUnits[unit]);
  return buf;
}

}  // namespace

std::string FormatSize(int64_t bytes) {
  double magnitude = std::fabs(static_cast<double>(bytes));
  if (magnitude < 1024) return std::to_string(bytes) + "B";
  return FormatScaled(magnitude, bytes < 0);
}

std::string FormatComputedSize(double bytes) {
  if (std::isnan(bytes)) return "?B";
  double magnitude = std::fabs(bytes);
  if (magnitude < 9.2e18) return FormatSize(static_cast<int64_t>(std::llround(bytes)));
  if (std::isinf(bytes)) return bytes < 0 ? "-infB" : "infB";
  return FormatScaled(magnitude, bytes < 0);
}

}  // namespace oomlens
