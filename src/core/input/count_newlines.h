// Counting the newlines of the text the fast path skips, so line numbers stay
// exact: 32 bytes at a time with AVX2 where the CPU has it.
#ifndef OOMLENS_CORE_INPUT_COUNT_NEWLINES_H_
#define OOMLENS_CORE_INPUT_COUNT_NEWLINES_H_

#include <cstddef>

namespace oomlens {

size_t CountNewlines(const char* text, size_t size);

/// What a search counted of the text it read: text[0, through) holds `newlines`
/// newlines (the literal search counts them in the pass that looks for hits, so
/// the text it skips is not read twice).
struct NewlineTally {
  size_t through = 0;
  size_t newlines = 0;
};

}  // namespace oomlens

#endif  // OOMLENS_CORE_INPUT_COUNT_NEWLINES_H_
