#!/usr/bin/env python3
"""test_run_objects.py — the Python wrappers of objects that come and go and
the host's filters (Run.add_object, remove_object, set_enabled, set_filter,
exclude_pair, set_self; issue 51), each against what it means:
an excluded or filtered pair gives no pairs while the others still do, an
added object meets what it is put on and nothing it would have swept
through, a removed id raises "object N was removed" and is never given
again, a disabled object leaves every pair, per-object self-collision, and
bad arguments raise clash.Error with status 2 naming the object.
Usage: test_run_objects.py   (with PYTHONPATH holding the built module)
"""
import math
import sys

import numpy as np

import clash

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def uv_sphere(k=7):
    """A closed UV sphere of radius 1: k latitude bands, 2k meridians."""
    V = [(0.0, 0.0, 1.0)]
    for i in range(1, k):
        th = math.pi * i / k
        for j in range(2 * k):
            ph = math.pi * j / k
            V.append((math.sin(th) * math.cos(ph), math.sin(th) * math.sin(ph), math.cos(th)))
    V.append((0.0, 0.0, -1.0))
    F, m = [], 2 * k
    ring = lambda i, j: 1 + (i - 1) * m + j % m
    for j in range(m):
        F.append((0, ring(1, j), ring(1, j + 1)))
    for i in range(1, k - 1):
        for j in range(m):
            a, b, c, d = ring(i, j), ring(i, j + 1), ring(i + 1, j), ring(i + 1, j + 1)
            F += [(a, c, b), (b, c, d)]
    last = len(V) - 1
    for j in range(m):
        F.append((last, ring(k - 1, j + 1), ring(k - 1, j)))
    return np.array(V), np.array(F, dtype=np.int32)


def objs(P):
    return {(int(p[0]), int(p[2])) for p in P}


def raises(f, needles, what):
    try:
        f()
    except clash.Error as e:
        ok = e.code == 2 and all(n in str(e) for n in needles)
        check(ok, f"{what}: status {e.code}, message {e}")
        return
    check(False, f"{what}: no error")


V, F = uv_sphere()
sc = clash.Scene()
m = sc.add_mesh(V, F)
for t in [(0, 0, 0), (1.2, 0, 0), (10, 0, 0)]:
    sc.add_object(m, t=t)
run = clash.Run(sc, mode="swept", threads=2)
check(objs(run.advance()) == {(0, 1)}, "step 1: objects 0 and 1 meet")

run.exclude_pair(1, 0)
check(len(run.advance()) == 0, "step 2: the excluded pair (0, 1) gives no pairs")
run.exclude_pair(0, 1, False)
check(objs(run.advance()) == {(0, 1)}, "step 3: the pair let back meets again")

# a second mesh while the run uses the scene; object 3 put on 2, far from 0 and the origin
m2 = sc.add_mesh(V * 0.5, F)
k = run.add_object(m2, t=(10.9, 0, 0))
check(k == 3, f"add_object gives id 3: {k}")
check(objs(run.advance()) == {(0, 1), (2, 3)}, "step 4: object 3 meets 2 only (no sweep from the origin)")

run.set_filter(2, 1, 0xFFFFFFFE)
run.set_filter(3, 1, 0xFFFFFFFE)
check(objs(run.advance()) == {(0, 1)}, "step 5: group 1 does not see group 1: no pair (2, 3)")
run.set_filter(3, 2, 0xFFFFFFFF)
check(objs(run.advance()) == {(0, 1), (2, 3)}, "step 6: 3 in group 2 meets 2 again")

run.set_enabled(0, False)
run.set_pose(0, np.eye(3), (0.05, 0, 0))  # a disabled object keeps moving
check(objs(run.advance()) == {(2, 3)}, "step 7: disabled object 0 in no pair")
run.set_enabled(0, True)
check(objs(run.advance()) == {(0, 1), (2, 3)}, "step 8: enabled again")

run.remove_object(3)
check(objs(run.advance()) == {(0, 1)}, "step 9: removed object 3 in no pair")
raises(lambda: run.set_pose(3, np.eye(3), (0, 0, 0)), ["object 3 was removed"], "set_pose of a removed object")
raises(lambda: run.set_filter(3, 1, 1), ["object 3 was removed"], "set_filter of a removed object")
k = run.add_object(m, t=(1.2, 1.0, 0))
check(k == 4, f"the next object gets id 4, not the removed 3: {k}")
check(objs(run.advance()) == {(0, 1), (0, 4), (1, 4)}, "step 10: object 4 meets 0 and 1")

raises(lambda: run.add_object(9), ["object 5", "mesh 9"], "add_object of an unknown mesh")
raises(lambda: run.add_object(m, t=(0, float("nan"), 0)), ["object 5", "trans[1]"], "add_object with a NaN")
raises(lambda: run.add_object(m, t=(0, 0)), ["add_object: t", "shape"], "add_object with a wrong shape")
raises(lambda: run.set_enabled(7, True), ["object 7"], "set_enabled of an unknown object")
raises(lambda: run.exclude_pair(1, 1), ["objects 1 and 1"], "exclude_pair of one object")
raises(lambda: run.set_filter(1, -1, 1), ["object 1", "group"], "set_filter with a negative group")
check(sc.objects == 5, f"refused calls add nothing: {sc.objects} objects")
check(objs(run.advance()) == {(0, 1), (0, 4), (1, 4)}, "step 11: the refused calls changed nothing")

# the queries of the current state follow the same filters
def prox_objs(P):
    return {(int(a), int(b)) for a, b in zip(P["obj_a"], P["obj_b"]) if a != b}
check((0, 1) in prox_objs(run.proximity(0.05)), "proximity: objects 0 and 1 are within 0.05")
run.exclude_pair(0, 1)
P = prox_objs(run.proximity(0.05))
check((0, 1) not in P and (0, 4) in P, f"proximity: the excluded pair (0, 1) is left out, (0, 4) kept: {sorted(P)}")
run.set_enabled(4, False)
check(not any(4 in p for p in prox_objs(run.proximity(0.05))), "proximity: the disabled object 4 is left out")
raises(lambda: run.distance(3, 0), ["object 3 was removed"], "distance to a removed object")
run.close()

# self-collision per object: two self-intersecting objects (two spheres 0.8 apart in one mesh)
V2 = np.vstack([V, V + (0.8, 0, 0)])
F2 = np.vstack([F, F + len(V)])
for cfg_self in (False, True):
    sc2 = clash.Scene()
    mm = sc2.add_mesh(V2, F2)
    sc2.add_object(mm, t=(0, 0, 0))
    sc2.add_object(mm, t=(10, 0, 0))
    r2 = clash.Run(sc2, mode="static", threads=2, self_collision=cfg_self)
    if cfg_self:
        r2.set_self(1, False)
    else:
        r2.set_self(0, True)
    check(objs(r2.advance()) == {(0, 0)}, f"self-collision of object 0 only (configured {cfg_self})")
    r2.close()

print(f"test_run_objects.py: {len(failures)} failed")
sys.exit(1 if failures else 0)
