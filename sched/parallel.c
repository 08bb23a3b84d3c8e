/* parallel.c: not written yet */
typedef int clash_placeholder_parallel_;
