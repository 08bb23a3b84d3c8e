/* presets.c: not written yet */
typedef int clash_placeholder_presets_;
