/* mesh_stl.c: not written yet */
typedef int clash_placeholder_mesh_stl_;
