/*
 * tuning.h — the tuning constants of the pipeline in one place: block sizes
 * of the parallel loops, thresholds below which work stays on one thread,
 * split thresholds and cost factors.
 *
 * None of them changes a result: the pairs, contacts and reports' counts
 * are the same for any value (the loops' blocks are cut from the item
 * numbers alone and their results combined in block order, whatever the
 * team), except where a comment below says otherwise.  They change where
 * the time goes.  Each says what it trades and the bench command that
 * measures it; the figures are in bench/RESULTS.md, not here (they hold for
 * the machine they were taken on).  To retune one: change it, rebuild, run
 * the command on both builds side by side and compare medians, then check
 * bench/checksums.sh gives the same output.
 *
 * Constants only, no code: every folder may include it, kernels/ and
 * sched/ too (it uses nothing).
 */
#ifndef CLASH_BASE_TUNING_H
#define CLASH_BASE_TUNING_H

/* ---- the team: when to wake it, how to cut its work --------------------------------------- */

/* Below this many items of the cheapest kind (a vertex transformed, a face
 * boxed, a face culled) a parallel loop runs on the caller instead of
 * waking the team (sched.h, clash_exec_sized).  Lower wakes a team for
 * microseconds of work, which costs more than it saves when the other
 * cores are busy; higher leaves medium meshes on one thread.  Measured on
 * the two-mesh steps at 2 threads with a busy loop beside them:
 * bench/measure-meshes.sh (suzanne, cow, teapot). */
#define CLASH_TUNE_SMALL_WORK 4096

/* An object's share of S0's per-object work (its pose, turn and arc
 * margins: a few sines and cosines), in vertices transformed, for
 * clash_exec_sized: many small objects wake the team as many vertices do.
 * `clash run --preset cluttered --objects 16000 --threads T --report`,
 * S0's time against T. */
#define CLASH_TUNE_OBJ_WORK 32

/* S0: vertices a block of the transform loop (store/motion.c).  Large
 * enough that handing out blocks costs nothing against transforming them,
 * small enough that the last block leaves no worker idle for long.
 * `clash bench scale` (S0's time per face at 1 and 2 threads). */
#define CLASH_TUNE_VERTEX_BLOCK 16384

/* ---- S1, S3: face boxes and culling (stages/finegrain.c) ----------------------------------- */

/* Streaming stores only for ranges of at least this many faces: the ends
 * of a range and its store fence cost more than they save on short blocks
 * (--chunk 16).  `clash bench bbox --stores both`. */
#define CLASH_TUNE_NT_MIN_RANGE 4096

/* S3's default partition: faces a block, handed out dynamically.  Larger
 * blocks leave the last block's imbalance, smaller ones cost more in
 * handing out and merging the blocks' kept lists.  `clash bench cull`
 * (worker busy times). */
#define CLASH_TUNE_CULL_BLOCK 1024

/* S3: faces classified a vector pass (apart / inside / straddling) before
 * the straddlers take the exact test: the classes' buffer stays in L1.
 * `clash bench cull`. */
#define CLASH_TUNE_CULL_VEC 256

/* S3 with boxes deferred: faces of one object taken a piece at a time.
 * `clash bench cull` on the cluttered preset (most objects apart). */
#define CLASH_TUNE_DEFER_PIECE 1024

/* S3: kept faces above which the kept list is copied in parallel (with
 * --self every face is kept).  `clash bench cull --self`. */
#define CLASH_TUNE_CULL_COPY_PAR 32768

/* ---- S4: rows, the face octree, the other midphases ----------------------------------------- */

/* S4's rows and DOPs (stages/face_rows.c): kept faces a block, handed out as
 * the workers ask, so that a worker on a slowed CPU takes fewer instead of
 * holding S4 for its fixed half.  `clash run --preset cluttered --threads 2
 * --report` with and without a busy loop pinned beside the second worker. */
#define CLASH_TUNE_ROWS_BLOCK 4096

/* The face octree's binning: kept faces a block of phase 0.  The mean box
 * edge, which picks the level, is summed block by block and the block sums
 * in block order, so the level does not depend on the team; it may depend
 * on this value (another rounding of the mean), so changing it can change
 * the octree's level and with it the candidates (never the pairs).
 * `clash bench bvh --part 1` (S4's time). */
#define CLASH_TUNE_OCT_BIN_BLOCK 4096

/* The face octree's units: a unit is split further while it holds more than
 * max(kept faces / CLASH_TUNE_OCT_BIG_DIV, CLASH_TUNE_OCT_BIG_MIN) faces,
 * so that the ranks and workers get enough units of similar cost; smaller
 * units repeat more of the descent's top.  `clash bench fig43` and
 * `clash bench scaling` (S4 against workers). */
#define CLASH_TUNE_OCT_BIG_DIV 32
#define CLASH_TUNE_OCT_BIG_MIN 256

/* The producer-consumer strategy: candidate pairs a batch handed from the
 * producer to the consumers, and batches in the queue.  Larger batches
 * cost fewer hand-offs and start the consumers later.  `clash bench fig43`
 * (the producer-consumer rows). */
#define CLASH_TUNE_PC_BATCH 2048
#define CLASH_TUNE_PC_QUEUE 64

/* The BVH midphase in the objects' frames: units of at least this many
 * faces run their leaf pairs through a queue that overlaps the loads of
 * the next pair with the tests of this one; on smaller units the queue's
 * set-up costs more.  bench/measure-meshes.sh (two cows against the
 * graded torus). */
#define CLASH_TUNE_LQ_MIN_FACES 65536

/* The object-octree midphase: live entries a work unit at least, when the
 * entries are cut into 8 T units.  `clash bench seeds --midphases objoctree`. */
#define CLASH_TUNE_OBJOCT_UNIT_MIN 512

/* The broad phase's BVH queries (stages/broad_bvh.c): boxes a task.
 * `clash bench broadphase`. */
#define CLASH_TUNE_BROAD_TASK 1024

/* ---- S6 and --ccd ------------------------------------------------------------------------- */

/* S6: how far past its even share a worker's cut may look for the next
 * object boundary (keys), plus an eighth of a share, before it cuts
 * inside an object.  `clash bench scale` (S6's time at 2 threads). */
#define CLASH_TUNE_GATHER_CUT_REACH 4096

/* --ccd: primitive pairs a block of the kernel's batches (stages/ccd.c).
 * `clash bench ccd-run`. */
#define CLASH_TUNE_CCD_BLOCK 32

/* ---- decomposed runs ---------------------------------------------------------------------- */

/* The decomposed library run (decomposed.c) cuts the cells again when the
 * largest rank's faces over the mean pass CLASH_TUNE_RECUT_IMBALANCE, at
 * most every CLASH_TUNE_RECUT_EVERY steps: a cut costs every rank a
 * rebuild of its part, an imbalance costs the others a wait every step.
 * `mpirun -n R clash run --preset cluttered --decompose objects --report`
 * (the decomposition section's imbalance and wait times). */
#define CLASH_TUNE_RECUT_EVERY 10
#define CLASH_TUNE_RECUT_IMBALANCE 1.15
/* ... and when a rank makes its part again under clash_step, the part
 * takes in every object a scene-file formula brings near its cell within
 * the next CLASH_TUNE_DIST_AHEAD states (every rank evaluates the laws: no
 * message), so that the next rebuild is not a step or two away: a longer
 * look holds more ghosts, a shorter one rebuilds more often.  Same
 * command, the report's rebuilds and ghosts. */
#define CLASH_TUNE_DIST_AHEAD 10


#endif
