/* motion.c: not written yet */
typedef int clash_placeholder_motion_;
