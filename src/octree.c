/* octree.c: not written yet */
typedef int clash_placeholder_octree_;
