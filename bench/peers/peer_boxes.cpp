// peer_boxes.cpp — the peers of `clash bench broadphase` on the same file:
// all overlapping pairs among N boxes (little-endian float32
// lo_x lo_y lo_z hi_x hi_y hi_z per box), found by
//   cgal    CGAL::box_self_intersection_d (Zomorodian–Edelsbrunner streaming segment tree)
//   bullet  btDbvtBroadphase (two dynamic AABB trees), proxies created, then calculateOverlappingPairs
//   fcl     fcl::DynamicAABBTreeCollisionManager: registerObjects + setup + collide (AABB pairs only)
// Each is timed from the boxes in memory to the pair count (build included:
// like clash, a peer starts from nothing), best and median of --repeat R.
//
//   clash-peer-boxes FILE [--repeat R] [--only cgal|bullet|fcl] [--expect PAIRS]
//
// With --expect (clash's count from `clash bench broadphase`) every peer's
// count must equal it, or the program exits 1.  C++ lives only in bench/peers.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <CGAL/Box_intersection_d/Box_d.h>
#include <CGAL/box_intersection_d.h>
#include <btBulletCollisionCommon.h>
#include <fcl/broadphase/broadphase_dynamic_AABB_tree.h>
#include <fcl/geometry/shape/box.h>
#include <fcl/narrowphase/collision_object.h>

static double now()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Box6 { float lo[3], hi[3]; };

static long long run_cgal(const std::vector<Box6> &b)
{
    typedef CGAL::Box_intersection_d::Box_d<double, 3> Box;
    std::vector<Box> boxes;
    boxes.reserve(b.size());
    for (const Box6 &x : b) {
        double lo[3] = {x.lo[0], x.lo[1], x.lo[2]}, hi[3] = {x.hi[0], x.hi[1], x.hi[2]};
        boxes.push_back(Box(lo, hi));
    }
    long long n = 0;
    CGAL::box_self_intersection_d(boxes.begin(), boxes.end(), [&n](const Box &, const Box &) { ++n; });
    return n;
}

static long long run_bullet(const std::vector<Box6> &b)
{
    btDefaultCollisionConfiguration conf;
    btCollisionDispatcher disp(&conf);
    btDbvtBroadphase bp;
    for (size_t i = 0; i < b.size(); ++i) {
        btVector3 lo(b[i].lo[0], b[i].lo[1], b[i].lo[2]), hi(b[i].hi[0], b[i].hi[1], b[i].hi[2]);
        bp.createProxy(lo, hi, 0, (void *)(uintptr_t)(i + 1), 1, 1, &disp);
    }
    bp.calculateOverlappingPairs(&disp);
    return bp.getOverlappingPairCache()->getNumOverlappingPairs();
}

static bool count_pair(fcl::CollisionObjectd *, fcl::CollisionObjectd *, void *data)
{
    ++*static_cast<long long *>(data);
    return false;
}

static long long run_fcl(const std::vector<Box6> &b)
{
    std::vector<std::unique_ptr<fcl::CollisionObjectd>> objs;
    std::vector<fcl::CollisionObjectd *> ptrs;
    objs.reserve(b.size());
    for (const Box6 &x : b) {
        auto g = std::make_shared<fcl::Boxd>(double(x.hi[0]) - x.lo[0], double(x.hi[1]) - x.lo[1],
                                             double(x.hi[2]) - x.lo[2]);
        fcl::Transform3d tf = fcl::Transform3d::Identity();
        tf.translation() = fcl::Vector3d(0.5 * (double(x.lo[0]) + x.hi[0]), 0.5 * (double(x.lo[1]) + x.hi[1]),
                                         0.5 * (double(x.lo[2]) + x.hi[2]));
        objs.emplace_back(new fcl::CollisionObjectd(g, tf));
        ptrs.push_back(objs.back().get());
    }
    fcl::DynamicAABBTreeCollisionManagerd m;
    m.registerObjects(ptrs);
    m.setup();
    long long n = 0;
    m.collide(&n, count_pair);
    return n;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s FILE [--repeat R] [--only cgal|bullet|fcl] [--expect PAIRS]\n", argv[0]);
        return 2;
    }
    int repeat = 5;
    long long expect = -1;
    std::string only;
    for (int i = 2; i < argc; ++i) {
        std::string a = argv[i];
        if (i + 1 >= argc) { std::fprintf(stderr, "clash-peer-boxes: error: %s needs a value\n", a.c_str()); return 2; }
        if (a == "--repeat") repeat = std::max(1, std::atoi(argv[++i]));
        else if (a == "--expect") expect = std::atoll(argv[++i]);
        else if (a == "--only") only = argv[++i];
        else { std::fprintf(stderr, "clash-peer-boxes: error: unknown option %s\n", a.c_str()); return 2; }
    }
    std::ifstream f(argv[1], std::ios::binary);
    if (!f) { std::fprintf(stderr, "clash-peer-boxes: error: cannot open %s\n", argv[1]); return 2; }
    std::vector<char> raw((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    if (raw.size() % 24) { std::fprintf(stderr, "clash-peer-boxes: error: %s: size not a multiple of 24\n", argv[1]); return 2; }
    std::vector<Box6> b(raw.size() / 24);
    for (size_t i = 0; i < b.size(); ++i)  // little-endian host (x86-64, aarch64)
        std::memcpy(&b[i], raw.data() + 24 * i, 24);
    struct Peer { const char *name; std::function<long long(const std::vector<Box6> &)> fn; };
    const Peer peers[] = {{"cgal", run_cgal}, {"bullet", run_bullet}, {"fcl", run_fcl}};
    int rc = 0;
    std::printf("%zu boxes, best and median of %d (build + query, 1 thread)\n", b.size(), repeat);
    for (const Peer &p : peers) {
        if (!only.empty() && only != p.name) continue;
        std::vector<double> t;
        long long n = 0;
        for (int r = 0; r < repeat; ++r) {
            double t0 = now();
            n = p.fn(b);
            t.push_back(now() - t0);
        }
        std::sort(t.begin(), t.end());
        bool ok = expect < 0 || n == expect;
        std::printf("peer=%s pairs=%lld best=%.6f median=%.6f%s\n", p.name, n, t[0], t[t.size() / 2],
                    expect < 0 ? "" : ok ? " (equals clash)" : " (DIFFERS from clash)");
        std::fflush(stdout);
        if (!ok) rc = 1;
    }
    return rc;
}
