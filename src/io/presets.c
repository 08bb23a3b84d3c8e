/*
 * presets.c — the named scenes of `clash run --preset NAME`, built as
 * scene descriptions (scene_desc.h) exactly as if read from a JSON file.
 *
 *   ktk94-table1   the six-sphere scene of Kitamura, Takemura, Kishino 1994,
 *                  "Coarse-to-Fine Collision Detection ...", Table 1
 *                  ([KTK94] section 5.1.1).
 *   ktak94-table1  the eight-sphere scene of Kitamura, Takemura, Ahuja,
 *                  Kishino 1994, "Efficient Collision Detection Among Objects
 *                  in Arbitrary Motion ...", Table 1 ([KTAK94],
 *                  section 4.1.1).
 *   cluttered      N random spheres and boxes at a chosen volume density,
 *                  moving roughly toward the centre of their cube so that
 *                  they collide during the run; deterministic in (N, seed, D,
 *                  detail).
 *   default        a fixed, small cluttered scene (40 objects, seed 1,
 *                  60 steps) that runs in seconds and shows collisions.
 *
 * The papers' scenes.  Every sphere is the papers' 168-face UV sphere
 * (generator {"sphere": {"faces": 168}}, radius 1, vertices on the sphere)
 * scaled to diameter 3.8 (object scale 1.9).  Lengths are in voxels of the
 * finest octree level (ktk94: 5 levels, a 32^3 workspace; ktak94: 4 levels,
 * a 16^3 workspace); positions are the initial centres; translations are
 * voxels per cycle and rotations degrees per cycle about the object's own
 * x, y, z axes, and one step is one cycle.  No initial orientation is given
 * (ktak94's caption mentions "directions" but the table lists none), so
 * rotation_deg is zero.  In both papers only A and B collide.
 *
 * Straight-line check of the sphere centres (state s: c(s) = c0 + s v):
 *   ktk94:  |c_A - c_B| = 3.841 at s = 195 and 3.765 at s = 196, so the
 *           bounding spheres (diameter 3.8) first touch in step 196 — the
 *           paper reports face collisions at t = 196.  A and B pass within
 *           0.96 of each other at s = 242.6.  Over the run (220 steps) every
 *           other pair stays at least 13.19 apart (the first other pair to
 *           come within 3.8 is A/C, at s = 737).
 *   ktak94: |c_A - c_B| = 3.817 at s = 115 and 3.779 at s = 116: first
 *           contact in step 116 — the paper reports face collisions at
 *           t = 116.  Over the run (140 steps) every other pair stays at
 *           least 7.55 apart (the first other pair within 3.8 is A/F, at
 *           s = 697).
 * Steps (220, 140) cover the contact plus some 20 steps of margin, while the
 * spheres still overlap deeply; the lead measures the real first face
 * collision.
 *
 * The cluttered generator.  Mesh kinds: UV spheres with k = 4..12 bands
 * (48 ... 528 faces, radius 1) and the unit cube (centred, "center": true,
 * so its bounding sphere is radius sqrt(3)/2 whatever corner the generator
 * puts at the origin), one mesh desc per kind actually used, in that order.
 * A quarter of the objects are boxes (base edge 1.6); every object gets a
 * random scale factor in [0.7, 1.5).  The cube side L makes the objects'
 * bounding spheres fill the volume fraction D:  L^3 = sum(4/3 pi r^3) / D.
 * Objects are placed largest first by rejection sampling in a uniform grid
 * of cells at least one bounding-sphere diameter wide, with bounding spheres
 * kept 0.1% apart; an object that cannot be placed in PLACE_TRIES tries makes
 * the preset fail (lower the density).  Velocities point from the object to
 * a random point of the ball of radius L/4 at the centre, with a speed that
 * covers 0.3..0.7 L over the run's steps; initial rotations are uniform in
 * [0, 360) degrees and spins in [-3, 3) degrees per step about each axis.
 * Randomness is xoshiro256** seeded by splitmix64; the geometry uses only
 * +, -, *, / and sqrt (all correctly rounded in IEEE 754), plus a Newton
 * cube root written out here, so the result is the same on every machine
 * compiled without floating-point contraction (C11 mode: -ffp-contract=off).
 *
 * Detail F (`--detail F`: scenes of millions of faces): every
 * object becomes a UV sphere of k bands, 4k(k-1) faces, with k the integer
 * >= 2 whose count is nearest F (the smaller on a tie), so a scene has
 * exactly N * 4k(k-1) faces.  The draws stay the same (an object drawn as a
 * box becomes a sphere of radius f, not a box of edge 1.6 f), so the sizes
 * differ from the default scene's only where boxes were drawn.  Without F
 * (0) the scene is as before: spheres of 48..528 faces and boxes.
 */
#include "io/scene_desc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"

static const char *const preset_names[] = {"default", "ktk94-table1", "ktak94-table1", "cluttered", NULL};

const char *const *clash_preset_names(void)
{
    return preset_names;
}

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

/* ---------------------------------------------------------------------------
 * The papers' Table 1 scenes.
 */

typedef struct table_row {
    double position[3], velocity[3], rotation[3];
} table_row;

/* Kitamura, Takemura, Kishino 1994, Table 1 ("Initial positions and motions
 * of objects (unit: 5-level octree)").  Transcribed as printed; notes on the
 * extracted text:
 *  - object B's label is extracted as a Cyrillic "В"; it is the second row, B;
 *  - the caption is garbled ("o objects", "5-level o octree"); the numbers
 *    are not, and none needed interpretation;
 *  - F's translation (-0.005, -0.001, -0.001) is uneven but is what the
 *    table says; it is kept as printed. */
static const table_row ktk94_table1[6] = {
    /* A */ {{4.0, 4.0, 4.0}, {0.03, 0.015, 0.02}, {0.0, 0.05, 0.05}},
    /* B */ {{18.0, 12.0, 14.0}, {-0.03, -0.015, -0.02}, {0.05, 0.05, 0.0}},
    /* C */ {{25.0, 25.0, 14.0}, {0.005, -0.01, 0.005}, {0.0, 0.05, 0.05}},
    /* D */ {{14.0, 3.0, 25.0}, {-0.01, -0.005, 0.0}, {0.0, 0.05, 0.05}},
    /* E */ {{3.0, 25.0, 3.0}, {0.01, 0.0, 0.01}, {0.0, 0.05, 0.05}},
    /* F */ {{25.0, 14.0, 25.0}, {-0.005, -0.001, -0.001}, {0.0, 0.05, 0.05}},
};
#define KTK94_STEPS 220

/* Kitamura, Takemura, Ahuja, Kishino 1994, Table 1 ("Initial positions,
 * directions and motions given to the objects (unit: 4-level octree)").
 * Transcribed as printed; the extracted table is clean.  No directions
 * (initial orientations) are listed, so they are taken as zero. */
static const table_row ktak94_table1[8] = {
    /* A */ {{2.5, 2.5, 2.5}, {0.015, 0.0075, 0.01}, {0.0, 0.25, 0.0}},
    /* B */ {{8.5, 6.5, 6.5}, {-0.015, -0.0075, -0.01}, {0.0, 0.25, 0.0}},
    /* C */ {{13.5, 13.5, 6.0}, {-0.0005, -0.0005, -0.0005}, {0.05, 0.1, 0.15}},
    /* D */ {{6.0, 2.5, 13.5}, {-0.0005, -0.0005, -0.0005}, {0.1, 0.15, 0.05}},
    /* E */ {{2.5, 13.5, 2.5}, {0.0005, -0.0005, -0.0005}, {0.15, 0.05, 0.1}},
    /* F */ {{13.5, 8.0, 13.5}, {0.0005, -0.0005, -0.0005}, {-0.05, -0.1, -0.15}},
    /* G */ {{13.5, 2.5, 2.5}, {0.0005, -0.0005, -0.0005}, {-0.1, -0.15, -0.05}},
    /* H */ {{6.0, 13.5, 13.5}, {0.0005, -0.0005, -0.0005}, {-0.15, -0.05, -0.1}},
};
#define KTAK94_STEPS 140

/* The papers' sphere: 168 faces (k = 7), diameter 3.8 voxels. */
#define PAPER_SPHERE_FACES 168
#define PAPER_SPHERE_SCALE 1.9

static int build_table(const char *name, const table_row *rows, int n, int steps,
                       clash_scene_desc *d, clash_error *err)
{
    d->name = dup_str(name);
    d->steps = steps;
    d->mode = CLASH_MODE_SWEPT;
    d->self_collision = 0;
    d->meshes = calloc(1, sizeof *d->meshes);
    d->objects = calloc((size_t)n, sizeof *d->objects);
    if (!d->name || !d->meshes || !d->objects) return clash_fail(err, CLASH_EFAIL, "preset %s: out of memory", name);
    d->nmeshes = 1;
    d->meshes[0].name = dup_str("s168");
    if (!d->meshes[0].name) return clash_fail(err, CLASH_EFAIL, "preset %s: out of memory", name);
    d->meshes[0].kind = CLASH_MESH_SPHERE;
    d->meshes[0].sphere_faces = PAPER_SPHERE_FACES;
    d->meshes[0].scale = 1.0;
    d->meshes[0].center = 0;
    d->nobjects = n;
    for (int i = 0; i < n; ++i) {
        clash_object_desc *o = &d->objects[i];
        o->mesh = 0;
        o->scale = PAPER_SPHERE_SCALE;
        for (int a = 0; a < 3; ++a) {
            o->position[a] = rows[i].position[a];
            o->rotation_deg[a] = 0.0;
            o->velocity[a] = rows[i].velocity[a];
            o->angular_velocity_deg[a] = rows[i].rotation[a];
        }
    }
    return CLASH_OK;
}

/* ---------------------------------------------------------------------------
 * Random numbers: splitmix64 seeds xoshiro256** (Blackman & Vigna).
 */

typedef struct rng {
    uint64_t s[4];
} rng;

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static void rng_seed(rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; ++i) r->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static uint64_t rng_next(rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

/* Uniform in [0, 1), 53 bits. */
static double rng_u01(rng *r)
{
    return (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* Uniform in [lo, hi). */
static double rng_range(rng *r, double lo, double hi)
{
    return lo + (hi - lo) * rng_u01(r);
}

/* Uniform integer in [0, n), n small (multiply-shift, no modulo bias to
 * speak of). */
static int rng_int(rng *r, int n)
{
    return (int)(((rng_next(r) >> 32) * (uint64_t)n) >> 32);
}

/* Cube root of y > 0 by Newton's method from above (1 + y/3 >= cbrt(y));
 * only +, *, / so the result is bit-identical everywhere. */
static double cube_root(double y)
{
    double x = 1.0 + y / 3.0;
    for (int i = 0; i < 400; ++i) {
        double nx = (2.0 * x + y / (x * x)) / 3.0;
        if (!(nx < x)) break;  /* monotone from above: stop when it stalls */
        x = nx;
    }
    return x;
}

/* ---------------------------------------------------------------------------
 * The cluttered generator.
 */

#define CLUTTER_DEFAULT_OBJECTS 100
#define CLUTTER_DEFAULT_DENSITY 0.05
#define CLUTTER_MAX_DENSITY 0.3
#define CLUTTER_MAX_OBJECTS 10000000
#define CLUTTER_DEFAULT_STEPS 100
#define CLUTTER_BOX_FRACTION 0.25
#define CLUTTER_BOX_EDGE 1.6
#define CLUTTER_SCALE_LO 0.7
#define CLUTTER_SCALE_HI 1.5
#define CLUTTER_GAP 1.001       /* bounding spheres at least 0.1% apart */
#define CLUTTER_SPIN 3.0        /* degrees per step, each axis */
#define PLACE_TRIES 200000
#define CLUTTER_MIN_DETAIL 8          /* k = 2: the smallest UV sphere */
#define CLUTTER_MAX_DETAIL 4000000    /* per object; the scene's total is capped below */
#define CLUTTER_MAX_FACES 400000000L  /* objects x faces: int32 face indices, with room */

/* The band count k >= 2 whose UV sphere's 4k(k-1) faces are nearest f (the
 * smaller k on a tie). */
static int detail_bands(long f)
{
    int k = 2;
    while (4L * (k + 1) * k <= f) ++k;               /* largest k with 4k(k-1) <= f */
    long lo = 4L * k * (k - 1), hi = 4L * (k + 1) * k;
    return f - lo <= hi - f ? k : k + 1;
}

/* Kinds 0..8: spheres with k = 4..12; kind 9: box. */
#define NKINDS 10
#define KIND_BOX 9
#define HALF_SQRT3 0.86602540378443864676

typedef struct placed {
    double r;
    int idx;
} placed;

static int by_radius_desc(const void *a, const void *b)
{
    const placed *x = a, *y = b;
    if (x->r != y->r) return x->r > y->r ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

/* Whether a sphere of radius ri at p, in grid cell `cell` of the g^3 grid
 * (cell_head/next: the objects placed so far, listed by cell), keeps
 * CLUTTER_GAP clear of every placed object's sphere.  A neighbour can only
 * lie in the 27 cells around, each cell being at least CLUTTER_GAP * 2 *
 * rmax wide. */
static int clutter_free(const clash_scene_desc *d, const double *rad, const int *cell_head, const int *next,
                        long g, const long cell[3], const double p[3], double ri)
{
    for (long cx = cell[0] - 1; cx <= cell[0] + 1; ++cx)
        for (long cy = cell[1] - 1; cy <= cell[1] + 1; ++cy)
            for (long cz = cell[2] - 1; cz <= cell[2] + 1; ++cz) {
                if (cx < 0 || cy < 0 || cz < 0 || cx >= g || cy >= g || cz >= g) continue;
                for (int j = cell_head[(cx * g + cy) * g + cz]; j >= 0; j = next[j]) {
                    const double *q = d->objects[j].position;
                    double dx = p[0] - q[0], dy = p[1] - q[1], dz = p[2] - q[2];
                    double m = CLUTTER_GAP * (ri + rad[j]);
                    if (dx * dx + dy * dy + dz * dz < m * m) return 0;
                }
            }
    return 1;
}

/* Each object's motion, drawn in object order after all positions are
 * known: a velocity towards a random target within a quarter of the cube's
 * side of its centre, covering 0.3 to 0.7 of the side over the run, a random
 * orientation and a spin of up to CLUTTER_SPIN degrees per step per axis. */
static void clutter_motions(clash_scene_desc *d, rng *r, double side, int steps)
{
    for (int i = 0; i < d->nobjects; ++i) {
        clash_object_desc *o = &d->objects[i];
        double t[3], len2;
        do {
            for (int a = 0; a < 3; ++a) t[a] = rng_range(r, -0.25 * side, 0.25 * side);
            len2 = t[0] * t[0] + t[1] * t[1] + t[2] * t[2];
        } while (len2 > 0.0625 * side * side);
        double dir[3] = {t[0] - o->position[0], t[1] - o->position[1], t[2] - o->position[2]};
        double dl = sqrt(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
        if (!(dl > 1e-12 * side)) {
            dir[0] = 1.0;
            dir[1] = dir[2] = 0.0;
            dl = 1.0;
        }
        double speed = rng_range(r, 0.3, 0.7) * side / (double)steps;
        for (int a = 0; a < 3; ++a) {
            o->velocity[a] = dir[a] / dl * speed;
            o->rotation_deg[a] = rng_range(r, 0.0, 360.0);
            o->angular_velocity_deg[a] = rng_range(r, -CLUTTER_SPIN, CLUTTER_SPIN);
        }
    }
}

static int build_cluttered(const char *name, int n, uint64_t seed, double density, int detail, int steps,
                           clash_scene_desc *d, clash_error *err)
{
    const int detail_k = detail > 0 ? detail_bands(detail) : 0;  /* 0: the default kinds */
    int rc = CLASH_OK;
    rng r;
    rng_seed(&r, seed);
    int kind_used[NKINDS] = {0}, kind_mesh[NKINDS];
    int *kind = malloc((size_t)n * sizeof *kind);
    double *rad = malloc((size_t)n * sizeof *rad);
    placed *order = malloc((size_t)n * sizeof *order);
    int *cell_head = NULL, *next = malloc((size_t)n * sizeof *next);
    d->name = dup_str(name);
    d->objects = calloc((size_t)n, sizeof *d->objects);
    if (!kind || !rad || !order || !next || !d->name || !d->objects) {
        rc = clash_fail(err, CLASH_EFAIL, "preset %s: out of memory", name);
        goto done;
    }
    d->nobjects = n;
    d->steps = steps;
    d->mode = CLASH_MODE_SWEPT;
    d->self_collision = 0;

    /* Kinds and sizes. */
    double volume = 0.0, rmax = 0.0;
    for (int i = 0; i < n; ++i) {
        clash_object_desc *o = &d->objects[i];
        int k = rng_u01(&r) < CLUTTER_BOX_FRACTION ? KIND_BOX : rng_int(&r, 9);
        double f = rng_range(&r, CLUTTER_SCALE_LO, CLUTTER_SCALE_HI);
        if (detail_k) k = 0;  /* every object the one sphere of detail F (kind 0 stands for it) */
        kind[i] = k;
        kind_used[k] = 1;
        o->scale = k == KIND_BOX ? CLUTTER_BOX_EDGE * f : f;
        rad[i] = k == KIND_BOX ? HALF_SQRT3 * o->scale : o->scale;
        volume += (4.0 / 3.0) * 3.14159265358979323846 * rad[i] * rad[i] * rad[i];
        if (rad[i] > rmax) rmax = rad[i];
        order[i].r = rad[i];
        order[i].idx = i;
    }

    /* Meshes: one per kind used, spheres by face count, then the box. */
    int nm = 0;
    for (int k = 0; k < NKINDS; ++k) nm += kind_used[k];
    d->meshes = calloc((size_t)nm, sizeof *d->meshes);
    if (!d->meshes) {
        rc = clash_fail(err, CLASH_EFAIL, "preset %s: out of memory", name);
        goto done;
    }
    for (int k = 0; k < NKINDS; ++k) {
        kind_mesh[k] = -1;
        if (!kind_used[k]) continue;
        clash_mesh_desc *m = &d->meshes[d->nmeshes];
        char buf[32];
        m->scale = 1.0;
        if (k == KIND_BOX) {
            m->kind = CLASH_MESH_BOX;
            m->center = 1;
            strcpy(buf, "box");
        } else {
            int bands = detail_k ? detail_k : k + 4;
            m->kind = CLASH_MESH_SPHERE;
            m->sphere_faces = 4 * bands * (bands - 1);
            snprintf(buf, sizeof buf, "sphere%d", m->sphere_faces);
        }
        if (!(m->name = dup_str(buf))) {
            rc = clash_fail(err, CLASH_EFAIL, "preset %s: out of memory", name);
            goto done;
        }
        kind_mesh[k] = d->nmeshes++;
    }
    for (int i = 0; i < n; ++i) d->objects[i].mesh = kind_mesh[kind[i]];

    /* The cube [-L/2, L/2]^3 and a grid of g^3 cells, each at least
     * CLUTTER_GAP * 2 * rmax wide (so a neighbour can only be in the 27
     * cells around), g capped at about 2n cells so the grid stays O(n). */
    double side = cube_root(volume / density);
    double half = 0.5 * side;
    double need = CLUTTER_GAP * 2.0 * rmax;
    long g = 1;
    while ((double)(g + 1) * need <= side && (g + 1) * (g + 1) * (g + 1) <= 2L * n + 64) ++g;
    double cs = side / (double)g;
    cell_head = malloc((size_t)(g * g * g) * sizeof *cell_head);
    if (!cell_head) {
        rc = clash_fail(err, CLASH_EFAIL, "preset %s: out of memory", name);
        goto done;
    }
    for (long c = 0; c < g * g * g; ++c) cell_head[c] = -1;
    qsort(order, (size_t)n, sizeof *order, by_radius_desc);

    for (int oi = 0; oi < n; ++oi) {
        int i = order[oi].idx;
        double ri = rad[i], p[3];
        long cell[3];
        int ok = 0;
        for (int t = 0; t < PLACE_TRIES && !ok; ++t) {
            for (int a = 0; a < 3; ++a) {
                p[a] = rng_range(&r, -half + ri, half - ri);
                long ca = (long)((p[a] + half) / cs);
                cell[a] = ca < 0 ? 0 : ca >= g ? g - 1 : ca;
            }
            ok = clutter_free(d, rad, cell_head, next, g, cell, p, ri);
        }
        if (!ok) {
            rc = clash_fail(err, CLASH_EINPUT,
                            "preset %s: cannot place %d objects at density %g without overlap "
                            "(placed %d); lower the density",
                            name, n, density, oi);
            goto done;
        }
        long c = (cell[0] * g + cell[1]) * g + cell[2];
        next[i] = cell_head[c];
        cell_head[c] = i;
        for (int a = 0; a < 3; ++a) d->objects[i].position[a] = p[a];
    }

    clutter_motions(d, &r, side, steps);

done:
    free(kind);
    free(rad);
    free(order);
    free(next);
    free(cell_head);
    return rc;
}

/* ---------------------------------------------------------------------------
 * Entry point.
 */

int clash_scene_desc_preset(const char *name, const clash_preset_params *p, clash_scene_desc *out,
                            clash_error *err)
{
    if (!out) return clash_fail(err, CLASH_EFAIL, "clash_scene_desc_preset: NULL output");
    memset(out, 0, sizeof *out);
    clash_scene_desc d;
    memset(&d, 0, sizeof d);
    int rc;
    if (name && strcmp(name, "ktk94-table1") == 0) {
        rc = build_table(name, ktk94_table1, 6, KTK94_STEPS, &d, err);
    } else if (name && strcmp(name, "ktak94-table1") == 0) {
        rc = build_table(name, ktak94_table1, 8, KTAK94_STEPS, &d, err);
    } else if (name && strcmp(name, "default") == 0) {
        rc = build_cluttered(name, 40, 1, CLUTTER_DEFAULT_DENSITY, 0, 60, &d, err);
    } else if (name && strcmp(name, "cluttered") == 0) {
        int n = p && p->objects > 0 ? p->objects : CLUTTER_DEFAULT_OBJECTS;
        uint64_t seed = p ? p->seed : 0;
        double density = p ? p->density : 0.0;
        if (!isfinite(density) || density > CLUTTER_MAX_DENSITY)
            return clash_fail(err, CLASH_EINPUT,
                              "preset cluttered: density %g out of range (a volume fraction in (0, %g])",
                              density, CLUTTER_MAX_DENSITY);
        if (density <= 0.0) density = CLUTTER_DEFAULT_DENSITY;
        if (n > CLUTTER_MAX_OBJECTS)
            return clash_fail(err, CLASH_EINPUT, "preset cluttered: %d objects is too many (at most %d)", n,
                              CLUTTER_MAX_OBJECTS);
        int detail = p ? p->detail : 0;
        if (detail < 0) detail = 0;
        if (detail > 0 && detail < CLUTTER_MIN_DETAIL)
            return clash_fail(err, CLASH_EINPUT,
                              "preset cluttered: detail %d is below the smallest UV sphere (%d faces)", detail,
                              CLUTTER_MIN_DETAIL);
        if (detail > CLUTTER_MAX_DETAIL)
            return clash_fail(err, CLASH_EINPUT, "preset cluttered: detail %d faces is too many (at most %d)",
                              detail, CLUTTER_MAX_DETAIL);
        if (detail > 0) {
            long k = detail_bands(detail);
            if ((long)n * 4L * k * (k - 1) > CLUTTER_MAX_FACES)
                return clash_fail(err, CLASH_EINPUT,
                                  "preset cluttered: %d objects of %ld faces is too many faces (at most %ld)", n,
                                  4L * k * (k - 1), CLUTTER_MAX_FACES);
        }
        rc = build_cluttered(name, n, seed, density, detail, CLUTTER_DEFAULT_STEPS, &d, err);
    } else {
        return clash_fail(err, CLASH_EINPUT,
                          "unknown preset \"%.100s\" (valid: default, ktk94-table1, ktak94-table1, cluttered)",
                          name ? name : "(null)");
    }
    if (rc) {
        clash_scene_desc_free(&d);
        return rc;
    }
    *out = d;
    return CLASH_OK;
}
