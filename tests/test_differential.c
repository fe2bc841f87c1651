/* The SIMD kernel against the scalar reference on every case file: same
 * status, and the same answer within tolerance on every field that is
 * unique (distance, normal where the case's normal is unique, the witness
 * points' positions along the normal; along a face the witnesses are not
 * unique, so their tangential parts are not compared). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cmocka.h>

#include "cases.h"
#include "test_util.h"
#include "mink/mink_ref.h"

/* Each kernel is within 1e-4 * L of the exact value (FORMAT.md), so the two
 * are within twice that of each other. */
#define SCALAR_AGREE 2e-4
/* Twice FORMAT.md's normal limits (2e-3 rad sep, 1e-2 rad pen). */
#define SEP_ANGLE 4e-3
#define PEN_ANGLE 2e-2

static double dot3(mink_vec3 a, mink_vec3 b) { return (double)a.x * b.x + (double)a.y * b.y + (double)a.z * b.z; }

static double angle(mink_vec3 a, mink_vec3 b)
{
    const double c = dot3(a, b) / sqrt(dot3(a, a) * dot3(b, b));
    return acos(c > 1.0 ? 1.0 : c < -1.0 ? -1.0 : c);
}

/* Counts disagreements between the kernels on one file and query. */
static unsigned compare_file(const char *name, int query)
{
    char path[512], err[256];
    snprintf(path, sizeof path, "%s/%s", MINK_TEST_DATA, name);
    case_set set;
    if (case_set_load(path, &set, err, sizeof err) != 0) fail_msg("%s", err);
    unsigned bad = 0;
    for (size_t i = 0; i < set.count; ++i) {
        const mink_case *c = &set.cases[i];
        mink_result r, s;
        if (query == CASE_QUERY_INTERSECT) {
            const int hr = mink_ref_intersect(&c->a, &c->pa, &c->b, &c->pb, NULL);
            const int hs = mink_intersect(&c->a, &c->pa, &c->b, &c->pb, NULL);
            if (hr != hs && c->value >= 1e-3 * c->L) {
                if (bad++ < 10) printf("  %s intersect: ref %d simd %d\n", c->id, hr, hs);
            }
            continue;
        }
        if (query == CASE_QUERY_DISTANCE) {
            mink_ref_distance(&c->a, &c->pa, &c->b, &c->pb, NULL, &r);
            mink_distance(&c->a, &c->pa, &c->b, &c->pb, NULL, &s);
        } else {
            mink_ref_penetration(&c->a, &c->pa, &c->b, &c->pb, NULL, &r);
            mink_penetration(&c->a, &c->pa, &c->b, &c->pb, NULL, &s);
        }
        const double tol = SCALAR_AGREE * c->L;
        const int near = c->value < 1e-3 * c->L;
        const int overlap_dist = query == CASE_QUERY_DISTANCE && c->kind == CASE_PEN;
        const int unique_normal = !near && !overlap_dist && (c->normal[0] != 0 || c->normal[1] != 0 || c->normal[2] != 0);
        const double limit = c->kind == CASE_SEP ? SEP_ANGLE : PEN_ANGLE;
        const char *why = NULL;
        if (r.status != s.status) why = "status";
        else if (fabs((double)r.distance - s.distance) > tol) why = "distance";
        else if (unique_normal && angle(r.normal, s.normal) > limit) why = "normal";
        /* witnesses along the normal, where the normal is unique (ties such
         * as identical shapes have several equally good normals) */
        else if (unique_normal && (fabs(dot3(r.normal, r.point_a) - dot3(r.normal, s.point_a)) > tol ||
                                   fabs(dot3(r.normal, r.point_b) - dot3(r.normal, s.point_b)) > tol))
            why = "witness along the normal";
        if (why && bad++ < 10)
            printf("  %s %s: ref %.9g (%g %g %g) simd %.9g (%g %g %g) status %d %d\n", c->id, why, r.distance,
                   r.normal.x, r.normal.y, r.normal.z, s.distance, s.normal.x, s.normal.y, s.normal.z, r.status, s.status);
    }
    printf("%s %s: %zu cases, %u disagreements\n", name,
           query == CASE_QUERY_INTERSECT ? "intersect" : query == CASE_QUERY_DISTANCE ? "distance" : "penetration",
           set.count, bad);
    case_set_free(&set);
    return bad;
}

static void test_all_files(void **state)
{
    (void)state;
    static const char *files[] = {"mixed.cases", "degenerate.cases", "bench.cases", "traj.cases"};
    unsigned bad = 0;
    for (unsigned f = 0; f < 4; ++f)
        for (int q = CASE_QUERY_INTERSECT; q <= CASE_QUERY_PENETRATION; ++q) bad += compare_file(files[f], q);
    assert_int_equal(bad, 0);
}

/* Hulls of 512 points or more climb their edges for a support (hull.h)
 * where the reference scans every point; no case file has them overlapping.
 * Random poses of big hulls (round, a cylinder with two wide faces, a cone
 * with an apex in hundreds of faces) against each other and against small
 * shapes, separated and overlapping: the kernels agree as on the files. */
static uint64_t lcg_state = 0x853c49e6748fea9bULL;
static double lcg_unit(void)
{
    lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(lcg_state >> 11) * 0x1p-53;
}
static double lcg_range(double lo, double hi) { return lo + (hi - lo) * lcg_unit(); }

/* The hull of n points (xyz), rounded by `radius`, in memory of its own. */
static mink_shape hull_of(const float *xyz, uint32_t n, float radius, void **mem)
{
    const size_t bytes = mink_hull_bytes(n);
    *mem = aligned_alloc(MINK_HULL_ALIGN, (bytes + MINK_HULL_ALIGN - 1) / MINK_HULL_ALIGN * MINK_HULL_ALIGN);
    assert_non_null(*mem);
    mink_shape s;
    assert_int_equal(mink_hull_init(&s, *mem, bytes, xyz, n, radius), MINK_OK);
    return s;
}

static mink_shape big_hull(int kind, float *xyz, void **mem)
{
    const uint32_t n = 1024;
    const double pi = 3.14159265358979323846;
    for (uint32_t i = 0; i < n; ++i) {
        double p[3];
        if (kind == 1) { /* cylinder */
            const double a = 2.0 * pi * (i / 2) / (n / 2);
            p[0] = cos(a), p[1] = (i & 1) ? 0.7 : -0.7, p[2] = sin(a);
        } else if (kind == 2) { /* cone */
            const double a = 2.0 * pi * i / (n - 1);
            p[0] = cos(a), p[1] = i == n - 1 ? 1.5 : -0.5, p[2] = sin(a);
        } else { /* round, slightly squashed */
            double l;
            do {
                for (int k = 0; k < 3; ++k) p[k] = lcg_range(-1.0, 1.0);
                l = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
            } while (l > 1.0 || l < 1e-3);
            p[0] /= l, p[1] /= 0.7 * l, p[2] /= l;
        }
        for (int k = 0; k < 3; ++k) xyz[3 * i + (uint32_t)k] = (float)p[k];
    }
    return hull_of(xyz, n, kind == 0 ? 0.0f : 0.05f, mem);
}

static mink_pose random_pose(double spread)
{
    mink_pose p;
    p.p.x = (float)lcg_range(-spread, spread), p.p.y = (float)lcg_range(-spread, spread);
    p.p.z = (float)lcg_range(-spread, spread);
    double q[4], l = 0.0;
    for (int k = 0; k < 4; ++k) q[k] = lcg_range(-1.0, 1.0), l += q[k] * q[k];
    l = sqrt(l);
    p.q.x = (float)(q[0] / l), p.q.y = (float)(q[1] / l), p.q.z = (float)(q[2] / l), p.q.w = (float)(q[3] / l);
    return p;
}

static void test_big_hulls(void **state)
{
    (void)state;
    static float xyz[3][3 * 1024];
    void *mem[3];
    mink_shape shapes[7];
    for (int k = 0; k < 3; ++k) shapes[k] = big_hull(k, xyz[k], &mem[k]);
    shapes[3] = mink_box(0.4f, 0.6f, 0.3f, 0.0f);
    shapes[4] = mink_capsule(0.2f, 0.5f);
    shapes[5] = mink_sphere(0.5f);
    shapes[6] = mink_box(0.8f, 0.1f, 0.8f, 0.04f);
    unsigned bad = 0, pen = 0, total = 0;
    for (int t = 0; t < 1500; ++t) {
        const mink_shape *a = &shapes[t % 3], *b = &shapes[(t / 3) % 7];
        const mink_pose pa = random_pose(0.5), pb = random_pose(1.6);
        const double L = 3.0; /* every core within 2.3 of the origin, plus radius */
        for (int q = 0; q < 3; ++q) {
            mink_result r, s;
            const char *why = NULL;
            if (q == 0) {
                mink_ref_penetration(a, &pa, b, &pb, NULL, &r);
                const int hit = mink_intersect(a, &pa, b, &pb, NULL);
                if (hit != (r.distance <= 0.0f) && fabs(r.distance) > 1e-3 * L) why = "intersect";
                pen += r.distance < 0.0f;
                total++;
            } else {
                if (q == 1) {
                    mink_ref_distance(a, &pa, b, &pb, NULL, &r);
                    mink_distance(a, &pa, b, &pb, NULL, &s);
                } else {
                    mink_ref_penetration(a, &pa, b, &pb, NULL, &r);
                    mink_penetration(a, &pa, b, &pb, NULL, &s);
                }
                if (r.status != s.status) why = "status";
                else if (fabs((double)r.distance - s.distance) > SCALAR_AGREE * L) why = "distance";
            }
            if (why && bad++ < 10)
                printf("  big hull pair %d (%u vs %u) query %d: %s: ref %.9g simd %.9g\n", t, a->type, b->type, q, why,
                       r.distance, q ? s.distance : 0.0f);
        }
    }
    printf("big hulls: %u pairs (%u overlapping), %u disagreements\n", total, pen, bad);
    for (int k = 0; k < 3; ++k) free(mem[k]);
    assert_true(pen > total / 4 && pen < total - total / 4); /* both kinds well represented */
    assert_int_equal(bad, 0);
}

/* Overlapping boxes in the distance query: the SIMD kernel answers most
 * with a corner of one box inside the other (no GJK: no iterations), the
 * rest (rods crossing, no corner inside) with GJK. Either way distance 0 and
 * a point of both boxes, as the reference (GJK alone) says; separated pairs
 * the same distance. Cubes, plates and rods, sharp and rounded, at random
 * poses, and rods crossed edge over edge. */
static void test_box_common_points(void **state)
{
    (void)state;
    const mink_shape boxes[6] = {mink_box(0.3f, 0.3f, 0.3f, 0.0f), mink_box(0.6f, 0.05f, 0.4f, 0.0f),
                                 mink_box(0.8f, 0.06f, 0.06f, 0.0f), mink_box(0.25f, 0.35f, 0.2f, 0.03f),
                                 mink_box(0.5f, 0.02f, 0.5f, 0.01f), mink_box(0.04f, 0.7f, 0.05f, 0.0f)};
    const double L = 2.5;
    unsigned corner = 0, searched = 0, apart = 0, bad = 0;
    for (int t = 0; t < 4000; ++t) {
        const mink_shape *a = &boxes[t % 6], *b = &boxes[(t / 6) % 6];
        mink_pose pa = random_pose(0.3), pb = random_pose(0.6);
        if (t % 8 == 7) { /* two rods crossing edge over edge, turned about the axis between them */
            a = &boxes[2], b = &boxes[5];
            const double ang = lcg_range(0.0, 6.283), c = cos(ang / 2), s = sin(ang / 2);
            pa = (mink_pose){{0, 0, 0}, {0, 0, 0, 1}};
            pb = (mink_pose){{0, 0, (float)lcg_range(0.06, 0.12)}, {0, 0, (float)s, (float)c}};
        }
        mink_result r, m;
        mink_ref_distance(a, &pa, b, &pb, NULL, &r);
        mink_distance(a, &pa, b, &pb, NULL, &m);
        const char *why = NULL;
        double gap[2] = {0, 0};
        if (m.status != r.status) why = "status";
        else if (fabs((double)m.distance - r.distance) > SCALAR_AGREE * L) why = "distance";
        else if (fabs(dot3(m.normal, m.normal) - 1.0) > 1e-5) why = "normal";
        else if (m.distance == 0.0f &&
                 (case_common_point_gaps(a, &pa, b, &pb, &m, gap) != 0 || gap[0] > 1e-5 * L || gap[1] > 1e-5 * L))
            why = "common point";
        if (why && bad++ < 10)
            printf("  box pair %d: %s: ref %.9g simd %.9g, gaps %.3g %.3g\n", t, why, r.distance, m.distance, gap[0],
                   gap[1]);
        if (m.distance > 0.0f) apart++;
        else if (m.iterations == 0 && m.support_calls == 0) corner++;
        else searched++;
    }
    printf("boxes: %u by a corner, %u by GJK, %u apart, %u disagreements\n", corner, searched, apart, bad);
    assert_int_equal(bad, 0);
    assert_true(corner > 500 && searched > 500 && apart > 1000); /* every path taken */
}

/* A hull of n points in a box of half sizes (hx, hy, hz): random points,
 * or (n == 8) the box's corners, whose faces then meet others' exactly. */
static mink_shape small_hull(uint32_t n, double hx, double hy, double hz, float *xyz, void **mem)
{
    for (uint32_t i = 0; i < n; ++i) {
        const double h[3] = {hx, hy, hz};
        for (int k = 0; k < 3; ++k)
            xyz[3 * i + (uint32_t)k] = (float)(n == 8 ? ((i >> k) & 1u ? h[k] : -h[k]) : lcg_range(-h[k], h[k]));
    }
    return hull_of(xyz, n, 0.0f, mem);
}

/* The intersect of sharp hulls without a cache runs the boolean search
 * (gjk.c), which answers only what it proves and leaves the rest to GJK.
 * Against the reference's signed distance: random hulls (round, flat,
 * needles, cubes) at random poses, outside 2e-4 L of contact (the
 * reference's own error); and cubes stacked face on face, turned about the
 * normal (and half of them tilted), at gaps of +-1e-2, 1e-4 and 1e-5 of
 * their size and touching: apart exactly when the gap is positive (far
 * outside the kernel's touching band of 5e-7 S), touching an overlap. */
static void test_boolean_intersect(void **state)
{
    (void)state;
    static float xyz[6][3 * 40];
    void *mem[6];
    mink_shape hulls[6];
    hulls[0] = small_hull(12, 0.5, 0.5, 0.5, xyz[0], &mem[0]);
    hulls[1] = small_hull(40, 0.6, 0.4, 0.5, xyz[1], &mem[1]);
    hulls[2] = small_hull(16, 0.7, 0.02, 0.6, xyz[2], &mem[2]); /* a plate */
    hulls[3] = small_hull(10, 0.9, 0.03, 0.03, xyz[3], &mem[3]); /* a needle */
    hulls[4] = small_hull(8, 0.4, 0.4, 0.4, xyz[4], &mem[4]);   /* a cube */
    hulls[5] = small_hull(6, 0.3, 0.5, 0.2, xyz[5], &mem[5]);
    const double L = 3.0;
    unsigned bad = 0, hits = 0, total = 0;
    for (int t = 0; t < 6000; ++t) {
        const mink_shape *a = &hulls[t % 6], *b = &hulls[(t / 6) % 6];
        const mink_pose pa = random_pose(0.4), pb = random_pose(0.9);
        mink_result r;
        mink_ref_penetration(a, &pa, b, &pb, NULL, &r);
        const int hit = mink_intersect(a, &pa, b, &pb, NULL);
        if (fabs(r.distance) > 2e-4 * L) {
            total++;
            hits += hit == 1;
            if (hit != (r.distance < 0.0f) && bad++ < 10)
                printf("  hull pair %d: intersect %d, reference distance %.9g\n", t, hit, r.distance);
        }
    }
    const double gaps[7] = {1e-2, -1e-2, 1e-4, -1e-4, 1e-5, -1e-5, 0.0};
    for (int t = 0; t < 1400; ++t) {
        /* B on A's top face at gap g, shifted along it, turned about its
         * normal; half of them with both turned the same way (tilted:
         * the faces then meet within float rounding, not exactly) */
        const double g = gaps[t % 7] * 0.8, ang = lcg_range(0.0, 6.283);
        const double local[3] = {lcg_range(-0.3, 0.3), 0.8 + g, lcg_range(-0.3, 0.3)};
        const double qt[4] = {0.0, sin(ang / 2), 0.0, cos(ang / 2)}; /* x y z w */
        const mink_pose tilt = (t / 7) % 2 ? random_pose(0.0) : (mink_pose){{0, 0, 0}, {0, 0, 0, 1}};
        const double q[4] = {tilt.q.x, tilt.q.y, tilt.q.z, tilt.q.w};
        double r[3][3];
        {
            const double x = q[0], y = q[1], z = q[2], w = q[3];
            r[0][0] = 1 - 2 * (y * y + z * z), r[0][1] = 2 * (x * y - w * z), r[0][2] = 2 * (x * z + w * y);
            r[1][0] = 2 * (x * y + w * z), r[1][1] = 1 - 2 * (x * x + z * z), r[1][2] = 2 * (y * z - w * x);
            r[2][0] = 2 * (x * z - w * y), r[2][1] = 2 * (y * z + w * x), r[2][2] = 1 - 2 * (x * x + y * y);
        }
        mink_pose pa = tilt, pb;
        pa.p = (mink_vec3){0.2f, -0.1f, 0.3f};
        pb.p.x = (float)(0.2 + r[0][0] * local[0] + r[0][1] * local[1] + r[0][2] * local[2]);
        pb.p.y = (float)(-0.1 + r[1][0] * local[0] + r[1][1] * local[1] + r[1][2] * local[2]);
        pb.p.z = (float)(0.3 + r[2][0] * local[0] + r[2][1] * local[1] + r[2][2] * local[2]);
        /* q_b = q_tilt q_turn */
        pb.q.x = (float)(q[3] * qt[0] + q[0] * qt[3] + q[1] * qt[2] - q[2] * qt[1]);
        pb.q.y = (float)(q[3] * qt[1] - q[0] * qt[2] + q[1] * qt[3] + q[2] * qt[0]);
        pb.q.z = (float)(q[3] * qt[2] + q[0] * qt[1] - q[1] * qt[0] + q[2] * qt[3]);
        pb.q.w = (float)(q[3] * qt[3] - q[0] * qt[0] - q[1] * qt[1] - q[2] * qt[2]);
        const int hit = mink_intersect(&hulls[4], &pa, &hulls[4], &pb, NULL);
        /* touching: an overlap when the faces meet exactly; tilted, within
         * float's rounding of contact, either answer (both kernels' GJK
         * may call such a pair apart) */
        const int tilted = (t / 7) % 2;
        if (g == 0.0 && tilted) continue;
        if (hit != (g <= 0.0) && bad++ < 10) printf("  stacked cubes, gap %.3g, tilted %d: intersect %d\n", g, tilted, hit);
    }
    printf("boolean intersect: %u hull pairs (%u overlapping), 1400 stacked, %u disagreements\n", total, hits, bad);
    for (int k = 0; k < 6; ++k) free(mem[k]);
    assert_true(hits > total / 5 && hits < total - total / 5);
    assert_int_equal(bad, 0);
}

/* Hulls whose points lie away from their own origin (outside them): the
 * boolean search starts from the cores' centres' difference (a point of
 * D), which the origins' difference is not here. Against the reference as
 * above, at random turns with the centres 0 to 1.2 apart, both orders. */
static void test_boolean_intersect_off_origin(void **state)
{
    (void)state;
    static float xyz[3][3 * 16];
    void *mem[3];
    mink_shape hulls[3];
    const double shift[3][3] = {{1.5, -0.8, 0.4}, {0.0, 2.0, 0.0}, {-1.0, 0.0, 1.0}};
    const uint32_t n[3] = {12, 8, 16};
    const double half[3][3] = {{0.5, 0.5, 0.5}, {0.4, 0.4, 0.4}, {0.7, 0.02, 0.6}}; /* a cube, a plate */
    for (int k = 0; k < 3; ++k) {
        small_hull(n[k], half[k][0], half[k][1], half[k][2], xyz[k], &mem[k]);
        free(mem[k]);
        for (uint32_t i = 0; i < n[k]; ++i)
            for (int c = 0; c < 3; ++c) xyz[k][3 * i + (uint32_t)c] += (float)shift[k][c];
        hulls[k] = hull_of(xyz[k], n[k], 0.0f, &mem[k]);
    }
    const double L = 3.0;
    unsigned bad = 0, hits = 0, total = 0;
    for (int t = 0; t < 3000; ++t) {
        const int ka = t % 3, kb = (t / 3) % 3;
        const mink_pose pa = random_pose(0.4);
        mink_pose pb = random_pose(0.0);
        /* B's centre at A's centre plus up to 1.2 */
        const dv3 ca = pose_apply(&pa, dv(shift[ka][0], shift[ka][1], shift[ka][2]));
        const dv3 cb = quat_rotate(pb.q, dv(shift[kb][0], shift[kb][1], shift[kb][2]));
        const dv3 off = dv_scale(dv(lcg_range(-1, 1), lcg_range(-1, 1), lcg_range(-1, 1)), 0.9);
        pb.p = vec3_of(dv_sub(dv_add(ca, off), cb));
        mink_result r;
        mink_ref_penetration(&hulls[ka], &pa, &hulls[kb], &pb, NULL, &r);
        const int hit = mink_intersect(&hulls[ka], &pa, &hulls[kb], &pb, NULL);
        if (fabs(r.distance) > 2e-4 * L) {
            total++;
            hits += hit == 1;
            if (hit != (r.distance < 0.0f) && bad++ < 10)
                printf("  off-origin hull pair %d: intersect %d, reference distance %.9g\n", t, hit, r.distance);
        }
    }
    printf("boolean intersect, hulls off their origin: %u pairs (%u overlapping), %u disagreements\n", total, hits, bad);
    for (int k = 0; k < 3; ++k) free(mem[k]);
    assert_true(hits > total / 5 && hits < total - total / 5);
    assert_int_equal(bad, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_all_files), cmocka_unit_test(test_big_hulls),
                                       cmocka_unit_test(test_box_common_points),
                                       cmocka_unit_test(test_boolean_intersect),
                                       cmocka_unit_test(test_boolean_intersect_off_origin)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
