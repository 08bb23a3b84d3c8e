/*
 * test_pipeline_oracle.c — the coarse-to-fine pipeline against the
 * brute-force oracle on random small scenes.
 *
 * 240 scenes: rigid (2–5 spheres and boxes crowded together, random poses,
 * velocities and spins) and deforming (two jittered spheres as one mesh,
 * frames written as OBJ files, objects = components or single), static and
 * swept, with and without self-collision.  For every step the pair list of
 * the octree pipeline (automatic and random octree level, 1 and 2 threads,
 * every coarse-grain schedule) must equal the oracle's exactly.  Then 48
 * rigid swept scenes with a minimum separation D (0.05 to 0.3), whose
 * pairs within D but apart the cuts before S5 must keep.  The oracle
 * (--midphase brute) skips S2–S4 and sends every eligible face pair whose
 * boxes overlap through the same narrow kernels.
 *
 * CLASH_ORACLE_SCENES=N runs the first N scenes only (24..240): the
 * ThreadSanitizer stage of CI, where every pool hand-off is slow, runs 60.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "random_scenes.h"
#include "store/scene.h"

static const int sphere_faces[4] = {8, 24, 48, 80};

/* FNV-1a over the oracle's pair rows: one number for "the same pairs",
 * printed so that runs under each CLASH_ISA level can be compared
 * (tests/packaging/isa_levels.sh). */
static uint64_t digest_rows(uint64_t h, const row *r, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        const uint32_t w[5] = {(uint32_t)r[i].step, r[i].p.obj_a, r[i].p.face_a, r[i].p.obj_b, r[i].p.face_b};
        for (int k = 0; k < 5; ++k) h = (h ^ w[k]) * 0x100000001b3ull;
    }
    return h;
}

int main(void)
{
    char dir[] = "/tmp/clash-oracle-XXXXXX";
    if (!mkdtemp(dir)) return check_skip("cannot make a temporary folder");
    long total_pairs = 0, scenes_with_pairs = 0, compared = 0;
    uint64_t digest = 0xcbf29ce484222325ull;
    const char *env = getenv("CLASH_ORACLE_SCENES");
    int nscenes = env ? atoi(env) : 240;
    if (nscenes < 24 || nscenes > 240) nscenes = 240;
    for (int i = 0; i < nscenes; ++i) {
        clash_error err = {0};
        const int deforming = i % 3 == 2;
        clash_scene *sc = deforming ? rs_deforming(sphere_faces, dir, i, 2 + i % 2, (i / 3) % 2, &err)
                                    : rs_rigid(sphere_faces, 1, &err);
        CHECK(sc != NULL, "scene %d: %s", i, err.msg);
        if (!sc) continue;
        clash_config base = clash_config_default();
        base.mode = (i / 2) % 2 ? CLASH_MODE_STATIC : CLASH_MODE_SWEPT;
        base.self_collision = (i / 4) % 2 || (deforming && (i / 3) % 2);
        base.threads = 1;
        clash_config oracle = base;
        oracle.midphase = CLASH_MID_BRUTE;
        size_t no, nv;
        int ok = 1;
        row *ro = rs_run_rows(sc, oracle, -1, &no, &ok);
        total_pairs += (long)no;
        digest = digest_rows(digest, ro, no);
        scenes_with_pairs += no > 0;
        for (int variant = 0; variant < 3 && ok; ++variant) {
            clash_config c = base;
            c.threads = variant == 0 ? 1 : 2;
            c.octree_level = variant == 2 ? 1 + (int)(urand() * 8) : 0;
            c.schedule = variant == 0 ? CLASH_SCHED_DYNAMIC : variant == 1 ? CLASH_SCHED_STATIC_STRIDE
                                                                              : CLASH_SCHED_STATIC_CHUNK;
            c.partition = variant == 1 ? CLASH_PART_STRIDE : CLASH_PART_CHUNK;
            c.broadphase = variant == 1 ? CLASH_BROAD_SAP : CLASH_BROAD_AUTO;
            row *rv = rs_run_rows(sc, c, -1, &nv, &ok);
            int same = nv == no && (no == 0 || memcmp(rv, ro, no * sizeof *ro) == 0);
            CHECK(same, "scene %d (%s, %s%s), variant %d (level %d): pipeline %zu pairs, oracle %zu", i,
                  deforming ? "deforming" : "rigid", base.mode ? "swept" : "static", base.self_collision ? ", self" : "",
                  variant, c.octree_level, nv, no);
            if (!same) {
                for (size_t k = 0, j = 0; k < no || j < nv;) {
                    int cmp = k >= no ? 1 : j >= nv ? -1 : memcmp(&ro[k], &rv[j], sizeof *ro);
                    if (cmp) {
                        const row *r = cmp < 0 ? &ro[k] : &rv[j];
                        fprintf(stderr, "  %s only: step %d (%u,%u)-(%u,%u)\n", cmp < 0 ? "oracle" : "pipeline",
                                r->step, r->p.obj_a, r->p.face_a, r->p.obj_b, r->p.face_b);
                        if (cmp < 0) ++k; else ++j;
                    } else ++k, ++j;
                }
            }
            ++compared;
            free(rv);
        }
        free(ro);
        clash_scene_destroy(sc);
    }
    /* Swept with a minimum separation: pairs apart by less than D are
     * pairs too, so every cut before S5 (the boxes grown by D/2, the
     * objects' and faces' diagonal slabs widened by it) must keep them. */
    long sep_pairs = 0, sep_scenes = 0, sep_more = 0;
    for (int i = 0; i < 48; ++i) {
        clash_error err = {0};
        clash_scene *sc = rs_rigid(sphere_faces, 1, &err);
        CHECK(sc != NULL, "min-separation scene %d: %s", i, err.msg);
        if (!sc) continue;
        clash_config base = clash_config_default();
        base.mode = CLASH_MODE_SWEPT, base.threads = 1;
        clash_config plain = base, oracle = base;
        base.min_separation = oracle.min_separation = 0.05 * (1 + i % 6);
        oracle.midphase = CLASH_MID_BRUTE;
        size_t no, nv, n0;
        int ok = 1;
        row *ro = rs_run_rows(sc, oracle, -1, &no, &ok);
        row *rv = ok ? rs_run_rows(sc, base, -1, &nv, &ok) : NULL;
        row *r0 = ok ? rs_run_rows(sc, plain, -1, &n0, &ok) : NULL;
        if (ok) {
            CHECK(nv == no && (no == 0 || memcmp(rv, ro, no * sizeof *ro) == 0),
                  "min-separation scene %d (D %g): pipeline %zu pairs, oracle %zu", i, base.min_separation, nv, no);
            sep_pairs += (long)no, sep_scenes += no > 0, sep_more += no > n0;
            digest = digest_rows(digest, ro, no);
        }
        free(ro), free(rv), free(r0);
        clash_scene_destroy(sc);
    }
    printf("min-separation: 48 scenes, %ld pairs, %ld scenes with pairs, %ld with more pairs than without it\n",
           sep_pairs, sep_scenes, sep_more);
    CHECK(sep_more >= 8, "min-separation: only %ld scenes gain pairs from it: the test says little", sep_more);
    rmdir(dir);
    printf("oracle: %ld comparisons, %ld colliding pairs in total, %ld of %d scenes with collisions\n", compared,
           total_pairs, scenes_with_pairs, nscenes);
    printf("oracle: pairs digest %016llx\n", (unsigned long long)digest);
    CHECK(scenes_with_pairs >= nscenes / 4 && scenes_with_pairs <= nscenes - nscenes / 48,
          "scenes should mix collisions and none: %ld of %d", scenes_with_pairs, nscenes);
    return check_finish("test_pipeline_oracle");
}
