/* mesh_io.c: not written yet */
typedef int clash_placeholder_mesh_io_;
