/* tribox.c: not written yet */
typedef int clash_placeholder_tribox_;
