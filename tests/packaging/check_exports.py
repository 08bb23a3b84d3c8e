#!/usr/bin/env python3
"""check_exports.py — libclash.so exports the API of clash.h, exactly (issue 20).

Reads the function (and extern object) names declared in the public header
from the header itself, reads the dynamic symbols the shared library
defines with `nm -D --defined-only`, and fails on
  * an exported symbol that clash.h does not declare (an internal function
    leaking: ck_*, clash_bvh_*, clash_fail, ...), and
  * a name clash.h declares that the library does not export (a user or
    the Python module, which calls it through ctypes, would not find it).
Names the linker defines in every shared object (_init, _fini, _edata,
_end, __bss_start) are not the library's and are ignored.

Usage: check_exports.py [--self-test] [--nm NM] HEADER LIBRARY
`--self-test` first checks that the checker finds the declarations of a
small planted header and fails on a planted extra and a planted missing
symbol.
"""
import re
import subprocess
import sys

LINKER_SYMBOLS = {"_init", "_fini", "_edata", "_end", "__bss_start"}


def strip_header(text):
    """The header's C declarations: no comments, no C++ guard, no directives."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    text = re.sub(r"\\\n", " ", text)
    out, skip = [], 0
    for line in text.split("\n"):
        s = line.strip()
        if s.startswith("#"):
            d = s[1:].strip()
            if skip:
                if d.startswith("if"):
                    skip += 1
                elif d.startswith("endif"):
                    skip -= 1
            elif re.match(r"ifdef\s+__cplusplus\b", d):
                skip = 1
            continue
        if not skip:
            out.append(line)
    return "\n".join(out)


def declared_names(text):
    """Functions and extern objects declared at file scope of the header."""
    code = strip_header(text)
    # Struct, union and enum bodies hold no declarations of their own here.
    while True:
        flat = re.sub(r"\{[^{}]*\}", " ", code)
        if flat == code:
            break
        code = flat
    names = set()
    for stmt in code.split(";"):
        stmt = " ".join(stmt.split())
        if not stmt or stmt.startswith("typedef"):
            continue
        m = re.match(r"^[^(]*?\b([A-Za-z_]\w*)\s*\(", stmt)
        if m and not re.search(r"\(\s*\*", stmt[: m.end() + 2]):
            names.add(m.group(1))       # a function: the name before its first '('
        elif stmt.startswith("extern"):
            m = re.search(r"\b([A-Za-z_]\w*)\s*(\[[^\]]*\])?\s*$", stmt)
            if m:
                names.add(m.group(1))   # an object
    return names


def exported_names(nm, library):
    out = subprocess.run([nm, "-D", "--defined-only", library], check=True, capture_output=True,
                         text=True).stdout
    names = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 3:
            names.add(parts[2].split("@")[0])
    return names - LINKER_SYMBOLS


def compare(declared, exported):
    """(extra, missing): exported but not declared, declared but not exported."""
    return sorted(exported - declared), sorted(declared - exported)


def self_test():
    header = """/* a planted header: int not_a_decl(void); */
#ifdef __cplusplus
extern "C" {
#endif
#define X_MACRO(a) (a)
typedef struct x_s { int a; int (*cb)(int); } x_s;
typedef int (*x_fn)(int);
typedef enum x_e { X_A = 0 } x_e;
const char *const *x_names(void);
int x_step(x_s *s, int n,
           double *out);
extern int x_count;
void x_free(void *p); // trailing comment
#ifdef __cplusplus
}
#endif
"""
    got = declared_names(header)
    want = {"x_names", "x_step", "x_count", "x_free"}
    if got != want:
        sys.exit(f"check_exports self-test: declared {sorted(got)}, expected {sorted(want)}")
    extra, missing = compare(want, want | {"x_internal"})
    if extra != ["x_internal"] or missing:
        sys.exit("check_exports self-test: a planted extra export was not found")
    extra, missing = compare(want, want - {"x_free"})
    if missing != ["x_free"] or extra:
        sys.exit("check_exports self-test: a planted missing export was not found")
    print("check_exports self-test: ok")


def main(argv):
    nm = "nm"
    args = []
    it = iter(argv)
    for a in it:
        if a == "--self-test":
            self_test()
        elif a == "--nm":
            nm = next(it)
        else:
            args.append(a)
    if len(args) != 2:
        sys.exit(__doc__)
    header, library = args
    with open(header, encoding="utf-8") as f:
        declared = declared_names(f.read())
    if len(declared) < 10:
        sys.exit(f"check_exports: only {len(declared)} functions found in {header}: the parser is lost")
    exported = exported_names(nm, library)
    extra, missing = compare(declared, exported)
    print(f"check_exports: {header} declares {len(declared)} functions; {library} exports "
          f"{len(exported)} symbols")
    for n in extra:
        print(f"  exported but not in clash.h: {n}")
    for n in missing:
        print(f"  in clash.h but not exported: {n}")
    if extra or missing:
        print(f"check_exports: FAIL: {len(extra)} exported beyond clash.h, {len(missing)} of clash.h missing")
        return 1
    print("check_exports: ok, the exports are exactly clash.h")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
