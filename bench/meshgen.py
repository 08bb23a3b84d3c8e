#!/usr/bin/env python3
"""meshgen.py — writes test meshes as OBJ for `clash bench bvh --mesh` and
`clash-peer-fcl-mesh` (issue 17: the issue-4 targets on meshes nobody tuned
on, including meshes whose face density is uneven).

  bench/meshgen.py torus FILE [--faces N]      graded torus (default 124,000 faces)
  bench/meshgen.py refine IN.obj FILE [--faces N]  a mesh refined unevenly

torus: a torus (radii 1 and 0.35) whose rings are spaced by a cubic law
around the big circle, so the faces near angle 0 are about 20 times
smaller (in area) than those opposite: one side of the torus is dense, the
other sparse, as a scanned part with a detailed and a plain side is.

refine: the faces of IN.obj whose centroid lies in the upper part (largest
y) are split 1 -> 4 at their edge midpoints, the upper part chosen so that
the result has about N faces (default 124,000); where more is needed the
top of that part is split twice.  Neighbouring faces are not split to
match (T-junctions): for collision a mesh is a set of triangles, so that
changes nothing but the density, which is what the split is for.

Both write `v` and `f` lines only; the output depends on the arguments
alone.
"""
import math
import sys


def read_obj(path):
    v, f = [], []
    with open(path) as fh:
        for line in fh:
            w = line.split()
            if not w:
                continue
            if w[0] == "v":
                v.append(tuple(float(x) for x in w[1:4]))
            elif w[0] == "f":
                idx = []
                for t in w[1:]:
                    i = int(t.split("/")[0])
                    idx.append(i - 1 if i > 0 else len(v) + i)
                for j in range(2, len(idx)):
                    f.append((idx[0], idx[j - 1], idx[j]))
    return v, f


def write_obj(path, v, f, comment):
    with open(path, "w") as fh:
        fh.write("# %s\n# %d vertices, %d faces\n" % (comment, len(v), len(f)))
        for p in v:
            fh.write("v %.9g %.9g %.9g\n" % p)
        for t in f:
            fh.write("f %d %d %d\n" % (t[0] + 1, t[1] + 1, t[2] + 1))


def torus(nfaces):
    # n rings of m segments, 2 n m faces, m ~ n / 3 (the tube is thinner)
    n = max(12, int(round(math.sqrt(3 * nfaces / 2))))
    m = max(4, int(round(nfaces / (2 * n))))
    R, r = 1.0, 0.35
    v, f = [], []
    for i in range(n):
        # cubic law centred on angle 0: t in [-1, 1), angle = pi (t^3 + 0.15 t) / 1.15,
        # ring spacing d angle / dt = pi (3 t^2 + 0.15) / 1.15: 21 times wider at t = +-1
        t = 2 * i / n - 1
        u = math.pi * (t ** 3 + 0.15 * t) / 1.15
        for j in range(m):
            w = 2 * math.pi * j / m
            v.append(((R + r * math.cos(w)) * math.cos(u), (R + r * math.cos(w)) * math.sin(u), r * math.sin(w)))
    for i in range(n):
        for j in range(m):
            a, b = i * m + j, i * m + (j + 1) % m
            c, d = ((i + 1) % n) * m + j, ((i + 1) % n) * m + (j + 1) % m
            f.append((a, c, b))
            f.append((b, c, d))
    return v, f


def split(v, f, chosen):
    mid = {}

    def midpoint(a, b):
        k = (a, b) if a < b else (b, a)
        if k not in mid:
            pa, pb = v[a], v[b]
            mid[k] = len(v)
            v.append(tuple((pa[c] + pb[c]) / 2 for c in range(3)))
        return mid[k]

    out = []
    for t in f:
        if not chosen(t):
            out.append(t)
            continue
        a, b, c = t
        ab, bc, ca = midpoint(a, b), midpoint(b, c), midpoint(c, a)
        out += [(a, ab, ca), (ab, b, bc), (ca, bc, c), (ab, bc, ca)]
    return out


def refine(v, f, nfaces):
    cy = lambda t: (v[t[0]][1] + v[t[1]][1] + v[t[2]][1]) / 3
    ys = sorted(cy(t) for t in f)
    extra = max(0, nfaces - len(f))
    k = min(len(f), extra // 3)  # faces to split once: each adds 3
    if k == len(f):  # all once, then the top again
        thr = ys[0] - 1
        f = split(v, f, lambda t: cy(t) > thr)
        return refine(v, f, nfaces)
    thr = ys[len(f) - k] if k else math.inf
    return split(v, f, lambda t: cy(t) >= thr)


def main(argv):
    if len(argv) < 3 or argv[1] not in ("torus", "refine"):
        sys.stderr.write(__doc__)
        return 2
    nf = 124000
    if "--faces" in argv:
        nf = int(argv[argv.index("--faces") + 1])
    if argv[1] == "torus":
        v, f = torus(nf)
        write_obj(argv[2], v, f, "meshgen.py torus --faces %d: graded torus" % nf)
    else:
        v, f = read_obj(argv[2])
        f = refine(v, f, nf)
        write_obj(argv[3], v, f, "meshgen.py refine %s --faces %d" % (argv[2].split("/")[-1], nf))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
