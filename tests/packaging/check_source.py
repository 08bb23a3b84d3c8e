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
    a count of instructions, cycles or misses with a number, or a
    percentage.  Measurements live in bench/RESULTS.md with their commands.
    A percentage is fine where it states a rule rather than a result; the
    only ones allowed are those in PERCENT_RULES below (a threshold of the
    code or a test), each matched with the words around it.

Usage: check_source.py --root REPO [--self-test] [--comments] (the comment
rules run with --comments, the function rule always).  `--self-test` first
checks that the checker finds a planted long function and planted notebook
comments, and passes clean ones.
"""
import os
import re
import sys

MAX_FUNC_LINES = 150
TOPS = ("src", "kernels", "sched")

# Percentages that state a rule, not a result: the text around the figure.
PERCENT_RULES = []

ISSUE_RE = re.compile(r"\bissues?\s+#?\d+|(?<![\w&])#\d+\b", re.I)
MEASURE_RES = [
    (re.compile(r"\b\d+(?:\.\d+)?\s*(?:ms|us|µs|ns|msec|usec|milliseconds?|microseconds?|nanoseconds?)\b"),
     "a time"),
    (re.compile(r"\b\d+(?:\.\d+)?\s*(?:s|seconds?)\b(?!\s*[(\[])"), "a time"),
    (re.compile(r"\b(?:[kMG]?B|[kMG]?faces|[kMG]?pairs|[kMG]?tests)/s\b"), "a rate"),
    (re.compile(r"\b\d+(?:\.\d+)?\s*(?:x|×)\s*(?:faster|slower|speed|quicker|the time)", re.I), "a speed ratio"),
    (re.compile(r"\b\d+(?:\.\d+)?\s*×"), "a speed ratio"),
    (re.compile(r"\b\d+(?:[.,]\d+)?\s*[kMG]?\s*(?:instructions|cycles|cache misses|misses)\b"), "a counter figure"),
    (re.compile(r"\d+(?:\.\d+)?\s*%"), "a percentage"),
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
        for k, ln in enumerate(body.split("\n")):
            where = line + k
            m = ISSUE_RE.search(ln)
            if m:
                errs.append((where, f"points to the tracker ('{m.group(0)}'): say the what and why instead"))
            for rx, what in MEASURE_RES:
                for m in rx.finditer(ln):
                    if what == "a percentage" and any(r in ln for r in PERCENT_RULES):
                        continue
                    errs.append((where, f"quotes {what} ('{m.group(0)}'): measurements go to bench/RESULTS.md"))
    return errs


def source_files(root):
    for top in TOPS:
        for dp, _, fs in os.walk(os.path.join(root, top)):
            for n in sorted(fs):
                if n.endswith((".c", ".h")):
                    yield os.path.join(dp, n)


def check(root, comments=True):
    errs = []
    for p in source_files(root):
        rel = os.path.relpath(p, root)
        with open(p, encoding="utf-8") as fh:
            text = fh.read()
        for name, a, b in functions(text):
            if b - a + 1 > MAX_FUNC_LINES:
                errs.append(f"{rel}:{a}: function {name} is {b - a + 1} lines (at most {MAX_FUNC_LINES})")
        for where, e in comment_errors(text) if comments else []:
            errs.append(f"{rel}:{where}: comment {e}")
    return errs


def self_test():
    body = "\n".join("    x += %d;" % k for k in range(MAX_FUNC_LINES))
    src = ("/* t.c */\n#include <a.h>\nstatic const int t[] = {1, 2};\nstruct s { int a; };\n"
           "static int short_one(int x)\n{\n    return x; /* } */\n}\n"
           "int long_one(int x)\n{\n" + body + "\n    return x;\n}\n")
    f = functions(src)
    assert [n for n, _, _ in f] == ["short_one", "long_one"], f
    assert f[1][2] - f[1][1] + 1 == MAX_FUNC_LINES + 4, f
    bad = ("/* issue 12 says so */\n// took 3.5 ms on the laptop\n/* 2.1x faster than before, 40 % of S5 */\n"
           "/* 12 M instructions (see #7) */\nint x;\n")
    lines = sorted({w for w, _ in comment_errors(bad)})
    assert lines == [1, 2, 3, 4], comment_errors(bad)
    good = "/* the faces' boxes, at most 8 per leaf; 8 children */\nconst char *f = \"3 ms %\";\n"
    errs = comment_errors(good)
    assert errs == [], errs


def main(argv):
    root, selftest, comments = ".", False, False
    i = 0
    while i < len(argv):
        if argv[i] == "--root":
            root = argv[i + 1]
            i += 2
        elif argv[i] == "--self-test":
            selftest = True
            i += 1
        elif argv[i] == "--comments":
            comments = True
            i += 1
        else:
            print(f"check_source: unknown argument {argv[i]}", file=sys.stderr)
            return 2
    if selftest:
        self_test()
        print("check_source: self-test passed (a planted long function and notebook comments are found)")
    errs = check(root, comments)
    for e in errs:
        print(e)
    print(f"check_source: {len(list(source_files(root)))} files, {len(errs)} problems")
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
