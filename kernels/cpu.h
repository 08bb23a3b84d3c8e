/*
 * cpu.h — the one place a kernel asks whether this CPU runs AVX2 (or AVX-512).
 *
 * The vector kernels are compiled twice: a portable path and, with GCC or
 * Clang on x86-64, the same source under CK_TARGET_AVX2, taken at run time
 * where ck_have_avx2() says so (libgcc fills the feature bits in a
 * constructor, so no __builtin_cpu_init is needed outside constructors).
 * Both paths give the same answers lane by lane (tests/test_kernels.c).
 * Elsewhere CK_TARGET_AVX2 is empty and ck_have_avx2() is 0.
 */
#ifndef CLASH_KERNELS_CPU_H
#define CLASH_KERNELS_CPU_H

#if defined(__GNUC__) && defined(__x86_64__)
#define CK_TARGET_AVX2 __attribute__((target("avx2")))
static inline int ck_have_avx2(void) { return __builtin_cpu_supports("avx2"); }
/* AVX-512 on 256-bit vectors (VL): 32 vector registers and mask registers
 * for selects, the same arithmetic; for kernels whose lanes spill. */
#define CK_TARGET_AVX512VL __attribute__((target("avx2,avx512f,avx512vl,avx512bw,avx512dq")))
static inline int ck_have_avx512vl(void)
{
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
           __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq");
}
#else
#define CK_TARGET_AVX2
#define CK_TARGET_AVX512VL
static inline int ck_have_avx2(void) { return 0; }
static inline int ck_have_avx512vl(void) { return 0; }
#endif

#endif
