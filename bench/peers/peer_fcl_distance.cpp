// peer_fcl_distance.cpp — FCL's distance() against clash_run_distance on the
// same two meshes, in one process, so both read the same coordinates.
//
//   clash-peer-fcl-distance MESH_A.obj MESH_B.obj [--pos X Y Z] [--rot A B C] [--repeat R]
//
// Object 0 is mesh A as read; object 1 mesh B at position (X, Y, Z) (default
// 3 0 0) and rotation_deg (A, B, C) (default 10 20 30), R = Rz(C) Ry(B)
// Rx(A).  Both meshes are read by clash's reader (clash_mesh_read).  FCL:
// two BVHModel<OBBRSS>, fcl::distance with nearest points; the models'
// build timed apart.  clash: one static step (so the positions have a
// content number and the trees are not refitted between calls), the first
// call (which builds the trees) timed apart, then R calls as they stand
// ("query") and R calls each after a step that moves object 1 back and
// forth by 1e-12 along x ("after a step": the refit of both trees included).
// Median and best of R; both distances printed with 17 digits (FCL's is
// computed in double too, by its own triangle distance).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <fcl/geometry/bvh/BVH_model.h>
#include <fcl/math/bv/OBBRSS.h>
#include <fcl/narrowphase/collision_object.h>
#include <fcl/narrowphase/distance.h>

#include "clash/clash.h"

static double now()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

static double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s MESH_A.obj MESH_B.obj [--pos X Y Z] [--rot A B C] [--repeat R]\n", argv[0]);
        return 2;
    }
    double pos[3] = {3, 0, 0}, rot[3] = {10, 20, 30};
    int repeat = 101;
    for (int i = 3; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--pos" && i + 3 < argc) for (int d = 0; d < 3; ++d) pos[d] = std::atof(argv[++i]);
        else if (a == "--rot" && i + 3 < argc) for (int d = 0; d < 3; ++d) rot[d] = std::atof(argv[++i]);
        else if (a == "--repeat" && i + 1 < argc) repeat = std::max(1, std::atoi(argv[++i]));
        else { std::fprintf(stderr, "clash-peer-fcl-distance: error: bad option %s\n", a.c_str()); return 2; }
    }
    clash_error err;
    clash_mesh_arrays m[2] = {};
    for (int k = 0; k < 2; ++k)
        if (clash_mesh_read(argv[1 + k], &m[k], &err)) {
            std::fprintf(stderr, "clash-peer-fcl-distance: error: %s\n", err.msg);
            return 2;
        }
    const double d2r = M_PI / 180;
    const fcl::Matrix3d R = (Eigen::AngleAxisd(rot[2] * d2r, Eigen::Vector3d::UnitZ()) *
                             Eigen::AngleAxisd(rot[1] * d2r, Eigen::Vector3d::UnitY()) *
                             Eigen::AngleAxisd(rot[0] * d2r, Eigen::Vector3d::UnitX())).toRotationMatrix();
    double Rr[9];
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) Rr[3 * r + c] = R(r, c);

    // FCL
    double t0 = now();
    std::shared_ptr<fcl::BVHModel<fcl::OBBRSSd>> fm[2];
    for (int k = 0; k < 2; ++k) {
        std::vector<fcl::Vector3d> v;
        std::vector<fcl::Triangle> t;
        for (int64_t i = 0; i < m[k].nv; ++i) v.emplace_back(m[k].xyz[3 * i], m[k].xyz[3 * i + 1], m[k].xyz[3 * i + 2]);
        for (int64_t i = 0; i < m[k].nf; ++i) t.emplace_back(m[k].tri[3 * i], m[k].tri[3 * i + 1], m[k].tri[3 * i + 2]);
        fm[k] = std::make_shared<fcl::BVHModel<fcl::OBBRSSd>>();
        fm[k]->beginModel();
        fm[k]->addSubModel(v, t);
        fm[k]->endModel();
    }
    const double fcl_build = now() - t0;
    fcl::Transform3d T1 = fcl::Transform3d::Identity();
    T1.linear() = R;
    T1.translation() = fcl::Vector3d(pos[0], pos[1], pos[2]);
    fcl::CollisionObjectd o0(fm[0], fcl::Transform3d::Identity()), o1(fm[1], T1);
    std::vector<double> tf;
    double fd = 0;
    for (int r = 0; r < repeat; ++r) {
        fcl::DistanceRequestd req(true);
        fcl::DistanceResultd res;
        t0 = now();
        fcl::distance(&o0, &o1, req, res);
        tf.push_back(now() - t0);
        fd = res.min_distance;
    }

    // clash
    clash_scene *sc;
    clash_scene_create(&sc, &err);
    int ok = clash_scene_add_mesh(sc, m[0].xyz, m[0].nv, m[0].tri, m[0].nf, &err) >= 0 &&
             clash_scene_add_mesh(sc, m[1].xyz, m[1].nv, m[1].tri, m[1].nf, &err) >= 0 &&
             clash_scene_add_object(sc, 0, nullptr, nullptr, 0, &err) >= 0 &&
             clash_scene_add_object(sc, 1, Rr, pos, 0, &err) >= 0;
    clash_config cfg = clash_config_default();
    cfg.mode = CLASH_MODE_STATIC, cfg.threads = 1;
    clash_run *run = ok ? clash_run_create(sc, &cfg, &err) : nullptr;
    clash_pairs pairs;
    if (!run || clash_run_advance(run, &pairs, nullptr, &err)) {
        std::fprintf(stderr, "clash-peer-fcl-distance: error: %s\n", err.msg);
        return 1;
    }
    clash_distance D;
    t0 = now();
    clash_run_distance(run, 0, 1, INFINITY, &D, &err);
    const double clash_first = now() - t0;
    std::vector<double> tq, ts;
    for (int r = 0; r < repeat; ++r) {
        t0 = now();
        clash_run_distance(run, 0, 1, INFINITY, &D, &err);
        tq.push_back(now() - t0);
    }
    for (int r = 0; r < repeat; ++r) {
        double p[3] = {pos[0] + (r & 1 ? 1e-12 : 0), pos[1], pos[2]};
        clash_run_set_pose(run, 1, Rr, p, &err);
        clash_run_advance(run, &pairs, nullptr, &err);
        t0 = now();
        clash_run_distance(run, 0, 1, INFINITY, &D, &err);
        ts.push_back(now() - t0);
    }
    std::printf("faces %lld + %lld; fcl build %.6f s; clash first call (trees built) %.6f s\n", (long long)m[0].nf,
                (long long)m[1].nf, fcl_build, clash_first);
    std::printf("peer=fcl-obbrss distance=%.17g query_best=%.7f query_median=%.7f\n", fd,
                *std::min_element(tf.begin(), tf.end()), median(tf));
    std::printf("clash distance=%.17g query_best=%.7f query_median=%.7f after_step_median=%.7f\n", D.distance,
                *std::min_element(tq.begin(), tq.end()), median(tq), median(ts));
    clash_run_destroy(run), clash_scene_destroy(sc);
    clash_mesh_arrays_free(&m[0]), clash_mesh_arrays_free(&m[1]);
    return 0;
}
