/* scene.c: not written yet */
typedef int clash_placeholder_scene_;
