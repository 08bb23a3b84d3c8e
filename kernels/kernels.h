/*
 * kernels.h — pure compute over plain arrays.
 *
 * Rules of this room: no allocation, no threads, no globals, no I/O; only libc
 * and <math.h>.  Every optimized kernel keeps a plain reference version
 * beside it (suffix _ref) and tests compare the two.
 *
 * Geometry tests take double coordinates: the store keeps float32 positions
 * and the exact tests promote them.  "Meets" always means the closed sets
 * share at least one point (touching counts).
 */
#ifndef CLASH_KERNELS_H
#define CLASH_KERNELS_H

#include <stddef.h>
#include <stdint.h>

/* ---- triangle / axis-aligned box (tribox.c) --------------------------------
 * ck_tribox: the report's test ([Smith94] §3.3.7): bounding-box reject, vertex-inside
 * accept, then clip the triangle against the x and y slabs of the box with an
 * early accept whenever a clip point lies on the box face inside the box,
 * and finally compare the clipped polygon's z-range with the box's.
 * ck_tribox_ref: separating-axis reference (13 axes, Akenine-Möller 2001;
 * extra axes when the box is flat on some axis, so degenerate triangles and
 * boxes are handled exactly).
 * Both return 1 when the closed triangle meets the closed box [lo, hi]
 * (lo <= hi; touching counts; zero-area triangles allowed).  Both are exact
 * when the inputs' products up to degree 4 are exact in double (e.g. small
 * integers); otherwise they can differ from the exact answer only when the
 * triangle is within rounding (~1e-16 relative) of touching the box, and
 * ck_tribox answers 1 when rounding leaves it in doubt. */
int ck_tribox(const double v0[3], const double v1[3], const double v2[3],
              const double lo[3], const double hi[3]);
int ck_tribox_ref(const double v0[3], const double v1[3], const double v2[3],
                  const double lo[3], const double hi[3]);

/* ---- static triangle / triangle (tritri.c) --------------------------------
 * Returns 1 when the closed triangles share a point, coplanar cases included.
 * ck_tritri: Guigue–Devillers (2003) on exactly evaluated orientation signs
 * (floating-point filter + exact expansion fallback): exact for all inputs of
 * float32 range, zero-area triangles included.
 * ck_tritri_ref: separating axes (54 candidates, complete for degenerate
 * triangles), plain double: exact on small-integer data, otherwise right
 * except within rounding of touching. */
int ck_tritri(const double a0[3], const double a1[3], const double a2[3],
              const double b0[3], const double b1[3], const double b2[3]);
int ck_tritri_ref(const double a0[3], const double a1[3], const double a2[3],
                  const double b0[3], const double b1[3], const double b2[3]);

/* ---- convex hulls of small point sets (hull.c) -----------------------------
 * The swept-space face-pair test: do conv(P) and conv(Q) intersect?
 * P has np points, Q has nq points, 1 <= np, nq <= 8 (6 for a moving triangle,
 * 2 for a moving vertex, 4 for a moving edge, 8 for a box).
 * Conservative: returns 0 only when a separating direction is verified with
 * a margin larger than the rounding error of the projections plus tol
 * (absolute, >= 0); so it never reports 0 for sets that intersect, and a 0
 * guarantees that the hulls are more than tol apart (Euclidean distance).
 * Counts outside 1..8, or tol negative or NaN, give 1.
 * ck_hulls_meet: a boolean GJK that answers only what it proves
 * (ck_hulls_bool), then the exact AABB reject, then a distance GJK with the
 * certificate checked at every support evaluation.  ck_hulls_meet_ref: brute separating-axis test
 * over an axis set complete for (degenerate) polytopes: exact on
 * small-integer data.  Both can only fail to certify gaps below ~1e-15
 * relative to the coordinates' spread. */
int ck_hulls_meet(const double (*p)[3], int np, const double (*q)[3], int nq, double tol);
int ck_hulls_meet_ref(const double (*p)[3], int np, const double (*q)[3], int nq, double tol);
/* ck_hulls_bool (hull_bool.c): the boolean GJK that ck_hulls_meet runs
 * first, on point lists already translated to p[0] (|coordinates| <= M):
 * 0 apart (certified as in hull.c), 1 meet (the origin robustly inside a
 * tetrahedron of support differences), -1 undecided; *last: the support
 * pair (16 ip + iq) it evaluated last, where the distance GJK starts.  AVX2
 * where the CPU has it; _plain: the portable path (the same answers). */
int ck_hulls_bool(const double (*P)[3], int np, const double (*Q)[3], int nq, double M, double tol, int *last);
/* ck_hulls_meet_rows (hull.c): ck_hulls_meet(p, 6, q, 6, tol) on two rows
 * of 18 doubles (x y z of points 0..5, S5's rows, CK_ROW below), p and q
 * the rows: the same answer, first from ck_hulls_bool_rows (hull_bool.c:
 * the translation and the boolean GJK's layout in one pass; -1 where it
 * does not decide).  _plain: the portable paths (the AVX2 ones where the
 * CPU has it answer the same). */
int ck_hulls_meet_rows(const double *ra, const double *rb, double tol);
int ck_hulls_meet_rows_plain(const double *ra, const double *rb, double tol);
int ck_hulls_bool_rows(const double *ra, const double *rb, double tol);
int ck_hulls_bool_rows_plain(const double *ra, const double *rb, double tol);
/* The same on two pairs (ra[t], rb[t], tol[t]) at once, their GJK steps in
 * turn (the answers of two calls). */
void ck_hulls_meet_rows2(const double *const ra[2], const double *const rb[2], const double tol[2], int meet[2]);
void ck_hulls_bool_rows2(const double *const ra[2], const double *const rb[2], const double tol[2], int out[2]);
int ck_hulls_bool_plain(const double (*P)[3], int np, const double (*Q)[3], int nq, double M, double tol,
                        int *last);
/* conv(P) against the closed box [lo - tol, hi + tol]; conservative likewise
 * (0 only with a verified separating direction): exact AABB reject, point in
 * box accept, then GJK with the box's support mapping. */
int ck_hull_box(const double (*p)[3], int np, const double lo[3], const double hi[3], double tol);

/* ---- the boolean GJK eight pairs at a time (hull_gjk8.c) -----------------------
 * ck_hulls_gjk_f32x8: eight pairs laid out as for ck_hulls_apart_f32x8, tol
 * per lane as for ck_hulls_apart_f32x8 (a float at least the double one),
 * the boolean GJK in float lanes; per lane a status st:
 *   G8_MEET   certified: ck_hulls_meet(p, 6, q, 6, t) is 1 for every t;
 *   G8_APART  certified: it is 0 for every t <= tol;
 *   G8_TETRA  a tetrahedron of support pairs ix[0..3] = 8 ip + iq around
 *             the origin in float, not certified: ask
 *             ck_hulls_gjk_check_rows (hull_bool.c), which certifies it in
 *             double on the lane's two rows of 18 doubles (CK_ROW below):
 *             1 meet, -1 not shown;
 *   G8_ASK    not decided.
 * ball: walk the hulls grown by tol (D + B(tol), as hull_bool.c does for
 * 0 < tol <= M), which settles pairs apart by less than tol (G8_ASK
 * without it); its G8_MEET needs a margin 8 times wider, and its G8_TETRA
 * points carry their offsets o (tol d / |d|), which the check in double
 * adds, scaled to at most tol.  _plain: the portable path; the AVX2 and
 * AVX-512 ones, where the CPU has them, steer and answer the same. */
enum { G8_MEET = 1, G8_APART = 2, G8_TETRA = 3, G8_ASK = 4, G8_MAXIT = 24 };
typedef struct {
    int8_t st[8], ix[4][8], ball;
    float o[4][3][8]; /* ball: each tetrahedron point's offset from its support pair (G8_TETRA) */
} ck_gjk8;
void ck_hulls_gjk_f32x8(const float p[6][3][8], const float q[6][3][8], const float tol[8], int ball, ck_gjk8 *out);
void ck_hulls_gjk_f32x8_plain(const float p[6][3][8], const float q[6][3][8], const float tol[8], int ball,
                              ck_gjk8 *out);
/* isa: 0 the portable path, 1 AVX2, 2 AVX-512 VL, each where the CPU has it (else the next one down). */
void ck_hulls_gjk_f32x8_isa(int isa, const float p[6][3][8], const float q[6][3][8], const float tol[8], int ball,
                            ck_gjk8 *out);
int ck_hulls_gjk_check_rows(const double *ra, const double *rb, double tol, const ck_gjk8 *g, int l);
/* ck_hulls_gjk_f32x8_carry: the same walk, each lane started from in's
 * state (NULL: afresh) and stopped after maxit steps: with more, a lane
 * still walking then is G8_MORE.  keep (if not NULL) gets every lane's
 * state at the end.  A G8_MORE lane carried on (in = its state, in any
 * lane of another batch) with the steps left to G8_MAXIT gives
 * ck_hulls_gjk_f32x8's answer, step for step; a G8_ASK lane of the plain
 * walk carried on with ball = 1 walks D + B(tol) from its simplex (points
 * of D, offsets 0), its answers certified as ever.  Long walks are so
 * gathered into batches of their own, where a lane of a batch otherwise
 * waits, idle, for the batch's longest walk. */
enum { G8_MORE = 5 };
typedef struct {
    float s[4][3][8], d[3][8];
    int8_t ix[4][8], n[8];
} ck_g8carry;
void ck_hulls_gjk_f32x8_carry(const float p[6][3][8], const float q[6][3][8], const float tol[8], int ball,
                              const ck_g8carry *in, int maxit, int more, ck_gjk8 *out, ck_g8carry *keep);

/* ---- a float filter in front of ck_hulls_meet (hull_filter8.c) --------------------
 * Two moving triangles, six float32 points each (0..2 at s, 3..5 at s-1):
 * 1 when they are certainly apart (along the centroid difference or either
 * triangle's normal at s, by a margin far above float rounding), 0 when the
 * filter cannot tell: then ck_hulls_meet decides.  tol (>= 0, per pair): a
 * float at least ck_hulls_meet's tolerance (ck_f32_up); a 1 implies
 * ck_hulls_meet(p, 6, q, 6, t) == 0 for every t <= tol.  The x8 form takes
 * eight pairs as SoA (p[point][coordinate][lane]) and writes apart[lane]. */
int ck_hulls_apart_f32_ref(const float p[6][3], const float q[6][3], float tol);
void ck_hulls_apart_f32x8(const float p[6][3][8], const float q[6][3][8], const float tol[8], uint8_t apart[8]);
/* ck_rows8 (hull_filter8.c): out[c][l] = base[CK_ROW idx[l] + c], c < 24, l < 8:
 * rows of CK_ROW floats, the first 18 a face's six positions (S5: offsets, below; x y z of
 * points 0..5), the last 2 the caller's (S5: the face's arc margin, a
 * double), turned into the filter's lanes; out's first 18 rows are a p of
 * ck_hulls_apart_f32x8, the others are read past the positions (base must
 * hold 24 readable floats from every row's start).  AVX2 where the CPU has
 * it, the same values as _plain. */
void ck_rows8(const float *base, const int32_t idx[8], float out[24][8]);
void ck_rows8_plain(const float *base, const int32_t idx[8], float out[24][8]);
/* S5's rows (stages/face_rows.c): CK_ROW = 24 floats.  Floats 18..20 are the
 * face's origin O = fl32(its vertex 0 at s, the store's double), 0..17 its
 * six positions X (the store's doubles) as offsets fl32(X - O), the
 * subtraction in double; floats 21..22 its arc margin (a double, copied
 * bytewise); 23 unused.  ck_rows8o: ck_rows8's lanes, then for c < 18
 *     out[c][l] = fl32(off[c] + (O_idx[l] - O_org[l])[c mod 3]), in double
 * (org NULL: O_org = 0; org == idx: the offsets themselves): both faces of
 * a pair translated by the first one's origin.  A lane coordinate is then
 * within u (|off| + |itself|) (1 + 2^-28) <= 3.01 u M of the exact
 * translated one X - O_org (u = 2^-24, M the lane's largest |coordinate|:
 * |off| <= the face's size <= 2M), which hull_filter8.c, hull_gjk8.c and face_dops.c allow
 * for, so that floats only steer and certify what holds on the doubles. */
#define CK_ROW 24
void ck_rows8o(const float *base, const int32_t idx[8], const int32_t *org, float out[24][8]);
/* The same with org's origins given as lanes (a batch's rows 18..20 that
 * ck_rows8o laid out already: org[c][l] = O_org[l][c]), which saves reading
 * them again from the rows; NULL: O_org = 0. */
void ck_rows8o_by(const float *base, const int32_t idx[8], const float org[3][8], float out[24][8]);
/* The float after / before v (v not NaN, v below +inf / above -inf: what
 * nextafterf(v, +/-INFINITY) gives, by the bits: no call into libm, which
 * the octree descent would make for every face it rounds). */
static inline float ck_f32_next_up(float v)
{
    uint32_t u;
    __builtin_memcpy(&u, &v, sizeof u);
    u = (int32_t)(u - 1) > -2 ? (u & 0x7fffffffu) + 1 : u - 1; /* +0 and -0 both to +denorm_min */
    __builtin_memcpy(&v, &u, sizeof v);
    return v;
}
static inline float ck_f32_next_down(float v) { return -ck_f32_next_up(-v); }
/* The least float >= x (x finite or not). */
static inline float ck_f32_up(double x)
{
    float f = (float)x;
    if ((double)f < x) f = ck_f32_next_up(f);
    return f;
}
/* The greatest float <= x (x finite or not). */
static inline float ck_f32_down(double x)
{
    float f = (float)x;
    if ((double)f > x) f = ck_f32_next_down(f);
    return f;
}
/* The same filter on eight pairs of static triangles (three points a side):
 * apart[lane] = 1 only where the triangles are apart by a positive gap, so
 * that ck_tritri says 0.  _plain: the portable path (the tests compare it
 * with the one the CPU takes). */
void ck_tris_apart_f32x8(const float p[3][3][8], const float q[3][3][8], uint8_t apart[8]);
void ck_tris_apart_f32x8_plain(const float p[3][3][8], const float q[3][3][8], uint8_t apart[8]);

/* ck_tritri on eight pairs of double triangles (tritri8.c; _f32x8: of float ones): meet[l] for lanes
 * 0..n-1, the same answers, branch-free in lanes where every orientation's
 * sign is settled by its error bound and by ck_tritri for the rest (lanes
 * past n must hold initialised values; their answers are dropped).  Returns
 * the number of lanes left to ck_tritri.  _plain: the portable path. */
int ck_tritri_d8(const double p[3][3][8], const double q[3][3][8], int n, uint8_t meet[8]);
int ck_tritri_f32x8(const float p[3][3][8], const float q[3][3][8], int n, uint8_t meet[8]);
int ck_tritri_f32x8_plain(const float p[3][3][8], const float q[3][3][8], int n, uint8_t meet[8]);
/* A batch of up to eight triangle pairs for ck_tritri_d8, filled pair by
 * pair from eight-lane layouts like the float filter's (in double) (ck_tri8_add: lane l
 * of p and q, points 0..2, as the next pair; returns the pairs now held)
 * and tested when full or at the end (ck_tri8_flush: meet[0..n) for the n
 * pairs held, the lanes past n padded with pair 0; empties the batch and
 * returns n).  Zero-initialise it before the first pair. */
typedef struct ck_tri8_batch {
    double p[3][3][8], q[3][3][8];
    int n;
} ck_tri8_batch;
int ck_tri8_add(ck_tri8_batch *b, const double (*p)[3][8], const double (*q)[3][8], int l);
int ck_tri8_flush(ck_tri8_batch *b, uint8_t meet[8]);

/* ---- streaming kernels over SoA float arrays (face_boxes.c, transform.c) --------- */

/* The double truth of S0 (transform.c): items i0, i0 + step, ... < i1 of
 * W = R * (s * L) + t from the double local mesh L, R row-major (the
 * products folded as (R s) L, summed in order, no FMA), and F = W rounded to
 * float32 (the culling copy). */
void ck_transform_d(int64_t i0, int64_t i1, int64_t step, const double R[9], double s, const double t[3],
                    const double *const L[3], double *const W[3], float *const F[3]);

/* ck_gathers_slow: 1 where an 8-lane vgatherdps is slower than eight scalar
 * loads (AMD's cores issue it slowly), so the kernels
 * that read through index lists (face_boxes.c, octree_cells.c) build their lanes from
 * loads there; the same values either way. */
int ck_gathers_slow(void);

/* Boxes of faces [f0, f1): over state s (x,y,z), and when px is non-NULL also
 * over state s-1 (px,py,pz): the swept box.  Boxes are rounded outward by one
 * float ulp so float boxes never drop a contact exact arithmetic would keep.
 * Also reduces the boxes into olo[3]/ohi[3] (must be initialised by caller). */
void ck_face_boxes(int64_t f0, int64_t f1,
                   const int32_t *restrict i0, const int32_t *restrict i1, const int32_t *restrict i2,
                   const float *restrict x, const float *restrict y, const float *restrict z,
                   const float *restrict px, const float *restrict py, const float *restrict pz,
                   float *restrict lox, float *restrict loy, float *restrict loz,
                   float *restrict hix, float *restrict hiy, float *restrict hiz,
                   float olo[3], float ohi[3]);
/* The same boxes (bit for bit) and object box, written with non-temporal
 * (streaming) stores on x86-64 with AVX2: meant for box arrays much larger
 * than the last-level cache; it saves the read-for-ownership of every
 * written line.  The 64-byte lines lying wholly inside [f0, f1) are streamed
 * when all six box arrays are 64-byte aligned; the rest (and every other
 * case) is stored as ck_face_boxes does.  Ends with a store fence. */
void ck_face_boxes_nt(int64_t f0, int64_t f1,
                      const int32_t *restrict i0, const int32_t *restrict i1, const int32_t *restrict i2,
                      const float *restrict x, const float *restrict y, const float *restrict z,
                      const float *restrict px, const float *restrict py, const float *restrict pz,
                      float *restrict lox, float *restrict loy, float *restrict loz,
                      float *restrict hix, float *restrict hiy, float *restrict hiz,
                      float olo[3], float ohi[3]);
void ck_face_boxes_ref(int64_t f0, int64_t f1,
                       const int32_t *i0, const int32_t *i1, const int32_t *i2,
                       const float *x, const float *y, const float *z,
                       const float *px, const float *py, const float *pz,
                       float *lox, float *loy, float *loz, float *hix, float *hiy, float *hiz,
                       float olo[3], float ohi[3]);

/* Strided variants (fine-grain stride partition): the same per-item work on
 * items i0, i0+step, i0+2*step, ... < i1 (step >= 1), bit-identical to the
 * contiguous kernels on each item.  Indices are global (pointers not offset). */
void ck_face_boxes_strided(int64_t f0, int64_t f1, int64_t step,
                           const int32_t *restrict i0, const int32_t *restrict i1, const int32_t *restrict i2,
                           const float *restrict x, const float *restrict y, const float *restrict z,
                           const float *restrict px, const float *restrict py, const float *restrict pz,
                           float *restrict lox, float *restrict loy, float *restrict loz,
                           float *restrict hix, float *restrict hiy, float *restrict hiz,
                           float olo[3], float ohi[3]);
void ck_face_boxes_strided_ref(int64_t f0, int64_t f1, int64_t step,
                               const int32_t *i0, const int32_t *i1, const int32_t *i2,
                               const float *x, const float *y, const float *z,
                               const float *px, const float *py, const float *pz,
                               float *lox, float *loy, float *loz, float *hix, float *hiy, float *hiz,
                               float olo[3], float ohi[3]);

/* ck_grow_boxes (turning_boxes.c; S1 in swept mode, stages/finegrain.c): the boxes
 * of faces [f0, f1) (by step) of an object that turns, grown in place by the
 * arc margins k r[f] + eps as clash_grow_side grows them (stages/facetest.h);
 * olo/ohi are set to the bounds of the grown boxes.  AVX2 where the CPU has
 * it (step 1), the same bits as ck_grow_boxes_ref. */
void ck_grow_boxes(int64_t f0, int64_t f1, int64_t step, const float *r, double k, double eps, float *lox,
                   float *loy, float *loz, float *hix, float *hiy, float *hiz, float olo[3], float ohi[3]);
void ck_grow_boxes_ref(int64_t f0, int64_t f1, int64_t step, const float *r, double k, double eps, float *lox,
                       float *loy, float *loz, float *hix, float *hiy, float *hiz, float olo[3], float ohi[3]);

/* ck_vertex_bounds (face_boxes.c; the octree's deferred S1, stages/finegrain.c):
 * folds into olo/ohi the bounds of vertices [0, n), rounded outward as the
 * face boxes are: the object box of faces that use every vertex. */
void ck_vertex_bounds(int64_t n, const float *restrict x, const float *restrict y, const float *restrict z,
                      float olo[3], float ohi[3]);

/* S3's classification of m face boxes [lo, hi] against a region R6 = {lo
 * x, y, z, hi x, y, z}: cls[k] = 0 apart, 1 inside, 2 straddling, and 0 in
 * cls[m .. m rounded up to a multiple of 8), which must be writable
 * (face_boxes.c; AVX2 where the CPU has it, the same classes as the _ref). */
void ck_classify_boxes(int64_t m, const float *restrict lx, const float *restrict ly, const float *restrict lz,
                       const float *restrict hx, const float *restrict hy, const float *restrict hz,
                       const float R6[6], uint8_t *restrict cls);
void ck_classify_boxes_ref(int64_t m, const float *restrict lx, const float *restrict ly, const float *restrict lz,
                           const float *restrict hx, const float *restrict hy, const float *restrict hz,
                           const float R6[6], uint8_t *restrict cls);

/* ck_box_meets_slabs: 0 when the box (lx, ly, lz) - (hx, hy, hz),
 * projected on one of the ten diagonal directions of slabs S (lo[10],
 * hi[10]: stages/broad_dop.c), misses the slab.  The projections are sums
 * of the box's sides in double, in the order written (the slabs' widening
 * holds their rounding); NaN never drops.  ck_slabs_clear (face_dops.c): the
 * same test for boxes [0, m), cls[k] set to 0 where box k misses, other
 * classes kept; AVX2 where the CPU has it (four boxes at a time, the same
 * sums lane by lane), the same classes as the _ref. */
static inline int ck_box_meets_slabs(double lx, double ly, double lz, double hx, double hy, double hz,
                                     const float S[20])
{
    const double l[10] = {lx + ly + lz, lx + ly - hz, lx - hy + lz, ly + lz - hx, lx + ly,
                          lx - hy,      lx + lz,      lx - hz,      ly + lz,      ly - hz};
    const double h[10] = {hx + hy + hz, hx + hy - lz, hx - ly + hz, hy + hz - lx, hx + hy,
                          hx - ly,      hx + hz,      hx - lz,      hy + hz,      hy - lz};
    int miss = 0;
    for (int d = 0; d < 10; ++d) miss |= (h[d] < S[d]) | (l[d] > S[10 + d]);
    return !miss;
}
void ck_slabs_clear(int64_t m, const float *restrict lx, const float *restrict ly, const float *restrict lz,
                    const float *restrict hx, const float *restrict hy, const float *restrict hz, const float S[20],
                    uint8_t *restrict cls);
void ck_slabs_clear_ref(int64_t m, const float *restrict lx, const float *restrict ly, const float *restrict lz,
                        const float *restrict hx, const float *restrict hy, const float *restrict hz,
                        const float S[20], uint8_t *restrict cls);

/* ck_carry_boxes8 (face_boxes.c; S3's deferred boxes, stages/deferred.c): eight
 * local boxes S (S[8c + j], c = lo x, y, z, hi x, y, z) carried into the
 * world by P = {V[9], |V|[9], o[3], pad}: centre V c + o, half extents |V|
 * h, each side widened by pad + 2^-20 (|centre| + half extent), in double;
 * box j on axis i is [L[8i + j], H[8i + j]].  ck_carry_meet8: the mask
 * (bit j) of those that meet some box of R (nr boxes, 6 floats each, lo
 * then hi; closed boxes), and when inside is not NULL, in *inside the mask
 * of those that lie inside some box of R.  AVX2 where the CPU has it, the
 * same bits as the plain paths (_ref). */
void ck_carry_boxes8(const float *restrict S, const double *restrict P, double *restrict L, double *restrict H);
/* Box j of the eight alone, in plain double (the same bits). */
void ck_carry_box1(const float *S, const double *P, int j, double lo[3], double hi[3]);
void ck_carry_boxes8_ref(const float *restrict S, const double *restrict P, double *restrict L, double *restrict H);
unsigned ck_carry_meet8(const float *restrict S, const double *restrict P, const float *restrict R, int64_t nr,
                        unsigned *inside);
unsigned ck_carry_meet8_ref(const float *restrict S, const double *restrict P, const float *restrict R, int64_t nr,
                            unsigned *inside);
/* Swept (S3's deferred boxes in swept mode): each box carried by P and by
 * P0 (the pose at s-1), the two joined, then, when g > 0, each side moved
 * out by g (1 + 2^-19) + 2^-20 max(|lo|, |hi|) + 2^-126 (the arc margins:
 * stages/deferred.c), before the same tests; the same bits on both paths. */
unsigned ck_carry_meet8_swept(const float *restrict S, const double *restrict P, const double *restrict P0, double g,
                              const float *restrict R, int64_t nr, unsigned *inside);
unsigned ck_carry_meet8_swept_ref(const float *restrict S, const double *restrict P, const double *restrict P0,
                                  double g, const float *restrict R, int64_t nr, unsigned *inside);

/* ---- the octree's binning passes (octree_cells.c) ----------------------------------
 * Boxes as SoA: lo[d][f], hi[d][f] for axis d of face f; both read faces
 * idx[0..n).  The AVX2 paths and the _ref paths return identical results.
 *
 * ck_gather_bounds: the bounds of the boxes, and the sum of each box's
 * largest edge (in double, face k added to lane k % 8, the 8 lanes summed in
 * a fixed order: the same number whatever the CPU).
 *
 * ck_cell_codes: for a grid of 2^g cells a side (g <= 5) with origin o and
 * cell edge 1/inv, the cells each box, widened by `wide` cells, touches:
 * index (v - o) * inv -/+ wide computed in float (so `wide` must cover the
 * rounding: a few float epsilons of |o| * inv + 2^g), truncated toward
 * zero, clamped to [0, 2^g - 1].  code[k] is the cell
 * number x + 2^g y + 4^g z for a box inside one cell, else CK_CELL_MULTI |
 * x0 | x1 << 5 | y0 << 10 | y1 << 15 | z0 << 20 | z1 << 25. */
#define CK_CELL_MULTI 0x80000000u
void ck_gather_bounds(size_t n, const uint32_t *idx, const float *const lo[3], const float *const hi[3],
                      float bl[3], float bh[3], double *edge_sum);
void ck_gather_bounds_ref(size_t n, const uint32_t *idx, const float *const lo[3], const float *const hi[3],
                          float bl[3], float bh[3], double *edge_sum);
void ck_cell_codes(size_t n, const uint32_t *idx, const float *const lo[3], const float *const hi[3],
                   const float o[3], float inv, float wide, int g, uint32_t *code);
void ck_cell_codes_ref(size_t n, const uint32_t *idx, const float *const lo[3], const float *const hi[3],
                       const float o[3], float inv, float wide, int g, uint32_t *code);

/* ck_child_masks (octree_cells.c): for a cell split by planes, mask[k] = the
 * children (bit c: child x + 2y + 4z, 1 the upper half) that box idx[k]
 * reaches: the lower half on axis d when lo[d] <= up[d], the upper when
 * hi[d] >= dn[d] (up, dn: the mid-plane pushed out by the caller's
 * margin).  AVX2 where the CPU has it, the same masks as the _ref. */
void ck_child_masks(size_t n, const uint32_t *idx, const float *const lo[3], const float *const hi[3],
                    const float up[3], const float dn[3], uint8_t *mask);
void ck_child_masks_ref(size_t n, const uint32_t *idx, const float *const lo[3], const float *const hi[3],
                        const float up[3], const float dn[3], uint8_t *mask);

/* ck_mask_counts (octree_cells.c; the octree's descent): cnt[c] += how many of
 * the masks mask[0 .. n) have bit c set, for c = 0..7; returns the OR of
 * the masks.  AVX2 where the CPU has it, the same counts as the _ref.
 * ck_mask_or: the OR of mask[0 .. n). */
uint8_t ck_mask_counts(size_t n, const uint8_t *mask, size_t cnt[8]);
uint8_t ck_mask_counts_ref(size_t n, const uint8_t *mask, size_t cnt[8]);
uint8_t ck_mask_or(size_t n, const uint8_t *mask);

/* ck_leaf_overlaps (octree_cells.c): a bitmap, bit k of ov (bit k % 8 of byte
 * k / 8) set where box a6 = {lo x, y, z, hi x, y, z} overlaps box k of
 * [0, n) (lo <= other's hi on every axis, the other's lo <= hi), else
 * clear; the bytes after the last are zero up to a multiple of 8 (so ov
 * may be read as 64-bit words: ceil(n / 64) * 8 writable bytes).  AVX2
 * where the CPU has it, the same bits as the portable _ref.  Each array
 * must have 7 readable floats past n. */
void ck_leaf_overlaps(size_t n, const float *restrict lx, const float *restrict ly, const float *restrict lz,
                      const float *restrict hx, const float *restrict hy, const float *restrict hz, const float a6[6],
                      uint8_t *restrict ov);
void ck_leaf_overlaps_ref(size_t n, const float *restrict lx, const float *restrict ly, const float *restrict lz,
                          const float *restrict hx, const float *restrict hy, const float *restrict hz,
                          const float a6[6], uint8_t *restrict ov);

/* ck_flags_clear (octree_cells.c): bit k set where fl[k] & f is 0, for k in
 * [0, 64): the 64 flags from fl on, which must be readable.  AVX2 where
 * the CPU has it, the same bits as the portable _ref. */
uint64_t ck_flags_clear(const uint8_t *fl, uint8_t f);
uint64_t ck_flags_clear_ref(const uint8_t *fl, uint8_t f);

/* ---- a swept face's ten diagonal slabs (face_dops.c) ----------------------------------
 * A face's DOP is CK_FDOP floats: lo then hi of its six points' extents
 * along the ten directions (1,1,1) (1,1,-1) (1,-1,1) (-1,1,1) (1,1,0)
 * (1,-1,0) (1,0,1) (1,0,-1) (0,1,1) (0,1,-1), each widened by g |d|_2 and
 * the float rounding, so that two faces whose DOPs miss along a direction
 * are farther apart than g_a + g_b (ck_hulls_meet says 0 for that
 * tolerance); a lane not finite or above 2^100 gets -inf/+inf (or NaN),
 * which never drops a pair.
 * ck_face_dops8: p as ck_rows8 makes it (rows 0..17: x y z of points 0..5,
 * lane = face), g >= 0 per lane; writes lanes 0..n-1 to out[lane].
 * ck_fdop_mask: bits with bit k cleared where the DOP of row b[k] of dop
 * misses row a's; reads 8 floats past each row read (padding after the
 * last).  AVX2 where the CPU has it, the same bits as _plain. */
#define CK_FDOP 20
void ck_face_dops8(const float p[24][8], const float g[8], int n, float *const out[8]);
void ck_face_dops8_plain(const float p[24][8], const float g[8], int n, float *const out[8]);
uint64_t ck_fdop_mask(const float *dop, int32_t a, const int32_t *b, uint64_t bits);
uint64_t ck_fdop_mask_plain(const float *dop, int32_t a, const int32_t *b, uint64_t bits);
/* ck_points_dop: the extents of n points (x, y, z) along the same ten
 * directions, in float, folded into lo[10] and hi[10] (min and max), and
 * the largest |coordinate| into *M; 1, or 0 when some coordinate is not
 * finite or above 2^100 (then lo, hi and M mean nothing).  AVX2 where the
 * CPU has it, the same floats as _plain. */
int ck_points_dop(int64_t n, const float *x, const float *y, const float *z, float lo[10], float hi[10], float *M);
int ck_points_dop_plain(int64_t n, const float *x, const float *y, const float *z, float lo[10], float hi[10],
                        float *M);

/* ---- k-DOPs of the DOP-tree (dop.c) -------------------------------------------
 * A k-DOP (k even) is k plane offsets: d[i] = max N_i·x, d[i + k/2] = max -N_i·x.
 * ck_dop_align: the aligned DOP enclosing a tumbled one ([Zachmann00] eq. 3.2),
 * out[i] = c[i] + sum_l lam[3i+l] * d[j[3i+l]], l = 0..2, in double.
 * ck_dop_overlap: 1 when the DOPs a and b, each grown by g/2, overlap:
 * a[i] + b[opp(i)] + g >= 0 for every i (opp(i) = i +- k/2); NaN gives 0.
 * The fast and _ref versions return identical results. */
void ck_dop_align(int k, const int32_t *restrict j, const double *restrict lam, const double *restrict c,
                  const float *restrict d, double *restrict out);
void ck_dop_align_ref(int k, const int32_t *j, const double *lam, const double *c, const float *d, double *out);
int ck_dop_overlap(int k, const double *restrict a, const double *restrict b, double g);
int ck_dop_overlap_ref(int k, const double *a, const double *b, double g);

#endif
