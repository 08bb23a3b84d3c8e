/* mesh_off.c: not written yet */
typedef int clash_placeholder_mesh_off_;
