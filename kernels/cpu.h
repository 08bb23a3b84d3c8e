/*
 * cpu.h — the one place a kernel asks which instruction set to run: the
 * portable path, AVX2, or AVX-512 (on 256-bit vectors, VL).
 *
 * The vector kernels are compiled more than once: a portable path and, with
 * GCC or Clang on x86-64, the same source under CK_TARGET_AVX2 (and, for
 * kernels whose lanes spill, CK_TARGET_AVX512VL).  Every dispatch asks
 * ck_have_avx2() / ck_have_avx512vl(), which read the level in force
 * (cpu.c): the environment variable CLASH_ISA (portable, avx2, avx512),
 * read once when the library is loaded, capped at what the CPU runs;
 * without it, the best level the CPU runs.  So one switch moves a whole run
 * to one level, and the tests run every stage on each level the machine
 * has.  All levels give the same answers lane by lane (tests/unit/test_kernels.c,
 * and the pairs checksums of tests/packaging/isa_levels.sh).  Elsewhere the targets
 * are empty and the level is portable.
 */
#ifndef CLASH_KERNELS_CPU_H
#define CLASH_KERNELS_CPU_H

enum { CK_ISA_PORTABLE = 0, CK_ISA_AVX2 = 1, CK_ISA_AVX512 = 2, CK_ISA_LEVELS = 3 };

/* The level in force (cpu.c fills it in a constructor, before main or the
 * library's first call; never written after). */
extern int ck_isa_level;

/* The best level this CPU runs (from the CPU's feature bits). */
int ck_isa_cpu(void);
/* What CLASH_ISA asked for: a level, -1 when it is unset (or empty), -2
 * when it names no level.  The library refuses runs when it asks for an
 * unknown level or one above ck_isa_cpu() (src/config.c, clash_isa). */
int ck_isa_requested(void);
/* "portable", "avx2", "avx512" (NULL for anything else). */
const char *ck_isa_name(int level);

#if defined(__GNUC__) && defined(__x86_64__)
#define CK_TARGET_AVX2 __attribute__((target("avx2")))
/* AVX-512 on 256-bit vectors (VL): 32 vector registers and mask registers
 * for selects, the same arithmetic; for kernels whose lanes spill. */
#define CK_TARGET_AVX512VL __attribute__((target("avx2,avx512f,avx512vl,avx512bw,avx512dq")))
#else
#define CK_TARGET_AVX2
#define CK_TARGET_AVX512VL
#endif
static inline int ck_have_avx2(void) { return ck_isa_level >= CK_ISA_AVX2; }
static inline int ck_have_avx512vl(void) { return ck_isa_level >= CK_ISA_AVX512; }

#endif
