/*
 * cpu.c — the instruction-set level the kernels run (cpu.h), fixed once per
 * process when the library is loaded.
 *
 * ck_isa_level is the library's only writable global (tests/packaging/check_globals.py
 * names it as the one exception): it describes the process, as the CPU's
 * feature bits that libgcc keeps for __builtin_cpu_supports do, is written
 * once by the constructor below before any run exists, and only read after,
 * so two runs in one process share nothing they could disagree on.
 * CLASH_ISA is read here and nowhere else.
 */
#include <stdlib.h>
#include <string.h>

#include "kernels/cpu.h"

int ck_isa_level = CK_ISA_PORTABLE;

static const char *const isa_names[CK_ISA_LEVELS] = {"portable", "avx2", "avx512"};

const char *ck_isa_name(int level) { return level >= 0 && level < CK_ISA_LEVELS ? isa_names[level] : NULL; }

int ck_isa_cpu(void)
{
#if defined(__GNUC__) && defined(__x86_64__)
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx2"))
        return CK_ISA_AVX512;
    if (__builtin_cpu_supports("avx2")) return CK_ISA_AVX2;
#endif
    return CK_ISA_PORTABLE;
}

int ck_isa_requested(void)
{
    const char *e = getenv("CLASH_ISA");
    if (!e || !*e) return -1;
    for (int l = 0; l < CK_ISA_LEVELS; ++l)
        if (!strcmp(e, isa_names[l])) return l;
    return -2;
}

/* Runs when the library is loaded (libgcc's CPU model is filled by then: its
 * own constructor has a higher priority). */
__attribute__((constructor)) static void isa_init(void)
{
#if defined(__GNUC__) && defined(__x86_64__)
    __builtin_cpu_init();
#endif
    const int cpu = ck_isa_cpu(), req = ck_isa_requested();
    ck_isa_level = req >= 0 && req < cpu ? req : cpu;
}
