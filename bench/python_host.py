"""python_host.py — what the Python binding costs a host per step.

400 rigid cubes (a 20 x 20 grid, neighbours 0.02 apart, touching in swept steps as they drift) are moved by the host
every step: each gets a new pose (a small turn and a drift, computed in
numpy before the timed part), set in one library call (run.set_poses), then
the step (run.advance(stats=True)).  Per step it times, side by side in one
run, the set and the advance together (wall clock, Python and binding
included) and takes from it the advance's own time from the step statistics
(stats["step_s"], the seven stages and the ccd stage): the rest is the host
overhead, the binding's cost.  The same with 400 run.set_pose calls, the way
before set_poses, for comparison.  Prints the medians over the steps and the
ratios overhead / advance (the aim: at most 1).  Run:

    PYTHONPATH=build/python /usr/bin/python3 bench/python_host.py [--mode static|swept] [--threads T]
"""
import argparse
import statistics
import time

import numpy as np
import clash

BOX_V = np.array([[x, y, z] for z in (-.5, .5) for y in (-.5, .5) for x in (-.5, .5)])
BOX_F = np.array([[0, 2, 1], [1, 2, 3], [4, 5, 6], [5, 7, 6], [0, 1, 4], [1, 5, 4], [2, 6, 3], [3, 6, 7],
                  [0, 4, 2], [2, 4, 6], [1, 3, 5], [3, 7, 5]], np.int32)


def rot_z(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s, np.zeros_like(a)], [s, c, np.zeros_like(a)],
                     [np.zeros_like(a), np.zeros_like(a), np.ones_like(a)]]).transpose(2, 0, 1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--objects", type=int, default=400)
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--mode", default="static")
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    n = args.objects
    side = int(np.ceil(np.sqrt(n)))
    grid = np.array([[1.02 * (i % side), 1.02 * (i // side), 0.0] for i in range(n)])
    ids = np.arange(n)
    phase = np.linspace(0, 2 * np.pi, n, endpoint=False)

    def make():
        sc = clash.Scene()
        m = sc.add_mesh(BOX_V, BOX_F)
        for i in range(n):
            sc.add_object(m, None, grid[i])
        return sc, clash.Run(sc, mode=args.mode, threads=args.threads)

    states = []
    for s in range(args.steps):  # the host's own work, outside the timings
        a = 0.02 * np.sin(0.1 * s + phase)
        t = grid + 0.02 * np.column_stack([np.sin(0.07 * s + phase), np.cos(0.05 * s + phase), np.zeros(n)])
        states.append((np.ascontiguousarray(rot_z(a)), np.ascontiguousarray(t)))

    res = {}
    for way in ("set_poses", "set_pose x %d" % n):
        sc, run = make()
        total, own, pairs = [], [], 0
        for R, t in states:
            t0 = time.perf_counter()
            if way == "set_poses":
                run.set_poses(ids, R, t)
            else:
                for i in range(n):
                    run.set_pose(i, R[i], t[i])
            p, st = run.advance(stats=True)
            total.append(time.perf_counter() - t0)
            own.append(st["step_s"])
            pairs += len(p)
        warm = slice(5, None)  # the first steps build what later ones keep
        tot, adv = statistics.median(total[warm]), statistics.median(own[warm])
        over = statistics.median([a - b for a, b in zip(total[warm], own[warm])])
        res[way] = (tot, adv, over, pairs)
        run.close(), sc.close()
    print(f"python_host: {n} cubes, {args.steps} steps, {args.mode}, {args.threads} thread(s); medians per step")
    for way, (tot, adv, over, pairs) in res.items():
        print(f"  {way:>14}: set + advance {1e3 * tot:7.3f} ms, advance's own (stats) {1e3 * adv:7.3f} ms, "
              f"host overhead {1e3 * over:7.3f} ms, overhead / advance {over / adv:5.2f}  ({pairs} pairs in all)")


if __name__ == "__main__":
    main()
