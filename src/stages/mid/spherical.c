/*
 * spherical.c — stage S4 as object-centred spherical octrees
 * (`--midphase spherical`), after Tzafestas & Coiffet ([TC96] §2–3).
 *
 * The representation ([TC96] §2.1, §3.1).  "A 'minimal' cube C0 surrounding
 * the object is first defined and is recursively decomposed into 8
 * subcubes"; every node T_i corresponds to "a spherical region S_i
 * surrounding part of the object's surface ... by inscribing each cube C_i
 * of the original object-centered octree into a sphere S_i".  (The nodes are
 * spheres around the cubes of an object-centred octree, not cells in
 * radius and angles.)  A node whose sphere meets no face (type NONE) is
 * dropped and "will not be visited".  The octree is non-homogeneous (§3.2,
 * phase 1-1): a node is divided only while its sphere meets more than
 * LEAF_FACES faces, down to a maximum level (--octree-level, else a leaf
 * cube about twice as wide as a mean face box).  It is built once, off-line, in
 * the object's local frame (the store's local coordinates) and "moves
 * along with the object": a step only transforms the node centres by the
 * object's pose ("simple coordinate transformations"), for the objects in
 * one of S2's pairs.  The leaves keep the link to the polyhedron (§3.1, the
 * node's f-list; our narrow test is face against face, so the paper's v-
 * and e-lists fold into it): each face linked to one leaf, its home, whose
 * sphere is enlarged to enclose its home faces whole, and every node's
 * sphere to enclose its children's (localtree.c says why).
 *
 * Localisation of colliding features ([TC96] §2.2, procedure interoct()).
 * "The father-node of the first tree is tested for intersection with the
 * nodes of the second one, starting from the father-node and descending to
 * the children only when interaction is found.  Then, in a similar way,
 * each of the second object's leaf nodes that are found to intersect with
 * the father node of the first one, is tested for intersection with all the
 * nodes of the first tree."  Two nodes interact when their spheres meet
 * (centre distance against the sum of radii); here every node must also
 * meet the pair's overlap region of S2.  The intersecting leaf pairs are
 * the Oct-Contacts list; the face pairs between their home faces that are
 * eligible and whose S1 face boxes overlap grown by delta (the oracle's
 * predicate) are the candidates (the paper's Checks), tested by S5.
 *
 * Why no contact is missed.  Static mode: a contact point lies on a face of
 * each object, so in the spheres of both faces' homes and of all their
 * ancestors: the descent reaches the pair.  Swept mode (the narrow test
 * intersects the hulls of each face's positions at s-1 and s): a node
 * moving from s-1 to s sweeps a capsule, the hull of its two spheres, which
 * holds the hulls of its home faces; two nodes interact when their capsules
 * meet (first the spheres around the capsules, then the distance of the
 * centres' paths against the radii).  Every radius is grown by S1's delta,
 * which covers the float rounding of S0's positions (stages/boxes.c), so
 * the pair sets equal the oracle's exactly.  Self-collision: every leaf of
 * an object is sent down its own tree.
 *
 * Work: the centre updates run in parallel over the objects, the first
 * phase over the object pairs; the second phase and the self tests in
 * units of up to LEAF_UNIT leaves, so one big pair spreads over the team.
 * Each worker appends candidates to its own buffer; the buffers are merged,
 * sorted and de-duplicated (clash_mid_gather).  Deforming scenes never come
 * here (the pipeline runs the face octree).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/mem.h"
#include "stages/mid/localtree.h"
#include "stages/mid/midphase.h"

enum { LEAF_FACES = 8, LEAF_UNIT = 64 };

typedef struct sp_tree {
    int32_t nnode, nleaf;
    float *c;          /* 3 per node: centre of its cube, local */
    float *r;          /* per node: radius enclosing its home faces (leaf) or its children's spheres */
    int32_t *child;    /* per node: first child (the children are contiguous), or -1 - leaf */
    uint8_t *nch;      /* per node: children */
    int32_t *hcnt;     /* per node: home faces below it */
    int32_t *hofs;     /* per leaf: its home faces hface[hofs[l], hofs[l+1]) (the f-list) */
    uint32_t *hface;
    int32_t *lnode;    /* per leaf: its node */
    double scale;      /* |pose scale| */
    int depth;         /* the deepest leaf's level */
    float *w;          /* this step, 8 per node: its world volume (move_range) */
    size_t capnode, caplnode;
} sp_tree;

struct clash_sphoct {
    sp_tree *t;
    size_t bytes;
    int depth;         /* the deepest leaf of all trees (reported as the step's octree level) */
};

/* Room for n nodes in the five node arrays (one capacity for all). */
static int reserve_nodes(sp_tree *t, size_t n)
{
    if (n <= t->capnode) return 0;
    size_t c = t->capnode ? t->capnode : 64;
    while (c < n) c *= 2;
    float *x = realloc(t->c, 3 * c * sizeof(float));
    if (x) t->c = x;
    float *r = x ? realloc(t->r, c * sizeof(float)) : NULL;
    if (r) t->r = r;
    int32_t *ch = r ? realloc(t->child, c * sizeof(int32_t)) : NULL;
    if (ch) t->child = ch;
    int32_t *hc = ch ? realloc(t->hcnt, c * sizeof(int32_t)) : NULL;
    if (hc) t->hcnt = hc;
    uint8_t *nc = hc ? realloc(t->nch, c) : NULL;
    if (!nc) return -1;
    t->nch = nc, t->capnode = c;
    return 0;
}

/* Squared distance from p to the closed triangle (a, b, c) (Ericson 2005, §5.1.5). */
static double tri_dist2(const double p[3], const double a[3], const double b[3], const double c[3])
{
    double ab[3], ac[3], ap[3], q[3];
    for (int d = 0; d < 3; ++d) ab[d] = b[d] - a[d], ac[d] = c[d] - a[d], ap[d] = p[d] - a[d];
#define DOT(u, v) ((u)[0] * (v)[0] + (u)[1] * (v)[1] + (u)[2] * (v)[2])
    const double d1 = DOT(ab, ap), d2 = DOT(ac, ap);
    if (d1 <= 0 && d2 <= 0) {
        memcpy(q, a, sizeof q);
    } else {
        double bp[3], cp[3];
        for (int d = 0; d < 3; ++d) bp[d] = p[d] - b[d], cp[d] = p[d] - c[d];
        const double d3 = DOT(ab, bp), d4 = DOT(ac, bp), d5 = DOT(ab, cp), d6 = DOT(ac, cp);
        const double vc = d1 * d4 - d3 * d2, vb = d5 * d2 - d1 * d6, va = d3 * d6 - d5 * d4;
        if (d3 >= 0 && d4 <= d3) {
            memcpy(q, b, sizeof q);
        } else if (d6 >= 0 && d5 <= d6) {
            memcpy(q, c, sizeof q);
        } else if (vc <= 0 && d1 >= 0 && d3 <= 0) {
            const double v = d1 / (d1 - d3);
            for (int d = 0; d < 3; ++d) q[d] = a[d] + v * ab[d];
        } else if (vb <= 0 && d2 >= 0 && d6 <= 0) {
            const double w = d2 / (d2 - d6);
            for (int d = 0; d < 3; ++d) q[d] = a[d] + w * ac[d];
        } else if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) {
            const double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
            for (int d = 0; d < 3; ++d) q[d] = b[d] + w * (c[d] - b[d]);
        } else {
            const double den = 1 / (va + vb + vc), v = vb * den, w = vc * den;
            for (int d = 0; d < 3; ++d) q[d] = a[d] + ab[d] * v + ac[d] * w;
        }
    }
    for (int d = 0; d < 3; ++d) q[d] -= p[d];
    return DOT(q, q);
}

/* Squared distance between segments p0-p1 and q0-q1 (Ericson 2005, §5.1.9). */
static double seg_dist2(const double p0[3], const double p1[3], const double q0[3], const double q1[3])
{
    double d1[3], d2[3], r[3];
    for (int d = 0; d < 3; ++d) d1[d] = p1[d] - p0[d], d2[d] = q1[d] - q0[d], r[d] = p0[d] - q0[d];
    const double a = DOT(d1, d1), e = DOT(d2, d2), f = DOT(d2, r);
    double s = 0, t = 0;
    if (a <= 1e-300 && e <= 1e-300) {
        s = t = 0;
    } else if (a <= 1e-300) {
        t = lt_min(lt_max(f / e, 0), 1);
    } else {
        const double c = DOT(d1, r);
        if (e <= 1e-300) {
            s = lt_min(lt_max(-c / a, 0), 1);
        } else {
            const double b = DOT(d1, d2), den = a * e - b * b;
            s = den > 0 ? lt_min(lt_max((b * f - c * e) / den, 0), 1) : 0;
            t = (b * s + f) / e;
            if (t < 0) t = 0, s = lt_min(lt_max(-c / a, 0), 1);
            else if (t > 1) t = 1, s = lt_min(lt_max((b - c) / a, 0), 1);
        }
    }
    double x[3];
    for (int d = 0; d < 3; ++d) x[d] = (p0[d] + d1[d] * s) - (q0[d] + d2[d] * t);
    return DOT(x, x);
}
#undef DOT

/* ---- the build (create-oct): one tree per object, local frame -------------------------- */

typedef struct bctx {
    const clash_scene *sc;
    sp_tree *t;
    int L;
    uint32_t *pool;     /* face lists of the open nodes, a stack */
    size_t npool, cappool;
    int32_t *fofs;      /* per leaf: the faces its sphere meets, face[fofs[l], fofs[l+1]) */
    uint32_t *face;
    double *cube;       /* per leaf: its cube, centre and half edge */
    double *fv;         /* per face (from f0): its vertices and box, 15 doubles */
    int64_t f0;
    size_t capfofs, capface, capcube;
    int failed;
} bctx;

/* The sphere of a cube (centre cx, half edge h), as stored: the centre
 * rounded to float and a radius that covers the cube from there. */
static void cube_sphere(const double cx[3], double h, float c[3], double *r)
{
    double e = 0;
    for (int d = 0; d < 3; ++d) c[d] = (float)cx[d], e += (c[d] - cx[d]) * (c[d] - cx[d]);
    *r = (sqrt(3.0) * h + sqrt(e)) * (1 + 1e-9);
}

/* Does face f meet the sphere (p, r)?  Its box first, then the distance.
 * Leaning to yes by a relative 1e-9: a face that touches a cube always
 * meets the cube's sphere.  fv: the face's vertices (9) and box (6). */
static int face_meets_sphere(const double *fv, const double p[3], double r)
{
    double e = 0;
    for (int d = 0; d < 3; ++d) {
        const double x = p[d] < fv[9 + d] ? fv[9 + d] - p[d] : p[d] > fv[12 + d] ? p[d] - fv[12 + d] : 0;
        e += x * x;
    }
    const double r2 = r * r * (1 + 1e-9);
    return e <= r2 && tri_dist2(p, fv, fv + 3, fv + 6) <= r2;
}

/* Cell (centre cx, half edge h) at `depth` holding the faces pool[ofs,
 * ofs+n) whose sphere meets it: node `node` becomes a leaf (the level
 * limit, or few faces), or is divided into the octants whose spheres (the
 * cube's circumscribed sphere, [TC96] §2.1) meet one of its faces; the
 * children are stored contiguously. */
static void build_node(bctx *b, int32_t node, const double cx[3], double h, int depth, size_t ofs, size_t n)
{
    sp_tree *t = b->t;
    if (depth >= b->L || n <= LEAF_FACES) {
        size_t capc = b->capcube / 4;
        if (clash_grow((void **)&b->fofs, &b->capfofs, (size_t)t->nleaf + 2, sizeof(int32_t)) ||
            clash_grow((void **)&t->lnode, &t->caplnode, (size_t)t->nleaf + 1, sizeof(int32_t)) ||
            clash_grow((void **)&b->cube, &capc, (size_t)t->nleaf + 1, 4 * sizeof(double)) ||
            clash_grow((void **)&b->face, &b->capface, (size_t)(t->nleaf ? b->fofs[t->nleaf] : 0) + n, sizeof(uint32_t))) {
            b->failed = 1;
            return;
        }
        b->capcube = 4 * capc;
        if (t->nleaf == 0) b->fofs[0] = 0;
        int32_t k = b->fofs[t->nleaf];
        for (size_t i = 0; i < n; ++i) b->face[k++] = b->pool[ofs + i];
        double *cb = b->cube + 4 * t->nleaf;
        cb[0] = cx[0], cb[1] = cx[1], cb[2] = cx[2], cb[3] = h;
        t->lnode[t->nleaf] = node;
        if (depth > t->depth) t->depth = depth;
        t->child[node] = -1 - t->nleaf;
        b->fofs[++t->nleaf] = k;
        return;
    }
    size_t top[9]; /* the octants' face lists, stacked on the pool */
    double ccx[8][3];
    float cc[8][3];
    int m = 0;
    for (int o = 0; o < 8; ++o) {
        double cr;
        for (int d = 0; d < 3; ++d) ccx[o][d] = cx[d] + ((o >> d & 1) ? 0.5 : -0.5) * h;
        cube_sphere(ccx[o], h / 2, cc[o], &cr);
        top[o] = b->npool;
        if (clash_grow((void **)&b->pool, &b->cappool, b->npool + n, sizeof(uint32_t))) {
            b->failed = 1;
            return;
        }
        const double p[3] = {cc[o][0], cc[o][1], cc[o][2]};
        for (size_t i = 0; i < n; ++i) {
            const uint32_t f = b->pool[ofs + i];
            if (face_meets_sphere(b->fv + 15 * (f - b->f0), p, cr)) b->pool[b->npool++] = f;
        }
        m += b->npool > top[o];
    }
    top[8] = b->npool;
    const int32_t first = t->nnode;
    if (reserve_nodes(t, (size_t)(t->nnode + m))) {
        b->failed = 1;
        return;
    }
    t->nnode += m;
    t->child[node] = first, t->nch[node] = (uint8_t)m;
    for (int o = 0, k = first; o < 8; ++o)
        if (top[o + 1] > top[o]) memcpy(t->c + 3 * k, cc[o], sizeof cc[o]), t->nch[k++] = 0;
    for (int o = 0, k = first; o < 8 && !b->failed; ++o)
        if (top[o + 1] > top[o]) build_node(b, k++, ccx[o], h / 2, depth + 1, top[o], top[o + 1] - top[o]);
    b->npool = top[0];
}

/* The radii: a leaf's encloses its home faces whole, a node's its
 * children's spheres (children come after their parent); hcnt counts the
 * home faces below each node, so empty subtrees are never visited. */
static void radii(const clash_scene *sc, sp_tree *t)
{
    for (int32_t n = t->nnode - 1; n >= 0; --n) {
        const double c[3] = {t->c[3 * n], t->c[3 * n + 1], t->c[3 * n + 2]};
        double r = 0;
        int32_t cnt = 0;
        if (t->child[n] < 0) {
            const int32_t l = -1 - t->child[n];
            for (int32_t x = t->hofs[l]; x < t->hofs[l + 1]; ++x) {
                double v[3][3];
                lt_face_local(sc, t->hface[x], v);
                for (int j = 0; j < 3; ++j) {
                    const double dx = v[j][0] - c[0], dy = v[j][1] - c[1], dz = v[j][2] - c[2];
                    r = fmax(r, sqrt(dx * dx + dy * dy + dz * dz) * (1 + 1e-9));
                }
            }
            cnt = t->hofs[l + 1] - t->hofs[l];
        } else {
            for (int32_t k = t->child[n]; k < t->child[n] + t->nch[n]; ++k) {
                if (!t->hcnt[k]) continue;
                double dd = 0;
                for (int d = 0; d < 3; ++d) dd += ((double)t->c[3 * k + d] - c[d]) * ((double)t->c[3 * k + d] - c[d]);
                r = fmax(r, sqrt(dd) * (1 + 1e-9) + t->r[k]), cnt += t->hcnt[k];
            }
        }
        t->r[n] = lt_up(r), t->hcnt[n] = cnt;
    }
}

/* create-oct(): object o's tree (its maximum level: lt_root, a leaf cube
 * about two faces wide), the faces' homes and the radii. */
static int build_tree(const clash_scene *sc, int o, int req, sp_tree *t)
{
    memset(t, 0, sizeof *t);
    t->scale = fabs(sc->obj_scale[o]);
    double cx[3], edge, r0;
    const int L = lt_root(sc, o, req, 2.0, cx, &edge);
    if (L < 0) return 0;
    const int64_t nf = sc->fofs[o + 1] - sc->fofs[o];
    bctx b = {.sc = sc, .t = t, .L = L};
    b.pool = malloc((size_t)nf * sizeof(uint32_t)), b.cappool = (size_t)nf;
    b.fv = malloc((size_t)nf * 15 * sizeof(double)), b.f0 = sc->fofs[o];
    int rc = -1;
    if (reserve_nodes(t, 64) || !b.pool || !b.fv) goto done;
    for (int64_t f = 0; f < nf; ++f) {
        double *fv = b.fv + 15 * f;
        lt_face_local(sc, (uint32_t)(b.f0 + f), (double(*)[3])fv);
        for (int d = 0; d < 3; ++d)
            fv[9 + d] = lt_min(fv[d], lt_min(fv[3 + d], fv[6 + d])),
            fv[12 + d] = lt_max(fv[d], lt_max(fv[3 + d], fv[6 + d]));
        b.pool[b.npool++] = (uint32_t)(b.f0 + f);
    }
    cube_sphere(cx, edge / 2, t->c, &r0);
    t->nch[0] = 0, t->nnode = 1;
    build_node(&b, 0, cx, edge / 2, 0, 0, b.npool);
    if (b.failed) goto done;
    t->hofs = malloc(sizeof(int32_t) * ((size_t)t->nleaf + 1));
    t->hface = malloc(sizeof(uint32_t) * (size_t)nf);
    if (!t->hofs || !t->hface ||
        lt_homes(sc, sc->fofs[o], nf, (size_t)t->nleaf, b.fofs, b.face, b.cube, t->hofs, t->hface))
        goto done;
    radii(sc, t);
    t->w = malloc(8 * sizeof(float) * (size_t)t->nnode);
    rc = t->w ? 0 : -1;
done:
    free(b.pool), free(b.fofs), free(b.face), free(b.cube), free(b.fv);
    return rc;
}

static int build_one(void *p, int64_t o)
{
    const clash_run *run = p;
    return build_tree(run->sc, (int)o, run->cfg.octree_level, &run->mid->sphoct->t[o]);
}

void clash_sphoct_free(clash_run *run)
{
    struct clash_sphoct *S = run->mid->sphoct;
    if (!S) return;
    for (int o = 0; o < run->sc->nobj; ++o) {
        sp_tree *t = &S->t[o];
        free(t->c), free(t->r), free(t->child), free(t->nch), free(t->hcnt), free(t->hofs), free(t->hface);
        free(t->lnode), free(t->w);
    }
    free(S->t), free(S);
    run->mid->sphoct = NULL;
}

static int build_all(clash_run *run)
{
    const clash_scene *sc = run->sc;
    struct clash_sphoct *S = calloc(1, sizeof *S);
    if (!S || !(S->t = calloc((size_t)sc->nobj + 1, sizeof(sp_tree)))) {
        free(S);
        return -1;
    }
    run->mid->sphoct = S;
    if (clash_par_each(&run->exec, sc->nobj, build_one, run)) return -1; /* out of memory */
    for (int o = 0; o < sc->nobj; ++o) {
        const sp_tree *t = &S->t[o];
        S->bytes += (size_t)t->nnode * (12 * sizeof(float) + 2 * sizeof(int32_t) + 1) +
                    (size_t)t->nleaf * 2 * sizeof(int32_t) +
                    (size_t)(t->nleaf ? t->hofs[t->nleaf] : 0) * sizeof(uint32_t);
        if (t->nleaf && t->depth > S->depth) S->depth = t->depth;
    }
    return 0;
}

/* ---- a step: the centres moved, the trees traversed ---------------------------------- */

typedef struct step_ctx {
    clash_run *run;
    struct clash_sphoct *S;
    const int32_t *objs;
    int swept;               /* capsules */
    float g;                 /* delta */
    int32_t **blist;         /* phase 1: per pair, B's leaves meeting A's root */
    size_t *bn, *bcap;
    const int32_t *units;    /* phase 2: 3 per unit: pair (or -1 - object), first, end */
    int64_t *contacts;       /* per worker, CLASH_CACHE_LINE apart */
    int32_t **stk;           /* per worker traversal stack */
    size_t *stkcap;
    int failed;
} step_ctx;

/* The world volume of every node of the moved objects: 8 floats, the
 * centre at s and at s-1 (swept; else at s again), the radius grown by
 * delta (and, swept, by a turning object's bound on its faces' arc
 * margins, store/turn.c) and the half length of the centre's path, both
 * rounded up.  The
 * centres' float rounding (half an ulp of |w|) is inside delta. */
static void move_range(int64_t begin, int64_t end, int64_t step, int worker, void *p)
{
    (void)worker;
    step_ctx *c = p;
    const clash_scene *sc = c->run->sc;
    for (int64_t i = begin; i < end; i += step) {
        const int o = c->objs[i];
        sp_tree *t = &c->S->t[o];
        double M[2][9], T[2][3];
        for (int k = 0; k < 1 + c->swept; ++k) lt_pose(sc, o, k, M[k], T[k]);
        const int k1 = c->swept;
        /* swept, a turning object: its faces' arc margins (stages/facetest.h) grow every radius */
        const double arc = c->swept ? sc->turn[o].bound : 0;
        for (int32_t n = 0; n < t->nnode; ++n) {
            const double x = t->c[3 * n], y = t->c[3 * n + 1], z = t->c[3 * n + 2];
            float *w = t->w + 8 * n;
            double h = 0;
            for (int d = 0; d < 3; ++d) {
                w[d] = (float)(M[0][3 * d] * x + M[0][3 * d + 1] * y + M[0][3 * d + 2] * z + T[0][d]);
                w[3 + d] = (float)(M[k1][3 * d] * x + M[k1][3 * d + 1] * y + M[k1][3 * d + 2] * z + T[k1][d]);
                h += ((double)w[3 + d] - w[d]) * ((double)w[3 + d] - w[d]);
            }
            w[6] = lt_up(t->scale * (double)t->r[n] * (1 + 1e-7) + c->g + arc);
            w[7] = lt_up(0.5 * sqrt(h) * (1 + 1e-9));
        }
    }
}

/* Two node volumes meet: spheres by their centres' distance; capsules first
 * by the spheres around them (centre: the path's middle), then by the
 * distance of their paths. */
static inline int vols_meet(int swept, const float *a, const float *b)
{
    const double r = (double)a[6] + b[6];
    if (!swept) {
        const double dx = (double)a[0] - b[0], dy = (double)a[1] - b[1], dz = (double)a[2] - b[2];
        return dx * dx + dy * dy + dz * dz <= r * r;
    }
    double m = 0;
    for (int d = 0; d < 3; ++d) {
        const double x = 0.5 * (((double)a[d] + a[3 + d]) - ((double)b[d] + b[3 + d]));
        m += x * x;
    }
    const double reach = r + a[7] + b[7];
    if (m > reach * reach) return 0;
    const double p0[3] = {a[0], a[1], a[2]}, p1[3] = {a[3], a[4], a[5]};
    const double q0[3] = {b[0], b[1], b[2]}, q1[3] = {b[3], b[4], b[5]};
    return seg_dist2(p0, p1, q0, q1) <= r * r;
}

static inline int vol_meets_box(const float *v, const clash_box *R)
{
    if (!R) return 1;
    for (int d = 0; d < 3; ++d) {
        const float lo = v[d] < v[3 + d] ? v[d] : v[3 + d], hi = v[d] > v[3 + d] ? v[d] : v[3 + d];
        if (lo - v[6] > R->hi[d] || hi + v[6] < R->lo[d]) return 0;
    }
    return 1;
}

/* Leaves of tree t (from the root) whose volume meets q and R; calls back
 * leaf(l) for each.  Returns -1 when out of memory. */
typedef int (*leaf_fn)(step_ctx *c, int worker, int32_t leaf, void *arg);
static int descend(step_ctx *c, int worker, const sp_tree *t, const float *q, const clash_box *R, leaf_fn fn, void *arg)
{
    if (!t->nnode) return 0;
    if (clash_grow((void **)&c->stk[worker], &c->stkcap[worker], 64, sizeof(int32_t))) return -1;
    int32_t *stk = c->stk[worker];
    size_t n = 0;
    stk[n++] = 0;
    while (n) {
        const int32_t node = stk[--n];
        const float *v = t->w + 8 * node;
        if (!t->hcnt[node] || !vols_meet(c->swept, v, q) || !vol_meets_box(v, R)) continue;
        const int32_t ch = t->child[node];
        if (ch < 0) {
            if (fn(c, worker, -1 - ch, arg)) return -1;
            continue;
        }
        if (n + 8 > c->stkcap[worker]) {
            if (clash_grow((void **)&c->stk[worker], &c->stkcap[worker], n + 8, sizeof(int32_t))) return -1;
            stk = c->stk[worker];
        }
        for (int k = t->nch[node] - 1; k >= 0; --k) stk[n++] = ch + k;
    }
    return 0;
}

typedef struct leafarg {
    const sp_tree *A, *B;
    int32_t lb;              /* the B leaf sent down A (phase 2), or -1 */
    size_t pair;             /* phase 1: the pair collecting B's leaves */
} leafarg;

static int collect_leaf(step_ctx *c, int worker, int32_t leaf, void *p)
{
    (void)worker;
    const size_t i = ((leafarg *)p)->pair;
    if (clash_grow((void **)&c->blist[i], &c->bcap[i], c->bn[i] + 1, sizeof(int32_t))) return -1;
    c->blist[i][c->bn[i]++] = leaf;
    return 0;
}

/* An Oct-Contact (leaf la of A, leaf lb of B): its candidate face pairs. */
static int contact(step_ctx *c, int worker, int32_t la, void *p)
{
    const leafarg *a = p;
    const sp_tree *A = a->A, *B = a->B;
    const int32_t lb = a->lb;
    if (A == B && la < lb) return 0; /* each leaf pair of one object once */
    c->contacts[worker * (CLASH_CACHE_LINE / sizeof(int64_t))]++;
    return lt_pairs(c->run, &c->run->mid->wbuf[worker], A->hface + A->hofs[la], A->hofs[la + 1] - A->hofs[la],
                    B->hface + B->hofs[lb], B->hofs[lb + 1] - B->hofs[lb], A == B && la == lb);
}

static void phase1_range(int64_t begin, int64_t end, int64_t step, int worker, void *p)
{
    step_ctx *c = p;
    for (int64_t i = begin; i < end; i += step) {
        const clash_objpair *op = &c->run->broad->op[i];
        const sp_tree *A = &c->S->t[op->a], *B = &c->S->t[op->b];
        c->bn[i] = 0;
        if (!A->nnode || !B->nnode) continue;
        leafarg la = {A, B, -1, (size_t)i};
        if (descend(c, worker, B, A->w, &op->region, collect_leaf, &la)) c->failed = 1;
    }
}

static void phase2_range(int64_t begin, int64_t end, int64_t step, int worker, void *p)
{
    step_ctx *c = p;
    for (int64_t u = begin; u < end; u += step) {
        const int32_t *un = c->units + 3 * u;
        const int self = un[0] < 0;
        const int32_t a = self ? -1 - un[0] : c->run->broad->op[un[0]].a, b = self ? a : c->run->broad->op[un[0]].b;
        const clash_box *R = self ? NULL : &c->run->broad->op[un[0]].region;
        leafarg la = {&c->S->t[a], &c->S->t[b], 0, 0};
        for (int32_t k = un[1]; k < un[2]; ++k) {
            la.lb = self ? k : c->blist[un[0]][k];
            if (!la.B->hcnt[la.B->lnode[la.lb]]) continue;
            if (descend(c, worker, la.A, la.B->w + 8 * la.B->lnode[la.lb], R, contact, &la)) c->failed = 1;
        }
    }
}

static int add_unit(int32_t **u, size_t *n, size_t *cap, int32_t who, int32_t first, int32_t end)
{
    for (int32_t k = first; k < end; k += LEAF_UNIT) {
        if (clash_grow((void **)u, cap, 3 * (*n + 1), sizeof(int32_t))) return -1;
        int32_t *x = *u + 3 * (*n)++;
        x[0] = who, x[1] = k, x[2] = end - k > LEAF_UNIT ? k + LEAF_UNIT : end;
    }
    return 0;
}

int clash_sphoct_candidates(clash_run *run, clash_error *err)
{
    const clash_scene *sc = run->sc;
    const size_t T = clash_team(run), np = run->broad->nop;
    run->mid->cand.n = 0, run->mid->build_s = 0, run->mid->interfering = 0;
    if (sc->has_deforming) return clash_fail(err, CLASH_EINPUT, "spherical: for rigid scenes only");
    if (!run->mid->sphoct) {
        const double t0 = lt_now();
        if (build_all(run)) return clash_fail(err, CLASH_EFAIL, "out of memory building the spherical octrees");
        run->mid->build_s = lt_now() - t0;
    }
    const int self = run->cfg.self_collision;
    step_ctx c = {.run = run, .S = run->mid->sphoct, .swept = run->cfg.mode == CLASH_MODE_SWEPT, .g = run->boxes->delta};
    int32_t *objs = malloc(sizeof(int32_t) * ((size_t)sc->nobj + 1)), *units = NULL;
    uint8_t *need = calloc((size_t)sc->nobj + 1, 1);
    c.blist = calloc(np + 1, sizeof(int32_t *)), c.bn = calloc(np + 1, sizeof(size_t));
    c.bcap = calloc(np + 1, sizeof(size_t));
    c.contacts = calloc(T * (CLASH_CACHE_LINE / sizeof(int64_t)), sizeof(int64_t));
    c.stk = calloc(T, sizeof(int32_t *)), c.stkcap = calloc(T, sizeof(size_t));
    size_t nu = 0, capu = 0, nobjs = 0;
    int rc = CLASH_OK;
    if (!objs || !need || !c.blist || !c.bn || !c.bcap || !c.contacts || !c.stk || !c.stkcap) goto oom;
    /* the update: centres of the objects in a pair (or self-tested) moved */
    const double t1 = lt_now();
    for (size_t i = 0; i < np; ++i) need[run->broad->op[i].a] = need[run->broad->op[i].b] = 1;
    for (int o = 0; o < sc->nobj; ++o)
        if (need[o] || (self && sc->fofs[o + 1] - sc->fofs[o] > 1)) objs[nobjs++] = o;
    c.objs = objs;
    clash_par_tasks(&run->exec, (int64_t)nobjs, 1, move_range, &c);
    run->mid->update_s = lt_now() - t1;
    /* phase 1 per pair, then phase 2 and the self tests in units of leaves */
    if (clash_par_tasks(&run->exec, (int64_t)np, 1, phase1_range, &c) < 0) goto nosched;
    if (c.failed) goto oom;
    for (size_t i = 0; i < np; ++i)
        if (add_unit(&units, &nu, &capu, (int32_t)i, 0, (int32_t)c.bn[i])) goto oom;
    if (self)
        for (int o = 0; o < sc->nobj; ++o)
            if (sc->fofs[o + 1] - sc->fofs[o] > 1 && clash_obj_self(run, o) &&
                add_unit(&units, &nu, &capu, -1 - o, 0, c.S->t[o].nleaf))
                goto oom;
    c.units = units;
    for (size_t w = 0; w < T; ++w) run->mid->wbuf[w].n = 0;
    if (clash_par_tasks(&run->exec, (int64_t)nu, 1, phase2_range, &c) < 0) goto nosched;
    if (c.failed || clash_mid_gather(run)) goto oom;
    for (size_t w = 0; w < T; ++w) run->mid->interfering += c.contacts[w * (CLASH_CACHE_LINE / sizeof(int64_t))];
    run->mid->bytes = c.S->bytes, run->mid->level_used = c.S->depth;
    goto done;
nosched:
    rc = clash_fail(err, CLASH_EINPUT, "schedule not available for the spherical midphase");
    goto done;
oom:
    rc = clash_fail(err, CLASH_EFAIL, "out of memory in the spherical midphase");
done:
    if (c.blist)
        for (size_t i = 0; i < np; ++i) free(c.blist[i]);
    if (c.stk)
        for (size_t w = 0; w < T; ++w) free(c.stk[w]);
    free(c.blist), free(c.bn), free(c.bcap), free(c.contacts), free(c.stk), free(c.stkcap);
    free(objs), free(need), free(units);
    return rc;
}
