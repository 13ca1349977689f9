#include "core/prefilter.h"

#include <cstring>

namespace oomlens {

Prefilter::Prefilter(std::vector<std::string> literals) : literals_(std::move(literals)) {}

bool Prefilter::MayMatch(std::string_view text) const {
  for (const auto& literal : literals_) {
    if (literal.empty()) return true;
    if (::memmem(text.data(), text.size(), literal.data(), literal.size()) != nullptr) return true;
  }
  return false;
}

}  // namespace oomlens
