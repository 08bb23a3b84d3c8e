/*
 * test_mpi_decomposed.c — the in-memory decomposed run (issue 18,
 * clash_config.decompose = CLASH_DECOMPOSE_OBJECTS), under mpirun -n 1, 2
 * and 4: every rank builds the same scene from arrays (generated spheres:
 * rigid ones moving and turning across the cells' borders, deforming ones
 * breathing while they drift), sets only the objects clash_run_owner says it
 * owns, and advances; rank 0 compares every step's pairs with a one-rank
 * replicated run (mpi_comm = MPI_COMM_SELF) of the same scene on the same
 * process, given every state.  Identical pairs every step, for a swept run
 * and a static one with self-collision; the scene collides, more than one
 * rank reports pairs and some pairs join objects of different owners (on
 * more than one rank).  A third run crowds the objects on one side, so
 * the cells are cut again during the run.  Setting an object another rank owns is CLASH_EINPUT,
 * names the owner and changes nothing (the steps after it still match).  A
 * last run has ccd: rank 0's contacts are the one-rank run's every step, and
 * there are some.  Outside mpirun it skips (77).
 * With --time replicated|objects (and --objects N, --steps K) it times the
 * swept run instead, checking nothing: the figures of bench/RESULTS.md.
 */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "store/generators.h"
#include "store/mesh.h"

/* the scene: NOBJ objects on a GRID^3 lattice, STEPS steps (--time may ask for more) */
static int NOBJ = 150, STEPS = 20, GRID = 6;

/* every fifth object deforms (30 of 150), spread over the scene */
static int deforming(int o) { return o % 5 == 4; }

typedef struct motion {
    double p0[3], v[3], axis[3], w, phase;
} motion;

static uint64_t rng = 88172645463325252ULL;
static double uni(void) /* xorshift64: the same numbers on every rank */
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

static clash_mesh mesh_small, mesh_big;
static motion *mot;
static int crowd; /* the third variant: every object drifts towards x = 0, crowding one side of the scene */
static int ccd;   /* the last one: with ccd, the contacts compared too */

/* Where object o's centre is in state s. */
static double centre_at(int o, int s, int d)
{
    const double c = mot[o].p0[d] + mot[o].v[d] * s;
    return crowd && d == 0 ? c * (1.0 - 0.6 * s / STEPS) : c;
}

static void make_motions(void)
{
    rng = 88172645463325252ULL;
    GRID = (int)ceil(cbrt((double)NOBJ) - 1e-9);
    free(mot);
    mot = calloc((size_t)NOBJ, sizeof *mot);
    for (int o = 0; o < NOBJ; ++o) {
        motion *m = &mot[o];
        const int i = o % GRID, j = (o / GRID) % GRID, k = o / (GRID * GRID);
        const double p[3] = {2.1 * i + 0.3 * uni(), 2.1 * j + 0.3 * uni(), 2.1 * k + 0.3 * uni()};
        memcpy(m->p0, p, sizeof p);
        for (int d = 0; d < 3; ++d) m->v[d] = 0.16 * (uni() - 0.5);
        m->v[(int)(3 * uni()) % 3] += uni() < 0.5 ? 0.2 : -0.2; /* across the cells' borders */
        double a[3] = {uni() - 0.5, uni() - 0.5, uni() - 0.5}, n = 0;
        for (int d = 0; d < 3; ++d) n += a[d] * a[d];
        for (int d = 0; d < 3; ++d) m->axis[d] = a[d] / sqrt(n);
        m->w = o % 4 == 0 ? 0 : 0.25 * uni(); /* some do not turn */
        m->phase = 6.28 * uni();
    }
}

static const clash_mesh *mesh_of(int o) { return o % 3 == 0 ? &mesh_big : &mesh_small; }

/* Rotation by angle a about unit axis u (Rodrigues), row-major. */
static void rotation(const double u[3], double a, double R[9])
{
    const double c = cos(a), s = sin(a), t = 1 - c;
    R[0] = t * u[0] * u[0] + c, R[1] = t * u[0] * u[1] - s * u[2], R[2] = t * u[0] * u[2] + s * u[1];
    R[3] = t * u[0] * u[1] + s * u[2], R[4] = t * u[1] * u[1] + c, R[5] = t * u[1] * u[2] - s * u[0];
    R[6] = t * u[0] * u[2] - s * u[1], R[7] = t * u[1] * u[2] + s * u[0], R[8] = t * u[2] * u[2] + c;
}

static void pose_at(int o, int s, double R[9], double t[3])
{
    rotation(mot[o].axis, mot[o].w * s, R);
    for (int d = 0; d < 3; ++d) t[d] = centre_at(o, s, d);
}

/* Deforming object o in state s: its mesh breathing about its drifting centre. */
static void verts_at(int o, int s, double *xyz)
{
    const clash_mesh *m = mesh_of(o);
    const double f = 1.0 + 0.2 * sin(0.6 * s + mot[o].phase);
    for (int64_t v = 0; v < m->nverts; ++v)
        for (int d = 0; d < 3; ++d)
            xyz[3 * v + d] = centre_at(o, s, d) + f * m->xyz[3 * v + d] * (1 + 0.05 * d);
}

static clash_scene *make_scene(clash_error *err)
{
    clash_scene *sc = NULL;
    if (clash_scene_create(&sc, err)) return NULL;
    int ok = clash_scene_add_mesh(sc, mesh_small.xyz, mesh_small.nverts, mesh_small.tri, mesh_small.nfaces, err) == 0 &&
             clash_scene_add_mesh(sc, mesh_big.xyz, mesh_big.nverts, mesh_big.tri, mesh_big.nfaces, err) == 1;
    for (int o = 0; ok && o < NOBJ; ++o) {
        double R[9], t[3];
        pose_at(o, 0, R, t);
        ok = clash_scene_add_object(sc, o % 3 == 0, R, t, deforming(o), err) == o;
    }
    if (!ok) clash_scene_destroy(sc), sc = NULL;
    return sc;
}

/* Sets object o's state s on run (all objects, or those it owns). */
static int set_state(clash_run *run, int o, int s, double *buf, clash_error *err)
{
    if (deforming(o)) {
        verts_at(o, s, buf);
        return clash_run_set_vertices(run, o, buf, err);
    }
    double R[9], t[3];
    pose_at(o, s, R, t);
    return clash_run_set_pose(run, o, R, t, err);
}

/* One variant: mode, self-collision.  Returns the pairs compared. */
static size_t variant(int mode, int self, int rank, int size)
{
    clash_error err = {0}, e2 = {0};
    clash_scene *sa = make_scene(&err), *sb = make_scene(&e2);
    CHECK(sa && sb, "rank %d: scene: %s %s", rank, err.msg, e2.msg);
    if (!sa || !sb) return 0;
    MPI_Comm world = MPI_COMM_WORLD, self_comm = MPI_COMM_SELF;
    clash_config cfg = clash_config_default();
    cfg.mode = mode, cfg.self_collision = self, cfg.threads = 1, cfg.ccd = ccd;
    cfg.mpi_comm = &world;
    CHECK(clash_config_set(&cfg, "decompose", "objects", &err) == 0 && cfg.decompose == CLASH_DECOMPOSE_OBJECTS,
          "config_set decompose objects: %s", err.msg);
    clash_run *run = clash_run_create(sa, &cfg, &err);
    CHECK(run != NULL, "rank %d: decomposed run_create: %s", rank, err.msg);
    clash_config one = cfg;
    one.decompose = CLASH_DECOMPOSE_REPLICATED, one.mpi_comm = &self_comm;
    clash_run *ref = clash_run_create(sb, &one, &e2);
    CHECK(ref != NULL, "rank %d: one-rank run_create: %s", rank, e2.msg);
    double *buf = malloc(3 * sizeof *buf * (size_t)(mesh_big.nverts > mesh_small.nverts ? mesh_big.nverts : mesh_small.nverts));
    size_t compared = 0, cross = 0, contacts = 0;
    long reported = 0, bytes = 0;
    clash_step_stats last;
    memset(&last, 0, sizeof last);
    int owned = 0;
    for (int o = 0; run && o < NOBJ; ++o) owned += clash_run_owner(run, o) == rank;
    CHECK(!run || size == 1 || (owned > 0 && owned < NOBJ), "rank %d owns %d of %d objects", rank, owned, NOBJ);
    for (int s = 1; run && ref && buf && s <= STEPS; ++s) {
        if (s == 3 && size > 1) { /* an object of another rank: refused, nothing changed */
            int other = -1, otherd = -1;
            for (int o = 0; o < NOBJ; ++o)
                if (clash_run_owner(run, o) != rank) {
                    if (!deforming(o) && other < 0) other = o;
                    if (deforming(o) && otherd < 0) otherd = o;
                }
            const double R[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, t[3] = {100, 100, 100};
            CHECK(other >= 0 && clash_run_set_pose(run, other, R, t, &err) == CLASH_EINPUT &&
                      strstr(err.msg, "owned by rank"),
                  "rank %d: set_pose on object %d of rank %d: '%s'", rank, other, clash_run_owner(run, other), err.msg);
            if (otherd >= 0) {
                verts_at(otherd, 40, buf);
                CHECK(clash_run_set_vertices(run, otherd, buf, &err) == CLASH_EINPUT, "rank %d: set_vertices on "
                      "object %d of another rank was not refused", rank, otherd);
            }
        }
        for (int o = 0; o < NOBJ; ++o) {
            const int mine = clash_run_owner(run, o) == rank;
            if (mine && set_state(run, o, s, buf, &err)) CHECK(0, "rank %d: set %d: %s", rank, o, err.msg);
            if (set_state(ref, o, s, buf, &e2)) CHECK(0, "rank %d: ref set %d: %s", rank, o, e2.msg);
        }
        clash_pairs p, q;
        clash_step_stats st;
        const int rc = clash_run_advance(run, &p, &st, &err);
        CHECK(rc == 0, "rank %d: step %d: %s", rank, s, err.msg);
        CHECK(clash_run_advance(ref, &q, NULL, &e2) == 0, "rank %d: ref step %d: %s", rank, s, e2.msg);
        if (rc) break;
        CHECK(clash_run_state(run) == s, "rank %d: state %d after step %d", rank, clash_run_state(run), s);
        CHECK(size == 1 || st.dist_owned == owned, "rank %d: stats say %lld owned, not %d", rank,
              (long long)st.dist_owned, owned);
        reported += (long)st.dist_reported, bytes += (long)st.dist_bytes_sent, last = st;
        if (rank == 0) {
            CHECK(p.count == q.count && (!p.count || !memcmp(p.pairs, q.pairs, p.count * sizeof *p.pairs)),
                  "mode %d self %d step %d: %zu pairs decomposed on %d ranks, %zu on one rank", mode, self, s, p.count,
                  size, q.count);
            compared += q.count;
            clash_contacts c = {NULL, 0}, d = {NULL, 0};
            if (ccd) {
                CHECK(clash_run_contacts(run, &c, &err) == 0 && clash_run_contacts(ref, &d, &e2) == 0,
                      "step %d: contacts: %s %s", s, err.msg, e2.msg);
                size_t same = 0; /* (field by field: a contact has padding) */
                for (size_t i = 0; c.count == d.count && i < c.count; ++i) {
                    const clash_contact *x = &c.contacts[i], *y = &d.contacts[i];
                    same += x->kind == y->kind && x->obj_a == y->obj_a && x->id_a == y->id_a && x->obj_b == y->obj_b &&
                            x->id_b == y->id_b && !memcmp(&x->toi, &y->toi, sizeof x->toi);
                }
                CHECK(c.count == d.count && same == c.count,
                      "ccd step %d: %zu contacts decomposed on %d ranks, %zu on one rank (%zu the same)", s, c.count,
                      size, d.count, same);
                contacts += d.count;
            }
            for (size_t i = 0; i < p.count; ++i)
                cross += clash_run_owner(run, (int)p.pairs[i].obj_a) != clash_run_owner(run, (int)p.pairs[i].obj_b);
        } else {
            CHECK(p.count == 0, "rank %d: pairs come back on rank 0 only (got %zu)", rank, p.count);
        }
    }
    if (size > 1)
        printf("  rank %d: %lld objects owned, %lld present at the end, %lld rebuilds and %lld cuts in %d steps, "
               "%.0f bytes sent a step\n", rank, (long long)last.dist_owned, (long long)last.dist_present,
               (long long)last.dist_rebuilds, (long long)last.dist_cuts, STEPS, (double)bytes / STEPS);
    int with = reported > 0, ranks_with = 0;
    MPI_Allreduce(&with, &ranks_with, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        CHECK(compared > 0, "mode %d self %d: no pairs, so the test could not fail", mode, self);
        CHECK(!ccd || contacts > 0, "ccd: no contacts, so the test could not fail");
        CHECK(size == 1 || (ranks_with > 1 && cross > 0), "mode %d self %d: %d ranks reported pairs, %zu pairs of "
              "objects with different owners", mode, self, ranks_with, cross);
        CHECK(size == 1 || !crowd || last.dist_cuts > 1, "crowded: the cells were not cut again (%lld cuts)",
              (long long)last.dist_cuts);
        printf("mode %d self %d on %d rank%s: %zu pairs over %d steps identical to one rank; %d ranks reported, "
               "%zu pairs across owners\n", mode, self, size, size > 1 ? "s" : "", compared, STEPS, ranks_with, cross);
    }
    free(buf);
    clash_run_destroy(run), clash_run_destroy(ref);
    clash_scene_destroy(sa), clash_scene_destroy(sb);
    return compared;
}

/* --time replicated|objects [--objects N] [--steps K]: no checks, the swept
 * run on MPI_COMM_WORLD timed (the sum of its clash_run_advance calls, the
 * slowest rank's), with its rebuilds and bytes: for bench/RESULTS.md. */
static int timed(const char *how, int rank, int size)
{
    clash_error err = {0};
    clash_scene *sc = make_scene(&err);
    clash_config cfg = clash_config_default();
    MPI_Comm world = MPI_COMM_WORLD;
    cfg.mode = CLASH_MODE_SWEPT, cfg.threads = 1, cfg.mpi_comm = &world;
    clash_run *run = sc && !clash_config_set(&cfg, "decompose", how, &err) ? clash_run_create(sc, &cfg, &err) : NULL;
    double *buf = malloc(3 * sizeof *buf * (size_t)mesh_big.nverts);
    if (!run || !buf) {
        fprintf(stderr, "rank %d: %s\n", rank, err.msg);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    double t = 0, t_s0 = 0, in[4] = {0, 0, 0, 0};
    uint64_t pairs = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int s = 1; s <= STEPS; ++s) {
        for (int o = 0; o < NOBJ; ++o)
            if (clash_run_owner(run, o) == rank && set_state(run, o, s, buf, &err)) MPI_Abort(MPI_COMM_WORLD, 1);
        clash_pairs p;
        clash_step_stats st;
        const double t0 = MPI_Wtime();
        if (clash_run_advance(run, &p, &st, &err)) MPI_Abort(MPI_COMM_WORLD, 1);
        t += MPI_Wtime() - t0, t_s0 += st.seconds[CLASH_S0_MOTION];
        pairs += p.count;
        in[0] = (double)st.dist_rebuilds, in[1] += (double)st.dist_bytes_sent, in[2] = (double)st.dist_present;
        if (rank > 0 && st.dist_owned) in[3] += 8.0 * (double)st.dist_reported; /* pair keys to rank 0 */
    }
    double tmax = 0, s0max = 0, sum[4];
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&t_s0, &s0max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(in, sum, 4, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("decompose %s: ranks %d, objects %d, faces %lld, steps %d: %.3f ms a step (slowest rank; S0 %.3f: "
               "motion, and decomposed: boxes, states, rebuilds), "
               "%llu pairs, rebuilds %.0f (all ranks), bytes sent %.0f a step (all ranks; of them pair keys %.0f), "
               "objects present %.0f (all ranks, last step)\n",
               how, size, NOBJ, (long long)clash_scene_faces(sc), STEPS, 1e3 * tmax / STEPS, 1e3 * s0max / STEPS,
               (unsigned long long)pairs,
               sum[0], sum[1] / STEPS, sum[3] / STEPS, sum[2]);
    free(buf);
    clash_run_destroy(run), clash_scene_destroy(sc);
    return 0;
}

int main(int argc, char **argv)
{
    int provided = 0, rank = 0, size = 1;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (!getenv("OMPI_COMM_WORLD_SIZE") && !getenv("PMI_SIZE") && !getenv("PMIX_RANK")) {
        printf("SKIP: run under mpirun\n");
        MPI_Finalize();
        return 77;
    }
    clash_error err = {0};
    CHECK(clash_gen_sphere(80, &mesh_small, &err) == 0 && clash_gen_sphere(224, &mesh_big, &err) == 0, "%s", err.msg);
    const char *time_how = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--time")) time_how = argv[i + 1];
        if (!strcmp(argv[i], "--objects")) NOBJ = atoi(argv[i + 1]);
        if (!strcmp(argv[i], "--steps")) STEPS = atoi(argv[i + 1]);
    }
    make_motions();
    if (time_how) {
        const int rc = timed(time_how, rank, size);
        clash_mesh_free(&mesh_small), clash_mesh_free(&mesh_big), free(mot);
        MPI_Finalize();
        return rc;
    }
    variant(CLASH_MODE_SWEPT, 0, rank, size);
    variant(CLASH_MODE_STATIC, 1, rank, size);
    crowd = 1;
    variant(CLASH_MODE_SWEPT, 0, rank, size);
    crowd = 0, ccd = 1;
    variant(CLASH_MODE_SWEPT, 0, rank, size);
    clash_mesh_free(&mesh_small), clash_mesh_free(&mesh_big), free(mot);
    long failed = check_failed_, all = 0;
    MPI_Allreduce(&failed, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    const int status = check_finish("test_mpi_decomposed");
    MPI_Finalize();
    return all ? 1 : status;
}
