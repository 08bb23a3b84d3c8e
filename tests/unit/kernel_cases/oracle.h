/*
 * oracle.h — the exact ground truth of test_kernels: an int64 oracle for
 * the meeting of two convex hulls on integer data (a separating axis or a
 * containing simplex, each a certificate), and the signed separating-axis
 * distance in long double for the float cases; with the small helpers the
 * cases share.
 *
 * A part of test_kernels.c, included there once (static functions, one
 * translation unit: check.h's counters are shared by every case).
 */
/* ---- exact oracle (int64) -------------------------------------------------- */

typedef long long i64;

static void icross(i64 r[3], const i64 a[3], const i64 b[3])
{
    r[0] = a[1] * b[2] - a[2] * b[1];
    r[1] = a[2] * b[0] - a[0] * b[2];
    r[2] = a[0] * b[1] - a[1] * b[0];
}
static i64 idot(const i64 a[3], const i64 b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static void isub(i64 r[3], const i64 a[3], const i64 b[3])
{
    r[0] = a[0] - b[0], r[1] = a[1] - b[1], r[2] = a[2] - b[2];
}
static int izero(const i64 a[3]) { return a[0] == 0 && a[1] == 0 && a[2] == 0; }

/* strict separation of A and B along d */
static int isep(const i64 d[3], const i64 (*A)[3], int na, const i64 (*B)[3], int nb)
{
    if (izero(d)) return 0;
    i64 amin = idot(d, A[0]), amax = amin, bmin = idot(d, B[0]), bmax = bmin;
    for (int i = 1; i < na; ++i) {
        const i64 t = idot(d, A[i]);
        amin = t < amin ? t : amin, amax = t > amax ? t : amax;
    }
    for (int i = 1; i < nb; ++i) {
        const i64 t = idot(d, B[i]);
        bmin = t < bmin ? t : bmin, bmax = t > bmax ? t : bmax;
    }
    return amax < bmin || bmax < amin;
}

/* orientation of d against plane abc, exact */
static i64 iorient(const i64 a[3], const i64 b[3], const i64 c[3], const i64 d[3])
{
    i64 ab[3], ac[3], ad[3], n[3];
    isub(ab, b, a), isub(ac, c, a), isub(ad, d, a);
    icross(n, ab, ac);
    return idot(n, ad);
}

static int isgn(i64 x) { return (x > 0) - (x < 0); }

/* Carathéodory: is 0 in conv S?  Checks every affinely independent subset of
 * up to dim+1 points. */
static int icara(const i64 (*S)[3], int n, int dim)
{
    static const i64 O[3] = {0, 0, 0};
    for (int i = 0; i < n; ++i)
        if (izero(S[i])) return 1;
    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j) {
            i64 c[3], e[3];
            isub(e, S[j], S[i]);
            if (izero(e)) continue;
            icross(c, S[i], S[j]);
            if (izero(c) && idot(S[i], S[j]) <= 0) return 1;
        }
    if (dim < 2) return 0;
    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j)
            for (int k = j + 1; k < n; ++k) {
                i64 e1[3], e2[3], nn[3], t[3];
                isub(e1, S[j], S[i]), isub(e2, S[k], S[i]);
                icross(nn, e1, e2);
                if (izero(nn)) continue;
                if (iorient(O, S[i], S[j], S[k]) != 0) continue;
                icross(t, S[j], S[k]);
                if (idot(nn, t) < 0) continue;
                icross(t, S[k], S[i]);
                if (idot(nn, t) < 0) continue;
                icross(t, S[i], S[j]);
                if (idot(nn, t) < 0) continue;
                return 1;
            }
    if (dim < 3) return 0;
    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j)
            for (int k = j + 1; k < n; ++k)
                for (int l = k + 1; l < n; ++l) {
                    const int sv = isgn(iorient(S[i], S[j], S[k], S[l]));
                    if (!sv) continue;
                    const int s0 = isgn(iorient(O, S[j], S[k], S[l])), s1 = isgn(iorient(S[i], O, S[k], S[l]));
                    const int s2 = isgn(iorient(S[i], S[j], O, S[l])), s3 = isgn(iorient(S[i], S[j], S[k], O));
                    if (s0 != -sv && s1 != -sv && s2 != -sv && s3 != -sv) return 1;
                }
    return 0;
}

static long oracle_incomplete; /* cases where neither certificate was found */

/* exact: do conv(A) and conv(B) meet? */
static int exact_meet(const i64 (*A)[3], int na, const i64 (*B)[3], int nb)
{
    i64 S[64][3];
    int ns = 0;
    for (int i = 0; i < na; ++i)
        for (int j = 0; j < nb; ++j) isub(S[ns++], A[i], B[j]);
    /* affine dimension of S, exactly */
    int dim = 0;
    i64 u[3] = {0, 0, 0}, m[3] = {0, 0, 0};
    for (int i = 1; i < ns && dim == 0; ++i) {
        isub(u, S[i], S[0]);
        if (!izero(u)) dim = 1;
    }
    for (int i = 1; i < ns && dim == 1; ++i) {
        i64 e[3];
        isub(e, S[i], S[0]);
        icross(m, u, e);
        if (!izero(m)) dim = 2;
    }
    for (int i = 1; i < ns && dim == 2; ++i) {
        i64 e[3];
        isub(e, S[i], S[0]);
        if (idot(m, e) != 0) dim = 3;
    }
    /* the edges of both sets */
    i64 E[56][3];
    int ne = 0, nea;
    for (int i = 0; i < na; ++i)
        for (int j = i + 1; j < na; ++j) isub(E[ne++], A[j], A[i]);
    nea = ne;
    for (int i = 0; i < nb; ++i)
        for (int j = i + 1; j < nb; ++j) isub(E[ne++], B[j], B[i]);
    i64 d[3], t[3];
    if (dim == 3) {
        for (int i = 0; i < nea; ++i)
            for (int j = i + 1; j < nea; ++j) {
                icross(d, E[i], E[j]);
                if (isep(d, A, na, B, nb)) return 0;
            }
        for (int i = nea; i < ne; ++i)
            for (int j = i + 1; j < ne; ++j) {
                icross(d, E[i], E[j]);
                if (isep(d, A, na, B, nb)) return 0;
            }
        for (int i = 0; i < nea; ++i)
            for (int j = nea; j < ne; ++j) {
                icross(d, E[i], E[j]);
                if (isep(d, A, na, B, nb)) return 0;
            }
    } else if (dim == 2) {
        if (isep(m, A, na, B, nb)) return 0;
        for (int i = 0; i < ne; ++i) {
            icross(d, m, E[i]);
            if (isep(d, A, na, B, nb)) return 0;
        }
    } else if (dim == 1) {
        if (isep(u, A, na, B, nb)) return 0;
        icross(t, S[0], u);
        icross(d, u, t);
        if (isep(d, A, na, B, nb)) return 0;
    } else {
        if (isep(S[0], A, na, B, nb)) return 0;
    }
    if (icara((const i64(*)[3])S, ns, dim)) return 1;
    ++oracle_incomplete;
    return 0;
}

/* ---- signed separating-axis distance (long double), for float cases ---------
 * max over a complete axis set of (gap along d)/|d|: > 0 (a lower bound of the
 * distance) when apart, -(penetration depth) when the sets overlap.  Near 0
 * means near touching. */
typedef long double ld;

static void lcross(ld r[3], const ld a[3], const ld b[3])
{
    r[0] = a[1] * b[2] - a[2] * b[1];
    r[1] = a[2] * b[0] - a[0] * b[2];
    r[2] = a[0] * b[1] - a[1] * b[0];
}
static ld ldot(const ld a[3], const ld b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static void lgap(const ld d[3], const ld (*A)[3], int na, const ld (*B)[3], int nb, ld *best)
{
    const ld dd = ldot(d, d);
    if (!(dd > 0)) return;
    ld amin = ldot(d, A[0]), amax = amin, bmin = ldot(d, B[0]), bmax = bmin;
    for (int i = 1; i < na; ++i) {
        const ld t = ldot(d, A[i]);
        amin = t < amin ? t : amin, amax = t > amax ? t : amax;
    }
    for (int i = 1; i < nb; ++i) {
        const ld t = ldot(d, B[i]);
        bmin = t < bmin ? t : bmin, bmax = t > bmax ? t : bmax;
    }
    ld g = bmin - amax;
    if (amin - bmax > g) g = amin - bmax;
    g /= sqrtl(dd);
    if (g > *best) *best = g;
}

static double signed_sat(const double (*a)[3], int na, const double (*b)[3], int nb)
{
    ld A[8][3], B[8][3], E[56][3];
    for (int i = 0; i < na; ++i)
        for (int k = 0; k < 3; ++k) A[i][k] = a[i][k];
    for (int i = 0; i < nb; ++i)
        for (int k = 0; k < 3; ++k) B[i][k] = b[i][k];
    int ne = 0;
    for (int i = 0; i < na; ++i)
        for (int j = i + 1; j < na; ++j, ++ne)
            for (int k = 0; k < 3; ++k) E[ne][k] = A[j][k] - A[i][k];
    for (int i = 0; i < nb; ++i)
        for (int j = i + 1; j < nb; ++j, ++ne)
            for (int k = 0; k < 3; ++k) E[ne][k] = B[j][k] - B[i][k];
    ld best = -INFINITY, d[3], t[3], w[3];
    for (int i = 0; i < ne; ++i) {
        lgap(E[i], (const ld(*)[3])A, na, (const ld(*)[3])B, nb, &best);
        for (int j = i + 1; j < ne; ++j) {
            ld c[3];
            lcross(c, E[i], E[j]);
            lgap(c, (const ld(*)[3])A, na, (const ld(*)[3])B, nb, &best);
            for (int k = 0; k < ne; ++k) { /* in-plane normals, for flat D */
                lcross(d, c, E[k]);
                lgap(d, (const ld(*)[3])A, na, (const ld(*)[3])B, nb, &best);
            }
        }
    }
    for (int k = 0; k < 3; ++k) w[k] = A[0][k] - B[0][k];
    lgap(w, (const ld(*)[3])A, na, (const ld(*)[3])B, nb, &best);
    for (int i = 0; i < ne; ++i) {
        lcross(t, w, E[i]);
        lcross(d, E[i], t);
        lgap(d, (const ld(*)[3])A, na, (const ld(*)[3])B, nb, &best);
    }
    return (double)best;
}

static void box_corners(const double lo[3], const double hi[3], double c[8][3])
{
    for (int i = 0; i < 8; ++i) {
        c[i][0] = (i & 1) ? hi[0] : lo[0];
        c[i][1] = (i & 2) ? hi[1] : lo[1];
        c[i][2] = (i & 4) ? hi[2] : lo[2];
    }
}

static void to_i64(const double (*a)[3], int n, i64 (*out)[3])
{
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < 3; ++k) out[i][k] = (i64)a[i][k];
}
