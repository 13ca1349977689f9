#include "core/input/count_newlines.h"

#include <algorithm>

#include "core/input/simd.h"

namespace oomlens {
namespace {

#ifdef OOMLENS_HAVE_AVX2_PATH
// Counts whole 32-byte blocks; *done says how many bytes were counted.
__attribute__((target("avx2"))) size_t CountAvx2(const char* text, size_t size, size_t* done) {
  const __m256i newline = _mm256_set1_epi8('\n');
  size_t count = 0, i = 0;
  while (i + 32 <= size) {
    // Per-byte counters (as 0 - matches) add up to 255 blocks before they are summed.
    __m256i counters = _mm256_setzero_si256();
    size_t blocks = std::min<size_t>(255, (size - i) / 32);
    for (size_t b = 0; b < blocks; ++b, i += 32) {
      __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(text + i));
      counters = _mm256_sub_epi8(counters, _mm256_cmpeq_epi8(x, newline));
    }
    __m256i sums = _mm256_sad_epu8(counters, _mm256_setzero_si256());  // four 64-bit sums
    count += static_cast<size_t>(_mm256_extract_epi64(sums, 0) + _mm256_extract_epi64(sums, 1) +
                                 _mm256_extract_epi64(sums, 2) + _mm256_extract_epi64(sums, 3));
  }
  *done = i;
  return count;
}
#endif

}  // namespace

size_t CountNewlines(const char* text, size_t size) {
  size_t count = 0, done = 0;
#ifdef OOMLENS_HAVE_AVX2_PATH
  if (CpuHasAvx2()) count = CountAvx2(text, size, &done);
#endif
  return count + static_cast<size_t>(std::count(text + done, text + size, '\n'));
}

}  // namespace oomlens
