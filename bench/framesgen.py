#!/usr/bin/env python3
"""framesgen.py — writes generated two-frame CCD inputs (a frames scene: two
PLY files with the same faces, and the scene file clash runs on them), for
`clash bench ccd-run --scene FILE [--peer ...]` and `clash run FILE --ccd`,
beside the shared ccd-frames scenes.

  bench/framesgen.py cloth OUTDIR [--n N] [--rings R] [--flat]
  bench/framesgen.py rigid OUTDIR MESH.obj [--copies K]

cloth: a UV sphere of radius 0.5 at the origin (R rings, 2R segments, poles
at z = +-0.5; default R = 64: 16,128 faces) and a square cloth sheet of
N x N quads (default N = 160: 51,200 faces) over [-1.5, 1.5]^2, turned 7
degrees about z and shifted off the sphere's axis so that no cloth edge
runs through a sphere vertex.  State 0: the sheet at z = 0.51 with a
ripple of amplitude 0.004; state 1: 0.03 lower and draping (its points
lower by 0.02 r^2 more at distance r from the axis), so the sphere's cap
pushes through it during the step.  --flat: no ripple and no drape, the
sheet only translates down by 0.03; then every sphere vertex above the
sheet's state-1 plane meets the cloth face over it at the known time
t = (z0 - z_v) / (z0 - z1), which the generator writes to
OUTDIR/NAME.truth as `vf VERTEX FACE TOI` lines (the ids of the frame
files: the scene's objects are "single").

rigid: K copies (default 8) of MESH.obj (centred on its bounding box), in
pairs side by side along x (the pairs 2.5 bounding radii apart in y), copy
k turned 40k degrees about y.  State 0: each copy's box 1% of its width
clear of the plane between the pair; state 1: each copy turned 1 degree
further about y and 0.5 about x, its box 10% of its width beyond that
plane (the bounding boxes overlap by a fifth of the width, so that even
copies meeting at thin parts touch): the two of a pair come into contact
during the step.
Vertices move linearly between the states, as in any frames scene.

Writes OUTDIR/NAME/0.ply, OUTDIR/NAME/1.ply (binary little-endian,
double coordinates, as the shared frames) and OUTDIR/NAME.json, NAME being
gen-cloth (gen-cloth-flat) or gen-rigid.  The output depends on the
arguments alone.
"""
import math
import os
import struct
import sys


def write_ply(path, verts, faces):
    with open(path, "wb") as fh:
        fh.write(("ply\nformat binary_little_endian 1.0\nelement vertex %d\nproperty double x\n"
                  "property double y\nproperty double z\nelement face %d\n"
                  "property list uchar int vertex_indices\nend_header\n" % (len(verts), len(faces))).encode())
        fh.write(b"".join(struct.pack("<3d", *v) for v in verts))
        fh.write(b"".join(struct.pack("<B3i", 3, *f) for f in faces))


def write_scene(outdir, name, verts0, verts1, faces):
    os.makedirs(os.path.join(outdir, name), exist_ok=True)
    write_ply(os.path.join(outdir, name, "0.ply"), verts0, faces)
    write_ply(os.path.join(outdir, name, "1.ply"), verts1, faces)
    with open(os.path.join(outdir, name + ".json"), "w") as fh:
        fh.write('{\n  "format": "clash-scene/1",\n  "name": "%s",\n  "steps": 1,\n  "mode": "swept",\n'
                 '  "self_collision": true,\n  "frames": {"files": ["%s/0.ply", "%s/1.ply"], "objects": "single"}\n'
                 '}\n' % (name, name, name))
    print("%s: %d vertices, %d faces -> %s" % (name, len(verts0), len(faces), os.path.join(outdir, name + ".json")))


def uv_sphere(rings, radius):
    """Poles at +-radius on z, rings-1 latitude rings of 2*rings vertices."""
    seg = 2 * rings
    v = [(0.0, 0.0, radius)]
    for i in range(1, rings):
        th = math.pi * i / rings
        for j in range(seg):
            ph = 2 * math.pi * j / seg
            v.append((radius * math.sin(th) * math.cos(ph), radius * math.sin(th) * math.sin(ph),
                      radius * math.cos(th)))
    v.append((0.0, 0.0, -radius))
    south = len(v) - 1
    f = []
    ring = lambda i, j: 1 + (i - 1) * seg + j % seg  # noqa: E731
    for j in range(seg):
        f.append((0, ring(1, j), ring(1, j + 1)))
    for i in range(1, rings - 1):
        for j in range(seg):
            a, b, c, d = ring(i, j), ring(i, j + 1), ring(i + 1, j), ring(i + 1, j + 1)
            f.append((a, c, d))
            f.append((a, d, b))
    for j in range(seg):
        f.append((south, ring(rings - 1, j + 1), ring(rings - 1, j)))
    return v, f


def cloth(outdir, n, rings, flat):
    sv, sf = uv_sphere(rings, 0.5)
    ang, off = math.radians(7.0), (0.0123, -0.0071)
    ca, sa = math.cos(ang), math.sin(ang)
    z0, fall, ripple, drape = 0.51, 0.03, 0.004, 0.02
    base = len(sv)
    v0, v1 = list(sv), list(sv)
    h = 3.0 / n
    for i in range(n + 1):
        for j in range(n + 1):
            u, w = -1.5 + h * j, -1.5 + h * i  # the sheet's own frame
            x, y = ca * u - sa * w + off[0], sa * u + ca * w + off[1]
            r2 = x * x + y * y
            a = 0.0 if flat else ripple * math.sin(5.0 * u) * math.cos(4.0 * w)
            v0.append((x, y, z0 + a))
            v1.append((x, y, z0 + a - fall - (0.0 if flat else drape * r2)))
    f = list(sf)
    cloth_face0 = len(f)
    for i in range(n):
        for j in range(n):
            a = base + i * (n + 1) + j
            b, c, d = a + 1, a + n + 1, a + n + 2
            f.append((a, b, d))  # face 2 (i n + j): the quad's lower-right triangle in the sheet's frame
            f.append((a, d, c))  # face 2 (i n + j) + 1: upper-left
    name = "gen-cloth-flat" if flat else "gen-cloth"
    write_scene(outdir, name, v0, v1, f)
    if flat:
        zt, zb = z0, z0 - fall
        lines = []
        for vid, (x, y, z) in enumerate(sv):
            if not (zb < z < zt):
                continue
            dx, dy = x - off[0], y - off[1]
            u, w = ca * dx + sa * dy, -sa * dx + ca * dy
            j, i = int((u + 1.5) / h), int((w + 1.5) / h)
            fu, fw = (u + 1.5) / h - j, (w + 1.5) / h - i
            face = cloth_face0 + 2 * (i * n + j) + (0 if fu >= fw else 1)
            # the written coordinates: the sheet's z at state 0 and 1, exactly as in the files
            t = (v0[base][2] - z) / (v0[base][2] - v1[base][2])
            lines.append("vf %d %d %.17g\n" % (vid, face, t))
        with open(os.path.join(outdir, name + ".truth"), "w") as fh:
            fh.writelines(lines)
        print("%s: %d ground-truth vf contacts -> %s" % (name, len(lines), os.path.join(outdir, name + ".truth")))


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
                idx = [int(t.split("/")[0]) for t in w[1:]]
                idx = [i - 1 if i > 0 else len(v) + i for i in idx]
                for k in range(1, len(idx) - 1):
                    f.append((idx[0], idx[k], idx[k + 1]))
    return v, f


def rot(v, ay, ax):
    cy, sy, cx, sx = math.cos(ay), math.sin(ay), math.cos(ax), math.sin(ax)
    x, y, z = v
    y, z = cx * y - sx * z, sx * y + cx * z
    return (cy * x + sy * z, y, -sy * x + cy * z)


def rigid(outdir, mesh, copies):
    mv, mf = read_obj(mesh)
    lo = [min(p[d] for p in mv) for d in range(3)]
    hi = [max(p[d] for p in mv) for d in range(3)]
    c = [(lo[d] + hi[d]) / 2 for d in range(3)]
    mv = [(p[0] - c[0], p[1] - c[1], p[2] - c[2]) for p in mv]
    radius = max(math.sqrt(p[0] ** 2 + p[1] ** 2 + p[2] ** 2) for p in mv)
    v0, v1, f = [], [], []
    for k in range(copies):
        base = len(v0)
        ay0, side = math.radians(40.0 * k), (1 if k % 2 else -1)
        r0 = [rot(p, ay0, 0.0) for p in mv]
        r1 = [rot(p, ay0 + math.radians(1.0), math.radians(0.5)) for p in mv]
        w = max(q[0] for q in r0) - min(q[0] for q in r0)
        # the copy's box 1% of its width clear of the pair's middle plane x = 0 in state 0, 10% beyond it in state 1
        if side < 0:
            x0, x1 = -0.01 * w - max(q[0] for q in r0), 0.10 * w - max(q[0] for q in r1)
        else:
            x0, x1 = 0.01 * w - min(q[0] for q in r0), -0.10 * w - min(q[0] for q in r1)
        y = 2.5 * radius * (k // 2)  # pairs apart
        v0 += [(q[0] + x0, q[1] + y, q[2]) for q in r0]
        v1 += [(q[0] + x1, q[1] + y, q[2]) for q in r1]
        f += [(a + base, b + base, d + base) for (a, b, d) in mf]
    write_scene(outdir, "gen-rigid", v0, v1, f)


def main(argv):
    if len(argv) < 3 or argv[1] not in ("cloth", "rigid"):
        sys.stderr.write("usage: framesgen.py cloth OUTDIR [--n N] [--rings R] [--flat] | "
                         "rigid OUTDIR MESH.obj [--copies K]\n")
        return 2
    kind, outdir, rest = argv[1], argv[2], argv[3:]
    opts = {"--n": 160, "--rings": 64, "--copies": 8}
    flat, pos = False, []
    i = 0
    while i < len(rest):
        a = rest[i]
        if a in opts and i + 1 < len(rest) and rest[i + 1].isdigit() and int(rest[i + 1]) >= 2:
            opts[a] = int(rest[i + 1])
            i += 2
        elif a == "--flat":
            flat, i = True, i + 1
        elif not a.startswith("-"):
            pos.append(a)
            i += 1
        else:
            sys.stderr.write("framesgen.py: error: bad argument '%s'\n" % a)
            return 2
    os.makedirs(outdir, exist_ok=True)
    if kind == "cloth":
        if pos:
            sys.stderr.write("framesgen.py: error: cloth takes no file ('%s')\n" % pos[0])
            return 2
        cloth(outdir, opts["--n"], opts["--rings"], flat)
    else:
        if len(pos) != 1:
            sys.stderr.write("framesgen.py: error: rigid needs one MESH.obj\n")
            return 2
        if not os.path.isfile(pos[0]):
            sys.stderr.write("framesgen.py: error: %s: no such file\n" % pos[0])
            return 2
        rigid(outdir, pos[0], opts["--copies"])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
