"""clash — collision detection for moving and deforming triangle meshes.

Python bindings (ctypes) over libclash's C API (clash.h).  A host builds a
scene from numpy arrays, creates a run, and every step sets the poses of its
rigid objects and the vertices of its deforming ones, then advances:

    import numpy as np, clash
    scene = clash.Scene()
    m = scene.add_mesh(V, F)                    # V (n, 3) float64, F (m, 3) integers
    a = scene.add_object(m)                     # state 0: identity pose
    b = scene.add_object(m, R, t)               # state 0: world = R @ local + t
    run = clash.Run(scene, mode="swept", threads=2)
    run.set_pose(b, R1, t1)                     # the next state of object b
    pairs = run.advance()                       # (n, 4) uint32: obj_a, face_a, obj_b, face_b

Exact continuous collision detection: Run(scene, mode="swept", ccd=True,
ccd_tolerance=1e-6, min_separation=0.0); after each step run.contacts() is
a numpy structured array (CONTACT_DTYPE) with fields kind (CONTACT_VF = 0 or
CONTACT_EE = 1), obj_a, id_a, obj_b, id_b (uint32) and toi (float64).

Geometry: Run(scene, geometry=True) makes each step's pair_geometry()
(intersection segments), contact_geometry() (points, normals, parameters at
toi, with ccd=True) and object_pairs(); any run answers distance(a, b) and
proximity(dhat) in the current state, and scene.edges(obj) gives the edge
numbering of ee contacts; all structured numpy arrays (the *_DTYPE names).

Under MPI, Run(scene, decompose="objects") makes each rank store and move
only the objects it owns: every rank builds the same scene, sets only the
objects with run.owner(obj) equal to its rank, and advances; rank 0 gets the
pairs (clash.h, "Decomposed runs").

Trial steps (clash.h, "Trial steps, jumps and batched states"): run.query()
makes the step run.advance() would make to the states set and takes it back,
returning (pairs, contacts, first_toi) exactly as that advance would (first_toi
in [0, 1], 1 when nothing touches, with ccd off too); run.jump() makes the
states set current without a step; run.set_poses(ids, R (n, 3, 3), t (n, 3))
and run.set_vertices_many(ids, [V, ...]) set many objects in one library
call, all or nothing; run.advance(stats=True) returns (pairs, stats) with the
step statistics as a dict; clash.read_mesh(path) reads a mesh file into
(V, F).

It needs numpy: Debian's /usr/bin/python3 with the package python3-numpy
(apt-get install python3-numpy); without it `import clash` fails saying so.

Arrays are handed to the library without copies when they are already
C-contiguous float64 / int32 (the store copies them once, as the C API
does); the pairs come back as a new array each step.  Every error raises
clash.Error with the library's message (naming the mesh, object and element)
and its status code (2 for bad input).
"""
import ctypes
import ctypes.util
import os
import sys

try:
    import numpy as np
except ImportError as _e:  # the module's arrays are numpy's: say which interpreter and package have it
    raise ImportError(f"clash needs numpy, which this interpreter ({sys.executable}) lacks: on Debian use "
                      f"/usr/bin/python3 with the package python3-numpy (apt-get install python3-numpy)") from _e

__all__ = ["Error", "Scene", "Run", "library_path", "read_mesh", "CONTACT_DTYPE", "CONTACT_VF", "CONTACT_EE",
           "STAGES", "PAIR_GEOM_DTYPE", "CONTACT_GEOM_DTYPE", "OBJECT_PAIR_DTYPE", "DISTANCE_DTYPE", "PROXIMITY_DTYPE"]

_OK, _EFAIL, _EINPUT = 0, 1, 2


class Error(Exception):
    """A failure reported by libclash: .code is 1 (failure) or 2 (bad input)."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


class _Err(ctypes.Structure):
    _fields_ = [("code", ctypes.c_int), ("msg", ctypes.c_char * 1024)]


class _Pairs(ctypes.Structure):
    _fields_ = [("pairs", ctypes.POINTER(ctypes.c_uint32)), ("count", ctypes.c_size_t)]


# clash_contact: five uint32 then a double, laid out as C lays it out (align=True)
CONTACT_DTYPE = np.dtype([("kind", np.uint32), ("obj_a", np.uint32), ("id_a", np.uint32), ("obj_b", np.uint32),
                          ("id_b", np.uint32), ("toi", np.float64)], align=True)
CONTACT_VF, CONTACT_EE = 0, 1


# Contact geometry, distances, proximity (clash.h, "Contact geometry, distances, proximity, edge tables"),
# each the C struct's layout; checked against clash_struct_size before use.
PAIR_GEOM_DTYPE = np.dtype([("p", np.float64, 3), ("q", np.float64, 3), ("status", np.int32), ("pad_", np.int32)],
                           align=True)
CONTACT_GEOM_DTYPE = np.dtype([("point", np.float64, 3), ("pa", np.float64, 3), ("pb", np.float64, 3),
                               ("normal", np.float64, 3), ("w", np.float64, 3), ("distance", np.float64)], align=True)
OBJECT_PAIR_DTYPE = np.dtype([("obj_a", np.uint32), ("obj_b", np.uint32), ("face_pairs", np.int64),
                              ("contacts", np.int64), ("first_toi", np.float64), ("penetration", np.float64)],
                             align=True)
DISTANCE_DTYPE = np.dtype([("distance", np.float64), ("pa", np.float64, 3), ("pb", np.float64, 3),
                           ("obj_a", np.uint32), ("face_a", np.uint32), ("obj_b", np.uint32), ("face_b", np.uint32),
                           ("found", np.int32), ("pad_", np.int32)], align=True)
PROXIMITY_DTYPE = np.dtype([("kind", np.uint32), ("obj_a", np.uint32), ("id_a", np.uint32), ("obj_b", np.uint32),
                            ("id_b", np.uint32), ("distance", np.float64)], align=True)


class _Contacts(ctypes.Structure):
    _fields_ = [("contacts", ctypes.c_void_p), ("count", ctypes.c_size_t)]


class _MeshArrays(ctypes.Structure):
    _fields_ = [("nv", ctypes.c_int64), ("nf", ctypes.c_int64), ("xyz", ctypes.POINTER(ctypes.c_double)),
                ("tri", ctypes.POINTER(ctypes.c_int32))]


# clash_step_stats (clash.h), field for field; its size is checked against the library's
STAGES = ("S0_motion", "S1_boxes", "S2_broad", "S3_cull", "S4_mid", "S5_narrow", "S6_gather")
_NST = len(STAGES)
_D, _I64, _I32, _INT = ctypes.c_double, ctypes.c_int64, ctypes.c_int32, ctypes.c_int


class _StepStats(ctypes.Structure):
    _fields_ = ([("seconds", _D * _NST)] +
                [(n, _I64) for n in ("vertices", "faces_boxed", "object_pairs", "faces_kept", "candidates",
                                     "tests", "hits")] +
                [("octree_level", _INT), ("mid_build_s", _D), ("mid_bytes", _I64), ("mid_fallback_objects", _I64),
                 ("mid_update_s", _D), ("mid_interfering", _I64), ("worker_min_s", _D * _NST),
                 ("worker_max_s", _D * _NST), ("ccd_s", _D)] +
                [(n, _I64) for n in ("ccd_tests", "ccd_vf_tests", "ccd_hull_no", "ccd_filter_no", "ccd_filter_yes",
                                     "ccd_exact_calls", "ccd_contacts")] +
                [("ccd_first_toi", _D)] +
                [(n, _I64) for n in ("dist_owned", "dist_present", "dist_reported", "dist_bytes_sent",
                                     "dist_rebuilds", "dist_cuts", "dist_faces")] +
                [("dist_imbalance", _D)] +
                [("rank", _I32), ("ranks", _I32), ("rank_units", _I64), ("rank_hits", _I64),
                 ("object_pairs_filtered", _I64), ("objects_off", _I64)])


_stats_checked = False
_STAT_SCALARS = tuple(n for n, t in _StepStats._fields_ if not hasattr(t, "_length_"))


def _stats_dict(st):
    """The step statistics as a dict: the counts and times of clash_step_stats
    under their C names, the per-stage arrays as dicts by STAGES, and
    "step_s", the step's own time (the seven stages and the ccd stage)."""
    d = {n: getattr(st, n) for n in _STAT_SCALARS}
    for n in ("seconds", "worker_min_s", "worker_max_s"):
        a = getattr(st, n)
        d[n] = dict(zip(STAGES, a))
    d["step_s"] = sum(st.seconds) + st.ccd_s
    return d


def library_path():
    """Where libclash is loaded from: $CLASH_LIBRARY, else the path recorded
    at build or install time (relative to this package), else the loader's
    search path."""
    env = os.environ.get("CLASH_LIBRARY")
    if env:
        return env
    try:
        from ._libpath import LIBRARY
        here = os.path.dirname(os.path.abspath(__file__))
        p = os.path.normpath(os.path.join(here, LIBRARY))
        if os.path.exists(p):
            return p
    except ImportError:
        pass
    return ctypes.util.find_library("clash") or "libclash.so"


def _load():
    lib = ctypes.CDLL(library_path())
    P, E = ctypes.c_void_p, ctypes.POINTER(_Err)
    sigs = {
        "clash_scene_create": (ctypes.c_int, [ctypes.POINTER(P), E]),
        "clash_scene_load": (ctypes.c_int, [ctypes.c_char_p, ctypes.POINTER(P), E]),
        "clash_scene_add_mesh": (ctypes.c_int, [P, P, ctypes.c_int64, P, ctypes.c_int64, E]),
        "clash_scene_add_object": (ctypes.c_int, [P, ctypes.c_int, P, P, ctypes.c_int, E]),
        "clash_scene_destroy": (None, [P]),
        "clash_scene_objects": (ctypes.c_int, [P]),
        "clash_scene_faces": (ctypes.c_int64, [P]),
        "clash_scene_vertices": (ctypes.c_int64, [P]),
        "clash_scene_object_vertices": (ctypes.c_int64, [P, ctypes.c_int]),
        "clash_config_size": (ctypes.c_size_t, []),
        "clash_config_init": (None, [P]),
        "clash_config_set": (ctypes.c_int, [P, ctypes.c_char_p, ctypes.c_char_p, E]),
        "clash_run_create": (P, [P, P, E]),
        "clash_run_destroy": (None, [P]),
        "clash_run_set_pose": (ctypes.c_int, [P, ctypes.c_int, P, P, E]),
        "clash_run_set_vertices": (ctypes.c_int, [P, ctypes.c_int, P, E]),
        "clash_run_advance": (ctypes.c_int, [P, ctypes.POINTER(_Pairs), P, E]),
        "clash_step": (ctypes.c_int, [P, ctypes.c_int, ctypes.POINTER(_Pairs), P, E]),
        "clash_run_contacts": (ctypes.c_int, [P, ctypes.POINTER(_Contacts), E]),
        "clash_run_owner": (ctypes.c_int, [P, ctypes.c_int]),
        "clash_struct_size": (ctypes.c_size_t, [ctypes.c_char_p]),
        # objects that come and go, filters (Run.add_object ... Run.set_self)
        "clash_run_add_object": (ctypes.c_int, [P, ctypes.c_int, P, P, ctypes.c_int, E]),
        "clash_run_remove_object": (ctypes.c_int, [P, ctypes.c_int, E]),
        "clash_run_set_enabled": (ctypes.c_int, [P, ctypes.c_int, ctypes.c_int, E]),
        "clash_run_set_filter": (ctypes.c_int, [P, ctypes.c_int, ctypes.c_uint32, ctypes.c_uint32, E]),
        "clash_run_exclude_pair": (ctypes.c_int, [P, ctypes.c_int, ctypes.c_int, ctypes.c_int, E]),
        "clash_run_set_self": (ctypes.c_int, [P, ctypes.c_int, ctypes.c_int, E]),
        "clash_run_query": (ctypes.c_int, [P, ctypes.POINTER(_Pairs), ctypes.POINTER(_Contacts),
                                           ctypes.POINTER(ctypes.c_double), E]),
        "clash_run_jump": (ctypes.c_int, [P, E]),
        "clash_run_set_poses": (ctypes.c_int, [P, ctypes.c_int, P, P, P, E]),
        "clash_run_set_vertices_many": (ctypes.c_int, [P, ctypes.c_int, P, P, E]),
        "clash_mesh_read": (ctypes.c_int, [ctypes.c_char_p, ctypes.POINTER(_MeshArrays), E]),
        "clash_mesh_arrays_free": (None, [ctypes.POINTER(_MeshArrays)]),
        # contact geometry, distances, proximity, edge tables
        "clash_scene_edges": (ctypes.c_int, [P, ctypes.c_int, ctypes.POINTER(P), ctypes.POINTER(ctypes.c_int64)]),
        "clash_run_pair_geometry": (ctypes.c_int, [P, ctypes.POINTER(P), ctypes.POINTER(ctypes.c_size_t), E]),
        "clash_run_contact_geometry": (ctypes.c_int, [P, ctypes.POINTER(P), ctypes.POINTER(ctypes.c_size_t), E]),
        "clash_run_object_pairs": (ctypes.c_int, [P, ctypes.POINTER(P), ctypes.POINTER(ctypes.c_size_t), E]),
        "clash_run_distance": (ctypes.c_int, [P, ctypes.c_int, ctypes.c_int, ctypes.c_double, P, E]),
        "clash_run_proximity": (ctypes.c_int, [P, ctypes.c_double, ctypes.POINTER(P), ctypes.POINTER(ctypes.c_size_t),
                                               E]),
    }
    for name, (res, args) in sigs.items():
        f = getattr(lib, name)
        f.restype, f.argtypes = res, args
    return lib


_lib = None


def _L():
    global _lib
    if _lib is None:
        _lib = _load()
    return _lib


def _check(rc, err):
    if rc < 0:
        rc = -rc
    if rc != _OK:
        raise Error(err.code or rc, err.msg.decode("utf-8", "replace"))


def _f64(a, shape, what):
    a = np.ascontiguousarray(a, dtype=np.float64)
    if shape is not None and a.shape != shape:
        raise Error(_EINPUT, f"{what}: expected shape {shape}, got {a.shape}")
    return a


_AXES = "xyz"


def _vertices(V, what):
    """V as a C-contiguous (n, 3) float64 array of finite real numbers, checked
    here (before the library sees it) so that a bad array is named as the
    caller wrote it: its shape, its dtype, its first non-finite element."""
    a = np.asarray(V)
    if a.dtype.kind not in "fiu":
        raise Error(_EINPUT, f"{what}: V must hold real numbers, got dtype {a.dtype}")
    if a.ndim != 2 or a.shape[1] != 3:
        raise Error(_EINPUT, f"{what}: V must be (n, 3), got shape {a.shape}")
    a = np.ascontiguousarray(a, dtype=np.float64)
    bad = np.argwhere(~np.isfinite(a))
    if len(bad):
        i, k = (int(x) for x in bad[0])
        raise Error(_EINPUT, f"{what}: V: vertex {i}: {_AXES[k]} is {a[i, k]} (V[{i}, {k}]): must be finite")
    return a


def _indices(F, nv, what):
    """F as a C-contiguous (m, 3) int32 array of indices into nv vertices.  An
    integer dtype is required: floats are refused even when whole, since a
    truncated index would silently name another vertex.  The range is checked
    before the conversion to int32, which would wrap an index past 2**31."""
    a = np.asarray(F)
    if a.dtype.kind not in "iu":
        raise Error(_EINPUT, f"{what}: F must be an integer array of vertex indices, got dtype {a.dtype} "
                             f"(convert whole numbers with F.astype(np.int32))")
    if a.ndim != 2 or a.shape[1] != 3:
        raise Error(_EINPUT, f"{what}: F must be (m, 3), got shape {a.shape}")
    bad = np.argwhere((a < 0) | (a >= nv))
    if len(bad):
        f, k = (int(x) for x in bad[0])
        raise Error(_EINPUT, f"{what}: F: triangle {f}: corner {k} is vertex {int(a[f, k])}, "
                             f"out of range 0..{nv - 1} (F[{f}, {k}])")
    return np.ascontiguousarray(a, dtype=np.int32)


def _ids(ids, what):
    """ids as a C-contiguous 1-D int32 array of object ids (an integer dtype,
    each in int32 range; the library names an unknown one)."""
    a = np.asarray(ids)
    if a.dtype.kind not in "iu":
        raise Error(_EINPUT, f"{what}: ids must be an integer array of object ids, got dtype {a.dtype}")
    if a.ndim != 1:
        raise Error(_EINPUT, f"{what}: ids must be 1-D (n,), got shape {a.shape}")
    bad = np.flatnonzero((a < -2**31) | (a >= 2**31))
    if len(bad):
        i = int(bad[0])
        raise Error(_EINPUT, f"{what}: ids[{i}]: object {int(a[i])}: out of range")
    return np.ascontiguousarray(a, dtype=np.int32)


def _finite(a, shape, what, name, ids, elem=None, obj=None):
    """a as C-contiguous float64 of exactly shape, every element finite; errors
    name the batch element, its object and the element as the caller wrote it
    (ids: the batch's objects, element by a's first index; else a is batch
    element elem alone, of object obj)."""
    a = np.asarray(a)
    where = f"{what}: " if ids is not None else f"{what}: [{elem}]: object {obj}: "
    if a.dtype.kind not in "fiu":
        raise Error(_EINPUT, f"{where}{name} must hold real numbers, got dtype {a.dtype}")
    if a.shape != shape:
        raise Error(_EINPUT, f"{where}{name} must have shape {shape}, got {a.shape}")
    a = np.ascontiguousarray(a, dtype=np.float64)
    if not np.isfinite(a).all():
        idx = tuple(int(x) for x in np.argwhere(~np.isfinite(a))[0])
        if ids is not None:
            where = f"{what}: [{idx[0]}]: object {int(ids[idx[0]])}: "
        raise Error(_EINPUT, f"{where}{name}[{', '.join(map(str, idx))}] is {a[idx]}: must be finite")
    return a


def _contacts_array(c):
    n = int(c.count)
    if n == 0:
        return np.zeros(0, dtype=CONTACT_DTYPE)
    buf = (ctypes.c_char * (n * CONTACT_DTYPE.itemsize)).from_address(c.contacts)
    return np.frombuffer(buf, dtype=CONTACT_DTYPE).copy()


def read_mesh(path):
    """A mesh file (.obj, .ply, .stl, .off) read by clash's own readers
    (clash_mesh_read): (V, F), V (n, 3) float64 and F (m, 3) int32, ready for
    Scene.add_mesh.  A bad file raises clash.Error naming the file and line."""
    lib, m, err = _L(), _MeshArrays(), _Err()
    _check(lib.clash_mesh_read(os.fsencode(path), ctypes.byref(m), ctypes.byref(err)), err)
    try:
        V = np.ctypeslib.as_array(m.xyz, shape=(int(m.nv), 3)).copy()
        F = np.ctypeslib.as_array(m.tri, shape=(int(m.nf), 3)).copy()
    finally:
        lib.clash_mesh_arrays_free(ctypes.byref(m))
    return V, F


def _struct_array(ptr, n, dtype, cname):
    """n C structs at ptr as a new numpy structured array of dtype, after
    checking that the C struct's size is the dtype's."""
    if _L().clash_struct_size(cname.encode()) != dtype.itemsize:
        raise Error(_EFAIL, f"{cname}'s size differs from the module's dtype (a library of another version?)")
    if n == 0:
        return np.zeros(0, dtype=dtype)
    buf = (ctypes.c_char * (n * dtype.itemsize)).from_address(ptr)
    return np.frombuffer(buf, dtype=dtype).copy()


def _geometry_call(fn, h, dtype, cname):
    ptr, n, err = ctypes.c_void_p(), ctypes.c_size_t(), _Err()
    _check(fn(h, ctypes.byref(ptr), ctypes.byref(n), ctypes.byref(err)), err)
    return _struct_array(ptr.value, int(n.value), dtype, cname)


def _pairs_array(p):
    n = int(p.count)
    if n == 0:
        return np.zeros((0, 4), dtype=np.uint32)
    return np.ctypeslib.as_array(p.pairs, shape=(n, 4)).copy()


class Scene:
    """A set of objects, each an instance of a triangle mesh (clash_scene)."""

    def __init__(self, _handle=None):
        self._h = ctypes.c_void_p(_handle) if _handle else ctypes.c_void_p()
        if not _handle:
            err = _Err()
            _check(_L().clash_scene_create(ctypes.byref(self._h), ctypes.byref(err)), err)

    @classmethod
    def load(cls, path):
        """A scene from a clash-scene/1 JSON file."""
        h, err = ctypes.c_void_p(), _Err()
        _check(_L().clash_scene_load(os.fsencode(path), ctypes.byref(h), ctypes.byref(err)), err)
        return cls(h.value)

    def add_mesh(self, V, F):
        """Copies vertices V (n, 3), finite real numbers, and triangles F
        (m, 3) of an integer dtype (0-based indices, three distinct vertices
        each); returns the mesh id.  Bad arrays raise clash.Error (status 2)
        before the library is called."""
        V = _vertices(V, "add_mesh")
        F = _indices(F, V.shape[0], "add_mesh")
        err = _Err()
        rc = _L().clash_scene_add_mesh(self._h, V.ctypes.data, V.shape[0], F.ctypes.data, F.shape[0],
                                       ctypes.byref(err))
        _check(rc if rc < 0 else _OK, err)
        return rc

    def add_object(self, mesh, R=None, t=None, deforming=False):
        """An instance of mesh in state 0: world = R @ local + t (R a rotation,
        None = identity; t None = 0).  A deforming object gets its own copy of
        the vertices.  Returns the object id."""
        R = None if R is None else _f64(R, (3, 3), "add_object: R")
        t = None if t is None else _f64(t, (3,), "add_object: t")
        err = _Err()
        rc = _L().clash_scene_add_object(self._h, int(mesh), None if R is None else R.ctypes.data,
                                         None if t is None else t.ctypes.data, int(bool(deforming)),
                                         ctypes.byref(err))
        _check(rc if rc < 0 else _OK, err)
        return rc

    def edges(self, obj):
        """Object obj's edge table, the numbering of ee contacts and proximity
        pairs: an (n, 2) int32 array, row k the vertices i < j of edge k,
        ordered by j, then i (a new array each call)."""
        ptr, n = ctypes.c_void_p(), ctypes.c_int64()
        rc = _L().clash_scene_edges(self._h, int(obj), ctypes.byref(ptr), ctypes.byref(n))
        if rc:
            raise Error(rc, f"edges: object {obj}: " + ("no such object (the scene has "
                                                        f"{self.objects})" if rc == _EINPUT else "out of memory"))
        if n.value == 0:
            return np.zeros((0, 2), dtype=np.int32)
        return np.ctypeslib.as_array(ctypes.cast(ptr, ctypes.POINTER(ctypes.c_int32)), shape=(n.value, 2)).copy()

    @property
    def objects(self):
        return _L().clash_scene_objects(self._h)

    @property
    def faces(self):
        return _L().clash_scene_faces(self._h)

    @property
    def vertices(self):
        return _L().clash_scene_vertices(self._h)

    def close(self):
        if self._h:
            _L().clash_scene_destroy(self._h)
            self._h = ctypes.c_void_p()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


class Run:
    """Steps over a scene (clash_run).  Options are the command's run options
    as keywords: mode='static'|'swept', threads=N, midphase='octree', ...
    (dashes become underscores: octree_level=6; self_collision=True is --self)."""

    def __init__(self, scene, **options):
        lib = _L()
        self._scene = scene  # the run reads the scene: keep it alive
        self._cfg = ctypes.create_string_buffer(lib.clash_config_size())
        lib.clash_config_init(self._cfg)
        err = _Err()
        for key, value in options.items():
            if value is None:
                continue
            name = "self" if key == "self_collision" else key.replace("_", "-")
            if isinstance(value, bool):
                value = int(value)
            _check(lib.clash_config_set(self._cfg, name.encode(), str(value).encode(), ctypes.byref(err)), err)
        h = lib.clash_run_create(scene._h, self._cfg, ctypes.byref(err))
        if not h:
            _check(err.code or _EFAIL, err)
        self._h = ctypes.c_void_p(h)

    def set_pose(self, obj, R, t):
        """The next state of rigid object obj: world = R @ local + t."""
        R, t = _f64(R, (3, 3), "set_pose: R"), _f64(t, (3,), "set_pose: t")
        err = _Err()
        _check(_L().clash_run_set_pose(self._h, int(obj), R.ctypes.data, t.ctypes.data, ctypes.byref(err)), err)

    def set_vertices(self, obj, V):
        """The next world positions (n, 3) of deforming object obj's vertices."""
        V = _vertices(V, "set_vertices")
        err = _Err()
        _check(_L().clash_run_set_vertices(self._h, int(obj), V.ctypes.data, ctypes.byref(err)), err)

    def advance(self, stats=False):
        """One step from the current state to the one set; returns the
        colliding face pairs as an (n, 4) uint32 array obj_a, face_a, obj_b,
        face_b, canonical and sorted.  stats=True: (pairs, stats), stats the
        step statistics (clash_step_stats) as a dict (see _stats_dict:
        "step_s" is the step's own time)."""
        p, err = _Pairs(), _Err()
        if not stats:
            _check(_L().clash_run_advance(self._h, ctypes.byref(p), None, ctypes.byref(err)), err)
            return _pairs_array(p)
        st = _StepStats()
        global _stats_checked
        if not _stats_checked:  # once: the mirror must match the library's struct
            if _L().clash_struct_size(b"clash_step_stats") != ctypes.sizeof(_StepStats):
                raise Error(_EFAIL, "advance: clash_step_stats's size differs from the module's mirror of it")
            _stats_checked = True
        _check(_L().clash_run_advance(self._h, ctypes.byref(p), ctypes.byref(st), ctypes.byref(err)), err)
        return _pairs_array(p), _stats_dict(st)

    def query(self):
        """The step advance() would make to the states set, taken back
        (clash_run_query): (pairs, contacts, first_toi), the pairs and
        contacts that advance would return (contacts empty without ccd) and
        the step's earliest time of impact in [0, 1] (1: none; computed with
        ccd off too).  The current state stays current and the states set
        stay set: set others and query again, or advance."""
        lib, p, c, toi, err = _L(), _Pairs(), _Contacts(), ctypes.c_double(1.0), _Err()
        _check(lib.clash_run_query(self._h, ctypes.byref(p), ctypes.byref(c), ctypes.byref(toi), ctypes.byref(err)),
               err)
        return _pairs_array(p), _contacts_array(c), float(toi.value)

    def jump(self):
        """The states set become current without a step: no sweep, no pairs
        (clash_run_jump); the next advance sweeps from there."""
        err = _Err()
        _check(_L().clash_run_jump(self._h, ctypes.byref(err)), err)

    def set_poses(self, ids, R, t):
        """The next states of n rigid objects in one library call
        (clash_run_set_poses): ids (n,) integers, R (n, 3, 3) rotations, t
        (n, 3).  All or nothing: a bad shape, dtype or non-finite element
        raises clash.Error here, naming the element, before the library is
        called; the library names an unknown object or a matrix that is not
        a rotation, and sets nothing then either."""
        ids = _ids(ids, "set_poses")
        n = ids.shape[0]
        R = _finite(R, (n, 3, 3), "set_poses", "R", ids)
        t = _finite(t, (n, 3), "set_poses", "t", ids)
        err = _Err()
        _check(_L().clash_run_set_poses(self._h, n, ids.ctypes.data, R.ctypes.data, t.ctypes.data,
                                        ctypes.byref(err)), err)

    def set_vertices_many(self, ids, Vs):
        """The next world positions of n deforming objects in one library call
        (clash_run_set_vertices_many): ids (n,) integers and Vs a sequence of n
        (nv_i, 3) arrays, each with its object's vertex count.  All or
        nothing, as set_poses."""
        ids = _ids(ids, "set_vertices_many")
        n = ids.shape[0]
        if len(Vs) != n:
            raise Error(_EINPUT, f"set_vertices_many: {n} ids but {len(Vs)} vertex arrays")
        lib = _L()
        keep = []
        for i in range(n):
            o = int(ids[i])
            nv = lib.clash_scene_object_vertices(self._scene._h, o)
            if nv < 0:
                raise Error(_EINPUT, f"set_vertices_many: [{i}]: object {o}: no such object")
            keep.append(_finite(Vs[i], (nv, 3), "set_vertices_many", f"Vs[{i}]", None, i, o))
        ptrs = (ctypes.c_void_p * max(n, 1))(*[a.ctypes.data for a in keep])
        err = _Err()
        _check(lib.clash_run_set_vertices_many(self._h, n, ids.ctypes.data, ptrs, ctypes.byref(err)), err)

    def owner(self, obj):
        """The rank that sets obj's states: with decompose="objects" under MPI
        (every rank building the same scene) its owner, else this rank; -1
        for an unknown object."""
        return int(_L().clash_run_owner(self._h, int(obj)))

    def step(self, s):
        """Step s of a scene that moves itself (a scene file's velocities or frames)."""
        p, err = _Pairs(), _Err()
        _check(_L().clash_step(self._h, int(s), ctypes.byref(p), None, ctypes.byref(err)), err)
        return _pairs_array(p)

    def contacts(self):
        """The contacts of the last step (a run created with ccd=True): a numpy
        structured array of CONTACT_DTYPE (kind, obj_a, id_a, obj_b, id_b, toi),
        sorted by kind (vf, then ee) and ids; a new array each call."""
        lib, c, err = _L(), _Contacts(), _Err()
        _check(lib.clash_run_contacts(self._h, ctypes.byref(c), ctypes.byref(err)), err)
        if lib.clash_struct_size(b"clash_contact") != CONTACT_DTYPE.itemsize:
            raise Error(_EFAIL, "contacts: clash_contact's size differs from CONTACT_DTYPE's")
        return _contacts_array(c)

    # ---- objects that come and go, filters (clash.h: "Objects that come and go") ----

    def add_object(self, mesh, R=None, t=None, deforming=False):
        """A new object of the scene's mesh `mesh` at world = R @ local + t in
        the current state (and the one before it: it enters without sweeping
        from anywhere; the next advance moves it to the pose set for it, or
        leaves it there).  R None = identity, t None = 0.  Returns its id
        (ids are never reused).  Meshes may be added to the scene meanwhile
        (Scene.add_mesh)."""
        R = None if R is None else _f64(R, (3, 3), "add_object: R")
        t = None if t is None else _f64(t, (3,), "add_object: t")
        err = _Err()
        rc = _L().clash_run_add_object(self._h, int(mesh), None if R is None else R.ctypes.data,
                                       None if t is None else t.ctypes.data, int(bool(deforming)),
                                       ctypes.byref(err))
        _check(rc if rc < 0 else _OK, err)
        return rc

    def remove_object(self, obj):
        """Object obj takes part in nothing from the next step on; every later
        call naming it raises "object N was removed"."""
        err = _Err()
        _check(_L().clash_run_remove_object(self._h, int(obj), ctypes.byref(err)), err)

    def set_enabled(self, obj, enabled):
        """A disabled object takes part in no pair but keeps moving with the states set."""
        err = _Err()
        _check(_L().clash_run_set_enabled(self._h, int(obj), int(bool(enabled)), ctypes.byref(err)), err)

    def set_filter(self, obj, group, mask):
        """Objects a and b are tested only when (group_a & mask_b) and
        (group_b & mask_a) are nonzero (Bullet's rule; 32-bit masks, default
        all bits)."""
        g, m = int(group), int(mask)
        if not (0 <= g < 2 ** 32 and 0 <= m < 2 ** 32):
            raise Error(_EINPUT, f"set_filter: object {int(obj)}: group and mask must be in 0..2**32-1, "
                                 f"got {g} and {m}")
        err = _Err()
        _check(_L().clash_run_set_filter(self._h, int(obj), g, m, ctypes.byref(err)), err)

    def exclude_pair(self, a, b, excluded=True):
        """Keeps the pair (a, b) out of every test (excluded=False lets it back)."""
        err = _Err()
        _check(_L().clash_run_exclude_pair(self._h, int(a), int(b), int(bool(excluded)), ctypes.byref(err)), err)

    def set_self(self, obj, self_collision):
        """Whether object obj is tested against itself (default: the run's self_collision)."""
        err = _Err()
        _check(_L().clash_run_set_self(self._h, int(obj), int(bool(self_collision)), ctypes.byref(err)), err)

    # ---- end of the objects-and-filters block ----

    # ---- contact geometry, distances, proximity (a run made with geometry=True for the first three)

    def pair_geometry(self):
        """The last step's pairs' intersection segments (PAIR_GEOM_DTYPE: p, q
        (3,) float64, status 1 segment / 0 not meeting in the new state /
        2 coplanar), in the order of the pairs advance() returned."""
        return _geometry_call(_L().clash_run_pair_geometry, self._h, PAIR_GEOM_DTYPE, "clash_pair_geom")

    def contact_geometry(self):
        """The last step's contacts' geometry at toi (CONTACT_GEOM_DTYPE: point,
        pa, pb, normal, w (3,) float64 and distance), in the order of contacts()."""
        return _geometry_call(_L().clash_run_contact_geometry, self._h, CONTACT_GEOM_DTYPE, "clash_contact_geom")

    def object_pairs(self):
        """The last step's colliding object pairs (OBJECT_PAIR_DTYPE: obj_a, obj_b,
        face_pairs, contacts, first_toi (-1: none), penetration)."""
        return _geometry_call(_L().clash_run_object_pairs, self._h, OBJECT_PAIR_DTYPE, "clash_object_pair")

    def distance(self, a, b, max_distance=float("inf")):
        """The minimum distance between objects a and b in the current state:
        a DISTANCE_DTYPE record (distance, pa, pb, obj_a, face_a, obj_b,
        face_b, found); found 0 and distance inf when farther than max_distance."""
        out, err = np.zeros(1, dtype=DISTANCE_DTYPE), _Err()
        if _L().clash_struct_size(b"clash_distance") != DISTANCE_DTYPE.itemsize:
            raise Error(_EFAIL, "clash_distance's size differs from the module's dtype")
        _check(_L().clash_run_distance(self._h, int(a), int(b), float(max_distance), out.ctypes.data,
                                       ctypes.byref(err)), err)
        return out[0]

    def proximity(self, dhat):
        """Every vf and ee primitive pair within dhat in the current state, with
        its distance (PROXIMITY_DTYPE: kind, obj_a, id_a, obj_b, id_b, distance),
        sorted as contacts()."""
        ptr, n, err = ctypes.c_void_p(), ctypes.c_size_t(), _Err()
        _check(_L().clash_run_proximity(self._h, float(dhat), ctypes.byref(ptr), ctypes.byref(n), ctypes.byref(err)),
               err)
        return _struct_array(ptr.value, int(n.value), PROXIMITY_DTYPE, "clash_proximity")

    def close(self):
        if getattr(self, "_h", None):
            _L().clash_run_destroy(self._h)
            self._h = ctypes.c_void_p()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass
