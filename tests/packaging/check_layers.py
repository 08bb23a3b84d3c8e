#!/usr/bin/env python3
"""check_layers.py — the house rules of the library's source tree (issue 19).

Reads the library's object files with `nm`, builds the graph "file A uses a
function or object that file B defines", and fails on:
  * a circle between source files (any strongly connected component of more
    than one file), printed with the symbols that close it;
  * an arrow against the layers of src/README.md (a folder using one it may
    not, e.g. a stage calling back into pipeline.c, a reader's helper in the
    dispatch, sched/ using src/);
  * a file of the library's clients, src/cli/ and bench/, that includes a
    private header (one of the library's own folders, or the other
    client's) it is not listed with in CLIENT_INCLUDES below: the clients
    are to use clash/clash.h, so the list only shrinks; an entry a file no
    longer needs is an error too, so the list says what is left.
    `--clients` prints, for each client file, the private headers it
    includes;
  * a source file under src/, kernels/ or sched/ over MAX_LINES lines (a
    sanity cap: the real limit is on functions, check_source.py), or one
    that does not open with its teaching comment.

Usage: check_layers.py --root REPO OBJECT.o...   (CTest passes the objects
of the clash_objects target).  `--self-test` first checks that the checker
itself finds a planted circle and a planted upward arrow.
"""
import os
import re
import subprocess
import sys

MAX_LINES = 1500

# folder -> folders it may use (besides itself).  Listed from the bottom up;
# src/README.md shows the same table.
ALLOWED = {
    "kernels": set(),
    "sched": set(),
    "generated": set(),
    "src/base": set(),
    "src/store": {"src/base", "kernels", "sched"},
    "src/io": {"src/base", "src/store"},
    "src/core": {"src/base", "src/store", "kernels", "sched"},
    "src/stages": {"src/base", "src/store", "src/core", "kernels", "sched"},
    "src/stages/mid": {"src/base", "src/store", "src/core", "src/stages", "kernels", "sched"},
    "src/profile": {"src/base"},
    "src/out": {"src/base", "src/store", "src/profile", "sched", "generated"},
    "src/dist": set(),
    "src/query": {"src/base", "src/store", "src/core", "kernels", "sched"},
    "src": {"src/base", "src/store", "src/io", "src/core", "src/stages", "src/stages/mid", "src/out", "src/query",
            "src/profile", "src/dist", "kernels", "sched", "generated"},
}
# The private headers each client file (src/cli/, bench/) still includes,
# beyond clash/clash.h and its own folder's headers: what is left of the
# clients' reach into the library.  A file not listed includes none.
CLIENT_FOLDERS = ("src/cli", "bench")
PRIVATE_ROOTS = ("base", "store", "io", "core", "stages", "profile", "out", "dist", "kernels", "sched", "generated",
                 "cli", "bench")
CLIENT_INCLUDES = {
    "src/cli/ccd_cmd.c": {"base/error.h", "io/ccd_csv.h", "kernels/ccd.h"},
    "src/cli/dist_report.h": {"sched/ranks.h"},
    "src/cli/main.c": {"base/error.h", "bench/bench.h", "core/run.h", "io/scene_desc.h", "out/report.h", "out/vtk.h",
        "profile/profile.h", "sched/bind.h", "sched/ranks.h", "sched/sched.h", "sched/topology.h",
        "stages/mid/midphase.h"},
    "src/cli/options.c": {"base/error.h", "profile/profile.h", "stages/mid/midphase.h"},
    "src/cli/profile_cmd.c": {"profile/profile.h", "sched/topology.h"},
    "src/cli/suggest.h": {"base/error.h"},
    "src/cli/summary.h": {"sched/ranks.h"},
    "bench/api.c": {"sched/sched.h", "store/scene.h"},
    "bench/bbox.c": {"core/run.h", "io/scene_desc.h", "stages/finegrain.h", "store/scene.h"},
    "bench/broadphase.c": {"base/sort.h", "stages/broad.h"},
    "bench/bvh.c": {"core/bvh.h", "core/run.h", "io/scene_desc.h", "kernels/kernels.h", "store/generators.h",
        "store/scene.h"},
    "bench/cache.c": {"base/error.h", "out/report.h", "profile/profile.h", "store/generators.h", "store/mesh.h",
        "store/scene.h"},
    "bench/ccd.c": {"io/ccd_csv.h", "kernels/ccd.h"},
    "bench/ccdrun.c": {"io/scene_desc.h", "kernels/ccd.h", "stages/stages.h"},
    "bench/common.c": {"base/error.h", "core/run.h", "io/scene_desc.h", "sched/sched.h", "sched/topology.h",
        "store/scene.h"},
    "bench/common.h": {"out/report.h"},
    "bench/distance.c": {"base/error.h", "store/scene.h"},
    "bench/fig43.c": {"sched/sched.h"},
    "bench/papers.c": {"base/error.h", "store/scene.h"},
    "bench/scale.c": {"sched/sched.h"},
    "bench/scaling.c": {"sched/sched.h"},
    "bench/seeds.c": {"base/error.h", "store/scene.h"},
    "bench/seeds.h": {"io/scene_desc.h"},
    "bench/seeds_report.c": {"base/error.h", "cli/profile_cmd.h"},
    "bench/stream.h": {"sched/sched.h"},
    "bench/weak.c": {"base/error.h", "io/scene_desc.h"},
}

# Inside src/stages a stage may use the shared stage helpers, never the other way round.
STAGE_HELPERS = {"src/stages/finegrain.c", "src/stages/deferred.c", "src/stages/rows.c", "src/stages/broad_dop.c",
                 "src/stages/held.c",
                 "src/stages/broad_sap.c", "src/stages/broad_bvh.c"}


def folder_of(path):
    d = os.path.dirname(path)
    return d if d else "src"


def source_of(obj):
    """Repo-relative source path of a CMake object file."""
    m = re.search(r"clash_objects\.dir/(.*)\.o$", obj)
    if not m:
        return os.path.basename(obj)
    p = m.group(1)
    # generated sources live in the build tree: .../generated/build_info.c
    i = p.find("generated/")
    return p[i:] if i >= 0 else p


def read_symbols(objs):
    defs, uses = {}, {}
    for o in objs:
        out = subprocess.run(["nm", "-P", o], capture_output=True, text=True, check=True).stdout
        f = source_of(o)
        uses.setdefault(f, set())
        for line in out.splitlines():
            p = line.split()
            if len(p) < 2:
                continue
            sym, kind = p[0], p[1]
            if kind in "TDBRCVW":
                defs[sym] = f
            elif kind == "U":
                uses[f].add(sym)
    return defs, uses


def build_graph(defs, uses):
    g = {f: {} for f in uses}
    for f, syms in uses.items():
        for s in syms:
            d = defs.get(s)
            if d and d != f:
                g[f].setdefault(d, []).append(s)
    return g


def circles(g):
    """Strongly connected components of more than one node (iterative Tarjan)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    for root in sorted(g):
        if root in index:
            continue
        work = [(root, iter(sorted(g[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in g:
                    continue
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(g[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        x = stack.pop()
                        on.discard(x)
                        comp.append(x)
                        if x == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


def layer_errors(g):
    errs = []
    for f, deps in sorted(g.items()):
        ff = folder_of(f)
        for d, syms in sorted(deps.items()):
            fd = folder_of(d)
            if fd == ff:
                if ff == "src/stages" and f in STAGE_HELPERS and d not in STAGE_HELPERS:
                    errs.append(f"{f} -> {d} ({', '.join(sorted(syms)[:3])}): a stage helper uses a stage")
                continue
            if fd not in ALLOWED.get(ff, set()):
                errs.append(f"{f} -> {d} ({', '.join(sorted(syms)[:3])}): {ff}/ may not use {fd}/")
    return errs


def file_errors(root):
    errs = []
    for top in ("src", "kernels", "sched"):
        for dp, _, fs in os.walk(os.path.join(root, top)):
            for n in fs:
                if not n.endswith((".c", ".h")):
                    continue
                p = os.path.join(dp, n)
                rel = os.path.relpath(p, root)
                with open(p, encoding="utf-8") as fh:
                    text = fh.read()
                lines = text.count("\n")
                if lines > MAX_LINES:
                    errs.append(f"{rel}: {lines} lines (at most {MAX_LINES})")
                if not text.startswith("/*"):
                    errs.append(f"{rel}: does not open with the comment that says what it does")
    return errs


def client_includes(root):
    """{client file: sorted private headers it includes} for src/cli/ and bench/."""
    found = {}
    for top in CLIENT_FOLDERS:
        d = os.path.join(root, top)
        for n in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            if not n.endswith((".c", ".h")):
                continue
            with open(os.path.join(d, n), encoding="utf-8") as fh:
                inc = re.findall(r'^\s*#\s*include\s+"([^"]+)"', fh.read(), re.M)
            own = os.path.basename(top) + "/"
            found[f"{top}/{n}"] = sorted({i for i in inc if not i.startswith(own) and i.split("/")[0] in PRIVATE_ROOTS})
    return found


def client_errors(found, allowed):
    errs = []
    for f, incs in sorted(found.items()):
        ok = allowed.get(f, set())
        for i in incs:
            if i not in ok:
                errs.append(f"{f} includes {i}: a client uses clash/clash.h (or its own folder's headers)")
        for i in sorted(ok - set(incs)):
            errs.append(f"{f} no longer includes {i}: drop it from CLIENT_INCLUDES (check_layers.py)")
    for f in sorted(set(allowed) - set(found)):
        errs.append(f"{f} is listed in CLIENT_INCLUDES but does not exist")
    return errs


def self_test():
    g = {"src/a.c": {"src/b.c": ["f"]}, "src/b.c": {"src/a.c": ["g"]}, "src/c.c": {}}
    assert circles(g) == [["src/a.c", "src/b.c"]], circles(g)
    g = {"src/stages/cull.c": {"src/pipeline.c": ["clash_face_meets_box"]}, "src/pipeline.c": {}}
    assert layer_errors(g), "an upward arrow went unnoticed"
    g = {"src/pipeline.c": {"src/stages/cull.c": ["clash_stage_cull"]}, "src/stages/cull.c": {}}
    assert not layer_errors(g) and not circles(g)
    assert client_errors({"bench/x.c": ["core/run.h"]}, {})  # a new reach into the library
    assert client_errors({"bench/x.c": []}, {"bench/x.c": {"core/run.h"}})  # a stale entry
    assert not client_errors({"bench/x.c": ["core/run.h"]}, {"bench/x.c": {"core/run.h"}})


def main(argv):
    root, objs, selftest, clients = ".", [], False, False
    i = 0
    while i < len(argv):
        if argv[i] == "--root":
            root = argv[i + 1]
            i += 2
        elif argv[i] == "--self-test":
            selftest = True
            i += 1
        elif argv[i] == "--clients":
            clients = True
            i += 1
        else:
            objs.append(argv[i])
            i += 1
    if selftest:
        self_test()
        print("check_layers: self-test passed (a planted circle and an upward arrow are found)")
    found = client_includes(root)
    if clients:
        for f, incs in sorted(found.items()):
            print(f"{f}: {' '.join(incs) if incs else '(clash/clash.h and its own folder only)'}")
        n = sum(1 for v in found.values() if v)
        print(f"check_layers: {n} of {len(found)} client files include private headers")
    if not objs:
        if clients:
            return 1 if client_errors(found, CLIENT_INCLUDES) else 0
        print("check_layers: no object files given", file=sys.stderr)
        return 2
    g = build_graph(*read_symbols(objs))
    bad = 0
    for c in circles(g):
        bad += 1
        print("circle: " + " <-> ".join(c))
        for a in c:
            for d, syms in sorted(g[a].items()):
                if d in c:
                    print(f"    {a} -> {d}: {', '.join(sorted(syms))}")
    for e in layer_errors(g):
        bad += 1
        print("layer: " + e)
    for e in file_errors(root):
        bad += 1
        print("file: " + e)
    for e in client_errors(found, CLIENT_INCLUDES):
        bad += 1
        print("client: " + e)
    n_edges = sum(len(v) for v in g.values())
    print(f"check_layers: {len(g)} files, {n_edges} arrows, {bad} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
