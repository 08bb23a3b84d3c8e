/*
 * bind.h — pinning the workers of a team to cores or sockets (hwloc), as the
 * report pinned its processes for cache affinity ([Smith94] §4.5).
 *
 *   none   : the OS places threads (default)
 *   core   : worker w runs on core w of the cores this process may use
 *            (modulo their number); under mpirun each rank keeps to the
 *            cores the launcher gave it
 *   socket : worker w may run anywhere on the package holding core w
 *
 * Workers are pinned once, by running a pinning function on the team
 * (clash_bind_team); both backends keep the same threads from call to call
 * (the pthreads pool by design, OpenMP for a fixed team size), so the
 * binding holds for the whole run.  Only bind.c and topology.c include
 * hwloc.h; without hwloc, binding other than none is unavailable.
 */
#ifndef CLASH_BIND_H
#define CLASH_BIND_H

#include "sched/sched.h"

enum { CLASH_BIND_NONE = 0, CLASH_BIND_CORE = 1, CLASH_BIND_SOCKET = 2 };

/* 1 when this build can pin (hwloc). */
int clash_bind_available(void);
const char *clash_bind_name(int how);
/* Pins every worker of the team of ex.  Returns 0, or -1 when a worker
 * could not be pinned (or hwloc is missing); the message says why. */
int clash_bind_team(const clash_exec *ex, int how, char *msg, int msglen);

#endif
