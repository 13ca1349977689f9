// std::from_chars for double, where the standard library has it. Emscripten 3.1's
// libc++ (the WebAssembly build, docs/web.md) declares it deleted; there strtod
// reads the same plain decimals ("123", "-1.5"; the callers pass nothing else),
// in the C locale, which the module never changes.
#ifndef OOMLENS_CORE_MODEL_FROM_CHARS_H_
#define OOMLENS_CORE_MODEL_FROM_CHARS_H_

#include <charconv>
#include <system_error>
#if defined(__EMSCRIPTEN__)
#include <cerrno>
#include <cstdlib>
#include <string>
#endif

namespace oomlens {

/// Reads a double from the start of [first, last), as std::from_chars does:
/// std::errc() on success, result_out_of_range for a magnitude no double holds,
/// invalid_argument when no number starts there.
inline std::errc DoubleFromChars(const char* first, const char* last, double* value) {
#if defined(__EMSCRIPTEN__)
  std::string copy(first, last);
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(copy.c_str(), &end);
  if (end == copy.c_str()) return std::errc::invalid_argument;
  if (errno == ERANGE) return std::errc::result_out_of_range;
  *value = v;
  return std::errc();
#else
  return std::from_chars(first, last, *value).ec;
#endif
}

}  // namespace oomlens

#endif  // OOMLENS_CORE_MODEL_FROM_CHARS_H_
