// Whether this build has AVX2 code paths (x86-64, GCC or clang) and whether the
// CPU running it has AVX2: the paths are compiled with target attributes and
// chosen at run time; every caller keeps a byte loop that gives the same answer.
#ifndef OOMLENS_CORE_INPUT_SIMD_H_
#define OOMLENS_CORE_INPUT_SIMD_H_

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define OOMLENS_HAVE_AVX2_PATH 1
#endif

namespace oomlens {

/// True when the AVX2 paths may run here.
inline bool CpuHasAvx2() {
#ifdef OOMLENS_HAVE_AVX2_PATH
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
#else
  return false;
#endif
}

}  // namespace oomlens

#endif  // OOMLENS_CORE_INPUT_SIMD_H_
