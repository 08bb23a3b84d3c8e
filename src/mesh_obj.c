/* mesh_obj.c: not written yet */
typedef int clash_placeholder_mesh_obj_;
