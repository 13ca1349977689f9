// The one reading of a number: std::from_chars, never throwing, no locale. For
// double, where the standard library has it: Emscripten 3.1's libc++ (the
// WebAssembly build, docs/web.md) declares it deleted; there strtod reads the same
// plain decimals ("123", "-1.5"; the callers pass nothing else), in the C locale,
// which the module never changes.
#ifndef OOMLENS_CORE_MODEL_FROM_CHARS_H_
#define OOMLENS_CORE_MODEL_FROM_CHARS_H_

#include <charconv>
#include <cstdint>
#include <optional>
#include <string_view>
#include <system_error>
#if defined(__EMSCRIPTEN__)
#include <cerrno>
#include <cstdlib>
#include <string>
#endif

namespace oomlens {

/// Reads a double from the start of [first, last), as std::from_chars does:
/// std::errc() on success, result_out_of_range for a magnitude no double holds,
/// invalid_argument when no number starts there. *end, when given, is where the
/// number ended.
inline std::errc DoubleFromChars(const char* first, const char* last, double* value,
                                 const char** end = nullptr) {
#if defined(__EMSCRIPTEN__)
  std::string copy(first, last);
  char* stop = nullptr;
  errno = 0;
  double v = std::strtod(copy.c_str(), &stop);
  if (stop == copy.c_str()) return std::errc::invalid_argument;
  if (errno == ERANGE) return std::errc::result_out_of_range;
  *value = v;
  if (end) *end = first + (stop - copy.c_str());
  return std::errc();
#else
  auto result = std::from_chars(first, last, *value);
  if (end) *end = result.ptr;
  return result.ec;
#endif
}

/// The whole of text as a decimal integer ("123", "-42"); nullopt when text is
/// anything else (empty, a sign alone, spaces, a trailing unit) or no int64 holds it.
inline std::optional<int64_t> ParseInt64(std::string_view text) {
  int64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

/// The whole of text as a decimal ("1.5", "-2", "3e9"); nullopt when text is
/// anything else or its magnitude is beyond a double.
inline std::optional<double> ParseDouble(std::string_view text) {
  double value = 0;
  const char* end = nullptr;
  if (text.empty() || text.front() == ' ')
    return std::nullopt;  // strtod would skip spaces; from_chars does not
  if (DoubleFromChars(text.data(), text.data() + text.size(), &value, &end) != std::errc() ||
      end != text.data() + text.size())
    return std::nullopt;
  return value;
}

}  // namespace oomlens

#endif  // OOMLENS_CORE_MODEL_FROM_CHARS_H_
