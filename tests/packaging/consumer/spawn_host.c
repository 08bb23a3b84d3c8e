/* spawn_host.c — a host whose bodies come and go: the example to copy when
 * objects are spawned and destroyed while the simulation runs, and when some
 * pairs must never be tested (jointed bodies, debris that passes through
 * debris).
 *
 *   spawn_host
 *
 * A floor, a jointed pair of boxes lying on it (an "arm": the second box
 * overlaps the first at the joint, so the pair is excluded with
 * clash_run_exclude_pair), and balls that the host spawns above the arm every
 * SPAWN steps (clash_run_add_object, at their spawn pose: they do not sweep
 * in from anywhere) and removes LIFE steps later (clash_run_remove_object;
 * ids are never reused).  Balls are debris: group 2, seeing every group but
 * their own (clash_run_set_filter), so they fall through one another and
 * bounce on the floor and on the arm.  The host integrates the balls itself
 * (gravity, semi-implicit Euler); clash, in swept mode, says which faces meet
 * during each step; a ball in a pair is put back to where it was and its
 * velocity turned up (restitution 0.6), so the next step moves it from the
 * pose clash holds up and away.  Meshes are generated here; only
 * <clash/clash.h> is used.  Exits 0 when no reported pair names the jointed
 * pair, two balls or a removed ball, every spawned ball got a new id, and
 * balls did bounce.
 */
#include <clash/clash.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { STEPS = 240, SPAWN = 15, LIFE = 90, MAXB = STEPS / SPAWN + 1 };
static const double dt = 0.01, gravity = -9.81, restitution = 0.6, pi = 3.14159265358979323846;

/* A box of half sizes h: 8 vertices, 12 triangles. */
static int add_box(clash_scene *sc, const double h[3], clash_error *err)
{
    double v[24];
    for (int i = 0; i < 8; ++i)
        for (int d = 0; d < 3; ++d) v[3 * i + d] = (i >> d & 1) ? h[d] : -h[d];
    static const int32_t t[36] = {0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4,
                                  2, 6, 3, 3, 6, 7, 0, 4, 2, 2, 4, 6, 1, 3, 5, 3, 7, 5};
    return clash_scene_add_mesh(sc, v, 8, t, 12, err);
}

/* A UV sphere of radius r: k bands, 2k meridians, 4k(k-1) triangles. */
static int add_ball(clash_scene *sc, double r, int k, clash_error *err)
{
    const int m = 2 * k, nv = 2 + (k - 1) * m, nf = 4 * k * (k - 1);
    double *v = malloc(sizeof(double) * 3 * (size_t)nv);
    int32_t *t = malloc(sizeof(int32_t) * 3 * (size_t)nf), n = 0;
    if (!v || !t) {
        free(v), free(t);
        return -CLASH_EFAIL;
    }
    v[0] = v[1] = 0, v[2] = r, v[3 * (nv - 1)] = v[3 * (nv - 1) + 1] = 0, v[3 * (nv - 1) + 2] = -r;
    for (int i = 1; i < k; ++i)
        for (int j = 0; j < m; ++j) {
            const double th = pi * i / k, ph = pi * j / (double)k;
            double *p = v + 3 * (1 + (i - 1) * m + j);
            p[0] = r * sin(th) * cos(ph), p[1] = r * sin(th) * sin(ph), p[2] = r * cos(th);
        }
#define RING(i, j) (1 + ((i) - 1) * m + (j) % m)
    for (int j = 0; j < m; ++j) t[n++] = 0, t[n++] = RING(1, j), t[n++] = RING(1, j + 1);
    for (int i = 1; i < k - 1; ++i)
        for (int j = 0; j < m; ++j) {
            const int a = RING(i, j), b = RING(i, j + 1), c = RING(i + 1, j), d = RING(i + 1, j + 1);
            t[n++] = a, t[n++] = c, t[n++] = b, t[n++] = b, t[n++] = c, t[n++] = d;
        }
    for (int j = 0; j < m; ++j) t[n++] = nv - 1, t[n++] = RING(k - 1, j + 1), t[n++] = RING(k - 1, j);
#undef RING
    const int id = clash_scene_add_mesh(sc, v, nv, t, nf, err);
    free(v), free(t);
    return id;
}

typedef struct ball {
    int obj, born, alive;
    double x[3], v[3], px[3];
} ball;

int main(void)
{
    clash_error err = {0};
    clash_scene *sc = NULL;
    const double floor_h[3] = {4, 4, 0.1}, link_h[3] = {0.9, 0.15, 0.15};
    const double floor_t[3] = {0, 0, -0.1}, link0[3] = {-0.8, 0, 0.15}, link1[3] = {0.8, 0, 0.15};
    if (clash_scene_create(&sc, &err)) goto fail;
    const int mfloor = add_box(sc, floor_h, &err), mlink = add_box(sc, link_h, &err);
    if (mfloor < 0 || mlink < 0) goto fail;
    /* objects 0: the floor, 1 and 2: the arm's links, overlapping at the joint (x = 0) */
    if (clash_scene_add_object(sc, mfloor, NULL, floor_t, 0, &err) != 0 ||
        clash_scene_add_object(sc, mlink, NULL, link0, 0, &err) != 1 ||
        clash_scene_add_object(sc, mlink, NULL, link1, 0, &err) != 2)
        goto fail;
    clash_config cfg = clash_config_default();
    cfg.mode = CLASH_MODE_SWEPT;
    clash_run *run = clash_run_create(sc, &cfg, &err);
    if (!run || clash_run_exclude_pair(run, 1, 2, 1, &err)) goto fail;
    /* the links lie on the floor, so they meet it (and each other, excluded) every step */
    const int mball = add_ball(sc, 0.2, 6, &err); /* a mesh added while the run uses the scene */
    if (mball < 0) goto fail;
    ball b[MAXB];
    int nb = 0, last_id = 2, bad = 0, bounces = 0, floor_pairs = 0;
    long long pairs_total = 0;
    for (int s = 1; s <= STEPS; ++s) {
        if (s % SPAWN == 1 && nb < MAXB) { /* a new ball above the arm, falling from rest */
            ball *n = &b[nb];
            const double t[3] = {-1.5 + 0.2 * nb, 0.05 * (nb % 3), 1.2};
            n->obj = clash_run_add_object(run, mball, NULL, t, 0, &err);
            if (n->obj < 0) goto fail;
            if (n->obj <= last_id) {
                fprintf(stderr, "spawn_host: ball %d got id %d, not a new one\n", nb, n->obj);
                ++bad;
            }
            last_id = n->obj;
            if (clash_run_set_filter(run, n->obj, 2, ~2u, &err)) goto fail; /* debris: not against debris */
            memcpy(n->x, t, sizeof t);
            n->v[0] = n->v[1] = n->v[2] = 0;
            n->born = s, n->alive = 1;
            ++nb;
        }
        for (int i = 0; i < nb; ++i) {
            ball *q = &b[i];
            if (q->alive && s - q->born >= LIFE) {
                if (clash_run_remove_object(run, q->obj, &err)) goto fail;
                q->alive = 0;
                continue;
            }
            if (!q->alive) continue;
            memcpy(q->px, q->x, sizeof q->x);
            q->v[2] += gravity * dt;
            for (int d = 0; d < 3; ++d) q->x[d] += q->v[d] * dt;
            if (clash_run_set_pose(run, q->obj, NULL, q->x, &err)) goto fail;
        }
        clash_pairs p;
        if (clash_run_advance(run, &p, NULL, &err)) goto fail;
        pairs_total += (long long)p.count;
        for (size_t k = 0; k < p.count; ++k) {
            const int oa = (int)p.pairs[k].obj_a, ob = (int)p.pairs[k].obj_b;
            floor_pairs += oa == 0;
            int ia = -1, ib = -1;
            for (int i = 0; i < nb; ++i) ia = b[i].obj == oa ? i : ia, ib = b[i].obj == ob ? i : ib;
            const int wrong = (oa == 1 && ob == 2) || (ia >= 0 && ib >= 0) || (ia >= 0 && !b[ia].alive) ||
                              (ib >= 0 && !b[ib].alive);
            if (wrong) {
                fprintf(stderr, "spawn_host: step %d: pair of objects %d and %d should not be tested\n", s, oa, ob);
                ++bad;
            }
        }
        /* each ball in a pair: back to where it was, bounced up */
        for (int i = 0; i < nb; ++i) {
            ball *q = &b[i];
            int hit = 0;
            for (size_t k = 0; q->alive && k < p.count && !hit; ++k)
                hit = (int)p.pairs[k].obj_a == q->obj || (int)p.pairs[k].obj_b == q->obj;
            if (!hit) continue;
            memcpy(q->x, q->px, sizeof q->x);
            if (q->v[2] < 0) q->v[2] = -restitution * q->v[2], ++bounces;
        }
    }
    printf("spawn_host: %d balls spawned (ids 3..%d), %d bounces, %d floor pairs, %lld pairs in %d steps\n", nb,
           last_id, bounces, floor_pairs, pairs_total, STEPS);
    clash_run_destroy(run);
    clash_scene_destroy(sc);
    return bad || bounces == 0 || floor_pairs == 0 ? 1 : 0;
fail:
    fprintf(stderr, "spawn_host: %s\n", err.msg);
    clash_scene_destroy(sc);
    return 1;
}
