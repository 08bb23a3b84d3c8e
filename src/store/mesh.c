/*
 * mesh.c — the life of a clash_mesh (store/mesh.h), the one shape in which
 * readers and generators hand triangle meshes to the store.
 */
#include <stdlib.h>
#include <string.h>

#include "store/mesh.h"

void clash_mesh_free(clash_mesh *m)
{
    if (!m) return;
    free(m->xyz);
    free(m->tri);
    memset(m, 0, sizeof *m);
}
