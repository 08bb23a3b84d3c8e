/* report.c: not written yet */
typedef int clash_placeholder_report_;
