#!/usr/bin/env python3
"""check_spack_recipe.py — the Spack recipe jobs/spack/package.py matches the build (issue 20).

Spack is not needed: the recipe is compiled as Python, then run against a
stub `spack.package` that records its directives (version, variant,
depends_on, ...) and the CMake definitions its cmake_args() returns.
Fails when
  * the recipe does not compile or does not define one CMakePackage;
  * a variant switches no CMake option (no define_from_variant for it);
  * a define_from_variant names a variant the recipe does not declare;
  * a variant's CMake option is not an option() of the top-level
    CMakeLists.txt, or another CLASH_... definition is neither an option()
    nor a CACHE variable of the CMake files given;
  * a `when="+NAME"` condition names a variant that does not exist.

Usage: check_spack_recipe.py [--self-test] RECIPE CMAKELISTS [MORE_CMAKE_FILES...]
`--self-test` first checks that the checker fails on the recipe with a
renamed option (CLASH_WITH_MPI -> CLASH_WITH_MPIX) and with an added
variant that switches nothing.
"""
import re
import sys
import types


def stub_spack(record):
    """sys.modules entries for `spack` and `spack.package`, recording into `record`."""
    pkg = types.ModuleType("spack.package")

    def directive(kind):
        def f(*args, **kwargs):
            record.setdefault(kind, []).append((args, kwargs))
        return f

    for kind in ("version", "variant", "depends_on", "conflicts", "requires", "provides", "patch",
                 "resource", "extends", "license", "maintainers", "build_system", "redistribute"):
        setattr(pkg, kind, directive(kind))

    class CMakePackage:
        run_tests = False

        def define(self, name, value):
            record.setdefault("define", []).append((name, value))
            return f"-D{name}={value}"

        def define_from_variant(self, name, variant=None):
            record.setdefault("define_from_variant", []).append((name, variant or name.lower()))
            return f"-D{name}=ON"

    pkg.CMakePackage = CMakePackage
    spack = types.ModuleType("spack")
    spack.package = pkg
    return {"spack": spack, "spack.package": pkg,
            # the Spack 1.x import must fail here, as on Spack 0.x
            "spack_repo": None, "spack_repo.builtin": None, "spack_repo.builtin.build_systems": None,
            "spack_repo.builtin.build_systems.cmake": None}, CMakePackage


def check(recipe_text, cmake_text, name="package.py"):
    """The list of problems (empty when the recipe is right)."""
    try:
        code = compile(recipe_text, name, "exec")
    except SyntaxError as e:
        return [f"{name} does not compile: {e}"]
    record = {}
    mods, base = stub_spack(record)
    saved = {k: sys.modules.get(k) for k in mods}
    sys.modules.update(mods)
    try:
        ns = {"__name__": "clash_recipe"}
        exec(code, ns)
        classes = [v for v in ns.values() if isinstance(v, type) and issubclass(v, base) and v is not base]
        if len(classes) != 1:
            return [f"{name} defines {len(classes)} CMakePackage classes, not one"]
        args = classes[0].__new__(classes[0]).cmake_args()
    except Exception as e:  # the recipe fails to run against the stub
        return [f"{name} does not run: {type(e).__name__}: {e}"]
    finally:
        for k, v in saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v
    problems = []
    if not isinstance(args, list):
        problems.append("cmake_args() does not return a list")
    options = set(re.findall(r"^\s*option\(\s*(\w+)", cmake_text, flags=re.M))
    cache = options | set(re.findall(r"^\s*set\(\s*(\w+)\s[^)]*\bCACHE\b", cmake_text, flags=re.M))
    variants = [a[0] for a, _ in record.get("variant", [])]
    switched = {}
    for opt, var in record.get("define_from_variant", []):
        switched.setdefault(var, []).append(opt)
        if var not in variants:
            problems.append(f"define_from_variant({opt!r}, {var!r}): no variant {var!r}")
    for var in variants:
        if var not in switched:
            problems.append(f"variant {var!r} switches no CMake option (no define_from_variant)")
    for opt, _ in record.get("define_from_variant", []):
        if opt not in options:
            problems.append(f"{opt} is not an option() of CMakeLists.txt (it has: {', '.join(sorted(options))})")
    for opt, _ in record.get("define", []):
        if opt.startswith("CLASH_") and opt not in cache:
            problems.append(f"{opt} is neither an option() nor a CACHE variable of the CMake files")
    for a, kw in record.get("depends_on", []) + record.get("conflicts", []):
        for v in re.findall(r"[+~]([A-Za-z_][\w-]*)", kw.get("when", "")):
            if v not in variants:
                problems.append(f"{a[0]} when={kw['when']!r}: no variant {v!r}")
    if not any(a[0].split("@")[0] == "cjson" for a, _ in record.get("depends_on", [])):
        problems.append("no depends_on('cjson'): clash needs cJSON")
    return problems


def self_test(recipe_text, cmake_text):
    if check(recipe_text, cmake_text):
        return  # the real check reports it
    if "CLASH_WITH_MPI" not in recipe_text:
        sys.exit("check_spack_recipe self-test: the recipe never names CLASH_WITH_MPI")
    bad = recipe_text.replace('"CLASH_WITH_MPI"', '"CLASH_WITH_MPIX"')
    if not any("CLASH_WITH_MPIX" in p for p in check(bad, cmake_text)):
        sys.exit("check_spack_recipe self-test: a renamed option CLASH_WITH_MPIX passed")
    bad = re.sub(r"(\n(\s+)variant\()", r'\n\2variant("cuda", default=False, description="x")\1', recipe_text,
                 count=1)
    if not any("'cuda'" in p for p in check(bad, cmake_text)):
        sys.exit("check_spack_recipe self-test: a variant that switches nothing passed")
    print("check_spack_recipe self-test: ok")


def main(argv):
    test = "--self-test" in argv
    args = [a for a in argv if a != "--self-test"]
    if len(args) < 2:
        sys.exit(__doc__)
    with open(args[0], encoding="utf-8") as f:
        recipe = f.read()
    cmake = ""
    for path in args[1:]:
        with open(path, encoding="utf-8") as f:
            cmake += f.read() + "\n"
    if test:
        self_test(recipe, cmake)
    problems = check(recipe, cmake, args[0])
    for p in problems:
        print(f"  {p}")
    if problems:
        print(f"check_spack_recipe: FAIL: {len(problems)} problems in {args[0]}")
        return 1
    print(f"check_spack_recipe: ok, {args[0]} compiles and every variant switches an option of {args[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
