# Spack recipe for clash (issue 20).  jobs/spack is a Spack package
# repository (namespace `clash`; packages/clash/package.py is this file):
#
#   spack repo add jobs/spack
#   spack env create -d clash-env && spack env activate -d clash-env
#   spack develop --path "$PWD" clash@=develop     # build this checkout
#   spack add clash@develop +mpi +openmp +hwloc && spack install
#
# Each variant switches one CMake option CLASH_WITH_<NAME> of the top-level
# CMakeLists.txt; a variant that is off turns its option OFF, so the build
# never picks up a library Spack did not provide.  The CTest
# `spack_recipe` (tests/packaging/check_spack_recipe.py) checks that every variant
# maps to an option(CLASH_WITH_...) that exists.
from spack.package import *

try:  # Spack 1.x: the build systems live in the builtin package repository
    from spack_repo.builtin.build_systems.cmake import CMakePackage
except ImportError:  # Spack 0.x: spack.package exports CMakePackage
    pass


class Clash(CMakePackage):
    """Parallel collision detection for triangle meshes: a C11 library
    (libclash, shared and static, with pkg-config and CMake packages), the
    `clash` command, and a ctypes Python module.  Broad phase, midphase
    (octrees, BVH, ...) and exact triangle tests, on OpenMP or pthreads
    within a process and MPI across ranks."""

    # No public repository yet: build a local checkout with `spack develop`.
    version("develop")

    variant("mpi", default=True, description="Distribute the coarse-grain work over MPI ranks")
    variant("openmp", default=True, description="Use OpenMP for the SPMD regions (else the pthreads pool)")
    variant("hwloc", default=True, description="Bind workers to cores or sockets with hwloc (--bind)")
    variant("papi", default=False, description="Hardware counters per stage through PAPI")
    variant("likwid", default=False, description="Stage regions in the likwid marker API")

    depends_on("c", type="build")
    depends_on("cmake@3.25:", type="build")
    depends_on("cjson")
    depends_on("mpi", when="+mpi")
    depends_on("hwloc", when="+hwloc")
    depends_on("papi", when="+papi")
    depends_on("likwid", when="+likwid")
    depends_on("llvm-openmp", when="+openmp %apple-clang")

    # variant -> the CMake option it switches (CMakeLists.txt: option(CLASH_WITH_...))
    cmake_options = {
        "mpi": "CLASH_WITH_MPI",
        "openmp": "CLASH_WITH_OPENMP",
        "hwloc": "CLASH_WITH_HWLOC",
        "papi": "CLASH_WITH_PAPI",
        "likwid": "CLASH_WITH_LIKWID",
    }

    def cmake_args(self):
        args = [self.define_from_variant(option, variant) for variant, option in self.cmake_options.items()]
        args += [
            self.define("CLASH_BUILD_TESTS", self.run_tests),
            self.define("CLASH_WITH_PEERS", False),  # the FCL/CGAL/Bullet peer programs of bench/
            self.define("CLASH_WERROR", False),
            self.define("CLASH_PYTHON_INSTALL_DIR", self.python_dir),
        ]
        return args

    # The ctypes module `clash` (it finds libclash by a relative path).
    python_dir = "lib/python3/site-packages"

    def setup_run_environment(self, env):
        env.prepend_path("PYTHONPATH", join_path(self.prefix, self.python_dir))
