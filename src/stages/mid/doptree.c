/*
 * doptree.c — stage S4 as Zachmann's DOP-tree (`--midphase doptree`,
 * [Zachmann00] §3.5.9), for rigid objects.
 *
 * DOPs.  A k-DOP is the intersection of k/2 slabs with fixed orientations
 * N_i; it is stored as k plane offsets d (kernels/dop.c).  The thesis found
 * k = 24 the best over k = 6..32 (Figs. 3.38–3.40), so k = 24 here.  Its
 * orientations came from a repulsion ("simulated annealing") of antipodal
 * point pairs on the sphere; ours are the 12 vertex directions of a
 * rhombicuboctahedron, (±1, ±1, ±(1+√2)) and permutations, whose smallest
 * angle (41.9°) is a little larger than what a run of that repulsion gave
 * us (41.6°).  They are listed most-perpendicular-first (footnote 11), so
 * that a miss shows early in the overlap test.
 *
 * Construction ("Building DOP-trees").  Top-down over the faces' DOPs and
 * barycentres: find two barycentres c_i, c_j almost farthest apart (the
 * thesis's O(n) heuristic: the farthest from an arbitrary one, then the
 * farthest from that), take the orientation l most parallel to c_j - c_i,
 * sort the faces along N_l, start F1 = {f_i}, F2 = {f_j}, and hand every
 * other face, alternately from the lower and the upper end, to the set whose
 * DOP grows less, by the thesis's best estimate: the growth of the two
 * offsets of slab l (the smaller set on a tie).  Leaves hold up to DOP_LEAF
 * faces.  A face's DOP is computed in double from the local vertices and
 * rounded outwards to float; a node's is the maximum of its faces'.
 *
 * Re-alignment ("Aligning DOPs", eq. 3.2).  Object B is queried against A in
 * A's frame (rigidtree.c: the view M, and Q, M' in swept mode).  A DOP D of
 * B, mapped by x -> V x + o, is enclosed by the aligned DOP whose offset i is
 * the support of D in the direction u_i = V^T N_i, plus N_i·o.  The thesis
 * writes u_i through the three orientations of B that meet at the vertex of
 * a "generic" DOP extremal in direction u_i: u_i = Σ λ_l N_{j_l}, so
 *     d'_i = Σ λ_l d_{j_l} + N_i·o,
 * three multiply-adds per offset (kernels/dop.c).  The generic DOP's
 * vertices are the facets of the convex hull of the 24 orientations; they
 * are found once per run by brute force, and for each view the facet whose
 * cone holds u_i gives j and λ >= 0 (the thesis's "second correspondence",
 * once per object pair and step).  Why this never under-estimates, even for
 * DOPs whose vertices differ from the generic one's: by LP duality the
 * support h_D(u) = min { Σ λ_j d_j : Σ λ_j N_j = u, λ >= 0 }, so any λ >= 0
 * that writes u gives an upper bound; the generic vertex makes it tight for
 * DOPs shaped like the generic one.  The rounding of λ leaves a residual
 * r_i = u_i - Σ λ_l N_{j_l} (~1e-16), added as |r_i| R, R bounding |x| over
 * B's root DOP (ρ d_max, ρ the generic DOP's largest vertex norm), with
 * rigidtree.c's margin on top.
 *
 * Traversal.  A pair of nodes whose DOPs overlap (A's as stored, B's
 * re-aligned; in swept mode the union of each side's views, i.e. the maximum
 * of the offsets; both grown by the margin) is refined: both inner, the four
 * pairs of children (each of B's children re-aligned once); one a leaf, the
 * children of the other; two leaves give their face pairs (rt_leaf_pairs).
 * With self-collision a tree is traversed against itself as in boxtree.c.
 * Two things keep the per-pair set-up cheap where S2 hands over many pairs
 * (the cluttered preset): a pair whose bounding spheres (around each side's
 * views) are apart is dropped before anything else, and a pair's
 * correspondences are found when its roots are first met, by the worker
 * that meets them; the search looks at the generic DOP's 26 distinct
 * vertices, not at every facet.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/mem.h"
#include "base/sort.h"
#include "kernels/kernels.h"
#include "stages/mid/midphase.h"
#include "stages/mid/rigidtree.h"

enum { DOP_K = 24, DOP_H = DOP_K / 2, DOP_LEAF = 4, MAX_FACETS = 256 };

typedef struct dop_node {
    float d[DOP_K];
    int32_t kid[2]; /* inner: the two children; leaf: -(first face in face[]) - 1, count */
} dop_node;

typedef struct dop_tree {
    dop_node *node;
    int32_t nnode, depth;
    size_t cap;
    uint32_t *face;  /* global face numbers in leaf order */
    double radius;   /* largest |local coordinate| */
    double sc[3], sr; /* a bounding sphere of the faces (the root's pre-test) */
} dop_tree;

/* The orientations and the generic DOP's vertices (facets of the hull of the N_i). */
typedef struct dop_set {
    double N[DOP_K][3];
    int nf;
    int32_t fj[MAX_FACETS][3];
    double finv[MAX_FACETS][9];  /* λ = finv u */
    /* the generic DOP {x : N_i·x <= 1}: its distinct vertices, each with the facets
     * (triples of orientations) that meet there, and its largest |vertex| */
    int nv;
    double gv[MAX_FACETS][3];
    int32_t vofs[MAX_FACETS + 1], vfac[MAX_FACETS];
    double rho;
} dop_set;

typedef struct dop_trees {
    dop_set set;
    dop_tree *t;
} dop_trees;

/* One view's correspondence: out_i = Σ lam d_j + c_i. */
typedef struct dop_corr {
    int32_t j[3 * DOP_K];
    double lam[3 * DOP_K], c[DOP_K];
} dop_corr;

static int inv3(const double m[9], double r[9])
{
    const double c0 = m[4] * m[8] - m[5] * m[7], c1 = m[5] * m[6] - m[3] * m[8], c2 = m[3] * m[7] - m[4] * m[6];
    const double det = m[0] * c0 + m[1] * c1 + m[2] * c2;
    if (fabs(det) < 1e-9) return -1;
    const double k = 1.0 / det;
    r[0] = c0 * k, r[1] = (m[2] * m[7] - m[1] * m[8]) * k, r[2] = (m[1] * m[5] - m[2] * m[4]) * k;
    r[3] = c1 * k, r[4] = (m[0] * m[8] - m[2] * m[6]) * k, r[5] = (m[2] * m[3] - m[0] * m[5]) * k;
    r[6] = c2 * k, r[7] = (m[1] * m[6] - m[0] * m[7]) * k, r[8] = (m[0] * m[4] - m[1] * m[3]) * k;
    return 0;
}

static double dist2(const double *a, const double *b)
{
    return (a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]);
}

static int make_set(dop_set *s)
{
    double fv[MAX_FACETS][3];
    const double a = 1 + sqrt(2.0), n = sqrt(2 + a * a);
    double dir[DOP_H][3];
    int m = 0;
    for (int big = 0; big < 3; ++big)
        for (int sg = 0; sg < 4; ++sg) {
            dir[m][big] = a / n;
            dir[m][(big + 1) % 3] = (sg & 1 ? -1 : 1) / n;
            dir[m][(big + 2) % 3] = (sg & 2 ? -1 : 1) / n;
            ++m;
        }
    int used[DOP_H] = {0};
    for (int k = 0; k < DOP_H; ++k) { /* most perpendicular to those listed so far */
        int best = -1;
        double bc = INFINITY;
        for (int i = 0; i < DOP_H; ++i) {
            if (used[i]) continue;
            double c = 0;
            for (int q = 0; q < k; ++q)
                c = rt_max(c, fabs(dir[i][0] * s->N[q][0] + dir[i][1] * s->N[q][1] + dir[i][2] * s->N[q][2]));
            if (c < bc - 1e-12) bc = c, best = i;
        }
        used[best] = 1;
        for (int d = 0; d < 3; ++d) s->N[k][d] = dir[best][d], s->N[k + DOP_H][d] = -dir[best][d];
    }
    s->nf = 0, s->rho = 0;
    for (int i = 0; i < DOP_K; ++i)
        for (int j = i + 1; j < DOP_K; ++j)
            for (int l = j + 1; l < DOP_K; ++l) {
                const double *p = s->N[i], *q = s->N[j], *r = s->N[l];
                const double e1[3] = {q[0] - p[0], q[1] - p[1], q[2] - p[2]}, e2[3] = {r[0] - p[0], r[1] - p[1], r[2] - p[2]};
                const double nn[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
                int pos = 0, neg = 0;
                for (int x = 0; x < DOP_K; ++x) {
                    const double t = (s->N[x][0] - p[0]) * nn[0] + (s->N[x][1] - p[1]) * nn[1] + (s->N[x][2] - p[2]) * nn[2];
                    pos += t > 1e-9, neg += t < -1e-9;
                }
                if (pos && neg) continue; /* not a hull facet */
                const double F[9] = {p[0], q[0], r[0], p[1], q[1], r[1], p[2], q[2], r[2]};
                if (s->nf == MAX_FACETS || inv3(F, s->finv[s->nf])) return -1;
                s->fj[s->nf][0] = i, s->fj[s->nf][1] = j, s->fj[s->nf][2] = l;
                /* the generic vertex: N_i·v = N_j·v = N_l·v = 1 */
                const double Ft[9] = {p[0], p[1], p[2], q[0], q[1], q[2], r[0], r[1], r[2]};
                double G[9];
                if (inv3(Ft, G)) return -1;
                const double v[3] = {G[0] + G[1] + G[2], G[3] + G[4] + G[5], G[6] + G[7] + G[8]};
                s->rho = rt_max(s->rho, sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]));
                for (int d = 0; d < 3; ++d) fv[s->nf][d] = v[d];
                s->nf++;
            }
    /* the distinct vertices (four planes meeting give one vertex and four facets) */
    s->nv = 0, s->vofs[0] = 0;
    int done[MAX_FACETS] = {0};
    for (int f = 0; f < s->nf; ++f) {
        if (done[f]) continue;
        for (int d = 0; d < 3; ++d) s->gv[s->nv][d] = fv[f][d];
        int32_t k = s->vofs[s->nv];
        for (int g = f; g < s->nf; ++g)
            if (!done[g] && dist2(fv[g], fv[f]) < 1e-18) done[g] = 1, s->vfac[k++] = g;
        s->vofs[++s->nv] = k;
    }
    return s->nf ? 0 : -1;
}

/* The correspondence of view v for B's tree (R: bound on |x| over B's DOPs). */
static void correspond(const dop_set *s, const rt_view *v, double R, dop_corr *c)
{
    for (int i = 0; i < DOP_K; ++i) {
        const double *Ni = s->N[i];
        double u[3];
        for (int d = 0; d < 3; ++d) u[d] = v->V[d] * Ni[0] + v->V[3 + d] * Ni[1] + v->V[6 + d] * Ni[2];
        /* the generic vertex extremal in direction u (the cone of its facets holds u);
         * where several facets meet there, the one with the largest min λ */
        int top = 0;
        double tv = -INFINITY;
        for (int q = 0; q < s->nv; ++q) {
            const double x = s->gv[q][0] * u[0] + s->gv[q][1] * u[1] + s->gv[q][2] * u[2];
            if (x > tv) tv = x, top = q;
        }
        int best = s->vfac[s->vofs[top]];
        double bmin = -INFINITY, bl[3] = {0, 0, 0};
        for (int32_t k = s->vofs[top]; k < s->vofs[top + 1]; ++k) {
            const int f = s->vfac[k];
            const double *F = s->finv[f];
            const double l0 = F[0] * u[0] + F[1] * u[1] + F[2] * u[2], l1 = F[3] * u[0] + F[4] * u[1] + F[5] * u[2],
                         l2 = F[6] * u[0] + F[7] * u[1] + F[8] * u[2];
            const double mn = rt_min(l0, rt_min(l1, l2));
            if (mn > bmin) bmin = mn, best = f, bl[0] = l0, bl[1] = l1, bl[2] = l2;
        }
        double r[3] = {u[0], u[1], u[2]};
        for (int l = 0; l < 3; ++l) {
            const double lam = rt_max(bl[l], 0.0);
            const int32_t j = s->fj[best][l];
            c->j[3 * i + l] = j, c->lam[3 * i + l] = lam;
            for (int d = 0; d < 3; ++d) r[d] -= lam * s->N[j][d];
        }
        c->c[i] = Ni[0] * v->o[0] + Ni[1] * v->o[1] + Ni[2] * v->o[2] + sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]) * R;
    }
}

/* ---- construction --------------------------------------------------------------------- */

/* x rounded up to a float (x finite, within float range). */
static float up(double x)
{
    union {
        float f;
        uint32_t u;
    } b = {.f = (float)x};
    if ((double)b.f < x) b.u = b.f > 0 ? b.u + 1 : b.f < 0 ? b.u - 1 : 1u; /* one float ulp up */
    return b.f;
}

static inline uint32_t float_key(float v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    return u & 0x80000000u ? ~u : u | 0x80000000u;
}

typedef struct task {
    int32_t node, b, e, depth;
} task;

typedef struct builder {
    const dop_set *s;
    dop_tree *t;
    float *fd;        /* face DOPs, DOP_K per local face */
    double *cen;      /* barycentres, 3 per local face */
    uint32_t *idx, *tmp;
    uint64_t *keys;
    task *stk;
    size_t nstk, capstk;
} builder;

static int32_t new_node(dop_tree *t)
{
    if (clash_grow((void **)&t->node, &t->cap, (size_t)t->nnode + 1, sizeof(dop_node))) return -1;
    return t->nnode++;
}

static int push_task(builder *B, task k)
{
    if (clash_grow((void **)&B->stk, &B->capstk, B->nstk + 1, sizeof(task))) return -1;
    B->stk[B->nstk++] = k;
    return 0;
}

static int build_node(builder *B, task k)
{
    dop_tree *t = B->t;
    dop_node *nd = &t->node[k.node];
    if (k.depth > t->depth) t->depth = k.depth;
    const int32_t n = k.e - k.b;
    if (n <= DOP_LEAF) {
        nd->kid[0] = -k.b - 1, nd->kid[1] = n;
        return 0;
    }
    uint32_t *x = B->idx + k.b;
    /* two barycentres almost farthest apart, and the orientation most parallel to them */
    int32_t fi = 0, fj = 0;
    double best = -1;
    for (int32_t q = 0; q < n; ++q) {
        const double dd = dist2(B->cen + 3 * (size_t)x[q], B->cen + 3 * (size_t)x[0]);
        if (dd > best) best = dd, fi = q;
    }
    best = -1;
    for (int32_t q = 0; q < n; ++q) {
        const double dd = dist2(B->cen + 3 * (size_t)x[q], B->cen + 3 * (size_t)x[fi]);
        if (dd > best) best = dd, fj = q;
    }
    const double *ci = B->cen + 3 * (size_t)x[fi], *cj = B->cen + 3 * (size_t)x[fj];
    const double dir[3] = {cj[0] - ci[0], cj[1] - ci[1], cj[2] - ci[2]};
    int l = 0;
    double bp = -1;
    for (int i = 0; i < DOP_H; ++i) {
        const double p = fabs(dir[0] * B->s->N[i][0] + dir[1] * B->s->N[i][1] + dir[2] * B->s->N[i][2]);
        if (p > bp) bp = p, l = i;
    }
    const uint32_t gi = x[fi], gj = x[fj];
    /* sort along N_l */
    for (int32_t q = 0; q < n; ++q) {
        const double *c = B->cen + 3 * (size_t)x[q];
        const float p = (float)(c[0] * B->s->N[l][0] + c[1] * B->s->N[l][1] + c[2] * B->s->N[l][2]);
        B->keys[q] = (uint64_t)float_key(p) << 32 | x[q];
    }
    if (clash_sort_u64(B->keys, (size_t)n, B->keys + n)) return -1;
    int32_t n1 = 0, n2 = 0;
    if (bp > 0) { /* F1 = {f_i}, F2 = {f_j}; the rest alternately from both ends, to the DOP that grows less on slab l */
        float hi1 = B->fd[(size_t)gi * DOP_K + l], lo1 = B->fd[(size_t)gi * DOP_K + l + DOP_H];
        float hi2 = B->fd[(size_t)gj * DOP_K + l], lo2 = B->fd[(size_t)gj * DOP_K + l + DOP_H];
        x[n1++] = gi, B->tmp[n2++] = gj;
        int32_t lo = 0, hi = n - 1;
        for (int32_t q = 0; q < n; ++q) {
            const uint32_t f = (uint32_t)(q & 1 ? B->keys[hi--] : B->keys[lo++]);
            if (f == gi || f == gj) continue;
            const float a = B->fd[(size_t)f * DOP_K + l], b = B->fd[(size_t)f * DOP_K + l + DOP_H];
            const float g1 = rt_maxf(a - hi1, 0) + rt_maxf(b - lo1, 0), g2 = rt_maxf(a - hi2, 0) + rt_maxf(b - lo2, 0);
            if (g1 < g2 || (g1 == g2 && n1 <= n2)) x[n1++] = f, hi1 = rt_maxf(hi1, a), lo1 = rt_maxf(lo1, b);
            else B->tmp[n2++] = f, hi2 = rt_maxf(hi2, a), lo2 = rt_maxf(lo2, b);
        }
    } else { /* all barycentres alike: halves of the order */
        for (int32_t q = 0; q < n; ++q)
            if (q < n / 2) x[n1++] = (uint32_t)B->keys[q];
            else B->tmp[n2++] = (uint32_t)B->keys[q];
    }
    memcpy(x + n1, B->tmp, (size_t)n2 * sizeof(uint32_t));
    const int32_t c0 = new_node(t), c1 = c0 < 0 ? -1 : new_node(t);
    if (c1 < 0) return -1;
    nd = &t->node[k.node];
    nd->kid[0] = c0, nd->kid[1] = c1;
    const task a = {c0, k.b, k.b + n1, k.depth + 1}, b = {c1, k.b + n1, k.e, k.depth + 1};
    return push_task(B, a) || push_task(B, b) ? -1 : 0;
}

static int build_tree(const clash_scene *sc, const dop_set *s, int o, dop_tree *t)
{
    memset(t, 0, sizeof *t);
    const int64_t f0 = sc->fofs[o];
    const int32_t n = (int32_t)(sc->fofs[o + 1] - f0);
    if (n <= 0) return 0;
    builder B = {.s = s, .t = t};
    B.fd = malloc(sizeof(float) * DOP_K * (size_t)n);
    B.cen = malloc(sizeof(double) * 3 * (size_t)n);
    B.idx = malloc(sizeof(uint32_t) * 2 * (size_t)n);
    B.keys = malloc(sizeof(uint64_t) * 2 * (size_t)n);
    t->face = malloc(sizeof(uint32_t) * (size_t)n);
    int rc = -1;
    if (!B.fd || !B.cen || !B.idx || !B.keys || !t->face) goto done;
    B.tmp = B.idx + n;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int32_t q = 0; q < n; ++q) {
        const int32_t v[3] = {sc->f0[f0 + q], sc->f1[f0 + q], sc->f2[f0 + q]};
        double P[3][3];
        for (int k = 0; k < 3; ++k) P[k][0] = sc->dlx[v[k]], P[k][1] = sc->dly[v[k]], P[k][2] = sc->dlz[v[k]];
        for (int d = 0; d < 3; ++d) B.cen[3 * (size_t)q + d] = (P[0][d] + P[1][d] + P[2][d]) / 3;
        for (int i = 0; i < DOP_K; ++i) {
            double m = -INFINITY;
            for (int k = 0; k < 3; ++k) m = rt_max(m, s->N[i][0] * P[k][0] + s->N[i][1] * P[k][1] + s->N[i][2] * P[k][2]);
            B.fd[(size_t)q * DOP_K + i] = up(m);
        }
        for (int k = 0; k < 3; ++k)
            for (int d = 0; d < 3; ++d) {
                t->radius = rt_max(t->radius, fabs(P[k][d]));
                lo[d] = rt_min(lo[d], P[k][d]), hi[d] = rt_max(hi[d], P[k][d]);
            }
        B.idx[q] = (uint32_t)q;
    }
    for (int d = 0; d < 3; ++d) t->sc[d] = 0.5 * (lo[d] + hi[d]);
    for (int32_t q = 0; q < n; ++q) {
        const int32_t v[3] = {sc->f0[f0 + q], sc->f1[f0 + q], sc->f2[f0 + q]};
        for (int k = 0; k < 3; ++k) {
            const double P[3] = {sc->dlx[v[k]], sc->dly[v[k]], sc->dlz[v[k]]};
            t->sr = rt_max(t->sr, dist2(P, t->sc));
        }
    }
    t->sr = sqrt(t->sr) * (1 + 1e-12);
    if (new_node(t) < 0 || push_task(&B, (task){0, 0, n, 0})) goto done;
    while (B.nstk)
        if (build_node(&B, B.stk[--B.nstk])) goto done;
    /* the DOPs bottom-up (children come after their father): a leaf's is the
     * maximum of its faces', an inner node's the maximum of its children's */
    for (int32_t i = t->nnode - 1; i >= 0; --i) {
        dop_node *nd = &t->node[i];
        float acc[DOP_K];
        if (nd->kid[0] < 0) {
            for (int q = 0; q < DOP_K; ++q) acc[q] = -INFINITY;
            for (int32_t q = -nd->kid[0] - 1, e = q + nd->kid[1]; q < e; ++q) {
                const float *f = B.fd + (size_t)B.idx[q] * DOP_K;
                for (int j = 0; j < DOP_K; ++j) acc[j] = rt_maxf(acc[j], f[j]);
            }
        } else {
            const float *l = t->node[nd->kid[0]].d, *r = t->node[nd->kid[1]].d;
            for (int j = 0; j < DOP_K; ++j) acc[j] = rt_maxf(l[j], r[j]);
        }
        memcpy(nd->d, acc, sizeof acc);
    }
    for (int32_t q = 0; q < n; ++q) t->face[q] = (uint32_t)(f0 + B.idx[q]);
    if ((size_t)t->nnode < t->cap) { /* the nodes in use only */
        void *v = realloc(t->node, (size_t)t->nnode * sizeof(dop_node));
        if (v) t->node = v, t->cap = (size_t)t->nnode;
    }
    rc = 0;
done:
    free(B.fd), free(B.cen), free(B.idx), free(B.keys), free(B.stk);
    return rc;
}

static void destroy_trees(void *p, int nobj)
{
    dop_trees *T = p;
    if (!T) return;
    if (T->t)
        for (int o = 0; o < nobj; ++o) free(T->t[o].node), free(T->t[o].face);
    free(T->t), free(T);
}

static int build_one(void *p, int64_t o)
{
    const clash_run *run = p;
    dop_trees *T = run->mid->rtrees->trees;
    return build_tree(run->sc, &T->set, (int)o, &T->t[o]);
}

/* ---- traversal -------------------------------------------------------------------------- */

typedef struct dop_item {
    int32_t pair, na, nb, self;
} dop_item;

typedef struct dop_ctx {
    clash_run *run;
    const dop_set *set;
    const dop_tree *t;
    const rt_pair *p;
    dop_corr *corr; /* per pair: B's views M (and M'), then A's Q; written by the pair's root step */
} dop_ctx;

/* The correspondences of unit p, when its roots are first met (the root item is
 * processed once, and every other item of the unit comes after it). */
static void pair_corr(const dop_ctx *c, const rt_pair *p)
{
    dop_corr *k = c->corr + 3 * (size_t)(p - c->p);
    const dop_tree *ta = &c->t[p->a], *tb = &c->t[p->b];
    double da = 0, db = 0; /* R = ρ d_max of each root DOP */
    for (int i = 0; i < DOP_K; ++i) da = rt_max(da, ta->node[0].d[i]), db = rt_max(db, tb->node[0].d[i]);
    for (int v = 0; v < p->nvb; ++v) correspond(c->set, &p->vb[v], c->set->rho * db, &k[v]);
    if (p->nva > 1) correspond(c->set, &p->va[1], c->set->rho * da, &k[2]);
}

/* The bounding spheres of the two sides (over each side's views) are apart:
 * the unit needs no traversal. */
static int spheres_apart(const dop_tree *ta, const dop_tree *tb, const rt_pair *p)
{
    double c[2][3], r[2];
    for (int side = 0; side < 2; ++side) {
        const dop_tree *t = side ? tb : ta;
        const rt_view *vw = side ? p->vb : p->va;
        const int nv = side ? p->nvb : p->nva;
        double x[2][3], sig = 0;
        for (int v = 0; v < nv; ++v) {
            const double *V = vw[v].V;
            for (int d = 0; d < 3; ++d)
                x[v][d] = V[3 * d] * t->sc[0] + V[3 * d + 1] * t->sc[1] + V[3 * d + 2] * t->sc[2] + vw[v].o[d];
            for (int col = 0; col < 3; ++col) /* the view's scale: its largest column norm */
                sig = rt_max(sig, sqrt(V[col] * V[col] + V[3 + col] * V[3 + col] + V[6 + col] * V[6 + col]));
        }
        r[side] = t->sr * sig * (1 + 1e-12);
        for (int d = 0; d < 3; ++d) c[side][d] = x[0][d];
        if (nv > 1) { /* the sphere around both views' spheres */
            for (int d = 0; d < 3; ++d) c[side][d] = 0.5 * (x[0][d] + x[1][d]);
            r[side] += 0.5 * sqrt(dist2(x[0], x[1])) * (1 + 1e-12);
        }
    }
    const double reach = r[0] + r[1] + 2 * p->grow;
    return dist2(c[0], c[1]) > reach * reach * (1 + 1e-12);
}

/* Node `node` of a side as a DOP in A's frame: the union of its views. */
static void side_dop(const dop_ctx *c, const rt_pair *p, int bside, const dop_node *nd, double out[DOP_K])
{
    const dop_corr *k = c->corr + 3 * (size_t)(p - c->p);
    double tmp[DOP_K];
    if (!bside) {
        for (int i = 0; i < DOP_K; ++i) out[i] = nd->d[i];
        if (p->nva < 2) return;
        ck_dop_align(DOP_K, k[2].j, k[2].lam, k[2].c, nd->d, tmp);
    } else {
        ck_dop_align(DOP_K, k[0].j, k[0].lam, k[0].c, nd->d, out);
        if (p->nvb < 2) return;
        ck_dop_align(DOP_K, k[1].j, k[1].lam, k[1].c, nd->d, tmp);
    }
    for (int i = 0; i < DOP_K; ++i) out[i] = rt_max(out[i], tmp[i]);
}

static int offer(const dop_tree *t, int32_t node, int32_t id[2])
{
    const dop_node *nd = &t->node[node];
    if (nd->kid[0] < 0) return id[0] = node, 1;
    id[0] = nd->kid[0], id[1] = nd->kid[1];
    return 2;
}

static int dop_step(const void *cp, const void *ip, rt_stack *st, clash_keybuf *kb)
{
    const dop_ctx *c = cp;
    const dop_item *it = ip;
    const rt_pair *p = &c->p[it->pair];
    const dop_tree *ta = &c->t[p->a], *tb = &c->t[p->b];
    const dop_node *A = &ta->node[it->na], *B = &tb->node[it->nb];
    if (it->na == 0 && it->nb == 0) pair_corr(c, p);
    if (A->kid[0] < 0 && B->kid[0] < 0) {
        const uint32_t *fa = ta->face + (-A->kid[0] - 1), *fb = it->self ? fa : tb->face + (-B->kid[0] - 1);
        return rt_leaf_pairs(c->run, kb, fa, A->kid[1], fb, B->kid[1]);
    }
    int32_t ia[2], ib[2];
    const int na = offer(ta, it->na, ia), nb = it->self ? 0 : offer(tb, it->nb, ib);
    dop_item ch = {it->pair, 0, 0, 0};
    if (it->self) { /* a node against itself: each child against itself, then the two children */
        for (int i = 0; i < na; ++i) {
            ch.na = ch.nb = ia[i], ch.self = 1;
            if (rt_push(st, &ch)) return -1;
        }
        double a[DOP_K], b[DOP_K];
        side_dop(c, p, 0, &ta->node[ia[0]], a);
        side_dop(c, p, 1, &ta->node[ia[1]], b);
        if (!ck_dop_overlap(DOP_K, a, b, 2 * p->grow)) return 0;
        ch.na = ia[0], ch.nb = ia[1], ch.self = 0;
        return rt_push(st, &ch);
    }
    double a[2][DOP_K], b[2][DOP_K];
    for (int i = 0; i < na; ++i) side_dop(c, p, 0, &ta->node[ia[i]], a[i]);
    for (int j = 0; j < nb; ++j) side_dop(c, p, 1, &tb->node[ib[j]], b[j]);
    for (int i = 0; i < na; ++i)
        for (int j = 0; j < nb; ++j) {
            if (!ck_dop_overlap(DOP_K, a[i], b[j], 2 * p->grow)) continue;
            ch.na = ia[i], ch.nb = ib[j];
            if (rt_push(st, &ch)) return -1;
        }
    return 0;
}

/* ---- the midphase ------------------------------------------------------------------------- */

static int build_all(clash_run *run, clash_error *err)
{
    const clash_scene *sc = run->sc;
    const double t0 = rt_now();
    clash_rtrees *r = calloc(1, sizeof *r);
    dop_trees *T = calloc(1, sizeof *T);
    if (T) T->t = calloc((size_t)(sc->nobj ? sc->nobj : 1), sizeof(dop_tree));
    if (!r || !T || !T->t) {
        free(r), destroy_trees(T, 0);
        return clash_fail(err, CLASH_EFAIL, "out of memory building the DOP-trees");
    }
    r->midphase = CLASH_MID_DOPTREE, r->trees = T, r->destroy = destroy_trees;
    run->mid->rtrees = r;
    if (make_set(&T->set)) return clash_fail(err, CLASH_EFAIL, "DOP-tree: the orientation set is degenerate");
    if (clash_par_each(&run->exec, sc->nobj, build_one, run)) return clash_fail(err, CLASH_EFAIL, "out of memory building the DOP-trees");
    size_t bytes = sizeof *r + sizeof *T + (size_t)sc->nobj * sizeof(dop_tree);
    for (int o = 0; o < sc->nobj; ++o)
        bytes += (size_t)T->t[o].nnode * sizeof(dop_node) + (size_t)(sc->fofs[o + 1] - sc->fofs[o]) * sizeof(uint32_t);
    run->mid->bytes = bytes;
    run->mid->build_s = rt_now() - t0;
    return CLASH_OK;
}

int clash_doptree_candidates(clash_run *run, clash_error *err)
{
    const clash_scene *sc = run->sc;
    int rc;
    run->mid->cand.n = 0;
    run->mid->build_s = 0;
    if (!run->mid->rtrees && (rc = build_all(run, err))) return rc;
    const dop_trees *T = run->mid->rtrees->trees;
    const dop_tree *t = T->t;
    double *radius = malloc(sizeof(double) * (size_t)(sc->nobj ? sc->nobj : 1));
    if (!radius) return clash_fail(err, CLASH_EFAIL, "out of memory in the doptree midphase");
    for (int o = 0; o < sc->nobj; ++o) radius[o] = t[o].radius;
    size_t np;
    rt_pair *p = rt_pairs(run, radius, 1e-12, &np);
    free(radius);
    dop_corr *corr = p ? malloc(3 * (np ? np : 1) * sizeof *corr) : NULL;
    rt_stack units = {.isz = sizeof(dop_item)};
    rc = CLASH_OK;
    if (!corr) rc = clash_fail(err, CLASH_EFAIL, "out of memory in the doptree midphase");
    for (size_t i = 0; i < np && rc == CLASH_OK; ++i) {
        const dop_tree *ta = &t[p[i].a], *tb = &t[p[i].b];
        if (!ta->nnode || !tb->nnode || (p[i].a != p[i].b && spheres_apart(ta, tb, &p[i]))) continue;
        const dop_item it = {(int32_t)i, 0, 0, p[i].a == p[i].b};
        if (rt_push(&units, &it)) rc = clash_fail(err, CLASH_EFAIL, "out of memory in the doptree midphase");
    }
    if (rc == CLASH_OK) {
        const dop_ctx c = {run, &T->set, t, p, corr};
        rc = rt_traverse(run, &units, dop_step, NULL, &c, "doptree", err);
    }
    free(units.v), free(p), free(corr);
    return rc;
}
