#!/usr/bin/env python3
"""check_source.py — the house rules read from the library's source text.

Reads every .c and .h file under src/, kernels/ and sched/ and fails on:
  * a function longer than MAX_FUNC_LINES lines.  How functions are found:
    comments, string and character literals and preprocessor lines are first
    blanked (newlines kept, so line numbers stay); then every `{` met at
    brace depth 0 whose preceding text (since the last `;`, `}` or `{` at
    depth 0) ends in `)` — a parameter list, possibly followed by
    attributes — opens a function body, unless that text holds `=` (an
    initializer) or starts with struct/union/enum.  A function's length is
    the number of lines from the line of its name to the line of the
    closing `}`, both counted.
  * a comment that points to the issue tracker (`issue 12`, `issues 3 and
    4`, `#12`): the tracker lies outside the repository, so the comment must
    say the what and the why itself (commit messages keep the numbers);
  * a comment that quotes a measurement: a time (`3.2 ms`, `40 us`, `2 s`),
    a rate (`GB/s`, `Mfaces/s`), a ratio of speeds (`2.5x faster`, `1.4×`),
    a count of instructions, cycles or misses with a number, a
    percentage, a median, or a date (what changed when is the commit
    log's).  Measurements live in bench/RESULTS.md with their commands.
    Text in double quotes inside a comment is an example of output (a
    format, a message) and is not read.  A percentage is fine where it
    states a rule rather than a result; the only ones allowed are those in
    PERCENT_RULES below, each matched with the words around it.

  * an opening comment that starts with another file's name (a file renamed
    without its comment: "mid_bvh.c — ..." in stages/mid/bvh.c).
  * the run context (src/core/run.h, struct clash_run) with more than
    MAX_RUN_MEMBERS members (each declarator counts: `size_t n, cap;` is
    two), or with a member of a flag's type (int, char, uint8_t, _Bool)
    other than those of RUN_INT_MEMBERS: a flag in the run is one stage
    telling another how to read its output, which belongs in that output;
  * a stage of STAGE_STATES whose header does not define its state struct,
    or a run without that stage's state among its members.

Usage: check_source.py --root REPO [--self-test].  `--self-test` first
checks that the checker finds a planted long function and planted notebook
comments, and passes clean ones.
"""
import os
import re
import sys

MAX_FUNC_LINES = 150
TOPS = ("src", "kernels", "sched")

# The run context: its members at most, and the int members it may have
# (a count of threads, a decomposed run's state number), none a flag.
MAX_RUN_MEMBERS = 30
RUN_INT_MEMBERS = {"threads", "dist_state"}
# Each stage's state: (its header, the struct it defines, the run's member).
STAGE_STATES = [
    ("src/stages/boxes.h", "clash_boxes_state", "boxes"),
    ("src/stages/broad.h", "clash_broad_state", "broad"),
    ("src/stages/cull.h", "clash_cull_state", "cull"),
    ("src/stages/mid/midphase.h", "clash_mid_state", "mid"),
    ("src/stages/face_rows.h", "clash_rows", "rows"),
    ("src/stages/narrow.h", "clash_narrow_state", "narrow"),
    ("src/stages/gather.h", "clash_gather_state", "gather"),
    ("src/stages/ccd.c", "clash_ccd", "ccd"),
]

# Percentages that state a rule, not a result, matched with the words around
# them: the cluttered preset's gap between bounding spheres (a constant of
# the scene, src/io/presets.c).
PERCENT_RULES = [re.compile(r"(?:kept|at least) \d+(?:\.\d+)?% apart")]

ISSUE_RE = re.compile(r"\bissues?\s+#?\d+|(?<![\w&])#\d+\b", re.I)
MEASURE_RES = [
    (re.compile(r"\b\d+(?:\.\d+)?\s*(?:ms|us|µs|ns|msec|usec|milliseconds?|microseconds?|nanoseconds?)\b"),
     "a time"),
    (re.compile(r"\b\d+(?:\.\d+)?\s*(?:s|seconds?)\b(?!\s*[(\[])"), "a time"),
    (re.compile(r"\b(?:[kMG]?B|[kMG]?faces|[kMG]?pairs|[kMG]?tests)/s\b"), "a rate"),
    (re.compile(r"\b\d+(?:\.\d+)?\s*(?:x|×)\s*(?:faster|slower|speed|quicker|the time)", re.I), "a speed ratio"),
    (re.compile(r"\b\d+(?:\.\d+)?\s*×"), "a speed ratio"),
    (re.compile(r"\b\d+(?:\.\d+)?(?:-\d+(?:\.\d+)?)?\s+times\s+(?:fewer|more|faster|slower|less)\b"), "a ratio"),
    (re.compile(r"\b\d+(?:\.\d+)?\s*[kMG]\s+(?:keys|candidates|pairs|calls|faults|hits)\b"), "a counted figure"),
    (re.compile(r"\b\d+(?:[.,]\d+)?\s*[kMG]?\s*(?:instructions|cycles|cache misses|misses)\b"), "a counter figure"),
    (re.compile(r"\d+(?:\.\d+)?\s*%"), "a percentage"),
    (re.compile(r"\b20\d\d-\d\d-\d\d\b"), "a date (a notebook entry)"),
    (re.compile(r"\bmedians?\b[^.;]*\d", re.I), "a median"),  # a median with its figure, not a split's
]


def blank(text, keep_comments=False):
    """The text with comments, literals and preprocessor lines blanked (newlines kept).
    With keep_comments, returns the list of (line, comment text) instead."""
    out, comments = [], []
    i, n, line = 0, len(text), 1
    at_line_start = True
    while i < n:
        c = text[i]
        if c == "\n":
            out.append(c)
            line += 1
            i += 1
            at_line_start = True
            continue
        if at_line_start and c == "#":
            # a preprocessor line, continued by backslashes
            j = i
            while j < n and (text[j] != "\n" or text[j - 1] == "\\"):
                j += 1
            seg = text[i:j]
            # comments inside the directive still count as comments
            for m in re.finditer(r"/\*.*?\*/|//[^\n]*", seg, re.S):
                comments.append((line + seg[:m.start()].count("\n"), m.group(0)))
            out.append(re.sub(r"[^\n]", " ", seg))
            line += seg.count("\n")
            i = j
            continue
        if not c.isspace():
            at_line_start = False
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            seg = text[i:j]
            comments.append((line, seg))
            out.append(re.sub(r"[^\n]", " ", seg))
            line += seg.count("\n")
            i = j
            continue
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            comments.append((line, text[i:j]))
            out.append(" " * (j - i))
            i = j
            continue
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            seg = text[i:j + 1]
            out.append(re.sub(r"[^\n]", " ", seg))
            i = j + 1
            continue
        out.append(c)
        i += 1
    return comments if keep_comments else "".join(out)


def functions(text):
    """(name, first line, last line) of every function body in C source text."""
    s = blank(text)
    found = []
    depth, start_of_decl = 0, 0
    open_at = None
    i = 0
    for i, c in enumerate(s):
        if c == "{":
            if depth == 0:
                decl = s[start_of_decl:i]
                d = decl.strip()
                if (re.search(r"\)\s*(?:__attribute__\s*\(\(.*\)\)\s*)*$", d, re.S) and "=" not in d
                        and not re.match(r"(?:typedef\s+)?(?:struct|union|enum)\b", d)):
                    m = re.search(r"(\w+)\s*\(", d)
                    name = m.group(1) if m else "?"
                    name_at = start_of_decl + decl.find(m.group(0)) if m else i
                    open_at = (name, s.count("\n", 0, name_at) + 1)
                else:
                    open_at = None
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                if open_at:
                    found.append((open_at[0], open_at[1], s.count("\n", 0, i) + 1))
                    open_at = None
                start_of_decl = i + 1
        elif c == ";" and depth == 0:
            start_of_decl = i + 1
    return found


def comment_errors(text):
    errs = []
    for line, body in blank(text, keep_comments=True):
        # quoted output examples are not measurements (a quote may span lines)
        body = re.sub(r'"[^"]*"', lambda m: re.sub(r"[^\n]", " ", m.group(0)), body)
        for k, ln in enumerate(body.split("\n")):
            where = line + k
            m = ISSUE_RE.search(ln)
            if m:
                errs.append((where, f"points to the tracker ('{m.group(0)}'): say the what and why instead"))
            for rx, what in MEASURE_RES:
                for m in rx.finditer(ln):
                    if what == "a percentage" and any(r.search(ln) for r in PERCENT_RULES):
                        continue
                    errs.append((where, f"quotes {what} ('{m.group(0)}'): measurements go to bench/RESULTS.md"))
    return errs


def name_error(name, text):
    """Why the opening comment misnames the file, or None."""
    m = re.match(r"/\*\s*\*?\s*([\w./-]+\.[ch])\b", text)
    if m and os.path.basename(m.group(1)) != name:
        return f"the opening comment names {m.group(1)}, not {name}"
    return None


def struct_members(text, name):
    """The members of `struct NAME { ... };` in text (comments and
    preprocessor lines blanked), as (type, member) pairs, one per
    declarator; None when text does not define it."""
    t = blank(text)
    m = re.search(r"\bstruct\s+" + re.escape(name) + r"\s*\{", t)
    if not m:
        return None
    depth, i = 1, m.end()
    while depth and i < len(t):
        depth += {"{": 1, "}": -1}.get(t[i], 0)
        i += 1
    body = t[m.end():i - 1]
    out = []
    for decl in body.split(";"):
        decl = " ".join(decl.split())
        if not decl:
            continue
        fp = re.match(r"(.*?)\(\s*\*\s*(\w+)\s*\)\s*\(", decl)
        if fp:  # a function pointer: one member, whatever its parameters
            out.append(("function pointer", fp.group(2)))
            continue
        parts = [p.strip() for p in decl.split(",")]
        nm = re.findall(r"(\w+)\s*(?:\[[^\]]*\]\s*)*$", parts[0])[0]
        typ = " ".join(parts[0][:parts[0].rfind(nm)].replace("*", " ").split())
        out.append((typ, nm))
        for extra in parts[1:]:
            out.append((typ, re.findall(r"\w+", extra)[0]))
    return out


def run_errors(root):
    """The run context's rules (module docstring)."""
    errs = []
    with open(os.path.join(root, "src/core/run.h"), encoding="utf-8") as fh:
        members = struct_members(fh.read(), "clash_run")
    if members is None:
        return ["src/core/run.h:1: struct clash_run not found"]
    if len(members) > MAX_RUN_MEMBERS:
        errs.append(f"src/core/run.h: struct clash_run has {len(members)} members (at most {MAX_RUN_MEMBERS})")
    for typ, nm in members:
        if typ in ("int", "char", "uint8_t", "int8_t", "_Bool", "bool", "unsigned") and nm not in RUN_INT_MEMBERS:
            errs.append(f"src/core/run.h: struct clash_run member {nm} ({typ}) is a flag: it belongs in the "
                        "state or the output of the stage that sets it")
    names = {nm for _, nm in members}
    for header, struct, member in STAGE_STATES:
        path = os.path.join(root, header)
        text = open(path, encoding="utf-8").read() if os.path.exists(path) else ""
        if struct_members(text, struct) is None:
            errs.append(f"{header}: does not define struct {struct} (the stage's state)")
        if member not in names:
            errs.append(f"src/core/run.h: struct clash_run has no member {member} (struct {struct})")
    return errs


def source_files(root):
    for top in TOPS:
        for dp, _, fs in os.walk(os.path.join(root, top)):
            for n in sorted(fs):
                if n.endswith((".c", ".h")):
                    yield os.path.join(dp, n)


def check(root):
    errs = []
    for p in source_files(root):
        rel = os.path.relpath(p, root)
        with open(p, encoding="utf-8") as fh:
            text = fh.read()
        for name, a, b in functions(text):
            if b - a + 1 > MAX_FUNC_LINES:
                errs.append(f"{rel}:{a}: function {name} is {b - a + 1} lines (at most {MAX_FUNC_LINES})")
        for where, e in comment_errors(text):
            errs.append(f"{rel}:{where}: comment {e}")
        e = name_error(os.path.basename(p), text)
        if e:
            errs.append(f"{rel}:1: {e}")
    return errs + run_errors(root)


def self_test():
    body = "\n".join("    x += %d;" % k for k in range(MAX_FUNC_LINES))
    src = ("/* t.c */\n#include <a.h>\nstatic const int t[] = {1, 2};\nstruct s { int a; };\n"
           "static int short_one(int x)\n{\n    return x; /* } */\n}\n"
           "int long_one(int x)\n{\n" + body + "\n    return x;\n}\n")
    f = functions(src)
    assert [n for n, _, _ in f] == ["short_one", "long_one"], f
    assert f[1][2] - f[1][1] + 1 == MAX_FUNC_LINES + 4, f
    bad = ("/* issue 12 says so */\n// took 3.5 ms on the laptop\n/* 2.1x faster than before, 40 % of S5 */\n"
           "/* 12 M instructions (see #7) */\n/* until 2026-11-27, the median 0.7 */\nint x;\n")
    lines = sorted({w for w, _ in comment_errors(bad)})
    assert lines == [1, 2, 3, 4, 5], comment_errors(bad)
    good = ("/* the faces' boxes, at most 8 per leaf; 8 children */\nconst char *f = \"3 ms %\";\n"
            "/* prints \"0.21 ms per step\"; bounding spheres at least 0.1% apart */\n")
    errs = comment_errors(good)
    assert errs == [], errs
    run = ("struct clash_run {\n    clash_scene *sc; /* a; b */\n    int threads;\n    size_t npairs, cap_pairs;\n"
           "    int (*keep)(void *ctx, int a, int b);\n    float *hbox[2];\n    int rows_ready;\n};\n")
    got = struct_members(run, "clash_run")
    assert [n for _, n in got] == ["sc", "threads", "npairs", "cap_pairs", "keep", "hbox", "rows_ready"], got
    assert [t for t, n in got if n == "rows_ready"] == ["int"], got
    assert struct_members(run, "clash_other") is None
    assert name_error("bvh.c", "/*\n * mid_bvh.c \u2014 S4\n */\n")
    assert not name_error("bvh.c", "/*\n * bvh.c \u2014 S4\n */\n")


def main(argv):
    root, selftest = ".", False
    i = 0
    while i < len(argv):
        if argv[i] == "--root":
            root = argv[i + 1]
            i += 2
        elif argv[i] == "--self-test":
            selftest = True
            i += 1
        else:
            print(f"check_source: unknown argument {argv[i]}", file=sys.stderr)
            return 2
    if selftest:
        self_test()
        print("check_source: self-test passed (a planted long function and notebook comments are found)")
    errs = check(root)
    for e in errs:
        print(e)
    print(f"check_source: {len(list(source_files(root)))} files, {len(errs)} problems")
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
