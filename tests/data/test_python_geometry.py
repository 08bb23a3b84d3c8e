#!/usr/bin/env python3
"""test_python_geometry.py — the Python wrappers of contact geometry,
distances, proximity and edge tables (src/python/clash, clash.h "Contact
geometry, distances, proximity, edge tables"), and the command's --geometry
columns.

1. A static scene of two suzannes (../shared/data/meshes): run.pair_geometry()
   equals the pairs CSV of `clash run --geometry` on the same scene file,
   column for column to the bit; the pairs without --geometry are the same
   (checksum).  (That the segments are right: tests/unit/test_geometry.c.)
2. Two cubes g apart (1e-3 ... 1e-9): run.distance() is g, found, with its
   nearest points g apart; the least distance of run.proximity() with a
   large dhat equals it (two independent paths: triangle pairs through the
   trees, primitive pairs); max_distance below it finds nothing.
3. A vertex falling onto a face (ccd): contact_geometry()'s point, normal
   (toward where the vertex came from) and weights; object_pairs()'s counts
   and first toi; scene.edges() resolves every ee proximity pair.
4. Bad arguments raise clash.Error with status 2 naming the object or value.
Usage: test_python_geometry.py CLASH_BIN DATA_DIR   (exit 77: data missing)
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

CLASH, DATA = sys.argv[1], sys.argv[2]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)


def expect_error(fn, needle, what):
    try:
        fn()
    except clash.Error as e:
        check(e.code == 2 and needle in e.message, f"{what}: status {e.code}, '{e.message}' (wanted '{needle}')")
        return
    check(False, f"{what}: no error raised")


def cube(lo, hi):
    V = np.array([[hi[0] if i & 1 else lo[0], hi[1] if i & 2 else lo[1], hi[2] if i & 4 else lo[2]]
                  for i in range(8)], dtype=np.float64)
    F = np.array([[0, 2, 3], [0, 3, 1], [4, 5, 7], [4, 7, 6], [0, 1, 5], [0, 5, 4], [2, 6, 7], [2, 7, 3],
                  [0, 4, 6], [0, 6, 2], [1, 3, 7], [1, 7, 5]], dtype=np.int32)
    return V, F


# ---- 1. intersection segments against the command's --geometry columns ------------------------------
def part_segments(tmp):
    mesh = os.path.join(DATA, "meshes", "suzanne.obj")
    scene = {"format": "clash-scene/1", "name": "two-suzannes", "steps": 1, "mode": "static",
             "meshes": {"s": {"file": mesh, "center": True}},
             "objects": [{"mesh": "s", "position": [0, 0, 0]},
                         {"mesh": "s", "position": [0.3, 0.1, 0.05], "rotation_deg": [30, 50, 10]}]}
    path = os.path.join(tmp, "scene.json")
    with open(path, "w") as f:
        json.dump(scene, f)
    csv_g, csv_p = os.path.join(tmp, "geom.csv"), os.path.join(tmp, "plain.csv")
    rep_g, rep_p = os.path.join(tmp, "geom.yaml"), os.path.join(tmp, "plain.yaml")
    for extra, out, rep in ((["--geometry"], csv_g, rep_g), ([], csv_p, rep_p)):
        subprocess.run([CLASH, "run", path, "--quiet", "--pairs", out, "--report", rep] + extra, check=True)
    checksum = [next(l for l in open(r) if l.startswith("pairs_checksum")) for r in (rep_g, rep_p)]
    check(checksum[0] == checksum[1], f"--geometry changed the pairs: {checksum}")
    rows = list(csv.DictReader(open(csv_g)))
    plain = list(csv.DictReader(open(csv_p)))
    check([[r[k] for k in ("obj_a", "face_a", "obj_b", "face_b")] for r in rows] ==
          [[r[k] for k in ("obj_a", "face_a", "obj_b", "face_b")] for r in plain], "the pairs' columns differ")
    sc = clash.Scene.load(path)
    run = clash.Run(sc, geometry=True, threads=2)
    pairs = run.step(1)
    g = run.pair_geometry()
    check(len(pairs) == len(rows) > 50 and len(g) == len(pairs),
          f"{len(pairs)} pairs, {len(rows)} rows, {len(g)} geometries")
    same = all(float(r["px"]) == float(x["p"][0]) or (math.isnan(float(r["px"])) and math.isnan(x["p"][0]))
               for r, x in zip(rows, g))
    same &= all(int(r["status"]) == int(x["status"]) and [float(r[k]) for k in ("qx", "qy", "qz")] == list(x["q"])
                for r, x in zip(rows, g) if int(r["status"]) == 1)
    check(same, "run.pair_geometry() differs from the command's columns")
    ok = g["status"] == 1
    check(np.all(np.isfinite(g["p"][ok])) and np.all(np.isnan(g["p"][~ok])),
          "segment ends: finite exactly for status 1")
    print(f"segments: {len(pairs)} pairs, {int(np.sum(g['status'] == 1))} segments")


# ---- 2. distances and proximity of two cubes ----------------------------------------------------------
def part_distance():
    for e in (3, 5, 7, 9):
        gap = 10.0 ** -e
        sc = clash.Scene()
        V, F = cube((0, 0, 0), (1, 1, 1))
        m = sc.add_mesh(V, F)
        sc.add_object(m)
        c, s = math.cos(0.3), math.sin(0.3)
        R = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])
        sc.add_object(m, R, [0.2, 0.1, 1 + gap])  # turned about z, resting gap above
        run = clash.Run(sc, mode="static")
        d = run.distance(0, 1)
        check(d["found"] == 1 and abs(d["distance"] - gap) <= 1e-15 + 1e-9 * gap,
              f"cubes {gap} apart: distance {d['distance']!r}")
        check(abs(np.linalg.norm(d["pa"] - d["pb"]) - d["distance"]) <= 1e-15, "nearest points")
        prox = run.proximity(0.5)
        check(len(prox) > 0 and abs(prox["distance"].min() - d["distance"]) <= 1e-15,
              f"cubes {gap}: least proximity {prox['distance'].min() if len(prox) else None!r} "
              f"against {d['distance']!r}")
        check(np.all(prox["distance"] <= 0.5) and set(np.unique(prox["kind"])) <= {0, 1}, "proximity fields")
        none = run.distance(0, 1, gap / 2)
        check(none["found"] == 0 and math.isinf(none["distance"]), "max_distance below the distance")
        # every ee pair's edges resolve through the edge table
        E = sc.edges(1)
        check(E.shape == (18, 2) and np.all(E[:, 0] < E[:, 1]), f"a cube's edges: {E.shape}")
        ee = prox[prox["kind"] == clash.CONTACT_EE]
        check(len(ee) > 0 and np.all(ee["id_a"] < len(E)) and np.all(ee["id_b"] < len(E)), "ee ids within the table")
    print("distances: cubes 1e-3 ... 1e-9 apart")


# ---- 3. contact geometry and object pairs -------------------------------------------------------------
def part_contacts():
    sc = clash.Scene()
    face = sc.add_mesh(np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], float), np.array([[0, 1, 2]], np.int32))
    tri = sc.add_mesh(np.array([[0.2, 0.3, 0.5], [0.2, 0.35, 2.5], [0.25, 0.3, 2.5]], float),
                      np.array([[0, 1, 2]], np.int32))
    sc.add_object(face)
    sc.add_object(tri)
    run = clash.Run(sc, mode="swept", ccd=True, geometry=True)
    run.set_pose(1, np.eye(3), [0, 0, -1])
    pairs = run.advance()
    c, g, op = run.contacts(), run.contact_geometry(), run.object_pairs()
    check(len(c) == 1 and len(g) == 1, f"{len(c)} contacts")
    if len(g) == 1:
        check(np.allclose(g["point"][0], [0.2, 0.3, 0], atol=1e-5), f"point {g['point'][0]}")
        check(np.allclose(g["normal"][0], [0, 0, 1], atol=1e-12), f"normal {g['normal'][0]}")
        check(np.allclose(g["w"][0], [0.5, 0.2, 0.3], atol=1e-9), f"weights {g['w'][0]}")
    check(len(op) == 1 and op[0]["obj_a"] == 0 and op[0]["obj_b"] == 1 and op[0]["contacts"] == len(c) and
          op[0]["face_pairs"] == len(pairs) and (len(c) == 0 or op[0]["first_toi"] == c["toi"].min()),
          f"object pairs {op}")
    print("contact geometry: vf", g)


# ---- 4. bad arguments ---------------------------------------------------------------------------------
def part_errors():
    sc = clash.Scene()
    V, F = cube((0, 0, 0), (1, 1, 1))
    m = sc.add_mesh(V, F)
    sc.add_object(m), sc.add_object(m, None, [3, 0, 0])
    run = clash.Run(sc)
    expect_error(lambda: run.distance(0, 5), "object 5", "distance to an unknown object")
    expect_error(lambda: run.distance(1, 1), "objects 1 and 1", "distance of an object to itself")
    expect_error(lambda: run.distance(0, 1, float("nan")), "max_distance is nan", "NaN max_distance")
    expect_error(lambda: run.distance(0, 1, -1), "max_distance is -1", "negative max_distance")
    expect_error(lambda: run.proximity(-0.1), "dhat is -0.1", "negative dhat")
    expect_error(lambda: run.proximity(float("nan")), "dhat is nan", "NaN dhat")
    expect_error(lambda: run.pair_geometry(), "without geometry", "geometry off")
    expect_error(lambda: sc.edges(2), "object 2", "edges of an unknown object")
    check(run.distance(0, 1)["distance"] == 2.0, "the cubes are 2 apart")


def main():
    if not os.path.isdir(os.path.join(DATA, "meshes")):
        print("SKIP: ../shared/data is missing")
        sys.exit(77)
    with tempfile.TemporaryDirectory() as tmp:
        part_segments(tmp)
    part_distance()
    part_contacts()
    part_errors()
    print(f"test_python_geometry: {len(failures)} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
