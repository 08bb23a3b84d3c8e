/* boxes.c: not written yet */
typedef int clash_placeholder_boxes_;
