#!/usr/bin/env python3
"""test_python.py — the Python module `clash` (issue 14) against the command.

1. Two copies of a shared mesh (../shared/data/meshes/suzanne.obj: a mesh
   nobody here made), built from numpy arrays; the second moved by poses the
   host computes each step.  The pairs of every step equal `clash run` on the
   equivalent scene file (the same poses written as position, rotation and
   velocity), in static mode (rotating) and in swept mode (translating).
2. A deforming object fed the frames of ../shared/data/ccd-frames/cloth-funnel
   through set_vertices equals `clash run` on the frames scene.
3. Bad arrays raise clash.Error with status 2 and a message naming the
   object or element, and leave the scene usable; index arrays of a
   non-integer dtype (whole floats too), indices outside the vertices or
   int32, non-finite, non-real or wrongly shaped vertex arrays are refused by
   the binding before the library is called; a repeated index by the store.
4. The rigid-body example (tests/packaging/consumer/rigid_host.py) runs.
5. Exact CCD (issue 15): run.contacts() on the cloth-funnel frames fed
   through set_vertices equals `clash run --ccd --contacts` on the frames
   scene, field for field (toi to the bit); bad ccd options raise status 2.
Usage: test_python.py CLASH_BIN DATA_DIR EXAMPLE.py   (exit 77: data missing)
"""
import csv
import json
import math
import os
import subprocess
import sys
import tempfile

import numpy as np

import clash

CLASH, DATA, EXAMPLE = sys.argv[1], sys.argv[2], sys.argv[3]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def read_obj(path):
    V, F = [], []
    with open(path) as f:
        for line in f:
            t = line.split()
            if not t:
                continue
            if t[0] == "v":
                V.append([float(x) for x in t[1:4]])
            elif t[0] == "f":
                idx = [int(x.split("/")[0]) - 1 for x in t[1:]]
                for k in range(1, len(idx) - 1):
                    F.append([idx[0], idx[k], idx[k + 1]])
    return np.array(V), np.array(F, dtype=np.int32)


def read_ply_binary(path):
    with open(path, "rb") as f:
        nv = nf = 0
        while True:
            line = f.readline().decode().strip()
            if line.startswith("element vertex"):
                nv = int(line.split()[-1])
            elif line.startswith("element face"):
                nf = int(line.split()[-1])
            elif line == "end_header":
                break
        V = np.frombuffer(f.read(24 * nv), dtype="<f8").reshape(nv, 3)
        rec = np.frombuffer(f.read(13 * nf), dtype=np.dtype([("n", "u1"), ("i", "<i4", 3)]))
        assert (rec["n"] == 3).all()
        return V.copy(), rec["i"].astype(np.int32)


def pose(rot_deg, s_ang_deg, pos, vel, s):
    """The scene file's pose formula, as store/motion.c computes it (same
    operations in the same order, libm's cos and sin)."""
    deg = 3.14159265358979323846 / 180.0
    a = (rot_deg[0] + s * s_ang_deg[0]) * deg
    b = (rot_deg[1] + s * s_ang_deg[1]) * deg
    c = (rot_deg[2] + s * s_ang_deg[2]) * deg
    ca, sa, cb, sb, cc, sc = math.cos(a), math.sin(a), math.cos(b), math.sin(b), math.cos(c), math.sin(c)
    R = np.array([[cc * cb, cc * sb * sa - sc * ca, cc * sb * ca + sc * sa],
                  [sc * cb, sc * sb * sa + cc * ca, sc * sb * ca - cc * sa],
                  [-sb, cb * sa, cb * ca]])
    t = np.array([pos[d] + s * vel[d] for d in range(3)])
    return R, t


def file_pairs(scene_path, mode, steps, tmp):
    out = os.path.join(tmp, "pairs.csv")
    subprocess.run([CLASH, "run", scene_path, "--mode", mode, "--steps", str(steps), "--pairs", out, "--quiet",
                    "--threads", "1"], check=True)
    rows = {}
    with open(out) as f:
        for r in csv.DictReader(f):
            rows.setdefault(int(r["step"]), []).append(
                (int(r["obj_a"]), int(r["face_a"]), int(r["obj_b"]), int(r["face_b"])))
    return rows


def rigid_case(tmp, mode, spin, vel, steps=6):
    mesh = os.path.join(DATA, "meshes", "suzanne.obj")
    V, F = read_obj(mesh)
    # The mesh sits away from the origin and poses turn about the origin, so
    # the second copy is placed where its centre lands 1.2 beside the first's.
    c = 0.5 * (V.min(axis=0) + V.max(axis=0))
    rot0 = [10.0, 20.0, 30.0]
    R00, _ = pose(rot0, spin, [0.0, 0.0, 0.0], vel, 0)
    pos0 = [float(x) for x in c - R00 @ c + np.array([1.2, 0.3, 0.1])]
    scene = {"format": "clash-scene/1", "name": "py-two", "steps": steps,
             "meshes": {"m": {"file": mesh}},
             "objects": [{"mesh": "m"},
                         {"mesh": "m", "position": pos0, "rotation_deg": rot0, "velocity": vel,
                          "angular_velocity_deg": spin}]}
    path = os.path.join(tmp, f"two-{mode}.json")
    with open(path, "w") as f:
        json.dump(scene, f)
    want = file_pairs(path, mode, steps, tmp)
    sc = clash.Scene()
    m = sc.add_mesh(V, F)
    sc.add_object(m)
    R0, t0 = pose(rot0, spin, pos0, vel, 0)
    b = sc.add_object(m, R0, t0)
    # every midphase, the object trees included (they move their trees by the host's poses)
    for mid in ("octree", "objoctree", "spherical", "boxtree", "doptree", "bvh"):
        run = clash.Run(sc, mode=mode, threads=2, midphase=mid)
        total = 0
        for s in range(1, steps + 1):
            R, t = pose(rot0, spin, pos0, vel, s)
            run.set_pose(b, R, t)
            got = [tuple(int(x) for x in r) for r in run.advance()]
            total += len(got)
            check(got == want.get(s, []), f"{mode} {mid}: step {s}: {len(got)} pairs from Python, "
                                          f"{len(want.get(s, []))} from the scene file")
        check(total > 0, f"{mode} {mid}: the copies never collide: the comparison proves nothing")
        print(f"rigid {mode} {mid}: {total} pairs over {steps} steps, equal to the scene file")
        run.close()
    return sc, m, b


def deforming_case(tmp):
    fdir = os.path.join(DATA, "ccd-frames", "cloth-funnel", "frames")
    f0, f1 = os.path.join(fdir, "227.ply"), os.path.join(fdir, "228.ply")
    scene = {"format": "clash-scene/1", "name": "py-frames", "steps": 1, "self_collision": True,
             "frames": {"files": [f0, f1], "objects": "single"}}
    path = os.path.join(tmp, "frames.json")
    with open(path, "w") as f:
        json.dump(scene, f)
    want = file_pairs(path, "swept", 1, tmp).get(1, [])
    V0, F = read_ply_binary(f0)
    V1, _ = read_ply_binary(f1)
    sc = clash.Scene()
    m = sc.add_mesh(V0, F)
    o = sc.add_object(m, deforming=True)
    run = clash.Run(sc, mode="swept", self_collision=True)
    run.set_vertices(o, V1)
    got = [tuple(int(x) for x in r) for r in run.advance()]
    check(len(want) > 0, "frames: the scene file reports no pair: the comparison proves nothing")
    check(got == want, f"frames: {len(got)} pairs from Python, {len(want)} from the scene file")
    print(f"deforming: {len(got)} pairs, equal to the frames scene")
    # exact CCD: the contacts of the same step, against the command's CSV
    out = os.path.join(tmp, "contacts.csv")
    subprocess.run([CLASH, "run", path, "--ccd", "--contacts", out, "--quiet", "--threads", "1"], check=True)
    with open(out) as f:
        want = [(0 if r["kind"] == "vf" else 1, int(r["obj_a"]), int(r["id_a"]), int(r["obj_b"]), int(r["id_b"]),
                 float(r["toi"])) for r in csv.DictReader(f)]
    run = clash.Run(sc, mode="swept", self_collision=True, ccd=True, ccd_tolerance="1e-6", threads=2)
    run.set_vertices(o, V1)
    run.advance()
    c = run.contacts()
    check(c.dtype == clash.CONTACT_DTYPE and c.dtype.itemsize == 32, f"contacts: dtype {c.dtype}")
    got = [(int(r["kind"]), int(r["obj_a"]), int(r["id_a"]), int(r["obj_b"]), int(r["id_b"]), float(r["toi"]))
           for r in c]
    check(len(want) > 0, "frames: the command reports no contact: the comparison proves nothing")
    check(got == want, f"frames: {len(got)} contacts from Python, {len(want)} from the command")
    check(all(0.0 <= t <= 1.0 for t in c["toi"]), "contacts: toi outside [0, 1]")
    print(f"deforming, --ccd: {len(got)} contacts ({int((c['kind'] == clash.CONTACT_VF).sum())} vf), "
          f"equal to the command's")


def expect_error(what, fn, words):
    try:
        fn()
    except clash.Error as e:
        check(e.code == 2, f"{what}: status {e.code}, expected 2")
        for w in words:
            check(w in e.message, f"{what}: message '{e.message}' does not name '{w}'")
        return
    check(False, f"{what}: no error")


def bad_input_cases(sc, m, b):
    V = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], dtype=float)
    F = np.array([[0, 1, 2]], dtype=np.int32)
    n0 = sc.objects
    Vn = V.copy()
    Vn[1, 2] = np.nan
    expect_error("NaN vertex", lambda: sc.add_mesh(Vn, F), ["vertex 1"])
    expect_error("index out of range", lambda: sc.add_mesh(V, np.array([[0, 1, 3]], dtype=np.int32)), ["triangle 0"])
    expect_error("empty mesh", lambda: sc.add_mesh(np.zeros((0, 3)), np.zeros((0, 3), dtype=np.int32)), [])
    # refused in the binding, before the library is called (a _L that fails proves it)
    real_L = clash._L

    def no_library():
        raise AssertionError("the library was called")
    clash._L = no_library
    try:
        Fi = np.array([[0, 1, 2]], dtype=np.int64)
        expect_error("float indices", lambda: sc.add_mesh(V, Fi.astype(float) + 0.5), ["F", "integer", "float64"])
        expect_error("whole float indices", lambda: sc.add_mesh(V, Fi.astype(float)), ["F", "integer"])
        expect_error("bool indices", lambda: sc.add_mesh(V, Fi.astype(bool)), ["F", "integer"])
        expect_error("index past int32", lambda: sc.add_mesh(V, Fi + 2**32), ["triangle 0", "4294967296"])
        expect_error("negative index", lambda: sc.add_mesh(V, Fi - 1), ["triangle 0", "corner 0", "-1"])
        expect_error("F of shape (3,)", lambda: sc.add_mesh(V, Fi[0]), ["F", "(3,)"])
        expect_error("NaN vertex (binding)", lambda: sc.add_mesh(Vn, Fi), ["vertex 1", "z", "V[1, 2]"])
        Vi = V.copy()
        Vi[2, 0] = -np.inf
        expect_error("infinite vertex", lambda: sc.add_mesh(Vi, Fi), ["vertex 2", "x", "-inf"])
        expect_error("V of shape (3, 2)", lambda: sc.add_mesh(V[:, :2], Fi), ["V", "(3, 2)"])
        expect_error("complex V", lambda: sc.add_mesh(V.astype(complex), Fi), ["V", "complex"])
        expect_error("string V", lambda: sc.add_mesh([["a", "b", "c"]], Fi), ["V", "dtype"])
    finally:
        clash._L = real_L
    check(sc.add_mesh(V, Fi.astype(np.uint16)) >= 0, "unsigned 16-bit indices are integers too")
    # a triangle with a repeated vertex index: refused by the library's store (its one way in)
    expect_error("repeated index", lambda: sc.add_mesh(V, np.array([[0, 1, 1]])),
                 ["face 0", "repeated vertex index 1"])
    expect_error("no such mesh", lambda: sc.add_object(99), ["99"])
    check(sc.objects == n0, "a refused call changed the scene")
    run = clash.Run(sc, mode="static")
    expect_error("not a rotation", lambda: run.set_pose(b, np.diag([1.0, 1.0, 2.0]), np.zeros(3)), [str(b)])
    expect_error("reflection", lambda: run.set_pose(b, np.diag([1.0, 1.0, -1.0]), np.zeros(3)), [str(b)])
    expect_error("wrong object", lambda: run.set_pose(7, np.eye(3), np.zeros(3)), ["7"])
    expect_error("set_vertices on a rigid object", lambda: run.set_vertices(b, np.zeros((3, 3))), [str(b)])
    expect_error("bad option", lambda: clash.Run(sc, midphase="nope"), ["midphase"])
    expect_error("ccd in static mode", lambda: clash.Run(sc, mode="static", ccd=True), ["ccd"])
    expect_error("ccd tolerance 0", lambda: clash.Run(sc, mode="swept", ccd=True, ccd_tolerance=0), ["ccd-tolerance"])
    expect_error("negative min-separation", lambda: clash.Run(sc, mode="swept", min_separation=-1.0),
                 ["min-separation"])
    expect_error("contacts without ccd", lambda: run.contacts(), ["ccd"])
    run.set_pose(b, np.eye(3), np.array([50.0, 0, 0]))
    check(len(run.advance()) == 0, "after refused calls the run still steps")
    expect_error("bad decompose", lambda: clash.Run(sc, decompose="nope"), ["decompose"])
    run.close()
    with clash.Run(sc, mode="static", decompose="objects") as one:  # one process: every object is this rank's
        check(one.owner(b) == 0 and one.owner(10**6) == -1, f"owner: {one.owner(b)}, {one.owner(10**6)}")
    print("bad input: every case refused with status 2")


def main():
    if not os.path.isdir(os.path.join(DATA, "meshes")) or not os.path.isdir(os.path.join(DATA, "ccd-frames")):
        print(f"skip: {DATA} (the shared data) is missing")
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        rigid_case(tmp, "static", spin=[0.0, 0.0, 4.0], vel=[-0.15, 0.0, 0.0])
        sc, m, b = rigid_case(tmp, "swept", spin=[0.0, 0.0, 0.0], vel=[-0.15, 0.02, 0.0])
        deforming_case(tmp)
        bad_input_cases(sc, m, b)
    r = subprocess.run([sys.executable, EXAMPLE, "--steps", "120"], capture_output=True, text=True)
    check(r.returncode == 0, f"the example failed: {r.stderr[-500:]}")
    check("contacts" in r.stdout, "the example printed no contact summary")
    print(f"{0 if failures else 1} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
