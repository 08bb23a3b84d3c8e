/* pipeline.c: not written yet */
typedef int clash_placeholder_pipeline_;
