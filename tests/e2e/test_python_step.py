"""test_python_step.py — the Python module's trial steps, jumps, batched
states, step statistics and mesh reader (clash.h, "Trial steps, jumps and
batched states"; src/python/clash).

 1. run.query() gives what the advance after it gives (pairs, contacts,
    first_toi against the step statistics' ccd_first_toi), after queries of
    other states too, and leaves the state number alone.
 2. run.jump(): a box jumped through a wall has no pairs, nor has the advance
    on from there; an advance in its place has.
 3. run.set_poses(ids, R, t) in one call equals set_pose object by object;
    set_vertices_many likewise.
 4. Wrong shapes, dtypes, NaN and unknown objects raise clash.Error naming the
    element, and the next advance equals a run's that never got the call.
 5. advance(stats=True) returns the statistics as a dict.
 6. clash.read_mesh reads a file into (V, F).
 7. `import clash` without numpy fails with a sentence naming /usr/bin/python3
    and python3-numpy.
Usage: test_python_step.py  (PYTHONPATH: the build tree's python folder)
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
import clash

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)


def sphere(st=6, sl=10):
    V = [[0, 0, 1]]
    for i in range(1, st):
        for j in range(sl):
            th, ph = np.pi * i / st, 2 * np.pi * j / sl
            V.append([np.sin(th) * np.cos(ph), np.sin(th) * np.sin(ph), np.cos(th)])
    V.append([0, 0, -1])
    s = len(V) - 1
    F = []
    for j in range(sl):
        F.append([0, 1 + j, 1 + (j + 1) % sl])
        F.append([s, 1 + (st - 2) * sl + (j + 1) % sl, 1 + (st - 2) * sl + j])
    for i in range(1, st - 1):
        for j in range(sl):
            a, b = 1 + (i - 1) * sl + j, 1 + (i - 1) * sl + (j + 1) % sl
            c, d = 1 + i * sl + j, 1 + i * sl + (j + 1) % sl
            F += [[a, c, b], [b, c, d]]
    return np.array(V), np.array(F, np.int32)


N = 6


def rot_z(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])


def poses(u):
    R = np.array([rot_z(0.05 * u * (o + 1)) for o in range(N)])
    r = 3.0 - 0.3 * u
    t = np.array([[r * np.cos(2 * np.pi * o / N), r * np.sin(2 * np.pi * o / N), 0.0] for o in range(N)])
    return R, t


def ring(deforming=False, **opts):
    V, F = sphere()
    sc = clash.Scene()
    m = sc.add_mesh(V, F)
    R, t = poses(0)
    for o in range(N):
        sc.add_object(m, R[o], t[o])
    if deforming:
        sc.add_object(m, None, None, deforming=True)
    return sc, clash.Run(sc, **opts), V


def query_then_advance():
    for opts in ({"mode": "static"}, {"mode": "swept"}, {"mode": "swept", "ccd": True},
                 {"mode": "swept", "midphase": "bvh", "threads": 2}):
        sa, A, _ = ring(**opts)
        sb, B, _ = ring(**opts)
        ids = np.arange(N)
        seen = 0
        for k in range(1, 6):
            for u in (k, k - 0.5, k - 0.75):  # a line search's trials
                B.set_poses(ids, *poses(u))
                p, c, toi = B.query()
                check(0 <= toi <= 1, f"{opts}: step {k}: first_toi {toi}")
            A.set_poses(ids, *poses(k))
            pa, st = A.advance(stats=True)
            ca = A.contacts() if opts.get("ccd") else np.zeros(0, clash.CONTACT_DTYPE)
            B.set_poses(ids, *poses(k))
            qp, qc, toi = B.query()
            check(np.array_equal(qp, pa), f"{opts}: step {k}: query {len(qp)} pairs, advance {len(pa)}")
            check(np.array_equal(qc, ca), f"{opts}: step {k}: query {len(qc)} contacts, advance {len(ca)}")
            if opts.get("ccd"):
                want = 1.0 if st["ccd_first_toi"] < 0 else st["ccd_first_toi"]
                check(toi == want, f"{opts}: step {k}: first_toi {toi}, the advance's {want}")
            pb = B.advance()
            check(np.array_equal(pb, pa),
                  f"{opts}: step {k}: advance after queries {len(pb)} pairs, without {len(pa)}")
            if opts.get("ccd"):
                check(np.array_equal(B.contacts(), ca), f"{opts}: step {k}: contacts after queries")
            seen += len(pa)
        check(seen > 0, f"{opts}: the ring never collides (the checks above test nothing)")


BOX_V = np.array([[x, y, z] for z in (-.5, .5) for y in (-.5, .5) for x in (-.5, .5)])
BOX_F = np.array([[0, 2, 1], [1, 2, 3], [4, 5, 6], [5, 7, 6], [0, 1, 4], [1, 5, 4], [2, 6, 3], [3, 6, 7],
                  [0, 4, 2], [2, 4, 6], [1, 3, 5], [3, 7, 5]], np.int32)


def wall():
    sc = clash.Scene()
    w = sc.add_mesh(BOX_V * [0.1, 8, 8], BOX_F)
    b = sc.add_mesh(BOX_V, BOX_F)
    sc.add_object(w)
    sc.add_object(b, None, [-3, 0, 0])
    return sc, clash.Run(sc, mode="swept")


def jump():
    I = np.eye(3)
    sc, run = wall()
    run.set_pose(1, I, [3, 0, 0])
    run.jump()
    run.set_pose(1, I, [3.5, 0, 0])
    check(len(run.advance()) == 0, "jump: the advance after a jump through the wall has pairs")
    run.set_pose(1, I, [-3, 0, 0])
    check(len(run.advance()) > 0, "jump: back through the wall: no pairs")
    sc2, run2 = wall()
    run2.set_pose(1, I, [3, 0, 0])
    check(len(run2.advance()) > 0, "jump: an advance through the wall: no pairs (the jump checks test nothing)")


def batched():
    sa, A, V = ring(deforming=True, mode="swept")
    sb, B, _ = ring(deforming=True, mode="swept")
    for k in range(1, 5):
        R, t = poses(k)
        for o in range(N):
            A.set_pose(o, R[o], t[o])
        A.set_vertices(N, V * (0.5 + 0.2 * k))
        B.set_poses(np.arange(N), R, t)
        B.set_vertices_many([N], [V * (0.5 + 0.2 * k)])
        pa, pb = A.advance(), B.advance()
        check(np.array_equal(pa, pb), f"batched: step {k}: {len(pb)} pairs, object by object {len(pa)}")


def refused(call, words, what):
    try:
        call()
    except clash.Error as e:
        check(e.code == 2, f"{what}: code {e.code}")
        for w in words:
            check(w in e.message, f"{what}: '{e.message}' does not name '{w}'")
        return
    check(False, f"{what}: no clash.Error")


def bad_arguments():
    ids = np.arange(N)
    R, t = poses(0)  # time 0: a change, were any of it applied
    Rn = R.copy()
    Rn[2, 1, 0] = np.nan
    tn = t.copy()
    tn[4, 2] = np.inf
    Rs = R.copy()
    Rs[1] *= 2  # not a rotation: the library's check
    cases = [
        ("set_poses: R of shape (n, 9)", lambda r: r.set_poses(ids, R.reshape(N, 9), t), ["R", "shape"]),
        ("set_poses: t of shape (n, 2)", lambda r: r.set_poses(ids, R, t[:, :2]), ["t", "shape"]),
        ("set_poses: fewer ids", lambda r: r.set_poses(ids[:3], R, t), ["R", "shape"]),
        ("set_poses: float ids", lambda r: r.set_poses(ids.astype(float), R, t), ["ids", "integer"]),
        ("set_poses: a NaN in R", lambda r: r.set_poses(ids, Rn, t), ["[2]", "object 2", "R[2, 1, 0]", "nan"]),
        ("set_poses: an inf in t", lambda r: r.set_poses(ids, R, tn), ["[4]", "object 4", "t[4, 2]"]),
        ("set_poses: string dtype", lambda r: r.set_poses(ids, R.astype(str), t), ["R", "real numbers"]),
        ("set_poses: an unknown object", lambda r: r.set_poses(np.array([0, 1, 99]), R[:3], t[:3]),
         ["[2]", "object 99"]),
        ("set_poses: not a rotation", lambda r: r.set_poses(ids, Rs, t), ["[1]", "object 1"]),
        ("set_vertices_many: a rigid object", lambda r: r.set_vertices_many([N, 0], [r._V, r._V]),
         ["[1]", "object 0"]),
        ("set_vertices_many: wrong vertex count", lambda r: r.set_vertices_many([N], [r._V[:-1]]),
         ["[0]", "object %d" % N, "shape"]),
        ("set_vertices_many: a NaN", lambda r: r.set_vertices_many([N, N], [r._V, r._Vn]),
         ["[1]", "object %d" % N, "Vs[1][7, 1]"]),
        ("set_vertices_many: unknown object", lambda r: r.set_vertices_many([N + 5], [r._V]),
         ["[0]", "object %d" % (N + 5)]),
        ("set_vertices_many: fewer arrays", lambda r: r.set_vertices_many([N, N], [r._V]), ["ids", "arrays"]),
    ]
    for what, call, words in cases:
        sa, A, V = ring(deforming=True, mode="swept")
        sb, B, _ = ring(deforming=True, mode="swept")
        B._V = V * 0.3
        B._Vn = B._V.copy()
        B._Vn[7, 1] = np.nan
        good = poses(4)
        for r in (A, B):
            r.set_poses(ids, *good)
            r.set_vertices_many([N], [V * 1.2])
        refused(lambda: call(B), words, what)
        pa, pb = A.advance(), B.advance()
        check(len(pa) > 0 and np.array_equal(pa, pb),
              f"{what}: the advance after the refused call has {len(pb)} pairs, a run without it {len(pa)}")
    sc, run = wall()
    run.close()


def stats_dict():
    sc, run, _ = ring(mode="static")
    run.set_poses(np.arange(N), *poses(5))
    pairs, st = run.advance(stats=True)
    check(isinstance(st, dict) and st["vertices"] == sc.vertices, f"stats: vertices {st.get('vertices')}")
    check(st["hits"] == len(pairs) and len(pairs) > 0, f"stats: hits {st['hits']}, pairs {len(pairs)}")
    check(set(st["seconds"]) == set(clash.STAGES) and st["step_s"] >= 0, "stats: per-stage seconds")
    check(st["candidates"] >= st["hits"] and st["ranks"] == 1, "stats: candidates, ranks")


def read_mesh():
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "quad.obj")
        with open(p, "w") as f:
            f.write("v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0.5\nf 1 2 3 4\n")
        V, F = clash.read_mesh(p)
        check(V.shape == (4, 3) and V[3, 2] == 0.5 and V.dtype == np.float64, f"read_mesh: V {V}")
        check(F.tolist() == [[0, 1, 2], [0, 2, 3]] and F.dtype == np.int32, f"read_mesh: F {F}")
        bad = os.path.join(d, "bad.obj")
        with open(bad, "w") as f:
            f.write("v 0 0 0\nv 1 0 0\nf 1 2 9\n")
        refused(lambda: clash.read_mesh(bad), ["bad.obj"], "read_mesh: an index out of range")


def without_numpy():
    code = "import sys; sys.modules['numpy'] = None; import clash"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    check(r.returncode != 0 and "/usr/bin/python3" in r.stderr and "python3-numpy" in r.stderr,
          f"import without numpy: {r.returncode} {r.stderr[-300:]}")


query_then_advance()
jump()
batched()
bad_arguments()
stats_dict()
read_mesh()
without_numpy()
print(f"test_python_step: {len(failures)} failed")
sys.exit(1 if failures else 0)
