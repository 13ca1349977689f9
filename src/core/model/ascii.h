// Comparing text as ASCII, whatever the locale: format names, fact labels.
#ifndef OOMLENS_CORE_MODEL_ASCII_H_
#define OOMLENS_CORE_MODEL_ASCII_H_

#include <algorithm>
#include <cctype>
#include <string_view>

namespace oomlens {

inline bool EqualIgnoringCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace oomlens

#endif  // OOMLENS_CORE_MODEL_ASCII_H_
