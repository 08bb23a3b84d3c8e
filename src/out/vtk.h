/*
 * vtk.h — a ParaView time series of a run (`clash run --vtk DIR`).
 *
 * One VTK XML PolyData file per step, DIR/step_NNNNNN.vtp, holding every
 * vertex of the scene in that step's state (Points) and every face as a
 * triangle (Polys), with three per-face arrays (CellData):
 *   object     Int32   the face's object, 0-based in scene order
 *   face       Int32   the face's number inside its object (as in the pairs CSV)
 *   colliding  UInt8   1 when the face is in a colliding pair of this step
 * and an index DIR/clash.pvd (a "Collection" of DataSets, timestep = step)
 * that ParaView opens as one animated series.  The arrays are binary
 * (appended raw data, the default) or ASCII text (clash_vtk_set_format).
 *
 * Atomic: every file is first written under a temporary name inside a
 * temporary folder beside DIR ("DIR.tmp.PID"); clash_vtk_commit writes the
 * index and renames the folder to DIR, clash_vtk_abort removes it, so a
 * failed or interrupted run leaves no partial series.  DIR may not exist,
 * may be empty, or may hold an earlier series (only .vtp files and
 * clash.pvd), which the new one replaces; anything else is refused (exit 2)
 * so user files are never deleted.
 *
 * Declared in clash_internal.h, which the command uses too.
 */
#ifndef CLASH_VTK_H
#define CLASH_VTK_H

#include "clash_internal.h"

#endif
