/*
 * rng.h — the tests' random numbers: splitmix64 (Steele, Lea and Flood,
 * 2014), one state per test file, seeded by the file (rng_seed) so that a
 * failing run repeats.
 */
#ifndef CLASH_TESTS_RNG_H
#define CLASH_TESTS_RNG_H

#include <stdint.h>

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static inline void rng_seed(uint64_t s) { rng_state = s; }

static inline uint64_t rng_u64(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
/* integer in [lo, hi] */
static inline int rng_int(int lo, int hi) { return lo + (int)(rng_u64() % (uint64_t)(hi - lo + 1)); }
/* double in [0, 1) */
static inline double rng_unit(void) { return (double)(rng_u64() >> 11) * 0x1p-53; }
static inline double rng_range(double lo, double hi) { return lo + (hi - lo) * rng_unit(); }

#endif
