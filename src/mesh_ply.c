/* mesh_ply.c: not written yet */
typedef int clash_placeholder_mesh_ply_;
