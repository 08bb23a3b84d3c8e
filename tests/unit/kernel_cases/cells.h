/*
 * cells.h — the octree and face-box cases of test_kernels (octree_cells.c, boxes.c,
 * face_dops.c, turning_boxes.c: cell ranges, leaf overlaps, flags, slabs, classes, masks,
 * grown boxes, float rounding)
 *
 * A part of test_kernels.c, included there once: its functions are static
 * and the whole test is one translation unit, so check.h's counters and
 * the random stream (rng.h) are shared by every case.  Uses the oracle of
 * oracle.h where it says so.
 */
/* ---- the octree's binning passes (octree_cells.c) -------------------------------------
 * The AVX2 paths against the portable ones, bit for bit, on random index
 * lists of every length mod 8; and the cell ranges against the exact ones
 * (long double) with the widening the octree uses (octree.c build_units):
 * a box must never miss a cell that it, grown by delta, meets. */
static void test_cells(long n)
{
    enum { NF = 4096 };
    float *b = malloc(sizeof(float) * 6 * NF);
    uint32_t *idx = malloc(sizeof(uint32_t) * NF), *c1 = malloc(sizeof(uint32_t) * NF),
             *c2 = malloc(sizeof(uint32_t) * NF);
    const float *lo[3] = {b, b + NF, b + 2 * NF}, *hi[3] = {b + 3 * NF, b + 4 * NF, b + 5 * NF};
    long bad_bits = 0, missed = 0;
    for (long t = 0; t < n / 2000 + 20; ++t) {
        const int g = rng_int(1, 5), G = 1 << g;
        const double origin = rng_int(0, 3) == 0 ? rng_range(-1e4, 1e4) : rng_range(-2, 2);
        const double size = rng_range(1e-3, 10) * (rng_int(0, 1) ? 1 : 100), cs = size / G, inv = 1.0 / cs;
        const double delta = rng_int(0, 1) ? 0 : cs * rng_range(0, 0.3);
        const double O[3] = {origin, origin + rng_range(-1, 1), origin - rng_range(0, 1)};
        for (int f = 0; f < NF; ++f)
            for (int d = 0; d < 3; ++d) {
                /* inside [O + 2 delta, O + size - 2 delta]; often exactly on a cell boundary */
                const double span = size - 4 * delta, e = span * rng_range(0, 0.2);
                double l = O[d] + 2 * delta + (span - e) * rng_unit();
                if (rng_int(0, 3) == 0) l = O[d] + cs * rng_int(1, G - 1) - (rng_int(0, 1) ? delta : 0);
                float lf = (float)l, hf = (float)(l + e * rng_unit());
                if (lf < O[d] + 2 * delta) lf = nextafterf((float)(O[d] + 2 * delta), INFINITY);
                if (hf < lf) hf = lf;
                if (hf > O[d] + size - 2 * delta) hf = lf = (float)(O[d] + size * 0.5);
                b[d * NF + f] = lf, b[(3 + d) * NF + f] = hf;
            }
        const size_t m = (size_t)rng_int(0, 1000);
        for (size_t k = 0; k < m; ++k) idx[k] = (uint32_t)rng_int(0, NF - 1);
        float bl1[3], bh1[3], bl2[3], bh2[3];
        double e1, e2;
        ck_gather_bounds(m, idx, lo, hi, bl1, bh1, &e1);
        ck_gather_bounds_ref(m, idx, lo, hi, bl2, bh2, &e2);
        bad_bits += memcmp(bl1, bl2, sizeof bl1) || memcmp(bh1, bh2, sizeof bh1) || memcmp(&e1, &e2, sizeof e1);
        double reach = G + 2;
        float of[3];
        for (int d = 0; d < 3; ++d) reach += fabs(O[d]) * inv, of[d] = (float)O[d];
        const float wide = (float)(delta * inv + 16 * (double)FLT_EPSILON * reach);
        ck_cell_codes(m, idx, lo, hi, of, (float)inv, wide, g, c1);
        ck_cell_codes_ref(m, idx, lo, hi, of, (float)inv, wide, g, c2);
        bad_bits += memcmp(c1, c2, m * sizeof *c1) != 0;
        for (size_t k = 0; k < m; ++k) {
            const uint32_t c = c1[k], f = idx[k];
            unsigned r0[3], r1[3];
            for (int d = 0; d < 3; ++d)
                if (c & CK_CELL_MULTI) r0[d] = c >> (10 * d) & 31, r1[d] = c >> (10 * d + 5) & 31;
                else r0[d] = r1[d] = c >> (g * d) & (unsigned)(G - 1);
            for (int d = 0; d < 3; ++d) {
                long double x0 = ((long double)lo[d][f] - delta - O[d]) / (long double)cs;
                long double x1 = ((long double)hi[d][f] + delta - O[d]) / (long double)cs;
                long e0 = (long)floorl(x0), e1x = (long)floorl(x1);
                if (e0 < 0) e0 = 0;
                if (e1x > G - 1) e1x = G - 1;
                if ((long)r0[d] > e0 || (long)r1[d] < e1x) {
                    if (missed < 5)
                        fprintf(stderr, "miss: g %d d %d lo %.9g hi %.9g O %.17g cs %.9g delta %.9g x0 %.9Lg x1 %.9Lg r %u..%u code %08x\n", g, d, lo[d][f], hi[d][f], O[d], cs, delta, x0, x1, r0[d], r1[d], c);
                    ++missed;
                }
            }
        }
    }
    CHECK(bad_bits == 0, "cells: AVX2 and portable paths differ in %ld cases", bad_bits);
    CHECK(missed == 0, "cells: %ld cell ranges miss a cell the grown box meets", missed);
    printf("cells: %ld lists, AVX2 == portable, ranges conservative\n", n / 2000 + 20);
    free(b), free(idx), free(c1), free(c2);
}

/* A leaf's overlap bitmap (octree_cells.c): the AVX2 form against the portable
 * one, on rows of every length 0..140 (up to three 64-bit words) with boxes
 * that often touch exactly (shared coordinates), against the plain
 * comparison for each box, and nothing set or written past the words. */
static void test_leaf_overlaps(long n)
{
    enum { M = 144 };
    float a[6][M + 8];
    uint8_t o1[M + 8], o2[M + 8];
    long bad = 0, wrong = 0, pad = 0, rows = 0;
    for (long t = 0; t < n / 200 + 50; ++t) {
        const size_t m = (size_t)(t % 141);
        for (size_t k = 0; k < m + 8; ++k)
            for (int d = 0; d < 3; ++d) {
                const float l = (float)rng_int(0, 8) * 0.25f, h = l + (float)rng_int(0, 4) * 0.25f;
                a[d][k] = l, a[3 + d][k] = h;
            }
        float q[6];
        for (int d = 0; d < 3; ++d) q[d] = (float)rng_int(0, 8) * 0.25f, q[3 + d] = q[d] + (float)rng_int(0, 4) * 0.25f;
        memset(o1, 0xee, sizeof o1), memset(o2, 0xee, sizeof o2);
        ck_leaf_overlaps(m, a[0], a[1], a[2], a[3], a[4], a[5], q, o1);
        ck_leaf_overlaps_ref(m, a[0], a[1], a[2], a[3], a[4], a[5], q, o2);
        const size_t words = (m + 63) / 64 * 8; /* the bytes a caller reads as 64-bit words */
        bad += memcmp(o1, o2, words) != 0;
        for (size_t k = m; k < words * 8; ++k) pad += o1[k >> 3] >> (k & 7) & 1; /* bits past the row */
        for (size_t k = words; k < sizeof o1; ++k) pad += o1[k] != 0xee; /* bytes past the words: untouched */
        for (size_t k = 0; k < m; ++k) {
            int meet = 1;
            for (int d = 0; d < 3; ++d) meet &= q[d] <= a[3 + d][k] && a[d][k] <= q[3 + d];
            wrong += (o1[k >> 3] >> (k & 7) & 1) != meet;
        }
        ++rows;
    }
    CHECK(bad == 0, "leaf overlaps: AVX2 and portable flags differ in %ld rows", bad);
    CHECK(wrong == 0, "leaf overlaps: %ld flags disagree with the box comparison", wrong);
    CHECK(pad == 0, "leaf overlaps: %ld bits set past a row's end or bytes written past its words", pad);
    printf("leaf overlaps: %ld rows, AVX2 == portable == the comparison\n", rows);
}

/* ck_flags_clear (octree_cells.c): the AVX2 form against the portable one and
 * against the definition, flag by flag, on 64 flags at every offset of a
 * buffer (unaligned loads), flags of three bits, mostly zero, as a leaf's
 * faces carry them. */
static void test_flags_clear(long n)
{
    uint8_t buf[64 + 32];
    long bad = 0, wrong = 0, words = 0;
    for (long t = 0; t < n / 100 + 64; ++t) {
        for (size_t k = 0; k < sizeof buf; ++k) buf[k] = (uint8_t)(rng_int(0, 3) ? 0 : rng_int(1, 7));
        const uint8_t f = (uint8_t)rng_int(0, 7);
        for (int o = 0; o < 32; ++o) {
            const uint64_t a = ck_flags_clear(buf + o, f), b = ck_flags_clear_ref(buf + o, f);
            bad += a != b;
            for (int k = 0; k < 64; ++k) wrong += (int)(a >> k & 1) != ((buf[o + k] & f) == 0);
            ++words;
        }
    }
    CHECK(bad == 0, "flags clear: AVX2 and portable masks differ in %ld words", bad);
    CHECK(wrong == 0, "flags clear: %ld bits disagree with the flags", wrong);
    printf("flags clear: %ld words, AVX2 == portable == the flags\n", words);
}

/* ck_slabs_clear (face_dops.c, S3): the AVX2 form against the portable one and
 * against ck_box_meets_slabs box by box, every length 0..40 (the steps of
 * four and the tail), slabs and boxes on a quarter grid so that sums meet
 * the slabs exactly, classes 0, 1, 2 mixed (a 0 stays 0), a NaN now and
 * then (it never drops a box). */
static void test_slabs_clear(long n)
{
    enum { M = 40 };
    float a[6][M];
    uint8_t c0[M], c1[M], c2[M];
    long bad = 0, wrong = 0, rows = 0, dropped = 0;
    for (long t = 0; t < n / 100 + 200; ++t) {
        const int m = (int)(t % (M + 1));
        for (int k = 0; k < m; ++k) {
            for (int d = 0; d < 3; ++d) {
                const float l = (float)rng_int(-8, 8) * 0.25f;
                a[d][k] = l, a[3 + d][k] = l + (float)rng_int(0, 4) * 0.25f;
            }
            if (rng_int(0, 49) == 0) a[rng_int(0, 5)][k] = NAN;
            c0[k] = (uint8_t)rng_int(0, 2);
        }
        float S[20];
        for (int d = 0; d < 10; ++d)
            S[d] = (float)rng_int(-12, 4) * 0.25f, S[10 + d] = S[d] + (float)rng_int(0, 16) * 0.25f;
        memcpy(c1, c0, sizeof c1), memcpy(c2, c0, sizeof c2);
        ck_slabs_clear(m, a[0], a[1], a[2], a[3], a[4], a[5], S, c1);
        ck_slabs_clear_ref(m, a[0], a[1], a[2], a[3], a[4], a[5], S, c2);
        bad += memcmp(c1, c2, (size_t)m) != 0;
        for (int k = 0; k < m; ++k) {
            const int meets = ck_box_meets_slabs(a[0][k], a[1][k], a[2][k], a[3][k], a[4][k], a[5][k], S);
            wrong += c1[k] != (meets ? c0[k] : 0);
            dropped += c0[k] && !meets;
        }
        ++rows;
    }
    CHECK(bad == 0, "slabs clear: AVX2 and portable classes differ in %ld rows", bad);
    CHECK(wrong == 0, "slabs clear: %ld classes disagree with the box's slab test", wrong);
    CHECK(dropped > 0, "slabs clear: no box was ever dropped (the test tests nothing)");
    printf("slabs clear: %ld rows, %ld boxes dropped, AVX2 == portable == the slab test\n", rows, dropped);
}

/* ck_classify_boxes (boxes.c, S3) against its portable form and against
 * the classes worked out box by box: boxes on a quarter grid (many touch
 * the region exactly), every length 0..40 at odd offsets, and the classes
 * past m zero up to a whole word of 8 (the arrays end at m: under
 * AddressSanitizer a read past them would be caught). */
static void test_classify(long n)
{
    long bad = 0, wrong = 0, pad = 0, rows = 0, cnt[3] = {0};
    for (long t = 0; t < n / 200 + 50; ++t) {
        const int64_t m = t % 41, off = t % 5;
        float *a[6];
        for (int c = 0; c < 6; ++c) a[c] = malloc(sizeof(float) * (size_t)(m + off + 1));
        for (int64_t k = off; k < m + off; ++k)
            for (int d = 0; d < 3; ++d) {
                const float l = (float)rng_int(0, 8) * 0.25f, h = l + (float)rng_int(0, 4) * 0.25f;
                a[d][k] = l, a[3 + d][k] = h;
            }
        float R6[6];
        for (int d = 0; d < 3; ++d) R6[d] = (float)rng_int(0, 6) * 0.25f, R6[3 + d] = R6[d] + (float)rng_int(0, 6) * 0.25f;
        uint8_t c1[48], c2[48];
        memset(c1, 0xee, sizeof c1), memset(c2, 0xee, sizeof c2);
        ck_classify_boxes(m, a[0] + off, a[1] + off, a[2] + off, a[3] + off, a[4] + off, a[5] + off, R6, c1);
        ck_classify_boxes_ref(m, a[0] + off, a[1] + off, a[2] + off, a[3] + off, a[4] + off, a[5] + off, R6, c2);
        const int64_t w = (m + 7) / 8 * 8;
        bad += memcmp(c1, c2, (size_t)w) != 0;
        for (int64_t k = m; k < w; ++k) pad += c1[k] != 0 || c2[k] != 0;
        for (int64_t k = w; k < 48; ++k) pad += c1[k] != 0xee || c2[k] != 0xee;
        for (int64_t k = 0; k < m; ++k) {
            int meet = 1, in = 1;
            for (int d = 0; d < 3; ++d) {
                const float l = a[d][k + off], h = a[3 + d][k + off];
                meet &= l <= R6[3 + d] && h >= R6[d], in &= l >= R6[d] && h <= R6[3 + d];
            }
            const int want = meet ? (in ? 1 : 2) : 0;
            wrong += c1[k] != want, cnt[want]++;
        }
        for (int c = 0; c < 6; ++c) free(a[c]);
        ++rows;
    }
    CHECK(bad == 0, "classify: AVX2 and portable classes differ in %ld rows", bad);
    CHECK(wrong == 0, "classify: %ld classes disagree with the box comparison", wrong);
    CHECK(pad == 0, "classify: %ld bytes past m not zero up to the word, or written past it", pad);
    CHECK(cnt[0] > 0 && cnt[1] > 0 && cnt[2] > 0, "classify: a class never seen (%ld %ld %ld)", cnt[0], cnt[1], cnt[2]);
    printf("classify: %ld rows, AVX2 == portable == the comparison (%ld apart, %ld inside, %ld straddling)\n", rows,
           cnt[0], cnt[1], cnt[2]);
}

/* ck_mask_counts and ck_mask_or (octree_cells.c, the octree's descent) against
 * the counts made mask by mask: every length 0..100 at odd offsets (the
 * AVX2 steps of 32, the words of 8 and the last partial word), masks
 * sparse and dense, in arrays that end at n (a read past them would be
 * caught under AddressSanitizer). */
static void test_mask_counts(long n)
{
    long bad = 0, rows = 0, set = 0;
    for (long t = 0; t < n / 100 + 200; ++t) {
        const size_t m = (size_t)(t % 101), off = (size_t)(t % 3);
        uint8_t *a = malloc(m + off + 1);
        const int dense = (int)(t % 4);
        uint8_t want_or = 0;
        size_t want[8] = {0}, c1[8] = {1, 2, 3, 4, 5, 6, 7, 8}, c2[8] = {1, 2, 3, 4, 5, 6, 7, 8};
        for (size_t k = 0; k < m; ++k) {
            uint8_t v = (uint8_t)rng_u64();
            if (dense == 0) v &= (uint8_t)rng_u64() & (uint8_t)rng_u64(); /* sparse */
            if (dense == 3) v = (uint8_t)(1u << (rng_u64() % 8));         /* one child each */
            a[off + k] = v, want_or |= v;
            for (int c = 0; c < 8; ++c) want[c] += (size_t)(v >> c & 1), set += v >> c & 1;
        }
        const uint8_t o1 = ck_mask_counts(m, a + off, c1), o2 = ck_mask_counts_ref(m, a + off, c2);
        for (int c = 0; c < 8; ++c) bad += c1[c] != want[c] + (size_t)(c + 1) || c2[c] != want[c] + (size_t)(c + 1);
        bad += o1 != want_or || o2 != want_or || ck_mask_or(m, a + off) != want_or;
        free(a);
        ++rows;
    }
    CHECK(bad == 0, "mask counts: %ld counts or ORs differ from the mask-by-mask ones", bad);
    CHECK(set > 0, "mask counts: no bit set");
    printf("mask counts: %ld lists, AVX2 == portable == mask by mask\n", rows);
}

/* ck_child_masks (octree_cells.c, the octree's descent) against its portable
 * form and against the children worked out box by box: boxes on a quarter
 * grid (so many lie exactly on the planes), read through a shuffled index
 * list, lists of every length 0..40, NaN boxes now and then (no child). */
static void test_child_masks(long n)
{
    enum { NB = 64, M = 40 };
    float b[6][NB];
    uint32_t idx[M];
    uint8_t m1[M + 8], m2[M + 8];
    long bad = 0, wrong = 0, over = 0, lists = 0;
    for (long t = 0; t < n / 200 + 50; ++t) {
        const size_t m = (size_t)(t % (M + 1));
        for (int k = 0; k < NB; ++k)
            for (int d = 0; d < 3; ++d) {
                const float l = (float)rng_int(0, 8) * 0.25f, h = l + (float)rng_int(0, 4) * 0.25f;
                b[d][k] = l, b[3 + d][k] = h;
            }
        if (t % 7 == 0) b[rng_int(0, 5)][rng_int(0, NB - 1)] = NAN;
        for (size_t k = 0; k < m; ++k) idx[k] = (uint32_t)rng_int(0, NB - 1);
        float up[3], dn[3];
        for (int d = 0; d < 3; ++d) dn[d] = (float)rng_int(2, 6) * 0.25f, up[d] = dn[d] + (float)rng_int(0, 1) * 0.25f;
        const float *lo[3] = {b[0], b[1], b[2]}, *hi[3] = {b[3], b[4], b[5]};
        memset(m1, 0xee, sizeof m1), memset(m2, 0xee, sizeof m2);
        ck_child_masks(m, idx, lo, hi, up, dn, m1);
        ck_child_masks_ref(m, idx, lo, hi, up, dn, m2);
        bad += memcmp(m1, m2, m) != 0;
        for (size_t k = m; k < m + 8; ++k) over += m1[k] != 0xee;
        for (size_t k = 0; k < m; ++k) {
            unsigned want = 0;
            for (int c = 0; c < 8; ++c) {
                int reach = 1;
                for (int d = 0; d < 3; ++d)
                    reach &= (c >> d & 1) ? hi[d][idx[k]] >= dn[d] : lo[d][idx[k]] <= up[d];
                want |= (unsigned)reach << c;
            }
            wrong += m1[k] != want;
        }
        ++lists;
    }
    CHECK(bad == 0, "child masks: AVX2 and portable masks differ in %ld lists", bad);
    CHECK(wrong == 0, "child masks: %ld masks disagree with the box comparisons", wrong);
    CHECK(over == 0, "child masks: %ld bytes written past a list's end", over);
    printf("child masks: %ld lists, AVX2 == portable == the comparisons\n", lists);
}

/* ck_f32_up / ck_f32_down (kernels.h, bit tricks) against libm's
 * nextafterf: doubles just around floats of every magnitude and sign,
 * zeros, subnormals, the largest finite floats and the infinities. */
static void test_f32_round(long n)
{
    long bad = 0, cases = 0;
    const double special[] = {0.0, -0.0, 1e-45, -1e-45, 1.4e-45, FLT_MIN, -FLT_MIN, FLT_MAX, -FLT_MAX, 1e39, -1e39,
                              INFINITY, -INFINITY, 1.0, -1.0, 0.1, -0.1};
    for (long t = 0; t < n + 400; ++t) {
        double x;
        if (t < (long)(sizeof special / sizeof *special)) x = special[t];
        else {
            const float f = (float)(pow(2, rng_range(-150, 128)) * (rng_int(0, 1) ? -1 : 1));
            const int k = rng_int(0, 3);
            x = k == 0 ? (double)f : k == 1 ? nextafter((double)f, INFINITY) : k == 2 ? nextafter((double)f, -INFINITY)
                                                                                      : (double)f * (1 + 1e-12);
        }
        float up = (float)x, dn = (float)x;
        if ((double)up < x) up = nextafterf(up, INFINITY);
        if ((double)dn > x) dn = nextafterf(dn, -INFINITY);
        const float a = ck_f32_up(x), b = ck_f32_down(x);
        bad += memcmp(&a, &up, 4) != 0 || memcmp(&b, &dn, 4) != 0;
        ++cases;
    }
    CHECK(bad == 0, "f32 rounding: %ld of %ld values differ from nextafterf's", bad, cases);
    printf("f32 rounding: %ld values, ck_f32_up/down == nextafterf\n", cases);
}

/* The boxes of a turning object's faces grown by their arc margins
 * (turning_boxes.c): the AVX2 form against the portable one bit for bit, on ranges
 * of every length 0..40 at steps 1..3 (AVX2 at step 1 only), boxes of both
 * signs and magnitudes from 1e-3 to 1e3, radii and turns that give margins
 * from 0 up; each grown side lies outside the side moved by its margin in
 * exact arithmetic (checked in double), and the bounds are the boxes'. */
static void test_grow_boxes(long n)
{
    enum { M = 48 };
    float b1[6][M], b2[6][M], r[M];
    long bad = 0, small = 0, bounds = 0, ranges = 0;
    for (long t = 0; t < n / 200 + 60; ++t) {
        const int64_t f0 = t % 3, f1 = f0 + t % 41, step = 1 + (t / 41) % 3;
        const double k = (t % 5 == 0) ? 0 : rng_unit() * 0.3, eps = (t % 7 == 0) ? 0 : rng_unit() * 1e-3;
        for (int f = 0; f < M; ++f) {
            const double s = pow(10, rng_unit() * 6 - 3);
            r[f] = (float)(rng_unit() * s);
            for (int d = 0; d < 3; ++d) {
                const float l = (float)((rng_unit() - 0.5) * s), h = l + (float)(rng_unit() * s);
                b1[d][f] = b2[d][f] = l, b1[3 + d][f] = b2[3 + d][f] = h;
            }
        }
        float o1[2][3], o2[2][3];
        ck_grow_boxes(f0, f1, step, r, k, eps, b1[0], b1[1], b1[2], b1[3], b1[4], b1[5], o1[0], o1[1]);
        ck_grow_boxes_ref(f0, f1, step, r, k, eps, b2[0], b2[1], b2[2], b2[3], b2[4], b2[5], o2[0], o2[1]);
        bad += memcmp(b1, b2, sizeof b1) != 0 || memcmp(o1, o2, sizeof o1) != 0;
        float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (int64_t f = f0; f < f1; f += step)
            for (int d = 0; d < 3; ++d) lo[d] = fminf(lo[d], b1[d][f]), hi[d] = fmaxf(hi[d], b1[3 + d][f]);
        for (int d = 0; d < 3; ++d) bounds += memcmp(&lo[d], &o1[0][d], 4) != 0 || memcmp(&hi[d], &o1[1][d], 4) != 0;
        ++ranges;
    }
    /* the growth itself: single sides against the margin, in double */
    for (long t = 0; t < n / 20 + 200; ++t) {
        const double s = pow(10, rng_unit() * 6 - 3), k = rng_unit() * 0.3, eps = rng_unit() * 1e-6;
        float l = (float)((rng_unit() - 0.5) * s), h = l + (float)(rng_unit() * s), rr = (float)(rng_unit() * s);
        const double gl = (double)l - (k * rr + eps), gh = (double)h + (k * rr + eps);
        float lx[8] = {l}, ly[8] = {l}, lz[8] = {l}, hx[8] = {h}, hy[8] = {h}, hz[8] = {h}, ol[3], oh[3];
        float rv[8] = {rr};
        ck_grow_boxes(0, 1, 1, rv, k, eps, lx, ly, lz, hx, hy, hz, ol, oh);
        small += !((double)lx[0] <= gl && (double)hx[0] >= gh && (double)lz[0] <= gl && (double)hz[0] >= gh);
    }
    CHECK(bad == 0, "grow boxes: AVX2 and portable results differ in %ld ranges", bad);
    CHECK(bounds == 0, "grow boxes: %ld object bounds differ from the grown boxes' bounds", bounds);
    CHECK(small == 0, "grow boxes: %ld boxes grown by less than their margin", small);
    printf("grow boxes: %ld ranges, AVX2 == portable, grown past the margins\n", ranges);
}
