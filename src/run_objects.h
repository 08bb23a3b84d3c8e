/*
 * run_objects.h — what the run's life (pipeline.c) needs of run_objects.c,
 * the host's objects that come and go and its filters.
 */
#ifndef CLASH_RUN_OBJECTS_H
#define CLASH_RUN_OBJECTS_H

struct clash_objfilt;
/* Frees a run's filter (core/run.h; NULL: nothing). */
void clash_objfilt_free(struct clash_objfilt *F);

#endif
