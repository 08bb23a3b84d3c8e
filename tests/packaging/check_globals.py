#!/usr/bin/env python3
"""check_globals.py — no writable global state in the library (issue 14).

Reads the symbol tables of the library's object files (`objdump -t`) and
fails on any data object in a writable section: .data, .bss, .tdata, .tbss
(thread-locals count too) or a common symbol.  Constant tables of pointers
sit in .data.rel.ro (read-only once relocated) and are allowed.  Two runs in
two host threads, or two runs on two MPI communicators, may then share
nothing but what they are given.

Usage: check_globals.py OBJECT.o...   (CTest passes the objects of the
clash_objects target).  `--self-test` first checks that a planted global in
a small C file compiled here is found.
"""
import os
import re
import subprocess
import sys
import tempfile

WRITABLE = re.compile(r"^\.(data|bss|tdata|tbss)(\.|$)")
# The one exception: the instruction-set level of the process (kernels/cpu.c),
# written once by a load-time constructor from CLASH_ISA and the CPU's
# feature bits, read-only after; a property of the process like the CPU
# model libgcc keeps, so nothing two runs could disagree on.
ALLOWED = {("cpu.c.o", "ck_isa_level"), ("cpu.c.o", ".hidden ck_isa_level")}


def writable_objects(obj):
    out = subprocess.run(["objdump", "-t", obj], capture_output=True, text=True, check=True).stdout
    found, seen = [], 0
    for line in out.splitlines():
        # "0000000000000000 l     O .bss	0000000000000004 name"
        m = re.match(r"^[0-9a-f]+\s+([lgu!w ]+)\s*([A-Za-z ]*)\s(\S+)\s+[0-9a-f]+\s+(.*)$", line)
        if not m:
            continue
        flags, section, name = m.group(1) + m.group(2), m.group(3), m.group(4).strip()
        seen += 1
        if any(c in flags for c in "dfF"):  # section, file and function symbols
            continue
        if section == "*COM*" or (WRITABLE.match(section) and ".rel.ro" not in section):
            found.append((section, name))
    return found, seen


def self_test():
    with tempfile.TemporaryDirectory() as d:
        src, obj = os.path.join(d, "g.c"), os.path.join(d, "g.o")
        with open(src, "w") as f:
            f.write("static int counter;\nstatic _Thread_local int mine;\n"
                    "int bump(void);\nint bump(void) { return ++counter + ++mine; }\n"
                    "static const char *const names[] = {\"a\", \"b\"};\n"
                    "const char *name(int i);\nconst char *name(int i) { return names[i]; }\n")
        subprocess.run(["cc", "-O1", "-fPIC", "-c", src, "-o", obj], check=True)
        found, _ = writable_objects(obj)
        names = sorted(n for _, n in found)
        if names != ["counter", "mine"]:
            print("check_globals self-test: expected only the planted 'counter' and 'mine', found %s" % names)
            return False
    return True


def main(argv):
    objs = [a for a in argv if not a.startswith("--")]
    if "--self-test" in argv and not self_test():
        return 1
    bad, total = [], 0
    for o in objs:
        found, seen = writable_objects(o)
        total += seen
        bad += [(o, s, n) for s, n in found if (os.path.basename(o), n) not in ALLOWED]
    if not objs or total == 0:
        print("check_globals: no symbols read (give the library's object files)")
        return 1
    for o, s, n in bad:
        print("check_globals: %s: writable global '%s' in %s" % (os.path.basename(o), n, s))
    print("check_globals: %d object files, %d writable globals" % (len(objs), len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
