/*
 * decompose.h — `clash run --decompose objects`: the scene itself
 * shared out over the MPI ranks instead of held whole by every rank.
 *
 * The plan (decomp_plan.c), the same on every rank because it is computed
 * from the same numbers in the same order, with no message:
 *   - every rank keeps the scene's description only (per object its law of
 *     motion, mesh and face count: a few hundred bytes an object) and the
 *     facts of each mesh (radius, faces), never the whole store;
 *   - box(o, s): a box that holds everything of object o that the step into
 *     state s can test: the mesh's bounding sphere (radius r * scale around
 *     the law's translation, the centre of its rotation) at s-1 and at s,
 *     grown by the turn's margin (store/turn.c), --min-separation and a
 *     rounding allowance.  So if any face pair of objects a and b is a hit
 *     in step s, box(a, s) and box(b, s) overlap;
 *   - the world is cut into R sub-domains by recursive coordinate bisection
 *     (dist/rcb.c) of weighted points, each cut where the weight on either
 *     side is in the ratio of the ranks on either side (half-open cells: a
 *     point on a cut belongs to the upper side).  The points model the work
 *     (decomp_plan.c, work_points): every object's centre, weighted by its
 *     faces (S0-S3 box and cull them all), and for every pair of objects
 *     whose boxes overlap in a step of the epoch the min corner of the
 *     overlap, where the pair's reporter is found, weighted by the faces of
 *     both estimated inside the overlap (S3 keeps them, S4/S5 work on them);
 *   - the steps run in epochs of K steps (--rebalance-every).  For an epoch a
 *     rank holds the objects it owns (centre in its cell at the epoch's
 *     first step) plus ghosts: every object whose box in some step of the
 *     epoch reaches into its cell.  The cells are cut again at an epoch's
 *     start when the last epoch's measured imbalance (slowest rank's time in
 *     the steps over the mean) passed --imbalance;
 *   - the rank that reports pair (a, b) in step s is the owner of the cell
 *     holding the min corner of box(a, s) ∩ box(b, s).  That point lies in
 *     both boxes, so both objects are present on that rank, which finds all
 *     their face pairs (a pair's hits depend on its two objects only); every
 *     other rank drops them.  Each pair is reported once, with no exchange.
 *
 * Ghosts are built from the description (the mesh generator or file and
 * the law), not sent by their owners: for scenes from a file or a preset
 * that is the same data, and no mesh bytes travel.  The only messages of a
 * step are the pair keys gathered to rank 0 (bytes_sent in the report) and a
 * few agreements.
 *
 * Deforming (frames) scenes: box(o, s) is the box of the object's vertices
 * in frames s-1 and s (they move linearly between frames), grown by
 * --min-separation and a rounding allowance.  Every rank learns the objects
 * from frame 0 (io/scene_desc.h, clash_frames_layout: each object's mesh),
 * then reads the frame files one at a time, each freed before the next, to
 * keep every object's box in every frame (6 floats an object a frame).  An
 * epoch's part reads again only the frames its steps use (s0-1 .. s1), one
 * file at a time, and keeps the present objects' vertices of them: the
 * part's other frames are NULL.  So a rank holds about one frame of the
 * whole scene (frame 0's meshes) plus its part.  Host-set (API)
 * objects are decomposed by the library itself (decomposed.c: the host's
 * ranks send the states of the objects they own).
 */
#ifndef CLASH_CLI_DECOMPOSE_H
#define CLASH_CLI_DECOMPOSE_H

#include <stdint.h>

#include "base/tuning.h"
#include "dist/rcb.h"
#include "io/scene_desc.h"
#include "sched/ranks.h"
#include "store/scene.h"

/* The cells' work model (decomp_plan.c): a face boxed and culled (S0-S3,
 * every face of a present object) weighs this much against one face the
 * model places in an overlap region (base/tuning.h says how it is derived). */
#define CLASH_DECOMP_FACE_COST CLASH_TUNE_DECOMP_FACE_COST

typedef struct clash_decomp {
    const clash_scene_desc *d;
    int R, me, nobj;
    clash_pose *pose;       /* nobj: each object's law */
    double *mrad;           /* nmeshes: mesh radius (store units, before the object's scale) */
    int64_t *mnf, *mnv;     /* nmeshes: faces, vertices (0 for meshes no object uses) */
    int64_t *gfofs;         /* nobj + 1: first global face of each object */
    int64_t nv;             /* vertices of the whole scene */
    double min_sep;         /* --min-separation: boxes grow by it */
    clash_rcb cells;        /* R cells (dist/rcb.h, shared with the API's decomposed run) */
    /* this epoch (steps s0..s1) */
    int s0, s1;
    int npresent, nowned;   /* objects on this rank, of them owned */
    int *present;           /* npresent global ids, ascending: local object i is global present[i] */
    int64_t faces;          /* faces on this rank (owned and ghosts) */
    int recuts;             /* cuts made (the first one included) */
    int *owner;             /* nobj: each object's owner in this epoch */
    clash_frames_layout *fl; /* deforming (frames) scenes: the objects, learnt from frame 0 (the
                               frames themselves are read again for each epoch); NULL for rigid scenes */
    float *fbox;            /* deforming: nframes x nobj x 6, each object's box (lo, hi) in each frame */
    double (*blo)[3], (*bhi)[3]; /* nobj: every object's box in step box_s (clash_decomp_reports) */
    int box_s;
    int64_t migrations;     /* objects whose owner changed from one epoch to the next, summed */
} clash_decomp;

/* The plan's fixed part: laws and mesh facts (a scene of one object per mesh
 * is built and dropped to learn them).  Returns 0, or an error code with err. */
int clash_decomp_init(clash_decomp *D, const clash_scene_desc *d, const clash_ranks *W, double min_sep,
                      clash_error *err);
void clash_decomp_free(clash_decomp *D);
/* box(o, s) of the comment above. */
void clash_decomp_box(const clash_decomp *D, int o, int s, double lo[3], double hi[3]);
/* The rank whose cell holds point p. */
int clash_decomp_owner(const clash_decomp *D, const double p[3]);
/* Plans epoch s0..s1: cuts the cells again when recut (always on the first
 * call), then this rank's present and owned objects.  Returns 0, or -1 when
 * out of memory. */
int clash_decomp_epoch(clash_decomp *D, int s0, int s1, int recut);
/* The scene of this rank's present objects (NULL with *rc 0 when it has
 * none).  Returns the scene, or NULL with *rc an error code and err set. */
clash_scene *clash_decomp_build(const clash_decomp *D, int *rc, clash_error *err);
/* 1 when this rank reports pair (global objects a <= b) in step s (-1:
 * out of memory for the step's boxes). */
int clash_decomp_reports(clash_decomp *D, int a, int b, int s);

/* The decomposed `clash run` (decompose.c); returns the exit status. */
struct clash_cli;
int clash_cmd_run_decomposed(const struct clash_cli *cli, volatile int *interrupted);

#endif
