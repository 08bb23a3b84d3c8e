/*
 * peer_sccd.cpp — clash-peer-sccd: SCCD's CPU pipeline (zulianp/sccd, a header library on TBB, included from
 * the folder CLASH_SCCD_DIR names at configure time; none of its code is in this tree) on the two frames of
 * one step, as its own driver runs them, for `clash bench ccd-run --peer`.
 *
 *   clash-peer-sccd F0.ply F1.ply [--tol X] [--threads T] [--repeat R] [--warmup W] [--float-positions]
 *                   [--double-boxes] [--which | --which-below T]
 *
 * The frames are read through clash's C API (clash_mesh_read); both must have the same faces in the same
 * order (else exit 2, naming the file).  The edge list (every distinct vertex pair of a face, i < j, sorted)
 * is built once and not timed.  Then each of W + R repetitions times, in this order:
 *   boxes   the swept vertex boxes (min and max of the two positions), the edge and face boxes as the union of
 *           their vertices' boxes, in SoA arrays (tbb::parallel_for)
 *   broad   SCCD's broad phase: the axis of largest variance of the vertex boxes, the face, vertex and edge
 *           boxes sorted along it (sort_along_axis), edge-edge self overlaps (count/collect_self_overlaps<2>)
 *           and face-vertex two-list overlaps with the running-maximum lower bound (count/collect_overlaps_lb)
 *   narrow  narrow_phase_vf and narrow_phase_ee, each returning the earliest time of impact; SCCD prunes every
 *           pair against the best bound so far, so the second call starts from the first one's result
 * Pairs sharing a vertex are dropped by SCCD's broad phase itself.  The tolerance is SCCD's SCCD_TOL (set in
 * the environment before each narrow phase; default 1e-12), the thread count tbb::global_control's
 * max_allowed_parallelism (default: TBB's).  The boxes are float, as in SCCD's own driver (geom_t), rounded
 * outward from the frames' doubles; the narrow phase gets the frames' double positions (its arithmetic is
 * double either way), so its earliest toi is that of the same motion clash tests.  --float-positions gives it
 * float-rounded positions instead, exactly as SCCD's driver does.  --double-boxes makes the boxes double; it is
 * refused in a build with AVX2 or AVX-512 (this one is built with -march=native), where SCCD's double box test
 * stores 64-bit lanes into its 32-bit lane mask and writes past it.
 *
 * Output: one line per counted repetition, then the medians:
 *   rep=K boxes_ms=.. broad_ms=.. narrow_ms=.. total_ms=.. vf=N ee=N toi=T
 *   sccd boxes_ms=.. broad_ms=.. narrow_ms=.. total_ms=.. vf=N ee=N toi=T tol=X threads=T precision=P
 * toi is 1 when no pair has an impact in the step.  --which then lists the candidates that attain the earliest
 * toi (within 1e-9), each run alone through SCCD's narrow phase (--which-below T: those with a toi below T),
 * as "vf VERTEX FACE TOI" and "ee A0 A1 B0 B1 TOI" (vertex ids of the files).  The candidates and toi must agree
 * (the broad phase is exact on the boxes; the earliest toi of the narrow phase may depend on the order in
 * which TBB's threads reach the pairs, as SCCD's pruning does): a differing candidate count is an error
 * (exit 1), a differing toi is reported on stderr.
 */
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <tbb/global_control.h>
#include <tbb/info.h>
#include <tbb/parallel_for.h>

#include "broadphase.hpp"
#include "broadphase_lb.hpp"
#include "narrowphase.hpp"

extern "C" {
#include "clash/clash.h"
}

namespace {

using idx_t = int;

double now_ms()
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n ? (n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2])) : 0.0;
}

struct Frames {
    int64_t nv = 0, nf = 0;
    std::vector<double> x0, x1;  // 3 * nv each, interleaved
    std::vector<idx_t> faces;    // 3 * nf
    std::vector<idx_t> edges;    // 2 * ne, i < j, sorted
};

// Reads both frames; returns 0, or 2 after printing an error naming the file.
int read_frames(const char *p0, const char *p1, Frames &fr)
{
    clash_mesh_arrays m[2] = {};
    const char *path[2] = {p0, p1};
    clash_error err;
    for (int k = 0; k < 2; ++k)
        if (clash_mesh_read(path[k], &m[k], &err)) {
            std::fprintf(stderr, "clash-peer-sccd: error: %s\n", err.msg);
            clash_mesh_arrays_free(&m[0]);
            return 2;
        }
    int rc = 0;
    if (m[1].nv != m[0].nv || m[1].nf != m[0].nf ||
        std::memcmp(m[0].tri, m[1].tri, sizeof(int32_t) * 3 * (size_t)m[0].nf)) {
        std::fprintf(stderr, "clash-peer-sccd: error: %s: not the faces of %s (%lld vertices, %lld faces against "
                     "%lld, %lld, or other faces)\n", p1, p0, (long long)m[1].nv, (long long)m[1].nf,
                     (long long)m[0].nv, (long long)m[0].nf);
        rc = 2;
    } else if (m[0].nv > INT32_MAX / 2 || 3 * m[0].nf > INT32_MAX) {
        std::fprintf(stderr, "clash-peer-sccd: error: %s: too large for SCCD's int indices\n", p0);
        rc = 2;
    } else {
        fr.nv = m[0].nv, fr.nf = m[0].nf;
        fr.x0.assign(m[0].xyz, m[0].xyz + 3 * m[0].nv);
        fr.x1.assign(m[1].xyz, m[1].xyz + 3 * m[1].nv);
        fr.faces.assign(m[0].tri, m[0].tri + 3 * m[0].nf);
        std::vector<uint64_t> keys;
        keys.reserve(3 * (size_t)fr.nf);
        for (int64_t f = 0; f < fr.nf; ++f)
            for (int c = 0; c < 3; ++c) {
                const uint64_t a = (uint32_t)fr.faces[3 * f + c], b = (uint32_t)fr.faces[3 * f + (c + 1) % 3];
                keys.push_back(a < b ? a << 32 | b : b << 32 | a);
            }
        std::sort(keys.begin(), keys.end());
        keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
        fr.edges.resize(2 * keys.size());
        for (size_t e = 0; e < keys.size(); ++e)
            fr.edges[2 * e] = (idx_t)(keys[e] >> 32), fr.edges[2 * e + 1] = (idx_t)(keys[e] & 0xffffffffu);
    }
    clash_mesh_arrays_free(&m[0]);
    clash_mesh_arrays_free(&m[1]);
    return rc;
}

struct Result {
    double boxes_ms, broad_ms, narrow_ms, total_ms;
    ptrdiff_t vf, ee;
    double toi;
};

// One repetition of SCCD's pipeline with box type T and position type P (float, float in SCCD's driver).
template <typename T, typename P>
struct Pipeline {
    const Frames &fr;
    ptrdiff_t nv, ne, nf;
    std::vector<P> pos[6];                         // x0 y0 z0 x1 y1 z1, SoA
    std::vector<T> vbox[6], ebox[6], fbox[6];      // minx miny minz maxx maxy maxz
    std::vector<idx_t> vidx, eidx, fidx, foverlap, voverlap, e0overlap, e1overlap;
    std::vector<ptrdiff_t> ccdptr;
    std::vector<T> scratch;

    explicit Pipeline(const Frames &f) : fr(f), nv(f.nv), ne((ptrdiff_t)f.edges.size() / 2), nf(f.nf)
    {
        for (int d = 0; d < 6; ++d) {
            pos[d].resize(nv), vbox[d].resize(nv), ebox[d].resize(ne), fbox[d].resize(nf);
        }
        for (ptrdiff_t i = 0; i < nv; ++i)
            for (int d = 0; d < 3; ++d) pos[d][i] = (P)fr.x0[3 * i + d], pos[3 + d][i] = (P)fr.x1[3 * i + d];
        vidx.resize(nv), eidx.resize(ne), fidx.resize(nf);
        ccdptr.resize(std::max(nf, ne) + 1);
        scratch.resize(std::max(nf, std::max(ne, nv)));
    }

    // The bounds of a and b in T, rounded outward when T is narrower than double.
    static T lower(double a, double b)
    {
        const double m = std::min(a, b);
        const T t = (T)m;
        return (double)t > m ? sccd::nextafter_down(t) : t;
    }
    static T upper(double a, double b)
    {
        const double m = std::max(a, b);
        const T t = (T)m;
        return (double)t < m ? sccd::nextafter_up(t) : t;
    }

    void boxes()
    {
        const double *x0 = fr.x0.data(), *x1 = fr.x1.data();
        T *vb[6], *eb[6], *fb[6];
        for (int d = 0; d < 6; ++d) vb[d] = vbox[d].data(), eb[d] = ebox[d].data(), fb[d] = fbox[d].data();
        tbb::parallel_for(tbb::blocked_range<ptrdiff_t>(0, nv), [&](const tbb::blocked_range<ptrdiff_t> &r) {
            for (ptrdiff_t i = r.begin(); i < r.end(); ++i)
                for (int d = 0; d < 3; ++d) {
                    vb[d][i] = lower(x0[3 * i + d], x1[3 * i + d]);
                    vb[3 + d][i] = upper(x0[3 * i + d], x1[3 * i + d]);
                }
        });
        const idx_t *ev = fr.edges.data(), *fv = fr.faces.data();
        tbb::parallel_for(tbb::blocked_range<ptrdiff_t>(0, ne), [&](const tbb::blocked_range<ptrdiff_t> &r) {
            for (ptrdiff_t e = r.begin(); e < r.end(); ++e) {
                const idx_t a = ev[2 * e], b = ev[2 * e + 1];
                for (int d = 0; d < 3; ++d) {
                    eb[d][e] = std::min(vb[d][a], vb[d][b]);
                    eb[3 + d][e] = std::max(vb[3 + d][a], vb[3 + d][b]);
                }
            }
        });
        tbb::parallel_for(tbb::blocked_range<ptrdiff_t>(0, nf), [&](const tbb::blocked_range<ptrdiff_t> &r) {
            for (ptrdiff_t f = r.begin(); f < r.end(); ++f) {
                const idx_t a = fv[3 * f], b = fv[3 * f + 1], c = fv[3 * f + 2];
                for (int d = 0; d < 3; ++d) {
                    fb[d][f] = std::min(vb[d][a], std::min(vb[d][b], vb[d][c]));
                    fb[3 + d][f] = std::max(vb[3 + d][a], std::max(vb[3 + d][b], vb[3 + d][c]));
                }
            }
        });
    }

    // As SCCD's driver's broad_phase (the running-maximum lower bound variant it builds).
    void broad()
    {
        T *vb[6], *eb[6], *fb[6];
        for (int d = 0; d < 6; ++d) vb[d] = vbox[d].data(), eb[d] = ebox[d].data(), fb[d] = fbox[d].data();
        idx_t *soafaces[3] = {&fr_faces()[0], &fr_faces()[1], &fr_faces()[2]};
        idx_t *soaedges[2] = {&fr_edges()[0], &fr_edges()[1]};
        const int axis = sccd::choose_axis(nv, vb);
        sccd::sort_along_axis(nf, axis, fb, fidx.data(), scratch.data());
        sccd::sort_along_axis(nv, axis, vb, vidx.data(), scratch.data());
        sccd::sort_along_axis(ne, axis, eb, eidx.data(), scratch.data());

        std::fill(ccdptr.begin(), ccdptr.end(), 0);
        sccd::count_self_overlaps<2>(axis, ne, eb, eidx.data(), 2, soaedges, ccdptr.data());
        e0overlap.resize(ccdptr[ne]), e1overlap.resize(ccdptr[ne]);
        sccd::collect_self_overlaps<2>(axis, ne, eb, eidx.data(), 2, soaedges, ccdptr.data(), e0overlap.data(),
                                       e1overlap.data());

        std::vector<T> lb = vbox[3 + axis];
        sccd::parallel_cum_max_br(lb.data(), lb.data() + lb.size());
        std::fill(ccdptr.begin(), ccdptr.end(), 0);
        sccd::count_overlaps_lb<3, 1, T, idx_t>(axis, nf, fb, fidx.data(), 3, soafaces, nv, vb, vidx.data(), 0,
                                                nullptr, lb.data(), ccdptr.data());
        foverlap.resize(ccdptr[nf]), voverlap.resize(ccdptr[nf]);
        sccd::collect_overlaps_lb<3, 1, T, idx_t>(axis, nf, fb, fidx.data(), 3, soafaces, nv, vb, vidx.data(), 0,
                                                  nullptr, lb.data(), ccdptr.data(), foverlap.data(),
                                                  voverlap.data());
    }

    double narrow()
    {
        P *v0[3] = {pos[0].data(), pos[1].data(), pos[2].data()};
        P *v1[3] = {pos[3].data(), pos[4].data(), pos[5].data()};
        idx_t *soafaces[3] = {&fr_faces()[0], &fr_faces()[1], &fr_faces()[2]};
        idx_t *soaedges[2] = {&fr_edges()[0], &fr_edges()[1]};
        const P toi_vf = voverlap.empty() ? (P)1
                                          : sccd::narrow_phase_vf<3, P, idx_t>(voverlap.size(), voverlap.data(),
                                                                               foverlap.data(), v0, v1, 3, soafaces,
                                                                               (P)1);
        const P toi_ee = e0overlap.empty() ? toi_vf
                                           : sccd::narrow_phase_ee<P, idx_t>(e0overlap.size(), e0overlap.data(),
                                                                             e1overlap.data(), v0, v1, 2, soaedges,
                                                                             toi_vf);
        return (double)std::min(toi_vf, toi_ee);
    }

    // The candidates whose own earliest toi (each one alone through SCCD's narrow phase, pruned against toi
    // as SCCD prunes against its best bound) is below toi: "vf VERTEX FACE TOI" and "ee A0 A1 B0 B1 TOI"
    // (vertex ids).  Diagnostic, after the timed repetitions.
    void which(double toi)
    {
        const P bound = (P)toi;
        P *v0[3] = {pos[0].data(), pos[1].data(), pos[2].data()};
        P *v1[3] = {pos[3].data(), pos[4].data(), pos[5].data()};
        idx_t *soafaces[3] = {&fr_faces()[0], &fr_faces()[1], &fr_faces()[2]};
        idx_t *soaedges[2] = {&fr_edges()[0], &fr_edges()[1]};
        for (size_t i = 0; i < voverlap.size(); ++i) {
            const double t = (double)sccd::narrow_phase_vf<3, P, idx_t>(1, &voverlap[i], &foverlap[i], v0, v1, 3,
                                                                        soafaces, bound);
            if (t < (double)bound) std::printf("vf %d %d %.17g\n", voverlap[i], foverlap[i], t);
        }
        for (size_t i = 0; i < e0overlap.size(); ++i) {
            const double t = (double)sccd::narrow_phase_ee<P, idx_t>(1, &e0overlap[i], &e1overlap[i], v0, v1, 2,
                                                                     soaedges, bound);
            const idx_t a = e0overlap[i], b = e1overlap[i];
            if (t < (double)bound)
                std::printf("ee %d %d %d %d %.17g\n", fr.edges[2 * a], fr.edges[2 * a + 1], fr.edges[2 * b],
                            fr.edges[2 * b + 1], t);
        }
    }

    // SCCD takes non-const index arrays; it only reads them.
    idx_t *fr_faces() { return const_cast<idx_t *>(fr.faces.data()); }
    idx_t *fr_edges() { return const_cast<idx_t *>(fr.edges.data()); }

    Result once()
    {
        Result r;
        const double t0 = now_ms();
        boxes();
        const double t1 = now_ms();
        broad();
        const double t2 = now_ms();
        r.toi = narrow();
        const double t3 = now_ms();
        r.boxes_ms = t1 - t0, r.broad_ms = t2 - t1, r.narrow_ms = t3 - t2, r.total_ms = t3 - t0;
        r.vf = (ptrdiff_t)voverlap.size(), r.ee = (ptrdiff_t)e0overlap.size();
        return r;
    }
};

template <typename T, typename P>
int run(const Frames &fr, double tol, int threads, int repeat, int warmup, const char *precision, double which)
{
    Pipeline<T, P> p(fr);
    std::vector<double> bx, br, na, to;
    ptrdiff_t vf = -1, ee = -1;
    double toi = -1;
    int rc = 0;
    for (int k = 0; k < warmup + repeat; ++k) {
        const Result r = p.once();
        if (k < warmup) continue;
        if (vf >= 0 && (r.vf != vf || r.ee != ee)) {
            std::fprintf(stderr, "clash-peer-sccd: error: candidates %td vf %td ee, then %td, %td\n", vf, ee, r.vf,
                         r.ee);
            rc = 1;
        }
        if (toi >= 0 && r.toi != toi)
            std::fprintf(stderr, "clash-peer-sccd: note: earliest toi %.17g, then %.17g\n", toi, r.toi);
        vf = r.vf, ee = r.ee, toi = toi < 0 ? r.toi : std::min(toi, r.toi);
        bx.push_back(r.boxes_ms), br.push_back(r.broad_ms), na.push_back(r.narrow_ms), to.push_back(r.total_ms);
        std::printf("rep=%d boxes_ms=%.4f broad_ms=%.4f narrow_ms=%.4f total_ms=%.4f vf=%td ee=%td toi=%.17g\n",
                    k - warmup, r.boxes_ms, r.broad_ms, r.narrow_ms, r.total_ms, r.vf, r.ee, r.toi);
    }
    std::printf("sccd boxes_ms=%.4f broad_ms=%.4f narrow_ms=%.4f total_ms=%.4f vf=%td ee=%td toi=%.17g tol=%g "
                "threads=%d precision=%s vertices=%lld edges=%zu faces=%lld\n",
                median(bx), median(br), median(na), median(to), vf, ee, toi, tol, threads, precision,
                (long long)fr.nv, fr.edges.size() / 2, (long long)fr.nf);
    if (which >= 0) p.which(which > 0 ? which : toi + 1e-9);
    return rc;
}

int usage(const char *bad)
{
    std::fprintf(stderr, "clash-peer-sccd: error: bad argument '%s'\nusage: clash-peer-sccd F0.ply F1.ply "
                 "[--tol X > 0] "
                 "[--threads T >= 1] [--repeat R >= 1] [--warmup W >= 0] [--float-positions] [--double-boxes] "
                 "[--which | --which-below T]\n", bad);
    return 2;
}

}  // namespace

int main(int argc, char **argv)
{
    const char *files[2] = {nullptr, nullptr};
    double tol = 1e-12, which = -1;
    int threads = 0, repeat = 3, warmup = 1, use_double = 0, float_pos = 0, nfiles = 0;
    for (int i = 1; i < argc; ++i) {
        const char *v = i + 1 < argc ? argv[i + 1] : nullptr;
        char *end = nullptr;
        if (!std::strcmp(argv[i], "--tol") && v) {
            tol = std::strtod(v, &end);
            if (*end || !(tol > 0) || !std::isfinite(tol)) return usage(v);
            ++i;
        } else if (!std::strcmp(argv[i], "--threads") && v) {
            if ((threads = std::atoi(v)) < 1) return usage(v);
            ++i;
        } else if (!std::strcmp(argv[i], "--repeat") && v) {
            if ((repeat = std::atoi(v)) < 1) return usage(v);
            ++i;
        } else if (!std::strcmp(argv[i], "--warmup") && v) {
            warmup = std::atoi(v);
            if (warmup < 0 || (warmup == 0 && std::strcmp(v, "0"))) return usage(v);
            ++i;
        } else if (!std::strcmp(argv[i], "--which")) {
            which = 0;
        } else if (!std::strcmp(argv[i], "--which-below") && v) {
            which = std::strtod(v, &end);
            if (*end || !(which > 0)) return usage(v);
            ++i;
        } else if (!std::strcmp(argv[i], "--float-positions")) {
            float_pos = 1;
        } else if (!std::strcmp(argv[i], "--double-boxes")) {
#if defined(__AVX2__) || defined(__AVX512F__)
            std::fprintf(stderr, "clash-peer-sccd: error: --double-boxes: SCCD's double box test overruns its "
                         "lane mask "
                         "under AVX2/AVX-512; rebuild without -march=native to use it\n");
            return 2;
#endif
            use_double = 1;
        } else if (argv[i][0] != '-' && nfiles < 2) {
            files[nfiles++] = argv[i];
        } else {
            return usage(argv[i]);
        }
    }
    if (nfiles != 2) {
        std::fprintf(stderr, "clash-peer-sccd: error: two frame files needed, %d given\n", nfiles);
        return 2;
    }
    Frames fr;
    if (int rc = read_frames(files[0], files[1], fr)) return rc;
    if (fr.nf == 0 || fr.nv == 0) {
        std::fprintf(stderr, "clash-peer-sccd: error: %s: no faces\n", files[0]);
        return 2;
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", tol);
    setenv("SCCD_TOL", buf, 1);  // SCCD's narrow phase reads its tolerance from the environment on each call
    const int nthreads = threads ? threads : (int)tbb::info::default_concurrency();
    tbb::global_control gc(tbb::global_control::max_allowed_parallelism, (size_t)nthreads);
    if (use_double)
        return run<double, double>(fr, tol, nthreads, repeat, warmup, "boxes:double,positions:double", which);
    return float_pos ? run<float, float>(fr, tol, nthreads, repeat, warmup, "boxes:float,positions:float", which)
                     : run<float, double>(fr, tol, nthreads, repeat, warmup, "boxes:float,positions:double", which);
}
