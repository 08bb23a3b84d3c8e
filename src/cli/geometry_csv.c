/*
 * geometry_csv.c — the pairs and contacts CSV files with --geometry: each
 * row as without it, then its geometry from clash_run_pair_geometry and
 * clash_run_contact_geometry (the same order as the pairs and contacts).
 * Doubles are written with 17 significant digits, so they read back bit for
 * bit; an undefined point (a pair whose faces do not meet in the state the
 * step reached) is written as nan.
 */
#include "cli/geometry_csv.h"

int clash_geom_pairs_header(FILE *f)
{
    return fputs("step,obj_a,face_a,obj_b,face_b,status,px,py,pz,qx,qy,qz\n", f) < 0 ? -1 : 0;
}

int clash_geom_contacts_header(FILE *f)
{
    return fputs("step,kind,obj_a,id_a,obj_b,id_b,toi,x,y,z,nx,ny,nz,w0,w1,w2,distance\n", f) < 0 ? -1 : 0;
}

int clash_geom_pairs_rows(FILE *f, int step, clash_run *run, const clash_pairs *p)
{
    const clash_pair_geom *g;
    size_t n;
    clash_error err;
    if (clash_run_pair_geometry(run, &g, &n, &err) || n != p->count) return -1;
    for (size_t i = 0; i < n; ++i) {
        const clash_pair *q = &p->pairs[i];
        if (fprintf(f, "%d,%u,%u,%u,%u,%d,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n", step, q->obj_a, q->face_a, q->obj_b,
                    q->face_b, g[i].status, g[i].p[0], g[i].p[1], g[i].p[2], g[i].q[0], g[i].q[1], g[i].q[2]) < 0)
            return -1;
    }
    return 0;
}

int clash_geom_contacts_rows(FILE *f, int step, clash_run *run, const clash_contacts *c)
{
    const clash_contact_geom *g;
    size_t n;
    clash_error err;
    if (clash_run_contact_geometry(run, &g, &n, &err) || n != c->count) return -1;
    for (size_t i = 0; i < n; ++i) {
        const clash_contact *q = &c->contacts[i];
        if (fprintf(f, "%d,%s,%u,%u,%u,%u,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n", step,
                    q->kind == CLASH_CONTACT_VF ? "vf" : "ee", q->obj_a, q->id_a, q->obj_b, q->id_b, q->toi,
                    g[i].point[0], g[i].point[1], g[i].point[2], g[i].normal[0], g[i].normal[1], g[i].normal[2],
                    g[i].w[0], g[i].w[1], g[i].w[2], g[i].distance) < 0)
            return -1;
    }
    return 0;
}
