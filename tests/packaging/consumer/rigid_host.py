"""A rigid-body host in Python driving clash every step (issue 14's example).

Boxes fall under gravity onto a floor and onto each other; the host integrates
their positions and turns, and uses clash's face pairs to separate bodies that
touch: a body in contact with the floor or another body stops falling and
bounces.  Run: PYTHONPATH=build/python python3 tests/packaging/consumer/rigid_host.py
"""
import argparse
import numpy as np
import clash


def box(half):
    V = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], float) * half
    F = np.array([[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
                  [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]], np.int32)
    return V, F


def rot_z(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--bodies", type=int, default=8)
    args = ap.parse_args()
    rng = np.random.default_rng(1)
    scene = clash.Scene()
    floor = scene.add_object(scene.add_mesh(*box(np.array([20.0, 20.0, 0.5]))), None, [0, 0, -0.5])
    cube = scene.add_mesh(*box(np.full(3, 0.5)))
    n = args.bodies
    pos = np.column_stack([rng.uniform(-2, 2, n), rng.uniform(-2, 2, n), 2.0 + 1.5 * np.arange(n)])
    vel, ang, spin = np.zeros((n, 3)), np.zeros(n), rng.uniform(-0.05, 0.05, n)
    ids = [scene.add_object(cube, rot_z(0.0), p) for p in pos]
    run = clash.Run(scene, mode="swept")
    dt, g, contacts = 0.02, np.array([0, 0, -9.81]), 0
    for step in range(args.steps):
        vel += g * dt
        new_pos, new_ang = pos + vel * dt, ang + spin
        for k, o in enumerate(ids):
            run.set_pose(o, rot_z(new_ang[k]), new_pos[k])
        pairs = run.advance()
        touching = np.unique(np.concatenate([pairs[:, 0], pairs[:, 2]])) if len(pairs) else []
        hit = {int(o) for o in touching if o != floor}
        contacts += len(hit)
        for k, o in enumerate(ids):
            if o in hit and vel[k, 2] < 0:       # separate: undo the move, bounce with losses
                new_pos[k] = pos[k]
                vel[k] *= np.array([0.9, 0.9, -0.3])
        pos, ang = new_pos, new_ang              # the next step sweeps from clash's state to the next poses
    print(f"{args.steps} steps, {n} bodies, {contacts} body contacts; lowest body at z = {pos[:, 2].min():.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
