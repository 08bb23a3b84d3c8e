/* tritri.c: not written yet */
typedef int clash_placeholder_tritri_;
