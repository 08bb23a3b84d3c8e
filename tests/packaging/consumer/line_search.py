"""A barrier-style line search in Python on clash's trial steps (clash.h,
"Trial steps, jumps and batched states"), the example to copy.

Spheres on a ring move toward its centre.  Every step the host proposes a
displacement for all of them, asks clash for the step without taking it
(run.query: the pairs, the contacts and the earliest time of impact of the
step to the proposed states), halves the step size until nothing touches on
the way (first_toi is 1 and no contact), then advances to the states found
and asks for the primitive pairs within the barrier's reach dhat
(run.proximity), as a barrier method's energy needs them.
So no step it takes has a contact: the bodies close in until they nearly
touch and then stop, which the script checks (every advance without
contacts, the last gap between neighbours small).  Run:
PYTHONPATH=build/python /usr/bin/python3 tests/packaging/consumer/line_search.py
"""
import argparse
import sys

import numpy as np
import clash


def sphere(st=8, sl=12):
    V = [[0, 0, 1]]
    for i in range(1, st):
        for j in range(sl):
            th, ph = np.pi * i / st, 2 * np.pi * j / sl
            V.append([np.sin(th) * np.cos(ph), np.sin(th) * np.sin(ph), np.cos(th)])
    V.append([0, 0, -1])
    s = len(V) - 1
    F = []
    for j in range(sl):
        F += [[0, 1 + j, 1 + (j + 1) % sl], [s, 1 + (st - 2) * sl + (j + 1) % sl, 1 + (st - 2) * sl + j]]
    for i in range(1, st - 1):
        for j in range(sl):
            a, b = 1 + (i - 1) * sl + j, 1 + (i - 1) * sl + (j + 1) % sl
            c, d = 1 + i * sl + j, 1 + i * sl + (j + 1) % sl
            F += [[a, c, b], [b, c, d]]
    return np.array(V), np.array(F, np.int32)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bodies", type=int, default=6)
    ap.add_argument("--steps", type=int, default=24)
    ap.add_argument("--halvings", type=int, default=10, help="the smallest step tried is 2^-halvings")
    args = ap.parse_args()
    n = args.bodies
    V, F = sphere()
    scene = clash.Scene()
    m = scene.add_mesh(V, F)
    ang = 2 * np.pi * np.arange(n) / n
    pos = np.column_stack([3.0 * np.cos(ang), 3.0 * np.sin(ang), np.zeros(n)])
    R = np.repeat(np.eye(3)[None], n, axis=0)
    ids = np.array([scene.add_object(m, R[i], pos[i]) for i in range(n)])
    run = clash.Run(scene, mode="swept", ccd=True)
    speed = 0.15
    halvings = touching = 0
    dhat = 0.25  # the barrier's reach
    for step in range(args.steps):
        dx = -speed * pos / np.linalg.norm(pos, axis=1)[:, None]  # the step the host would like to take
        alpha = 1.0
        for _ in range(args.halvings + 1):
            run.set_poses(ids, R, pos + alpha * dx)
            pairs, contacts, toi = run.query()
            if toi >= 1 and len(contacts) == 0:
                break
            alpha *= 0.5
            halvings += 1
        else:
            alpha = 0.0  # no step size down to 2^-halvings is free: stay
            run.set_poses(ids, R, pos)
        pos = pos + alpha * dx
        run.advance()
        if len(run.contacts()):
            touching += 1
        # a barrier method builds its energy from every vf and ee primitive pair
        # within dhat at the accepted state, with its distance (clash_run_proximity)
        near = run.proximity(dhat)
        if len(near) and not (near["distance"] <= dhat).all():
            print("line_search: FAILED (a proximity pair farther than dhat)", file=sys.stderr)
            return 1
        closest = float(near["distance"].min()) if len(near) else float("inf")
    gap = min(np.linalg.norm(pos[i] - pos[(i + 1) % n]) for i in range(n)) - 2.0
    print(f"line_search: {n} bodies, {args.steps} steps, {halvings} halvings, {touching} steps with contacts, "
          f"smallest gap between neighbours {gap:.4f}; at the end {len(near)} primitive pairs within dhat {dhat}, "
          f"the closest {closest:.4g} apart")
    if touching or halvings == 0 or not (-0.2 < gap < 0.05) or not len(near) or not closest > 0:
        print("line_search: FAILED (a step with contacts, no halving, the bodies did not close in, or no "
              "proximity pair at the end)",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
