/* options.c: not written yet */
typedef int clash_placeholder_options_;
