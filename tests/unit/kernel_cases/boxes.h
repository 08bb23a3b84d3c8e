/*
 * boxes.h — S1's face-box kernels (kernels/face_boxes.c) against their
 * reference on the index patterns that choose their paths.
 *
 * A part of test_kernels.c, included there once: its functions are static
 * and share check.h's counters.
 */

/* Vertex numbers of nf faces in one of the patterns that steer the
 * AVX-512 loop: 0 a grid of w columns in row order (two windows when w is
 * small, misses when it is wide), 1 every face within 32 numbers of its
 * step's first (one window) and near the array's end, 2 uniformly random
 * (misses everywhere: the blocks go to the AVX2 loop), 3 random for the
 * first third then a grid (the loop must come back to the windows after
 * skipping), 4 a grid with one random face in some steps (isolated misses). */
static void box_indices(int pat, int64_t nf, int nv, int w, int32_t *i0, int32_t *i1, int32_t *i2)
{
    for (int64_t f = 0; f < nf; ++f) {
        int a, b, c;
        const int grid = pat == 0 || (pat == 3 && f >= nf / 3) || pat == 4;
        if (grid) {
            const int64_t q = f / 2, cols = w - 1;
            const int r = (int)(q / cols) % (nv / w - 1), k = (int)(q % cols);
            a = r * w + k;
            b = f % 2 ? a + w + 1 : a + 1, c = a + w;
            if (pat == 4 && f % 37 == 5) a = rng_int(0, nv - 1);
        } else if (pat == 1) {
            const int base = f / 16 % 5 == 0 ? nv - 32 : (int)(f / 16 * 7 % (nv - 32)); /* every fifth step at the end */
            a = base + rng_int(0, 31), b = base + rng_int(0, 31), c = base + rng_int(0, 31);
        } else {
            a = rng_int(0, nv - 1), b = rng_int(0, nv - 1), c = rng_int(0, nv - 1);
        }
        i0[f] = a, i1[f] = b, i2[f] = c;
    }
}

/* ck_face_boxes and ck_face_boxes_nt against ck_face_boxes_ref: the five
 * patterns, static and swept, ranges of every length mod 16 from odd and
 * line-aligned starts, coordinates with signed zeros, subnormals and large
 * values.  Each position array is allocated to exactly nv floats, so a read
 * past the vertices (a window loaded too far) is caught under
 * AddressSanitizer. */
static void test_face_boxes(long n)
{
    enum { NV = 4096, NF = 12000 };
    const float special[] = {0.0f, -0.0f, 1e-40f, -1e-40f, 3e38f, -3e38f, 1.0f, -1.0f, 1e-30f, 7.25f};
    float *pos[6], *b1[6], *b2[6];
    int32_t *i0 = malloc(NF * sizeof *i0), *i1 = malloc(NF * sizeof *i1), *i2 = malloc(NF * sizeof *i2);
    for (int q = 0; q < 6; ++q) {
        pos[q] = malloc(NV * sizeof(float));
        b1[q] = clash_aligned_calloc(NF, sizeof(float)), b2[q] = clash_aligned_calloc(NF, sizeof(float));
        for (int v = 0; v < NV; ++v)
            pos[q][v] = v % 7 == 3 ? special[(v / 7 + q) % 10] : (float)rng_range(-50, 50);
    }
    long ranges = 0, bad = 0;
    const long rounds = n / 200000 + 2;
    for (long t = 0; t < rounds; ++t)
        for (int pat = 0; pat < 5; ++pat) {
            const int w = pat == 0 ? 4 + (int)(t * 13 % 120) : 9 + (int)(t % 20);
            box_indices(pat, NF, NV, w, i0, i1, i2);
            for (int swept = 0; swept < 2; ++swept)
                for (int kind = 0; kind < 2; ++kind)
                    for (int s = 0; s < 6; ++s) {
                        const int64_t fa = s < 3 ? s * 16 : 16 * rng_int(0, 20) + rng_int(0, 15);
                        const int64_t len = s == 5 ? NF - fa : rng_int(0, 40) + (s % 2 ? 0 : rng_int(0, 9000));
                        const int64_t fb = fa + len < NF ? fa + len : NF;
                        float lo1[3] = {INFINITY, INFINITY, INFINITY}, hi1[3] = {-INFINITY, -INFINITY, -INFINITY};
                        float lo2[3] = {INFINITY, INFINITY, INFINITY}, hi2[3] = {-INFINITY, -INFINITY, -INFINITY};
                        for (int q = 0; q < 6; ++q) memset(b1[q], 0, NF * sizeof(float)), memset(b2[q], 0, NF * sizeof(float));
                        const float *px = swept ? pos[3] : NULL;
                        (kind ? ck_face_boxes_nt : ck_face_boxes)(fa, fb, i0, i1, i2, pos[0], pos[1], pos[2], px, pos[4],
                                                                 pos[5], b1[0], b1[1], b1[2], b1[3], b1[4], b1[5], lo1, hi1);
                        ck_face_boxes_ref(fa, fb, i0, i1, i2, pos[0], pos[1], pos[2], px, pos[4], pos[5], b2[0], b2[1],
                                          b2[2], b2[3], b2[4], b2[5], lo2, hi2);
                        int same = !memcmp(lo1, lo2, sizeof lo1) && !memcmp(hi1, hi2, sizeof hi1);
                        for (int q = 0; q < 6; ++q) same &= !memcmp(b1[q], b2[q], NF * sizeof(float));
                        if (!same && bad++ < 5)
                            printf("face_boxes: pattern %d swept %d %s faces [%lld, %lld) differ from the reference\n",
                                   pat, swept, kind ? "_nt" : "", (long long)fa, (long long)fb);
                        ++ranges;
                    }
        }
    CHECK(bad == 0, "face_boxes: %ld of %ld ranges differ from the reference", bad, ranges);
    printf("face_boxes: %ld ranges, five index patterns, static and swept, ordinary and streaming stores\n", ranges);
    free(i0), free(i1), free(i2);
    for (int q = 0; q < 6; ++q) free(pos[q]), free(b1[q]), free(b2[q]);
}
