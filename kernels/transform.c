/* transform.c: not written yet */
typedef int clash_placeholder_transform_;
