// Whether this build has AVX2 and AVX-512 code paths (x86-64, GCC or clang) and
// whether the CPU running it has them: the paths are compiled with target
// attributes and chosen at run time; every caller keeps a byte loop that gives
// the same answer.
#ifndef OOMLENS_CORE_INPUT_SIMD_H_
#define OOMLENS_CORE_INPUT_SIMD_H_

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define OOMLENS_HAVE_AVX2_PATH 1
#endif

namespace oomlens {

/// True when the AVX2 paths may run here (with POPCNT, which every AVX2 CPU has,
/// for counting the bits of a mask).
inline bool CpuHasAvx2() {
#ifdef OOMLENS_HAVE_AVX2_PATH
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt");
  return has;
#else
  return false;
#endif
}

/// True when the AVX-512BW paths may run here (the CPU has it and the kernel
/// saves its registers: GCC's check reads both).
inline bool CpuHasAvx512Bw() {
#ifdef OOMLENS_HAVE_AVX2_PATH
  static const bool has = __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512f");
  return has;
#else
  return false;
#endif
}

/// True when the AVX-512 VBMI paths (byte permutes across 64 bytes) may run here.
inline bool CpuHasAvx512Vbmi() {
#ifdef OOMLENS_HAVE_AVX2_PATH
  static const bool has = CpuHasAvx512Bw() && __builtin_cpu_supports("avx512vbmi");
  return has;
#else
  return false;
#endif
}

}  // namespace oomlens

#endif  // OOMLENS_CORE_INPUT_SIMD_H_
