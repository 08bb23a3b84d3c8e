/* hull.c: not written yet */
typedef int clash_placeholder_hull_;
