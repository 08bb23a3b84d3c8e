/* generators.c: not written yet */
typedef int clash_placeholder_generators_;
