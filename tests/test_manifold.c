/* Contact manifolds (mink_manifold, mink_ref_manifold): the case files'
 * exact answers and patches (FORMAT.md, "Manifolds") at margins 0 and
 * 0.025, cold and warm; the deepest point against the exact penetration
 * answers of every other case file; A and B swapped; frame coherence (keys
 * that persist, the cached feature reused); bad input. */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cache.h"
#include "cases.h"
#include "mink/mink_ref.h"
#include "test_util.h"

#ifndef MINK_TEST_DATA
#error "MINK_TEST_DATA must name the tests/data directory"
#endif

static const char *const FILES[] = {"manifold.cases", "mixed.cases", "degenerate.cases",        "scenes.cases",
                                    "bench.cases",    "traj.cases",  "manifold-regressions.cases",
                                    "manifold-scene-regressions.cases"};
enum { F_MANIFOLD = 0, F_TRAJ = 5, F_REGRESSIONS = 6, F_SCENE_REGRESSIONS = 7, NFILES = 8 };
static case_set g_sets[NFILES];
static int g_loaded[NFILES];
static char g_load_err[NFILES][512];

static int load_files(void **state)
{
    (void)state;
    for (unsigned i = 0; i < NFILES; ++i) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", MINK_TEST_DATA, FILES[i]);
        g_loaded[i] = case_set_load(path, &g_sets[i], g_load_err[i], sizeof g_load_err[i]) == 0;
        if (g_loaded[i] && i == F_SCENE_REGRESSIONS) case_set_use_local_tolerance(&g_sets[i]);
    }
    return 0;
}

static int free_files(void **state)
{
    (void)state;
    for (unsigned i = 0; i < NFILES; ++i) case_set_free(&g_sets[i]);
    return 0;
}

static const case_set *set_of(unsigned file)
{
    if (!g_loaded[file]) fail_msg("%s", g_load_err[file]);
    return &g_sets[file];
}

static const char *kernel_name(int k) { return k == CASE_KERNEL_REF ? "ref" : "simd"; }

/* The speculative margin manifold.cases is checked at besides 0 (its header:
 * above every gap of its speculative group). */
#define SPECULATIVE_MARGIN 0.025f

/* ------------------------------------------------------------ manifold.cases */

typedef struct file_param {
    int kernel;
    float margin;
    int warm; /* answered twice with one cache: the second answer checked */
    unsigned file; /* F_MANIFOLD, F_REGRESSIONS or F_SCENE_REGRESSIONS */
} file_param;

static void test_manifold_cases(void **state)
{
    const file_param *p = *state;
    const case_set *set = set_of(p->file);
    size_t failed = 0;
    char why[512];
    for (size_t i = 0; i < set->count; ++i) {
        const mink_case *c = &set->cases[i];
        mink_cache cache;
        mink_cache_reset(&cache);
        struct mink_manifold m;
        case_run_manifold(c, p->kernel, p->margin, p->warm ? &cache : NULL, &m);
        if (p->warm) case_run_manifold(c, p->kernel, p->margin, &cache, &m);
        if (!case_check_manifold(c, p->margin, &m, why, sizeof why)) {
            if (failed < 20) print_message("  FAIL %s: %s\n", c->id, why);
            failed++;
        }
    }
    if (failed)
        print_message("%s margin %g %s: %zu of %zu failed\n", kernel_name(p->kernel), p->margin,
                      p->warm ? "warm" : "cold", failed, set->count);
    assert_int_equal(failed, 0);
}

/* A and B swapped: the same case with the expected normal negated (the
 * patch, projected along the normal, is the same). */
static mink_case swapped(const mink_case *c)
{
    mink_case s = *c;
    s.sa = c->sb, s.sb = c->sa;
    s.qa = c->qb, s.qb = c->qa;
    s.a = c->b, s.b = c->a;
    s.pa = c->pb, s.pb = c->pa;
    for (int k = 0; k < 3; ++k) s.normal[k] = -c->normal[k];
    return s;
}

static void test_manifold_swapped(void **state)
{
    const int kernel = *(const int *)*state;
    const case_set *set = set_of(F_MANIFOLD);
    size_t failed = 0;
    char why[512];
    for (size_t i = 0; i < set->count; ++i) {
        const mink_case c = swapped(&set->cases[i]);
        struct mink_manifold m, o;
        case_run_manifold(&c, kernel, SPECULATIVE_MARGIN, NULL, &m);
        case_run_manifold(&set->cases[i], kernel, SPECULATIVE_MARGIN, NULL, &o);
        int ok = case_check_manifold(&c, SPECULATIVE_MARGIN, &m, why, sizeof why);
        if (ok && m.count > 0 && o.count > 0) {
            /* the deepest separations agree */
            float dm = INFINITY, dw = INFINITY;
            for (uint32_t k = 0; k < m.count; ++k) dm = fminf(dm, m.points[k].separation);
            for (uint32_t k = 0; k < o.count; ++k) dw = fminf(dw, o.points[k].separation);
            if (fabs((double)dm - dw) > TOL_FORMAT_REL * c.L) {
                snprintf(why, sizeof why, "deepest %.9g swapped, %.9g as given", dm, dw);
                ok = 0;
            }
        }
        if (!ok) {
            if (failed < 20) print_message("  FAIL %s swapped: %s\n", c.id, why);
            failed++;
        }
    }
    assert_int_equal(failed, 0);
}

/* ------------------------------------------------------------ agreement with penetration */

/* On every case of the other files, with a margin that takes in every pair,
 * the manifold's deepest point is a penetration answer: checked against the
 * exact answer with the query rules (FORMAT.md), and its normal against
 * mink_penetration's own. */
typedef struct agree_param {
    unsigned file;
    int kernel;
} agree_param;

static void test_deepest_is_penetration(void **state)
{
    const agree_param *p = *state;
    const case_set *set = set_of(p->file);
    size_t failed = 0;
    char why[512];
    for (size_t i = 0; i < set->count; ++i) {
        const mink_case *c = &set->cases[i];
        const float margin = (float)((c->kind == CASE_SEP ? 2.0 * c->value : 0.0) + 1e-3 * c->L);
        struct mink_manifold m;
        mink_result pen;
        case_run_manifold(c, p->kernel, margin, NULL, &m);
        case_run(c, p->kernel, CASE_QUERY_PENETRATION, NULL, &pen);
        int ok = 1;
        if (m.status < 0 || m.count == 0) {
            snprintf(why, sizeof why, "status %d count %u", m.status, m.count);
            ok = 0;
        } else {
            uint32_t d = 0;
            for (uint32_t k = 1; k < m.count; ++k)
                if (m.points[k].separation < m.points[d].separation) d = k;
            mink_result r = pen;
            r.distance = m.points[d].separation;
            r.normal = m.normal;
            r.point_a = m.points[d].point_a;
            r.point_b = m.points[d].point_b;
            ok = case_check(c, CASE_QUERY_PENETRATION, &r, why, sizeof why);
            /* the two normals: the same, or a near tie of the depth (both
             * then pass the case check above and below) */
            if (ok && fabs((double)r.distance - pen.distance) > 2.0 * TOL_FORMAT_REL * c->L) {
                snprintf(why, sizeof why, "deepest %.9g, mink_penetration %.9g", r.distance, pen.distance);
                ok = 0;
            }
        }
        if (!ok) {
            if (failed < 20) print_message("  FAIL %s: %s\n", c->id, why);
            failed++;
        }
    }
    if (failed) print_message("%s %s: %zu of %zu failed\n", FILES[p->file], kernel_name(p->kernel), failed, set->count);
    assert_int_equal(failed, 0);
}

/* ------------------------------------------------------------ round pairs */

/* The point of segment p0-p1 nearest x. */
static dv3 segment_nearest(dv3 p0, dv3 p1, dv3 x)
{
    const dv3 u = dv_sub(p1, p0);
    const double uu = dv_dot(u, u);
    double s = uu > 0.0 ? dv_dot(dv_sub(x, p0), u) / uu : 0.0;
    s = s < 0.0 ? 0.0 : s > 1.0 ? 1.0 : s;
    return dv_add(p0, dv_scale(u, s));
}

/* The closest points of two segments by golden-section search over the
 * first (the distance from a point moving along it to the second segment
 * is convex), independent of the kernel's closed form. */
static double segments_distance(dv3 a0, dv3 a1, dv3 b0, dv3 b1, dv3 *qa, dv3 *qb)
{
    const double g = 0.5 * (sqrt(5.0) - 1.0);
    double lo = 0.0, hi = 1.0;
    for (int it = 0; it < 200 && hi - lo > 1e-15; ++it) {
        const double m1 = hi - g * (hi - lo), m2 = lo + g * (hi - lo);
        const dv3 x1 = dv_add(a0, dv_scale(dv_sub(a1, a0), m1)), x2 = dv_add(a0, dv_scale(dv_sub(a1, a0), m2));
        const double f1 = dv_len(dv_sub(segment_nearest(b0, b1, x1), x1));
        const double f2 = dv_len(dv_sub(segment_nearest(b0, b1, x2), x2));
        if (f1 <= f2) hi = m2;
        else lo = m1;
    }
    double best = INFINITY;
    const double ends[3] = {0.0, 1.0, 0.5 * (lo + hi)};
    for (int k = 0; k < 3; ++k) {
        const dv3 x = dv_add(a0, dv_scale(dv_sub(a1, a0), ends[k]));
        const dv3 y = segment_nearest(b0, b1, x);
        const double d = dv_len(dv_sub(y, x));
        if (d < best) best = d, *qa = x, *qb = y;
    }
    return best;
}

/* A sphere's or capsule's core ends, world. */
static void core_ends(const mink_shape *s, const mink_pose *p, dv3 *e0, dv3 *e1)
{
    const double h = s->type == MINK_SHAPE_CAPSULE ? s->half[1] : 0.0;
    *e0 = pose_apply(p, dv(0.0, -h, 0.0));
    *e1 = pose_apply(p, dv(0.0, h, 0.0));
}

/* Spheres and capsules (their cores' closest points in closed form): the
 * manifold against the cores' distance found by search, at sizes from 1 mm
 * to 100 m, up to 10^4 sizes (at most 5e4) from the origin, side by side (two points),
 * crossing, and with cores within a thousandth of their size (GJK/EPA's
 * path): the signed distance, the normal, each point on its shape, no
 * contacts exactly beyond the margin. */
static void test_round_pairs(void **state)
{
    (void)state;
    test_rng rng = rng_seed(20261128);
    size_t failed = 0, two_points = 0, near_cores = 0, checked = 0;
    for (int trial = 0; trial < 4000; ++trial) {
        const double size = pow(10.0, rng_range(&rng, -3.0, 2.0));
        const double far = rng_below(&rng, 3) == 0 ? fmin(size * pow(10.0, rng_range(&rng, 0.0, 4.0)), 5e4) : 0.0;
        mink_shape sh[2];
        for (int k = 0; k < 2; ++k) {
            const float r = (float)(size * rng_range(&rng, 0.02, 0.5));
            const float h = rng_below(&rng, 8) == 0 ? 0.0f : (float)(size * rng_range(&rng, 0.05, 1.0));
            sh[k] = rng_below(&rng, 4) == 0 ? mink_sphere(r) : mink_capsule(r, h);
        }
        const dv3 origin = dv_scale(rng_dir(&rng), far);
        const mink_pose pa = pose_make(dv_add(origin, rng_box(&rng, size)), rng_quat(&rng));
        mink_quat qb = rng_quat(&rng);
        const uint32_t kind = rng_below(&rng, 4); /* 0: side by side; 1: cores close; else any */
        if (kind == 0) qb = quat_mul(pa.q, quat_axis_angle(rng_dir(&rng), rng_range(&rng, 0.0, 0.02)));
        /* B's core placed at a chosen gap from A's along a random direction
         * off the closest points found for a first guess */
        const double gap_core =
            kind == 1 ? size * rng_range(&rng, 0.0, 2e-3)
                      : rng_range(&rng, 0.1, 1.0) * (sh[0].radius + sh[1].radius) + size * rng_range(&rng, -0.05, 0.1);
        mink_pose pb = pose_make(dv_add(dv_of(pa.p), dv_scale(rng_dir(&rng), size)), qb);
        dv3 a0, a1, b0, b1, qa, qbp;
        core_ends(&sh[0], &pa, &a0, &a1);
        core_ends(&sh[1], &pb, &b0, &b1);
        double d = segments_distance(a0, a1, b0, b1, &qa, &qbp);
        const dv3 dir = d > 0.0 ? dv_scale(dv_sub(qbp, qa), 1.0 / d) : rng_dir(&rng);
        pb = pose_make(dv_add(dv_of(pb.p), dv_scale(dir, gap_core - d)), qb);
        /* the exact answer at the float poses */
        core_ends(&sh[1], &pb, &b0, &b1);
        d = segments_distance(a0, a1, b0, b1, &qa, &qbp);
        const double sep = d - sh[0].radius - sh[1].radius;
        const float margin = rng_below(&rng, 2) ? 0.0f : (float)(0.05 * size);
        const double L = 4.0 * size, tol = 1e-5 * L + 4.0 * FLT_EPSILON * far;
        near_cores += d < 1e-3 * size;
        for (int kernel = 0; kernel < 2; ++kernel) {
            struct mink_manifold m;
            const mink_status st = kernel ? mink_manifold(&sh[0], &pa, &sh[1], &pb, margin, NULL, &m)
                                          : mink_ref_manifold(&sh[0], &pa, &sh[1], &pb, margin, NULL, &m);
            char why[256] = "";
            if (st != MINK_OK) snprintf(why, sizeof why, "status %d", st);
            else if (sep > margin + tol && m.count != 0) snprintf(why, sizeof why, "%u points %.9g apart", m.count, sep);
            else if (sep < margin - tol && m.count == 0) snprintf(why, sizeof why, "no point at %.9g", sep);
            double deepest = INFINITY;
            for (uint32_t i = 0; i < m.count && !why[0]; ++i) {
                const mink_contact *pt = &m.points[i];
                const dv3 n = dv_of(m.normal), pa_w = dv_of(pt->point_a), pb_w = dv_of(pt->point_b);
                const double on_a = dv_len(dv_sub(pa_w, segment_nearest(a0, a1, pa_w))) - sh[0].radius;
                const double on_b = dv_len(dv_sub(pb_w, segment_nearest(b0, b1, pb_w))) - sh[1].radius;
                const double off = dv_len(dv_sub(dv_sub(pb_w, pa_w), dv_scale(n, pt->separation)));
                /* two points sit beside the cores' closest points: up to
                 * MINK_MANIFOLD_ROUND_REL of the size off the surfaces */
                const double on_tol = m.count == 2 ? tol + 1e-4 * L : tol;
                if (fabs(dv_len(n) - 1.0) > 1e-5 || fabs(on_a) > on_tol || fabs(on_b) > on_tol || off > 2.0 * tol ||
                    pt->separation > margin + tol)
                    snprintf(why, sizeof why, "point %u: |n| %.7f, off A %.3g, off B %.3g, pb - pa - s n %.3g, s %.9g",
                             i, dv_len(n), on_a, on_b, off, pt->separation);
                deepest = pt->separation < deepest ? pt->separation : deepest;
            }
            if (!why[0] && m.count > 0) {
                const double angle = d > 0.01 * size ? dv_angle(dv_of(m.normal), dv_sub(qbp, qa)) : 0.0;
                if (fabs(deepest - sep) > tol || angle > 1e-4)
                    snprintf(why, sizeof why, "deepest %.9g, exact %.9g (tol %.3g); normal off by %.3g rad", deepest,
                             sep, tol, angle);
                two_points += kernel && m.count == 2;
                checked += kernel;
            }
            if (why[0]) {
                if (failed < 10)
                    print_message("  FAIL trial %d %s (types %d %d, size %.3g, far %.3g): %s\n", trial,
                                  kernel ? "simd" : "ref", sh[0].type, sh[1].type, size, far, why);
                failed++;
            }
        }
    }
    print_message("  %zu manifolds with points (%zu of two points), %zu pairs with cores within 1e-3 of the size\n",
                  checked, two_points, near_cores);
    assert_true(checked > 1500 && two_points > 100 && near_cores > 100);
    assert_int_equal(failed, 0);
}

/* ------------------------------------------------------------ frame coherence */

/* Points of consecutive frames that stay put: within this fraction of the
 * smaller shape's size of each other (the frames move a little). */
#define PERSIST_REL 0.05

/* The trajectories, cold and warm (one cache per trajectory): every answer
 * right by the case rules, warm and cold deepest points equal within the
 * tolerance; the cache held over on part of the frames; and
 * a point that persists from one frame to the next (same normal, a point
 * of the previous frame within PERSIST_REL of the smaller shape's size)
 * keeps its key, on all but a few such points (a clipped corner becoming
 * the incident vertex it slides onto changes features without moving). */
static void test_trajectories(void **state)
{
    const int kernel = *(const int *)*state;
    const case_set *set = set_of(F_TRAJ);
    mink_cache cache;
    char group[256] = "", prev[256] = "", why[512];
    size_t failed = 0, held = 0, persisting = 0, kept = 0;
    struct mink_manifold last;
    memset(&last, 0, sizeof last);
    for (size_t i = 0; i < set->count; ++i) {
        const mink_case *c = &set->cases[i];
        case_group(c->id, group, sizeof group);
        const int same_pair = strcmp(group, prev) == 0;
        if (!same_pair) mink_cache_reset(&cache), last.count = 0;
        memcpy(prev, group, sizeof prev);
        feature_state before, after;
        const int had = mink_cache_load_feature(&cache, &c->a, &c->b, &before);
        struct mink_manifold warm, cold;
        case_run_manifold(c, kernel, SPECULATIVE_MARGIN, &cache, &warm);
        case_run_manifold(c, kernel, SPECULATIVE_MARGIN, NULL, &cold);
        if (had && mink_cache_load_feature(&cache, &c->a, &c->b, &after) && after.frames == before.frames + 1)
            held++;
        int ok = case_check_manifold(c, SPECULATIVE_MARGIN, &warm, why, sizeof why) &&
                 case_check_manifold(c, SPECULATIVE_MARGIN, &cold, why, sizeof why);
        if (ok && warm.count > 0 && cold.count > 0) {
            /* warm equals cold within the tolerance: the deepest separations */
            float dw = INFINITY, dc = INFINITY;
            for (uint32_t k = 0; k < warm.count; ++k) dw = fminf(dw, warm.points[k].separation);
            for (uint32_t k = 0; k < cold.count; ++k) dc = fminf(dc, cold.points[k].separation);
            if (fabs((double)dw - dc) > TOL_FORMAT_REL * c->L) {
                snprintf(why, sizeof why, "deepest %.9g warm, %.9g cold", dw, dc);
                ok = 0;
            }
        }
        if (!ok) {
            if (failed < 20) print_message("  FAIL %s: %s\n", c->id, why);
            failed++;
        }
        const double size = fmin(c->a.extent + c->a.radius, c->b.extent + c->b.radius);
        if (last.count > 0 && dv_angle(dv_of(last.normal), dv_of(warm.normal)) < 2e-2) {
            for (uint32_t k = 0; k < warm.count; ++k) {
                for (uint32_t j = 0; j < last.count; ++j) {
                    if (dv_len(dv_sub(dv_of(warm.points[k].point_a), dv_of(last.points[j].point_a))) > PERSIST_REL * size)
                        continue;
                    persisting++;
                    kept += warm.points[k].id == last.points[j].id;
                    break;
                }
            }
        }
        last = warm;
    }
    print_message("traj.cases %s: %zu frames, %zu held over from the cache; %zu of %zu persisting points kept their keys\n",
                  kernel_name(kernel), set->count, held, kept, persisting);
    assert_int_equal(failed, 0);
    assert_true(persisting > 100);
    assert_true(kept >= 0.95 * persisting);
}

/* A box resting on a slab, jittered as a solver leaves it: the same four
 * keys every frame, and after the first frame every answer comes from the
 * cached feature (the cache counts the frames it held). */
static void resting_keys(const mink_shape *top, float lift, int kernel)
{
    const mink_shape slab = mink_box(4.0f, 0.5f, 4.0f, 0.0f);
    const mink_pose ps = pose_make(dv(0.0, -0.5, 0.0), quat_identity());
    test_rng rng = rng_seed(7);
    mink_cache cache;
    mink_cache_reset(&cache);
    uint32_t keys[4] = {0, 0, 0, 0}, count = 0;
    for (int frame = 0; frame < 60; ++frame) {
        const dv3 jitter = dv(rng_range(&rng, -1e-5, 1e-5), rng_range(&rng, -1e-5, 1e-5), rng_range(&rng, -1e-5, 1e-5));
        const mink_quat tilt = quat_axis_angle(rng_dir(&rng), rng_range(&rng, 0.0, 1e-5));
        const mink_pose pt = pose_make(dv_add(dv(0.3, lift, -0.2), jitter), quat_mul(tilt, quat_axis_angle(dv(0, 1, 0), 0.4)));
        struct mink_manifold m;
        const mink_status st = kernel == CASE_KERNEL_REF ? mink_ref_manifold(&slab, &ps, top, &pt, 0.01f, &cache, &m)
                                                         : mink_manifold(&slab, &ps, top, &pt, 0.01f, &cache, &m);
        assert_int_equal(st, MINK_OK);
        EXPECT_NEAR(m.normal.y, 1.0, 1e-6);
        if (frame == 0) {
            count = m.count;
            for (uint32_t k = 0; k < count; ++k) keys[k] = m.points[k].id;
            continue;
        }
        assert_int_equal(m.count, count);
        for (uint32_t k = 0; k < count; ++k) {
            int found = 0;
            for (uint32_t j = 0; j < count; ++j) found |= m.points[k].id == keys[j];
            if (!found) fail_msg("frame %d: point %u has a new key %08x", frame, k, m.points[k].id);
        }
        feature_state fs;
        assert_true(mink_cache_load_feature(&cache, &slab, top, &fs));
        EXPECT_INT(fs.frames, (uint32_t)frame + 1); /* held over since the first frame */
    }
}

static void test_resting_keys(void **state)
{
    (void)state;
    const mink_shape box = mink_box(0.5f, 0.25f, 0.4f, 0.0f);
    const mink_shape rounded = mink_box(0.45f, 0.2f, 0.35f, 0.05f);
    for (int k = CASE_KERNEL_REF; k <= CASE_KERNEL_SIMD; ++k) {
        resting_keys(&box, 0.2499f, k);
        resting_keys(&rounded, 0.2499f, k);
    }
}

/* ------------------------------------------------------------ caches */

/* Garbage, a foreign pair's cache and a stale cache of the same pair never
 * change an answer beyond the rules. */
static void test_bad_caches(void **state)
{
    (void)state;
    const case_set *set = set_of(F_MANIFOLD);
    test_rng rng = rng_seed(11);
    char why[512];
    size_t failed = 0;
    for (size_t i = 0; i < set->count; ++i) {
        const mink_case *c = &set->cases[i], *other = &set->cases[(i * 7 + 3) % set->count];
        mink_cache cache;
        struct mink_manifold m;
        for (int kind = 0; kind < 3; ++kind) {
            if (kind == 0) {
                for (int w = 0; w < 16; ++w) cache.opaque[w] = rng_u32(&rng);
            } else if (kind == 1) {
                mink_cache_reset(&cache);
                case_run_manifold(other, CASE_KERNEL_SIMD, SPECULATIVE_MARGIN, &cache, &m);
            } else {
                /* the same pair, B moved far off and back */
                mink_case far = *c;
                far.pb.p.x += 3.0f;
                mink_cache_reset(&cache);
                case_run_manifold(&far, CASE_KERNEL_SIMD, SPECULATIVE_MARGIN, &cache, &m);
            }
            case_run_manifold(c, CASE_KERNEL_SIMD, SPECULATIVE_MARGIN, &cache, &m);
            if (!case_check_manifold(c, SPECULATIVE_MARGIN, &m, why, sizeof why)) {
                if (failed < 20) print_message("  FAIL %s, cache kind %d: %s\n", c->id, kind, why);
                failed++;
            }
        }
    }
    assert_int_equal(failed, 0);
}

/* ------------------------------------------------------------ batches */

/* mink_manifold_batch and its threaded form answer as single calls do,
 * bit for bit, caches included. */
static void test_batches(void **state)
{
    (void)state;
    const case_set *set = set_of(F_MANIFOLD);
    const size_t n = set->count;
    mink_pair *pairs = calloc(n, sizeof *pairs);
    mink_cache *caches = calloc(3 * n, sizeof *caches);
    struct mink_manifold *single = calloc(n, sizeof *single), *batch = calloc(n, sizeof *batch),
                         *threaded = calloc(n, sizeof *threaded);
    assert_non_null(pairs && caches && single && batch && threaded);
    for (int frame = 0; frame < 2; ++frame) { /* cold, then warm from each cache */
        for (size_t i = 0; i < n; ++i) {
            const mink_case *c = &set->cases[i];
            pairs[i] = (mink_pair){&c->a, c->pa, &c->b, c->pb, &caches[n + i]};
            mink_manifold(&c->a, &c->pa, &c->b, &c->pb, SPECULATIVE_MARGIN, &caches[i], &single[i]);
        }
        mink_manifold_batch(pairs, n, SPECULATIVE_MARGIN, batch);
        for (size_t i = 0; i < n; ++i) pairs[i].cache = &caches[2 * n + i];
        mink_manifold_batch_mt(pairs, n, SPECULATIVE_MARGIN, threaded, 2);
        assert_memory_equal(single, batch, n * sizeof *single);
        assert_memory_equal(single, threaded, n * sizeof *single);
        assert_memory_equal(&caches[0], &caches[n], n * sizeof *caches);
        assert_memory_equal(&caches[0], &caches[2 * n], n * sizeof *caches);
    }
    free(pairs), free(caches), free(single), free(batch), free(threaded);
}

/* ------------------------------------------------------------ bad input */

static void expect_invalid(const mink_shape *a, const mink_pose *pa, const mink_shape *b, const mink_pose *pb,
                           float margin)
{
    for (int k = 0; k < 2; ++k) {
        mink_cache cache;
        memset(&cache, 0x5a, sizeof cache);
        const mink_cache before = cache;
        struct mink_manifold m;
        memset(&m, 0x7f, sizeof m);
        const mink_status st = k ? mink_manifold(a, pa, b, pb, margin, &cache, &m)
                                 : mink_ref_manifold(a, pa, b, pb, margin, &cache, &m);
        assert_int_equal(st, MINK_ERR_INVALID);
        assert_int_equal(m.status, MINK_ERR_INVALID);
        assert_int_equal(m.count, 0);
        const float *f = &m.normal.x;
        for (int i = 0; i < 3; ++i) assert_true(f[i] == 0.0f);
        for (int i = 0; i < MINK_MANIFOLD_POINTS; ++i) assert_true(m.points[i].separation == 0.0f && m.points[i].id == 0);
        assert_memory_equal(&cache, &before, sizeof cache);
    }
}

static void test_invalid(void **state)
{
    (void)state;
    const mink_shape box = mink_box(1, 1, 1, 0), bad = mink_box(-1, 1, 1, 0);
    const mink_pose p0 = pose_make(dv(0, 0, 0), quat_identity()), p1 = pose_make(dv(0.5, 1.5, 0), quat_identity());
    mink_pose nan_pose = p1, unnormal = p1;
    nan_pose.p.y = NAN;
    unnormal.q.w = 2.0f;
    expect_invalid(&box, &p0, &box, &p1, -0.1f);
    expect_invalid(&box, &p0, &box, &p1, NAN);
    expect_invalid(&box, &p0, &box, &p1, INFINITY);
    expect_invalid(&bad, &p0, &box, &p1, 0.0f);
    expect_invalid(&box, &p0, &box, &nan_pose, 0.0f);
    expect_invalid(&box, &p0, &box, &unnormal, 0.0f);
    expect_invalid(NULL, &p0, &box, &p1, 0.0f);
    expect_invalid(&box, NULL, &box, &p1, 0.0f);
    /* a hull made by hand, without the topology mink_hull_init builds */
    _Alignas(64) static float xyz[3 * MINK_HULL_PAD];
    mink_shape hand = box;
    hand.type = MINK_SHAPE_HULL;
    hand.count = 1;
    hand.padded = MINK_HULL_PAD;
    hand.x = xyz, hand.y = xyz + MINK_HULL_PAD, hand.z = xyz + 2 * MINK_HULL_PAD;
    hand.topology = NULL;
    expect_invalid(&hand, &p0, &box, &p1, 0.0f);
    assert_int_equal(mink_manifold(&box, &p0, &box, &p1, 0.0f, NULL, NULL), MINK_ERR_INVALID);
    /* a batch: the bad pair answers the error, the others are unaffected */
    mink_pair pairs[2] = {{&box, p0, &box, p1, NULL}, {&bad, p0, &box, p1, NULL}};
    struct mink_manifold out[2];
    mink_manifold_batch(pairs, 2, 0.0f, out);
    assert_int_equal(out[0].status, MINK_OK);
    assert_int_equal(out[0].count, 4);
    assert_int_equal(out[1].status, MINK_ERR_INVALID);
    mink_manifold_batch(NULL, 1, 0.0f, out);
    assert_int_equal(out[0].status, MINK_ERR_INVALID);
}

/* ------------------------------------------------------------ main */

static struct CMUnitTest g_tests[64];
static char g_names[64][96];
static size_t g_ntests;

static void add_test(CMUnitTestFunction fn, void *state, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_names[g_ntests], sizeof g_names[g_ntests], fmt, ap);
    va_end(ap);
    g_tests[g_ntests] = (struct CMUnitTest){g_names[g_ntests], fn, NULL, NULL, state};
    g_ntests++;
}

int main(void)
{
    static file_param fp[16];
    static agree_param ap[2 * NFILES];
    static const int kernels[2] = {CASE_KERNEL_REF, CASE_KERNEL_SIMD};
    size_t nf = 0, na = 0;
    for (int k = 0; k < 2; ++k)
        for (int mg = 0; mg < 2; ++mg)
            for (int w = 0; w < 2; ++w) {
                fp[nf] = (file_param){kernels[k], mg ? SPECULATIVE_MARGIN : 0.0f, w, F_MANIFOLD};
                add_test(test_manifold_cases, &fp[nf++], "manifold.cases %s margin %s %s", kernel_name(kernels[k]),
                         mg ? "0.025" : "0", w ? "warm" : "cold");
            }
    for (int k = 0; k < 2; ++k)
        for (int mg = 0; mg < 2; ++mg) {
            fp[nf] = (file_param){kernels[k], mg ? SPECULATIVE_MARGIN : 0.0f, 0, F_REGRESSIONS};
            add_test(test_manifold_cases, &fp[nf++], "manifold-regressions.cases %s margin %s",
                     kernel_name(kernels[k]), mg ? "0.025" : "0");
        }
    /* engine scenes under the local rule, at a margin beyond their gaps too */
    for (int k = 0; k < 2; ++k)
        for (int mg = 0; mg < 2; ++mg) {
            fp[nf] = (file_param){kernels[k], mg ? 0.05f : 0.0f, 0, F_SCENE_REGRESSIONS};
            add_test(test_manifold_cases, &fp[nf++], "manifold-scene-regressions.cases %s margin %s (local rule)",
                     kernel_name(kernels[k]), mg ? "0.05" : "0");
        }
    for (int k = 0; k < 2; ++k) {
        add_test(test_manifold_swapped, (void *)&kernels[k], "manifold.cases %s, A and B swapped", kernel_name(kernels[k]));
        add_test(test_trajectories, (void *)&kernels[k], "traj.cases %s, cold and warm", kernel_name(kernels[k]));
        for (unsigned f = 1; f < NFILES; ++f) {
            ap[na] = (agree_param){f, kernels[k]};
            add_test(test_deepest_is_penetration, &ap[na++], "%s %s: deepest point = penetration", FILES[f],
                     kernel_name(kernels[k]));
        }
    }
    add_test(test_round_pairs, NULL, "spheres and capsules: closed form against a search");
    add_test(test_resting_keys, NULL, "resting boxes: keys and cached feature");
    add_test(test_bad_caches, NULL, "garbage, foreign and stale caches");
    add_test(test_batches, NULL, "batches: single calls, bit for bit");
    add_test(test_invalid, NULL, "bad input");
    return _cmocka_run_group_tests("manifold", g_tests, g_ntests, load_files, free_files);
}
