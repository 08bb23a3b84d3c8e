#!/usr/bin/env python3
"""ccd_generated.py — `clash run --ccd` on the generated frames scenes of
bench/framesgen.py (issue 53), with their ground truth.

  ccd_generated.py cloth CLASH FRAMESGEN WORKDIR
  ccd_generated.py rigid CLASH FRAMESGEN WORKDIR MESH.obj

cloth: the flat sheet translating down onto the sphere (framesgen.py cloth
--flat, small): every contact of its .truth file (each sphere vertex above
the sheet's final plane meets the cloth face over it at t = (z0 - z) /
(z0 - z1)) must be among the vf contacts, its toi not later than t and
within the tolerance (1e-6) of it.
rigid: pairs of copies of a mesh that meet during the step: every pair of
copies has contacts, and no contact joins two copies of different pairs
(they stay 2.5 bounding radii apart).
Both: the contacts (rows of the CSV, toi included) are the same at 1 and 2
threads.  Exit 0 pass, 1 fail, 77 skip (the mesh missing).
"""
import csv
import os
import subprocess
import sys

TOL = 1e-6


def run(clash, scene, out, threads):
    r = subprocess.run([clash, "run", scene, "--ccd", "--ccd-tolerance", repr(TOL), "--contacts", out,
                        "--threads", str(threads)], capture_output=True, text=True)
    if r.returncode != 0:
        print("FAIL: clash run %s --threads %d: exit %d: %s" % (scene, threads, r.returncode, r.stderr.strip()))
        sys.exit(1)
    with open(out) as fh:
        return list(csv.DictReader(fh))


def main(argv):
    if len(argv) < 5 or argv[1] not in ("cloth", "rigid") or (argv[1] == "rigid") != (len(argv) == 6):
        print(__doc__)
        return 2
    kind, clash, gen, work = argv[1], argv[2], argv[3], argv[4]
    os.makedirs(work, exist_ok=True)
    if kind == "cloth":
        cmd = [sys.executable, gen, "cloth", work, "--n", "24", "--rings", "12", "--flat"]
        name = "gen-cloth-flat"
    else:
        if not os.path.isfile(argv[5]):
            print("SKIP: %s missing" % argv[5])
            return 77
        cmd = [sys.executable, gen, "rigid", work, argv[5], "--copies", "4"]
        name = "gen-rigid"
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    scene = os.path.join(work, name + ".json")
    rows = {t: run(clash, scene, os.path.join(work, "%s-%d.csv" % (name, t)), t) for t in (1, 2)}
    fails = 0
    if rows[1] != rows[2]:
        print("FAIL: %s: %d contacts at 1 thread, %d at 2, or other ones" % (name, len(rows[1]), len(rows[2])))
        fails += 1
    if kind == "cloth":
        vf = {(int(r["id_a"]), int(r["id_b"])): float(r["toi"]) for r in rows[1] if r["kind"] == "vf"}
        with open(os.path.join(work, name + ".truth")) as fh:
            truth = [(int(w[1]), int(w[2]), float(w[3])) for w in (line.split() for line in fh)]
        if len(truth) < 10:
            print("FAIL: %s: only %d ground-truth contacts generated" % (name, len(truth)))
            fails += 1
        for v, f, t in truth:
            got = vf.get((v, f))
            if got is None:
                print("FAIL: %s: vertex %d, face %d (toi %.17g) not among the %d vf contacts" % (name, v, f, t,
                                                                                              len(vf)))
                fails += 1
            elif not (got <= t + 1e-12 and t - got <= TOL):
                print("FAIL: %s: vertex %d, face %d: toi %.17g, the truth %.17g" % (name, v, f, got, t))
                fails += 1
        print("%s: %d ground-truth contacts, %d contacts in all" % (name, len(truth), len(rows[1])))
    else:
        # one object ("single"): copy k holds vertices [k nv, (k+1) nv) and faces [k nf, (k+1) nf)
        with open(os.path.join(work, name, "0.ply"), "rb") as fh:
            head = fh.read(300).decode("latin-1")
        nv = int(head.split("element vertex ")[1].split()[0]) // 4
        nf = int(head.split("element face ")[1].split()[0]) // 4
        faces = sum(1 for r in rows[1] if r["kind"] == "vf")
        pairs = set()
        bad = 0
        for r in rows[1]:
            if r["kind"] != "vf":
                continue
            a, b = int(r["id_a"]) // nv, int(r["id_b"]) // nf
            if a // 2 != b // 2:
                bad += 1
            if a != b:
                pairs.add(a // 2)
        if bad:
            print("FAIL: %s: %d vf contacts between copies of different pairs" % (name, bad))
            fails += 1
        if pairs != {0, 1}:
            print("FAIL: %s: vf contacts within the pairs %s, expected both (0, 1)" % (name, sorted(pairs)))
            fails += 1
        print("%s: %d contacts (%d vf), pairs meeting: %s" % (name, len(rows[1]), faces, sorted(pairs)))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
