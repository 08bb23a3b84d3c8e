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
    header other than clash/clash.h, its own folder's, and the one internal
    header, src/clash_internal.h (the command also includes bench/bench.h,
    the table of the suites it runs); and an internal header that includes
    anything but clash/clash.h, which would make that rule empty.  Only the
    files in CLIENT_INCLUDES below may include more, each what it lists (an
    entry a file no longer needs is an error too).  `--clients` prints, for
    each client file, the headers it includes beyond those;
  * a source file under src/, kernels/ or sched/ over MAX_LINES lines (a
    sanity cap: the real limit is on functions, check_source.py), or one
    that does not open with its teaching comment.

Usage: check_layers.py --root REPO OBJECT.o...   (CTest passes the objects
of the clash_objects target).  `--self-test` first checks that the checker
itself finds a planted circle, a planted upward arrow and a client's
planted private include.
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
# The clients: each file of these folders may include clash/clash.h, the
# headers of its own folder ("cli/..." in src/cli, "bench/..." in bench),
# INTERNAL_HEADER, and for src/cli the suites' table the command runs.
CLIENT_FOLDERS = ("src/cli", "bench")
PUBLIC_HEADER = "clash/clash.h"
INTERNAL_HEADER = "clash_internal.h"  # src/clash_internal.h: it may include PUBLIC_HEADER alone
CLIENT_EXTRA = {"src/cli": {"bench/bench.h"}}
# Client files allowed more than the rule, and what (a file listed must still
# include each, so the table only shrinks): none.
CLIENT_INCLUDES = {}

# Inside src/stages a stage may use the shared stage helpers, never the other way round.
STAGE_HELPERS = {"src/stages/finegrain.c", "src/stages/facetest.c", "src/stages/deferred.c", "src/stages/face_rows.c", "src/stages/broad_dop.c",
                 "src/stages/held_bounds.c",
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


def quoted_includes(path):
    with open(path, encoding="utf-8") as fh:
        return re.findall(r'^\s*#\s*include\s+"([^"]+)"', fh.read(), re.M)


def client_includes(root):
    """{client file: sorted headers it includes beyond what every client may}."""
    found = {}
    for top in CLIENT_FOLDERS:
        d = os.path.join(root, top)
        ok = {PUBLIC_HEADER, INTERNAL_HEADER} | CLIENT_EXTRA.get(top, set())
        own = os.path.basename(top) + "/"
        for n in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            if n.endswith((".c", ".h")):
                inc = quoted_includes(os.path.join(d, n))
                found[f"{top}/{n}"] = sorted({i for i in inc if i not in ok and not i.startswith(own)})
    return found


def client_errors(found, allowed):
    errs = []
    for f, incs in sorted(found.items()):
        ok = allowed.get(f, set())
        for i in incs:
            if i not in ok:
                errs.append(f"{f} includes {i}: a client uses clash/clash.h, {INTERNAL_HEADER} and its own folder's "
                            "headers (what it needs of the library goes into src/clash_internal.h)")
        for i in sorted(ok - set(incs)):
            errs.append(f"{f} no longer includes {i}: drop it from CLIENT_INCLUDES (check_layers.py)")
    for f in sorted(set(allowed) - set(found)):
        errs.append(f"{f} is listed in CLIENT_INCLUDES but does not exist")
    return errs


def internal_header_errors(root):
    """The internal header includes nothing private (else a client reaches it all through it)."""
    p = os.path.join(root, "src", INTERNAL_HEADER)
    if not os.path.exists(p):
        return [f"src/{INTERNAL_HEADER} is missing"]
    return [f"src/{INTERNAL_HEADER} includes {i}: only {PUBLIC_HEADER} (and system headers)"
            for i in quoted_includes(p) if i != PUBLIC_HEADER]


def planted_client_errors():
    """The client rule on a planted tree: a clean one passes, a private include fails."""
    import tempfile
    with tempfile.TemporaryDirectory() as root:
        for d in ("src/cli", "bench"):
            os.makedirs(os.path.join(root, d))
        files = {"src/clash_internal.h": '#include "clash/clash.h"\n',
                 "src/cli/a.c": '#include "cli/a.h"\n#include "clash_internal.h"\n#include "bench/bench.h"\n',
                 "bench/b.c": '#include "bench/common.h"\n#include "clash/clash.h"\n'}
        for f, text in files.items():
            with open(os.path.join(root, f), "w", encoding="utf-8") as fh:
                fh.write(text)
        clean = client_errors(client_includes(root), {}) + internal_header_errors(root)
        with open(os.path.join(root, "bench/b.c"), "a", encoding="utf-8") as fh:
            fh.write('#include "core/run.h"\n')
        with open(os.path.join(root, "src/clash_internal.h"), "a", encoding="utf-8") as fh:
            fh.write('#include "store/scene.h"\n')
        planted = client_errors(client_includes(root), {}) + internal_header_errors(root)
    return clean, planted


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
    clean, planted = planted_client_errors()
    assert not clean, clean
    assert any("bench/b.c includes core/run.h" in e for e in planted), planted
    assert any("includes store/scene.h" in e for e in planted), planted


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
        print("check_layers: self-test passed (a planted circle, an upward arrow and a client's private include "
              "are found)")
    found = client_includes(root)
    if clients:
        for f, incs in sorted(found.items()):
            print(f"{f}: {' '.join(incs) if incs else '(clash/clash.h, the internal header, its own folder)'}")
        n = sum(1 for v in found.values() if v)
        print(f"check_layers: {n} of {len(found)} client files include other headers")
    if not objs:
        if clients:
            return 1 if client_errors(found, CLIENT_INCLUDES) or internal_header_errors(root) else 0
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
    for e in client_errors(found, CLIENT_INCLUDES) + internal_header_errors(root):
        bad += 1
        print("client: " + e)
    n_edges = sum(len(v) for v in g.values())
    print(f"check_layers: {len(g)} files, {n_edges} arrows, {bad} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
