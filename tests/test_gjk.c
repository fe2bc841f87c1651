/* GJK distance and intersection, on both kernels (reference and SIMD):
 * analytic answers at seeded random poses (sphere-sphere, sphere-box,
 * capsule-capsule) with a hit-rate check so both branches run, box-box
 * against a SAT bound and the support certificate, the invariants of every
 * result, and worked examples as regressions: the dyn4j tutorial polygons,
 * Catto's single-precision segment, identical shapes, poses far from the
 * origin, a 5000-point hull. */
#include "test_util.h"

/* Analytic distances: GJK stops when its bounds are within MINK_GJK_GAP_REL
 * (1e-6) of the query scale S <= 3L, plus float rounding of the poses; 1e-5 * L
 * is 10x tighter than FORMAT.md's 1e-4 and still leaves margin. */
#define GJK_DIST_REL 1e-5

/* Like Jolt's tests: the random pairs of a family overlap 30-70 % of the
 * time, so both the separated and the overlapping branch are exercised. */
#define HIT_RATE_MIN 0.3
#define HIT_RATE_MAX 0.7
#define PAIRS_PER_FAMILY 400

/* Catto's segment: the distance, 0.0211, is 4e3 times smaller than the
 * segment; float still gives it to ~1e-6 relative when the closest point is
 * computed from the better-conditioned end. */
#define CATTO_REL 1e-6
#define CATTO_MAX_ITERATIONS 4

/* The segment's normal comes from its perpendicular (STYLE.md: directions
 * from edge normals), exact to float rounding; one from the barycentric
 * weights of points 80 away would tilt by ~eps * 80 / 0.021 = 2e-4 rad. */
#define CATTO_ANGLE 1e-5

/* Far from the origin the kernel works in A's frame, so the error scales
 * with the local size of the pair, not with |position| = 1e4: 1e-4 of the
 * local scale would fail a world-frame computation (1 ulp at 1e4 is 1e-3). */
#define FAR_LOCAL_REL 1e-4

/* A 5000-point Fibonacci hull is within ~5e-4 R of its sphere (facets
 * ~0.03 R across); 2e-3 R bounds the gap. Pairs within 1e-2 of touching are
 * left to the invariants. */
#define BIG_HULL_APPROX 2e-3
#define BIG_HULL_MARGIN 1e-2

/* GJK's normal is v / |v|, v the closest point of B - A to the origin,
 * which is accurate to about MINK_GJK_GAP_REL (1e-6) of the scale: the
 * normal may tilt by that over the distance (FORMAT.md's 2e-3 rad at most). */
/* GJK stops when its distance bounds agree to MINK_GJK_GAP_REL (1e-6) of
 * the scale; the direction of v converges more slowly than its length, so
 * v itself is only good to about ten times that (seen with clang's code:
 * 3e-5 of the scale on a box-box sweep). */
#define GJK_V_REL 1e-5

/* What one family's pair expects. `exact` = 0 means `value` is only a lower
 * bound (SAT for separated boxes). */
typedef struct expectation {
    double value;
    int exact;
    int has_normal;
    dv3 normal;
} expectation;

/* All checks of one distance query and its intersect twin on kernel K.
 * Returns the intersect answer. */
static int check_distance(const test_kernel *K, const mink_shape *a, const mink_pose *pa, const mink_shape *b,
                          const mink_pose *pb, const expectation *e, mink_result *out)
{
    const double L = pair_L(a, pa, b, pb);
    const double tol = GJK_DIST_REL * L, band = TOL_TOUCH_REL * L;
    mink_result r;
    const mink_status st = K->distance(a, pa, b, pb, NULL, &r);
    EXPECT_INT(st, MINK_OK);
    EXPECT_INT(r.status, MINK_OK);
    check_result_basic(&r, L);
    EXPECT_TRUE(r.distance >= 0.0f);
    if (r.distance > 0.0f) {
        /* separated: the support certificate and witnesses on the surfaces */
        const double theta = fmin(TOL_SEP_ANGLE, GJK_V_REL * L / r.distance);
        check_result_support(a, pa, b, pb, &r, L, theta);
        check_on_surface(a, pa, r.point_a, L);
        check_on_surface(b, pb, r.point_b, L);
    } else {
        /* overlapping: one point common to both */
        EXPECT_TRUE(r.point_a.x == r.point_b.x && r.point_a.y == r.point_b.y && r.point_a.z == r.point_b.z);
        check_inside(a, pa, r.point_a, L);
        check_inside(b, pb, r.point_a, L);
    }

    if (e) {
        if (e->value > band) {
            if (e->exact) EXPECT_NEAR(r.distance, e->value, tol);
            else EXPECT_LE(e->value, r.distance, tol);
            if (e->has_normal && e->value > TOL_NORMAL_CHECK_REL * L)
                EXPECT_LE(dv_angle(dv_of(r.normal), e->normal), TOL_SEP_ANGLE, 0.0);
        } else if (e->value < -band) {
            EXPECT_TRUE(r.distance == 0.0f);
        } else {
            EXPECT_LE(r.distance, band, 0.0);
        }
    }

    /* intersect agrees with the distance outside the touching band */
    const int hit = K->intersect(a, pa, b, pb, NULL);
    mink_result info;
    const int hit_ex = K->intersect_ex(a, pa, b, pb, NULL, &info);
    EXPECT_INT(hit_ex, hit);
    EXPECT_INT(info.status, MINK_OK);
    if (r.distance > band) EXPECT_INT(hit, 0);
    if (r.distance == 0.0f && (!e || e->value < -band)) EXPECT_INT(hit, 1);
    if (hit == 0) {
        /* a separating axis of the rounded shapes */
        EXPECT_NEAR(dv_len(dv_of(info.normal)), 1.0, TOL_UNIT);
        EXPECT_LE(0.0, gap_along(a, pa, b, pb, dv_norm(dv_of(info.normal))), band);
    }
    if (out) *out = r;
    return hit;
}

static void check_hit_rate(const char *family, const char *kernel, int hits, int n)
{
    const double rate = (double)hits / n;
    test_ctx("%s on %s: hit rate %.3f", family, kernel, rate);
    EXPECT_TRUE(rate >= HIT_RATE_MIN && rate <= HIT_RATE_MAX);
}

/* Both kernels answer the same pair within the analytic tolerance. */
static void check_kernels_agree(const mink_result *r, double L)
{
    EXPECT_NEAR(r[0].distance, r[1].distance, 2.0 * GJK_DIST_REL * L);
}

static void test_sphere_sphere(void **state)
{
    (void)state;
    test_rng rng = rng_seed(1001);
    int hits[TEST_KERNEL_COUNT] = {0};
    for (int i = 0; i < PAIRS_PER_FAMILY; ++i) {
        const float r1 = (float)rng_range(&rng, 0.1, 1.5), r2 = (float)rng_range(&rng, 0.1, 1.5);
        const dv3 c1 = rng_box(&rng, 3.0);
        const dv3 c2 = dv_add(c1, dv_scale(rng_dir(&rng), rng_range(&rng, 0.0, 2.0 * (r1 + r2))));
        const mink_shape a = mink_sphere(r1), b = mink_sphere(r2);
        const mink_pose pa = pose_make(c1, rng_quat(&rng)), pb = pose_make(c2, rng_quat(&rng));
        const dv3 d = dv_sub(dv_of(pb.p), dv_of(pa.p));
        expectation e = {dv_len(d) - r1 - r2, 1, 1, d};
        mink_result res[TEST_KERNEL_COUNT];
        for (int k = 0; k < TEST_KERNEL_COUNT; ++k) {
            const test_kernel *K = test_kernel_get(k);
            test_ctx("sphere-sphere %d on %s: r %.9g %.9g, centers %.9g %.9g %.9g / %.9g %.9g %.9g", i, K->name, r1, r2,
                     pa.p.x, pa.p.y, pa.p.z, pb.p.x, pb.p.y, pb.p.z);
            hits[k] += check_distance(K, &a, &pa, &b, &pb, &e, &res[k]);
            if (res[k].distance > 0.0f) {
                /* witnesses are the exact sphere points along the center line */
                const dv3 n = dv_norm(d);
                EXPECT_NEAR(dv_len(dv_sub(dv_of(res[k].point_a), dv_add(dv_of(pa.p), dv_scale(n, r1)))), 0.0,
                            TOL_WITNESS_REL * pair_L(&a, &pa, &b, &pb));
            }
        }
        check_kernels_agree(res, pair_L(&a, &pa, &b, &pb));
    }
    for (int k = 0; k < TEST_KERNEL_COUNT; ++k) check_hit_rate("sphere-sphere", test_kernel_get(k)->name, hits[k], PAIRS_PER_FAMILY);
}

/* Sphere B against box A: the point-box distance in the box's frame. */
static void test_sphere_box(void **state)
{
    (void)state;
    test_rng rng = rng_seed(1002);
    int hits[TEST_KERNEL_COUNT] = {0};
    for (int i = 0; i < PAIRS_PER_FAMILY; ++i) {
        const double h[3] = {rng_range(&rng, 0.2, 2.0), rng_range(&rng, 0.2, 2.0), rng_range(&rng, 0.2, 2.0)};
        const float rb = (i % 2) ? (float)rng_range(&rng, 0.0, 0.3) : 0.0f;
        const float rs = (float)rng_range(&rng, 0.1, 1.0);
        const mink_shape a = mink_box((float)h[0], (float)h[1], (float)h[2], rb), b = mink_sphere(rs);
        const mink_pose pa = pose_make(rng_box(&rng, 3.0), rng_quat(&rng));
        const dv3 local = dv(rng_range(&rng, -h[0] - 1.0, h[0] + 1.0), rng_range(&rng, -h[1] - 1.0, h[1] + 1.0),
                             rng_range(&rng, -h[2] - 1.0, h[2] + 1.0));
        const mink_pose pb = pose_make(pose_apply(&pa, local), rng_quat(&rng));
        /* the oracle from the float center the kernel sees */
        const double hf[3] = {a.half[0], a.half[1], a.half[2]};
        const dv3 q = pose_unapply(&pa, dv_of(pb.p));
        const double dcore = fmax(box_signed_distance(q, hf), 0.0);
        const dv3 clamp = dv(fmin(fmax(q.x, -hf[0]), hf[0]), fmin(fmax(q.y, -hf[1]), hf[1]), fmin(fmax(q.z, -hf[2]), hf[2]));
        expectation e = {dcore - rb - rs, 1, dcore > 0.0, quat_rotate(pa.q, dv_sub(q, clamp))};
        mink_result res[TEST_KERNEL_COUNT];
        for (int k = 0; k < TEST_KERNEL_COUNT; ++k) {
            const test_kernel *K = test_kernel_get(k);
            test_ctx("sphere-box %d on %s: box %.9g %.9g %.9g r %.9g, sphere %.9g at local %.9g %.9g %.9g", i, K->name,
                     hf[0], hf[1], hf[2], rb, rs, q.x, q.y, q.z);
            hits[k] += check_distance(K, &a, &pa, &b, &pb, &e, &res[k]);
        }
        check_kernels_agree(res, pair_L(&a, &pa, &b, &pb));
    }
    for (int k = 0; k < TEST_KERNEL_COUNT; ++k) check_hit_rate("sphere-box", test_kernel_get(k)->name, hits[k], PAIRS_PER_FAMILY);
}

static void capsule_segment(const mink_shape *s, const mink_pose *p, dv3 *p0, dv3 *p1)
{
    *p0 = pose_apply(p, dv(0, -s->half[1], 0));
    *p1 = pose_apply(p, dv(0, s->half[1], 0));
}

static void test_capsule_capsule(void **state)
{
    (void)state;
    test_rng rng = rng_seed(1003);
    int hits[TEST_KERNEL_COUNT] = {0};
    for (int i = 0; i < PAIRS_PER_FAMILY; ++i) {
        const float h1 = (float)rng_range(&rng, 0.2, 2.0), h2 = (float)rng_range(&rng, 0.2, 2.0);
        const float r1 = (float)rng_range(&rng, 0.1, 0.8), r2 = (float)rng_range(&rng, 0.1, 0.8);
        const mink_shape a = mink_capsule(r1, h1), b = mink_capsule(r2, h2);
        const dv3 c1 = rng_box(&rng, 3.0);
        const dv3 c2 = dv_add(c1, dv_scale(rng_dir(&rng), rng_range(&rng, 0.0, 0.9 * (h1 + h2) + 2.0 * (r1 + r2))));
        const mink_pose pa = pose_make(c1, rng_quat(&rng)), pb = pose_make(c2, rng_quat(&rng));
        dv3 a0, a1, b0, b1;
        capsule_segment(&a, &pa, &a0, &a1);
        capsule_segment(&b, &pb, &b0, &b1);
        expectation e = {segment_segment_distance(a0, a1, b0, b1) - r1 - r2, 1, 0, dv(0, 0, 0)};
        mink_result res[TEST_KERNEL_COUNT];
        for (int k = 0; k < TEST_KERNEL_COUNT; ++k) {
            const test_kernel *K = test_kernel_get(k);
            test_ctx("capsule-capsule %d on %s: expected %.9g", i, K->name, e.value);
            hits[k] += check_distance(K, &a, &pa, &b, &pb, &e, &res[k]);
        }
        check_kernels_agree(res, pair_L(&a, &pa, &b, &pb));
    }
    for (int k = 0; k < TEST_KERNEL_COUNT; ++k)
        check_hit_rate("capsule-capsule", test_kernel_get(k)->name, hits[k], PAIRS_PER_FAMILY);
}

/* Box-box: no closed form for the distance, but SAT over the 15 axes in
 * double decides overlap exactly and bounds the distance from below, and
 * the support certificate (gap along the normal = distance, witnesses on the
 * boxes) proves the reported distance is the exact one. */
static void test_box_box(void **state)
{
    (void)state;
    test_rng rng = rng_seed(1004);
    int hits[TEST_KERNEL_COUNT] = {0};
    for (int i = 0; i < PAIRS_PER_FAMILY; ++i) {
        const double ha[3] = {rng_range(&rng, 0.2, 1.5), rng_range(&rng, 0.2, 1.5), rng_range(&rng, 0.2, 1.5)};
        const double hb[3] = {rng_range(&rng, 0.2, 1.5), rng_range(&rng, 0.2, 1.5), rng_range(&rng, 0.2, 1.5)};
        const mink_shape a = mink_box((float)ha[0], (float)ha[1], (float)ha[2], 0.0f);
        const mink_shape b = mink_box((float)hb[0], (float)hb[1], (float)hb[2], 0.0f);
        const dv3 c1 = rng_box(&rng, 3.0);
        const dv3 c2 = dv_add(c1, dv_scale(rng_dir(&rng), rng_range(&rng, 0.0, 1.15 * (dv_len(dv(ha[0], ha[1], ha[2])) + dv_len(dv(hb[0], hb[1], hb[2]))))));
        const mink_pose pa = pose_make(c1, rng_quat(&rng)), pb = pose_make(c2, rng_quat(&rng));
        const obb A = obb_of_box(&a, &pa), B = obb_of_box(&b, &pb);
        const sat_result sat = sat_obb(&A, &B, 0.0);
        expectation e = {sat.value, 0, 0, dv(0, 0, 0)};
        mink_result res[TEST_KERNEL_COUNT];
        for (int k = 0; k < TEST_KERNEL_COUNT; ++k) {
            const test_kernel *K = test_kernel_get(k);
            test_ctx("box-box %d on %s: SAT %.9g", i, K->name, sat.value);
            hits[k] += check_distance(K, &a, &pa, &b, &pb, &e, &res[k]);
        }
        check_kernels_agree(res, pair_L(&a, &pa, &b, &pb));
    }
    for (int k = 0; k < TEST_KERNEL_COUNT; ++k) check_hit_rate("box-box", test_kernel_get(k)->name, hits[k], PAIRS_PER_FAMILY);
}

/* Rounded boxes: the core SAT bound minus the radii, and every invariant. */
static void test_rounded_box_box(void **state)
{
    (void)state;
    test_rng rng = rng_seed(1005);
    int hits[TEST_KERNEL_COUNT] = {0};
    for (int i = 0; i < PAIRS_PER_FAMILY; ++i) {
        const float ra = (float)rng_range(&rng, 0.05, 0.3), rb = (float)rng_range(&rng, 0.05, 0.3);
        const mink_shape a = mink_box((float)rng_range(&rng, 0.2, 1.2), (float)rng_range(&rng, 0.2, 1.2), (float)rng_range(&rng, 0.2, 1.2), ra);
        const mink_shape b = mink_box((float)rng_range(&rng, 0.2, 1.2), (float)rng_range(&rng, 0.2, 1.2), (float)rng_range(&rng, 0.2, 1.2), rb);
        const dv3 c1 = rng_box(&rng, 3.0);
        const dv3 c2 = dv_add(c1, dv_scale(rng_dir(&rng), rng_range(&rng, 0.0, 1.3 * (a.extent + b.extent + ra + rb))));
        const mink_pose pa = pose_make(c1, rng_quat(&rng)), pb = pose_make(c2, rng_quat(&rng));
        const obb A = obb_of_box(&a, &pa), B = obb_of_box(&b, &pb);
        const sat_result sat = sat_obb(&A, &B, 0.0);
        /* overlapping cores overlap the rounded shapes; otherwise the core
         * distance is at least the SAT gap */
        expectation e = {sat.value - ra - rb, 0, 0, dv(0, 0, 0)};
        if (sat.value < 0.0) e.value = sat.value;
        mink_result res[TEST_KERNEL_COUNT];
        for (int k = 0; k < TEST_KERNEL_COUNT; ++k) {
            const test_kernel *K = test_kernel_get(k);
            test_ctx("rounded box-box %d on %s: SAT - radii %.9g", i, K->name, e.value);
            hits[k] += check_distance(K, &a, &pa, &b, &pb, e.value > 0.0 || sat.value < 0.0 ? &e : NULL, &res[k]);
        }
        check_kernels_agree(res, pair_L(&a, &pa, &b, &pb));
    }
    for (int k = 0; k < TEST_KERNEL_COUNT; ++k)
        check_hit_rate("rounded box-box", test_kernel_get(k)->name, hits[k], PAIRS_PER_FAMILY);
}

/* ---------------------------------------------------------------- worked examples */

/* 2D oracle for two convex polygons (counter-clockwise or not): 0 when they
 * overlap (no separating edge normal), else the smallest vertex-edge
 * distance, which is the distance of disjoint convex polygons. */
static double polygon_distance(const double (*p)[2], int np, const double (*q)[2], int nq)
{
    for (int pass = 0; pass < 2; ++pass) {
        const double (*s)[2] = pass ? q : p, (*o)[2] = pass ? p : q;
        const int ns = pass ? nq : np, no = pass ? np : nq;
        for (int i = 0; i < ns; ++i) {
            const int j = (i + 1) % ns;
            const double nx = s[j][1] - s[i][1], ny = s[i][0] - s[j][0];
            double smin = HUGE_VAL, smax = -HUGE_VAL, omin = HUGE_VAL, omax = -HUGE_VAL;
            for (int k = 0; k < ns; ++k) {
                const double t = nx * s[k][0] + ny * s[k][1];
                smin = fmin(smin, t);
                smax = fmax(smax, t);
            }
            for (int k = 0; k < no; ++k) {
                const double t = nx * o[k][0] + ny * o[k][1];
                omin = fmin(omin, t);
                omax = fmax(omax, t);
            }
            if (omin > smax || omax < smin) goto separated;
        }
    }
    return 0.0;
separated:;
    double best = HUGE_VAL;
    for (int pass = 0; pass < 2; ++pass) {
        const double (*s)[2] = pass ? q : p, (*o)[2] = pass ? p : q;
        const int ns = pass ? nq : np, no = pass ? np : nq;
        for (int k = 0; k < no; ++k)
            for (int i = 0; i < ns; ++i) {
                const int j = (i + 1) % ns;
                const dv3 c = closest_on_segment(dv(s[i][0], s[i][1], 0), dv(s[j][0], s[j][1], 0), dv(o[k][0], o[k][1], 0));
                best = fmin(best, dv_len(dv_sub(c, dv(o[k][0], o[k][1], 0))));
            }
    }
    return best;
}

/* B placed where it touches A along a random direction u, +- a hair
 * (1e-8 to 1e-3 of the pair's size), and intersected cold: an answer
 * "apart" must hold, exactly along the line between the origins (1: the
 * pair was called apart along it), within 1e-6 of the size elsewhere. */
static int hairline_pair(const mink_shape *a, const mink_pose *pa, const mink_shape *b, mink_quat qb, double size,
                         test_rng *rng, int i)
{
    const dv3 u = rng_dir(rng);
    mink_pose pb = pose_make(dv_of(pa->p), qb);
    const double touch = -gap_along(a, pa, b, &pb, u);
    const double hair = (rng_unit(rng) < 0.5 ? -1.0 : 1.0) * pow(10.0, rng_range(rng, -8.0, -3.0)) * (fabs(touch) + size);
    pb = pose_make(dv_add(dv_of(pa->p), dv_scale(u, touch + hair)), qb);
    mink_result info;
    const int hit = mink_intersect_ex(a, pa, b, &pb, NULL, &info);
    test_ctx("hairline %d: hair %.3g, hit %d", i, hair, hit);
    assert_true(hit == 0 || hit == 1);
    if (hit) return 0;
    const dv3 d = dv_sub(dv_of(pb.p), dv_of(pa->p)), n = dv_norm(dv_of(info.normal));
    if (dv_dot(n, dv_norm(d)) > 1.0 - 5e-13) {
        assert_true(gap_along(a, pa, b, &pb, dv_norm(d)) > 0.0);
        return 1;
    }
    assert_true(gap_along(a, pa, b, &pb, n) > -1e-6 * (dv_len(d) + fabs(touch) + size));
    return 0;
}

/* The SIMD kernel's box test starts with the line between the shapes'
 * origins. Pairs placed along that line at hairline gaps (1e-8 to 1e-3 of
 * their size, either side of touching): boxes (sharp or rounded) with boxes,
 * capsules and spheres of sizes 1e-2 to 1e2, up to 1e4 from the origin, and
 * quaternions off unit by up to 1e-4. A pair called separated along that
 * line (its normal within 1e-6 rad of it) is separated along it in double,
 * from the float inputs; any other normal separates within its rounding. */
static void test_primitive_line_hairline(void **state)
{
    (void)state;
    test_rng rng = rng_seed(2027);
    int along_line = 0;
    for (int i = 0; i < 20000; ++i) {
        const double size = pow(10.0, rng_range(&rng, -2.0, 2.0));
        const float round = rng_unit(&rng) < 0.5 ? 0.0f : (float)(size * rng_range(&rng, 0.0, 0.2));
        mink_shape a = mink_box((float)(size * rng_range(&rng, 0.05, 1.0)), (float)(size * rng_range(&rng, 0.05, 1.0)),
                                (float)(size * rng_range(&rng, 0.05, 1.0)), round);
        const int family = i % 3;
        mink_shape b = family == 0 ? mink_box((float)(size * rng_range(&rng, 0.05, 1.0)),
                                              (float)(size * rng_range(&rng, 0.05, 1.0)),
                                              (float)(size * rng_range(&rng, 0.05, 1.0)), 0.0f)
                       : family == 1 ? mink_capsule((float)(size * rng_range(&rng, 0.05, 0.5)),
                                                    (float)(size * rng_range(&rng, 0.0, 1.0)))
                                     : mink_sphere((float)(size * rng_range(&rng, 0.05, 1.0)));
        if (i % 2) {
            const mink_shape t = a;
            a = b, b = t;
        }
        const double far = rng_unit(&rng) < 0.3 ? pow(10.0, rng_range(&rng, 0.0, 4.0)) : 0.0;
        mink_quat q[2] = {rng_quat(&rng), rng_quat(&rng)};
        for (int k = 0; k < 2; ++k) {
            const double off = 1.0 + rng_range(&rng, -1e-4, 1e-4);
            q[k].x = (float)(q[k].x * off), q[k].y = (float)(q[k].y * off);
            q[k].z = (float)(q[k].z * off), q[k].w = (float)(q[k].w * off);
        }
        const mink_pose pa = pose_make(dv_scale(rng_dir(&rng), far), q[0]);
        along_line += hairline_pair(&a, &pa, &b, q[1], size, &rng, i);
    }
    printf("hairline: %d pairs called separated along the line\n", along_line);
    assert_true(along_line > 2000);
}

/* The same for pairs the box test does not take: a cold intersect's first
 * test, the line between the origins before the pair set-up (query.c,
 * origin_line_separates), proves what it answers too. Hulls of 6-40 points
 * in a box, some with their origin outside, or 600 on a sphere (a hull
 * that climbs), rounded or sharp, at the world's origin or far from it. */
static void test_hull_line_hairline(void **state)
{
    (void)state;
    test_rng rng = rng_seed(2031);
    static float ball[3 * 600];
    points_on_sphere(ball, 600, 1.0);
    int along_line = 0;
    for (int i = 0; i < 6000; ++i) {
        test_arena_reset();
        const double size = pow(10.0, rng_range(&rng, -2.0, 2.0));
        mink_shape s[2];
        for (int k = 0; k < 2; ++k) {
            static float pts[3 * 600];
            const int n = rng_unit(&rng) < 0.1 ? 600 : 6 + (int)rng_below(&rng, 35);
            const dv3 off = rng_unit(&rng) < 0.2 ? rng_box(&rng, 1.5) : dv(0, 0, 0);
            const double stretch[3] = {rng_range(&rng, 0.1, 1.0), rng_range(&rng, 0.1, 1.0), rng_range(&rng, 0.1, 1.0)};
            for (int j = 0; j < n; ++j) {
                const dv3 p = n == 600 ? dv(ball[3 * j], ball[3 * j + 1], ball[3 * j + 2]) : rng_box(&rng, 1.0);
                pts[3 * j + 0] = (float)(size * (stretch[0] * p.x + off.x));
                pts[3 * j + 1] = (float)(size * (stretch[1] * p.y + off.y));
                pts[3 * j + 2] = (float)(size * (stretch[2] * p.z + off.z));
            }
            const float round = rng_unit(&rng) < 0.5 ? 0.0f : (float)(size * rng_range(&rng, 0.0, 0.2));
            s[k] = test_hull(pts, (uint32_t)n, round);
        }
        const double far = rng_unit(&rng) < 0.3 ? pow(10.0, rng_range(&rng, 0.0, 4.0)) : 0.0;
        const mink_pose pa = pose_make(dv_scale(rng_dir(&rng), far), rng_quat(&rng));
        along_line += hairline_pair(&s[0], &pa, &s[1], rng_quat(&rng), size, &rng, i);
    }
    printf("hull hairline: %d pairs called separated along the line\n", along_line);
    assert_true(along_line > 1000);
}

/* A flat hull from 2D points at z = 0, or a slab z = +-t when t > 0. */
static mink_shape flat_hull(const double (*p)[2], int n, double dx, double dy, double t)
{
    float xyz[3 * 16];
    int m = 0;
    for (int layer = 0; layer < (t > 0.0 ? 2 : 1); ++layer)
        for (int i = 0; i < n; ++i) {
            xyz[3 * m + 0] = (float)(p[i][0] + dx);
            xyz[3 * m + 1] = (float)(p[i][1] + dy);
            xyz[3 * m + 2] = (float)(t > 0.0 ? (layer ? t : -t) : 0.0);
            ++m;
        }
    return test_hull(xyz, (uint32_t)m, 0.0f);
}

/* The dyn4j GJK tutorial (W. Bittle): triangle (4,11) (9,9) (4,5) and
 * quadrilateral (5,7) (12,7) (10,2) (7,3) intersect. Here as flat hulls in
 * z = 0 and as thin slabs, at the identity and at a common random pose, and
 * with the quadrilateral moved away (2D oracle). */
/* The SIMD kernel answers an intersect of a box with a box, capsule or
 * sphere by the separating-axis test when it is clear of its rounding, and
 * by GJK otherwise: against the reference's signed distance (outside 1e-4 L of
 * touching), its separating normal certified by the shapes' own supports,
 * and the same answer again from the cache it wrote. Half the boxes are
 * turned by a multiple of 90 degrees about one axis (parallel edges: the
 * test must leave the pair to GJK or decide by a face). */
static void test_primitive_intersect(void **state)
{
    (void)state;
    test_rng rng = rng_seed(1077);
    int decided[2] = {0, 0};
    for (int i = 0; i < 3 * PAIRS_PER_FAMILY; ++i) {
        const int family = i % 3; /* box-box, box-capsule, box-sphere */
        const float round = rng_unit(&rng) < 0.5 ? 0.0f : (float)rng_range(&rng, 0.01, 0.3);
        const mink_shape a = mink_box((float)rng_range(&rng, 0.2, 1.5), (float)rng_range(&rng, 0.2, 1.5),
                                      (float)rng_range(&rng, 0.2, 1.5), round);
        const mink_shape b = family == 0 ? mink_box((float)rng_range(&rng, 0.2, 1.5), (float)rng_range(&rng, 0.2, 1.5),
                                                    (float)rng_range(&rng, 0.2, 1.5), 0.0f)
                             : family == 1 ? mink_capsule((float)rng_range(&rng, 0.1, 0.6), (float)rng_range(&rng, 0.2, 1.5))
                                           : mink_sphere((float)rng_range(&rng, 0.1, 1.0));
        const dv3 c1 = rng_box(&rng, 3.0);
        const dv3 c2 = dv_add(c1, dv_scale(rng_dir(&rng), rng_range(&rng, 0.0, 3.0)));
        const mink_quat qa = rng_quat(&rng);
        const mink_quat qb = i % 2 ? quat_mul(qa, quat_axis_angle(dv_axis((int)rng_below(&rng, 3)), 1.5707963267948966 * rng_below(&rng, 4)))
                                   : rng_quat(&rng);
        const mink_pose pa = pose_make(c1, qa), pb = pose_make(c2, qb);
        mink_result d;
        assert_int_equal(mink_ref_penetration(&a, &pa, &b, &pb, NULL, &d), MINK_OK); /* signed */
        const double L = pair_L(&a, &pa, &b, &pb);
        mink_result info;
        const int hit = mink_intersect_ex(&a, &pa, &b, &pb, NULL, &info);
        test_ctx("primitive intersect %d (family %d): distance %.9g, hit %d", i, family, d.distance, hit);
        assert_true(hit == 0 || hit == 1);
        if (fabs(d.distance) > 1e-4 * L) {
            assert_int_equal(hit, d.distance <= 0.0f);
            assert_int_equal(mink_intersect_gjk_ex(&a, &pa, &b, &pb, NULL, NULL), hit);
            decided[hit]++;
        }
        if (!hit) {
            /* the normal separates the rounded shapes */
            const dv3 n = dv_of(info.normal);
            assert_true(fabs(dv_len(n) - 1.0) < 1e-5);
            assert_true(gap_along(&a, &pa, &b, &pb, n) > -1e-5 * L);
        }
        /* the cache it wrote gives the same answer */
        mink_cache cache;
        mink_cache_reset(&cache);
        assert_int_equal(mink_intersect(&a, &pa, &b, &pb, &cache), hit);
        assert_int_equal(mink_intersect(&a, &pa, &b, &pb, &cache), hit);
    }
    printf("primitive intersect: %d apart, %d overlapping\n", decided[0], decided[1]);
    assert_true(decided[0] > PAIRS_PER_FAMILY / 2 && decided[1] > PAIRS_PER_FAMILY / 2);
}

static void test_dyn4j_polygons(void **state)
{
    (void)state;
    static const double tri[3][2] = {{4, 11}, {9, 9}, {4, 5}};
    static const double quad[4][2] = {{5, 7}, {12, 7}, {10, 2}, {7, 3}};
    static const double shifts[][2] = {{0, 0}, {5, 0}, {0, 6}, {-6, -3}, {-2.5, 4}, {1, 1}, {-1.5, 0}};
    test_rng rng = rng_seed(1006);
    for (unsigned s = 0; s < sizeof shifts / sizeof shifts[0]; ++s) {
        double moved[4][2];
        for (int i = 0; i < 4; ++i) {
            moved[i][0] = quad[i][0] + shifts[s][0];
            moved[i][1] = quad[i][1] + shifts[s][1];
        }
        const double want = polygon_distance(tri, 3, (const double (*)[2])moved, 4);
        if (s == 0) {
            test_ctx("dyn4j oracle");
            EXPECT_NEAR(want, 0.0, 0.0); /* the tutorial's answer */
        }
        for (int thick = 0; thick < 2; ++thick)
            for (int posed = 0; posed < 2; ++posed) {
                test_arena_reset();
                const double t = thick ? 1e-3 : 0.0;
                const mink_shape a = flat_hull(tri, 3, 0, 0, t);
                const mink_shape b = flat_hull(quad, 4, shifts[s][0], shifts[s][1], t);
                /* both hulls at one pose: the answer does not change */
                const mink_pose p = posed ? pose_make(rng_box(&rng, 5.0), rng_quat(&rng)) : pose_make(dv(0, 0, 0), quat_identity());
                expectation e = {want, 1, 0, dv(0, 0, 0)};
                for (int k = 0; k < TEST_KERNEL_COUNT; ++k) {
                    const test_kernel *K = test_kernel_get(k);
                    test_ctx("dyn4j shift %u (%g %g), thickness %g, posed %d, on %s: expected %.9g", s, shifts[s][0],
                             shifts[s][1], t, posed, K->name, want);
                    mink_result r;
                    const int hit = check_distance(K, &a, &p, &b, &p, &e, &r);
                    EXPECT_INT(hit, want == 0.0);
                    if (want == 0.0) EXPECT_TRUE(r.distance == 0.0f);
                }
            }
    }
    test_arena_reset();
}

/* Catto's example (Box2D v3 distance.c): the segment from
 * A = (0.021119118, 79.584320) to B = (0.020964622, -31.515678) against the
 * origin, in float. A naive closest point loses most digits; the answer must
 * be the exact point-line distance to float precision, in a few iterations. */
static void test_catto_segment(void **state)
{
    (void)state;
    const float seg[6] = {0.021119118f, 79.584320f, 0.0f, 0.020964622f, -31.515678f, 0.0f};
    const mink_shape a = test_hull(seg, 2, 0.0f), b = mink_sphere(0.0f);
    const mink_pose p = pose_make(dv(0, 0, 0), quat_identity());
    /* |A x B| / |B - A| in double from the float inputs */
    const dv3 A = dv(seg[0], seg[1], 0), B = dv(seg[3], seg[4], 0);
    const double want = dv_len(dv_cross(A, B)) / dv_len(dv_sub(B, A));
    for (int k = 0; k < TEST_KERNEL_COUNT; ++k) {
        const test_kernel *K = test_kernel_get(k);
        for (int swap = 0; swap < 2; ++swap) {
            test_ctx("Catto segment on %s, swap %d: want %.12g", K->name, swap, want);
            mink_result r;
            const mink_status st = swap ? K->distance(&b, &p, &a, &p, NULL, &r) : K->distance(&a, &p, &b, &p, NULL, &r);
            EXPECT_INT(st, MINK_OK);
            EXPECT_LE(r.iterations, CATTO_MAX_ITERATIONS, 0);
            EXPECT_NEAR(r.distance, want, CATTO_REL * want);
            check_result_basic(&r, 80.0);
            /* the normal is perpendicular to the segment, towards the origin */
            const dv3 n = dv_of(r.normal);
            const dv3 perp = dv_norm(dv_cross(dv_sub(B, A), dv(0, 0, swap ? -1 : 1)));
            EXPECT_LE(dv_angle(n, perp), CATTO_ANGLE, 0.0);
        }
    }
    test_arena_reset();
}

/* Every shape against a copy of itself at the same pose overlaps. */
static void test_identical_shapes(void **state)
{
    (void)state;
    test_rng rng = rng_seed(1007);
    float pts[3 * 30];
    for (int i = 0; i < 90; ++i) pts[i] = (float)rng_range(&rng, -1.0, 1.0);
    const mink_shape shapes[] = {mink_sphere(0.5f), mink_sphere(0.0f), mink_capsule(0.3f, 1.0f), mink_capsule(0.0f, 1.0f),
                                 mink_box(1.0f, 0.5f, 0.25f, 0.0f), mink_box(0.3f, 0.3f, 0.3f, 0.2f),
                                 test_hull(pts, 30, 0.0f), test_hull(pts, 30, 0.1f), test_hull(pts, 3, 0.0f)};
    for (unsigned i = 0; i < sizeof shapes / sizeof shapes[0]; ++i)
        for (int t = 0; t < 10; ++t) {
            const mink_pose p = pose_make(rng_box(&rng, 10.0), rng_quat(&rng));
            expectation e = {-1.0, 1, 0, dv(0, 0, 0)};
            for (int k = 0; k < TEST_KERNEL_COUNT; ++k) {
                const test_kernel *K = test_kernel_get(k);
                test_ctx("identical shape %u, trial %d, on %s", i, t, K->name);
                mink_result r;
                EXPECT_INT(check_distance(K, &shapes[i], &p, &shapes[i], &p, &e, &r), 1);
                EXPECT_TRUE(r.distance == 0.0f);
            }
        }
    test_arena_reset();
}

/* Small shapes 1e4 from the origin: the answer is as good as at the origin. */
static void test_far_from_origin(void **state)
{
    (void)state;
    test_rng rng = rng_seed(1008);
    for (int t = 0; t < 50; ++t) {
        const dv3 base = dv(1e4 + rng_range(&rng, -1, 1), -1e4 + rng_range(&rng, -1, 1), 1e4 + rng_range(&rng, -1, 1));
        const mink_shape box = mink_box(0.5f, 0.3f, 0.2f, 0.0f), sph = mink_sphere(0.25f);
        const mink_shape cap = mink_capsule(0.1f, 0.4f);
        const mink_pose pa = pose_make(base, rng_quat(&rng));
        const dv3 off = dv_scale(rng_dir(&rng), rng_range(&rng, 0.8, 1.5));
        const mink_pose pb = pose_make(dv_add(base, off), rng_quat(&rng));
        const double local = box.extent + cap.extent + 1.5 + 0.5;

        /* sphere-box: the point-box distance in the box frame */
        const double hf[3] = {box.half[0], box.half[1], box.half[2]};
        const dv3 q = pose_unapply(&pa, dv_of(pb.p));
        expectation e1 = {fmax(box_signed_distance(q, hf), 0.0) - sph.radius, 1, 0, dv(0, 0, 0)};
        /* capsule-capsule: segments in double */
        dv3 a0, a1, b0, b1;
        const mink_shape capa = mink_capsule(0.2f, 0.3f);
        capsule_segment(&capa, &pa, &a0, &a1);
        capsule_segment(&cap, &pb, &b0, &b1);
        expectation e2 = {segment_segment_distance(a0, a1, b0, b1) - 0.2 - 0.1, 1, 0, dv(0, 0, 0)};
        for (int k = 0; k < TEST_KERNEL_COUNT; ++k) {
            const test_kernel *K = test_kernel_get(k);
            mink_result r;
            test_ctx("far sphere-box %d on %s: expected %.9g", t, K->name, e1.value);
            check_distance(K, &box, &pa, &sph, &pb, NULL, &r);
            if (e1.value > 0.0) EXPECT_NEAR(r.distance, e1.value, FAR_LOCAL_REL * local);
            else EXPECT_TRUE(r.distance == 0.0f);
            test_ctx("far capsule-capsule %d on %s: expected %.9g", t, K->name, e2.value);
            check_distance(K, &capa, &pa, &cap, &pb, NULL, &r);
            if (e2.value > 0.0) EXPECT_NEAR(r.distance, e2.value, FAR_LOCAL_REL * local);
            else EXPECT_TRUE(r.distance == 0.0f);
        }
    }
}

/* The same pairs (hulls, then boxes, capsules, spheres and rounded hulls
 * too) at scales from 1e-9 to 2e4: each answer checked as at
 * any scale (certificate, witnesses), and its distance and depth, divided
 * by the scale, equal to the answer at scale 1 within 1e-4 of the pair's
 * size (FORMAT.md's tolerance). Two ranges of float this crosses:
 * - GJK's search direction without v's division (johnson_step.h,
 *   subset_direction) comes from determinants that run from 1e-36 to 1e19
 *   here; without its range check about half the pairs at 1e-8 and 1e-9
 *   missed;
 * - the refined closest point (gjk.c and gjk_ref.c, refined_v) squares a
 *   product of three lengths; in the denormals, near 3e-8 to 1e-7, both
 *   kernels missed on about 1 pair in 10 (by up to 6e-2 L) until it was
 *   rescaled first. */
/* A shape of kind 0-3 (hull, box, capsule, sphere) at scale sc, rounded by
 * r * sc; the hull from the unit points in pts, scaled into buf. */
static mink_shape scaled_shape(int kind, const float *pts, float *buf, int n, double r, double sc)
{
    switch (kind) {
    case 1: return mink_box((float)(0.5 * sc), (float)(0.3 * sc), (float)(0.8 * sc), (float)(r * sc));
    case 2: return mink_capsule((float)((0.2 + r) * sc), (float)(0.6 * sc));
    case 3: return mink_sphere((float)((0.4 + r) * sc));
    default:
        for (int i = 0; i < 3 * n; ++i) buf[i] = (float)(pts[i] * sc);
        return test_hull(buf, (uint32_t)n, (float)(r * sc));
    }
}

static void test_scale_extremes(void **state)
{
    (void)state;
    enum { N = 12, TRIALS = 60 };
    static const double scales[] = {1e-9, 1e-8, 3e-8, 1e-7, 3e-7, 1e-6, 1e-5, 1e-3, 1e3, 2e4};
    for (int k = 0; k < TEST_KERNEL_COUNT; ++k) {
        const test_kernel *K = test_kernel_get(k);
        test_rng rng = rng_seed(1013);
        for (int t = 0; t < TRIALS; ++t) {
            /* the first 40: sharp hull pairs; then any kinds, some rounded,
             * overlapping deep too */
            const int mixed = t >= 40;
            float pa_pts[3 * N], pb_pts[3 * N], sa[3 * N], sb[3 * N];
            for (int i = 0; i < 3 * N; ++i) {
                pa_pts[i] = (float)rng_range(&rng, -1, 1);
                pb_pts[i] = (float)rng_range(&rng, -1, 1);
            }
            const int ka = mixed ? t % 4 : 0, kb = mixed ? (t / 4) % 4 : 0;
            const double ra = mixed && t % 3 == 0 ? 0.2 : 0.0, rb = mixed && t % 5 == 0 ? 0.1 : 0.0;
            const mink_quat qa = rng_quat(&rng), qb = rng_quat(&rng);
            const dv3 ca = rng_box(&rng, 2.0);
            const dv3 off = dv_scale(rng_dir(&rng), rng_range(&rng, mixed ? 0.0 : 0.5, 3.5));
            const mink_shape a1 = scaled_shape(ka, pa_pts, sa, N, ra, 1.0), b1 = scaled_shape(kb, pb_pts, sb, N, rb, 1.0);
            const mink_pose pa1 = pose_make(ca, qa), pb1 = pose_make(dv_add(ca, off), qb);
            const double L1 = pair_L(&a1, &pa1, &b1, &pb1);
            mink_result d1, p1;
            EXPECT_INT(K->distance(&a1, &pa1, &b1, &pb1, NULL, &d1), MINK_OK);
            EXPECT_INT(K->penetration(&a1, &pa1, &b1, &pb1, NULL, &p1), MINK_OK);
            for (size_t si = 0; si < sizeof scales / sizeof scales[0]; ++si) {
                const double sc = scales[si];
                float xa[3 * N], xb[3 * N];
                const mink_shape a = scaled_shape(ka, pa_pts, xa, N, ra, sc), b = scaled_shape(kb, pb_pts, xb, N, rb, sc);
                const mink_pose pa = pose_make(dv_scale(ca, sc), qa), pb = pose_make(dv_scale(dv_add(ca, off), sc), qb);
                mink_result r;
                test_ctx("scale %g, trial %d (kinds %d %d), distance on %s: %.9g at scale 1", sc, t, ka, kb, K->name,
                         d1.distance);
                check_distance(K, &a, &pa, &b, &pb, NULL, &r);
                EXPECT_NEAR(r.distance / sc, d1.distance, 1e-4 * L1);
                test_ctx("scale %g, trial %d (kinds %d %d), penetration on %s: %.9g at scale 1", sc, t, ka, kb, K->name,
                         p1.distance);
                EXPECT_INT(K->penetration(&a, &pa, &b, &pb, NULL, &r), MINK_OK);
                EXPECT_NEAR(r.distance / sc, p1.distance, 1e-4 * L1);
            }
            test_arena_reset();
        }
    }
}

/* A 5000-point hull on a sphere of radius R (in mink_hull_bytes memory)
 * against a sphere: the analytic sphere-sphere distance, up to the
 * polytope's approximation error along the reported normal. */
static void test_big_hull_sphere(void **state)
{
    (void)state;
    enum { N = 5000 };
    static float pts[3 * N];
    const double R = 2.0;
    points_on_sphere(pts, N, R);
    test_rng rng = rng_seed(1009);
    for (int rounded = 0; rounded < 2; ++rounded) {
        test_arena_reset();
        const float rh = rounded ? 0.1f : 0.0f;
        const size_t bytes = mink_hull_bytes(N);
        const mink_shape hull = test_hull_in(test_arena_alloc(bytes), bytes, pts, N, rh);
        const mink_shape sph = mink_sphere(0.5f);
        for (int t = 0; t < 40; ++t) {
            const mink_pose ph = pose_make(rng_box(&rng, 3.0), rng_quat(&rng));
            const double gap = rng_range(&rng, -0.5, 1.5);
            const dv3 u = rng_dir(&rng);
            const mink_pose ps = pose_make(dv_add(dv_of(ph.p), dv_scale(u, R + rh + 0.5 + gap)), quat_identity());
            const double center = dv_len(dv_sub(dv_of(ps.p), dv_of(ph.p)));
            const double analytic = center - R - rh - 0.5;
            for (int k = 0; k < TEST_KERNEL_COUNT; ++k) {
                const test_kernel *K = test_kernel_get(k);
                test_ctx("5000-point hull (r %g) vs sphere %d on %s: analytic %.9g", rh, t, K->name, analytic);
                mink_result r;
                check_distance(K, &hull, &ph, &sph, &ps, NULL, &r);
                const double L = pair_L(&hull, &ph, &sph, &ps);
                if (analytic > BIG_HULL_MARGIN) {
                    /* hull inside the sphere: never closer than the sphere */
                    EXPECT_LE(analytic, r.distance, GJK_DIST_REL * L);
                    /* farther by at most R - h(n), h the hull's support */
                    const dv3 n = dv_of(r.normal);
                    const double h = shape_max(&hull, &ph, n) - rh - dv_dot(n, dv_of(ph.p));
                    EXPECT_LE(r.distance, analytic + (R - h), GJK_DIST_REL * L);
                    EXPECT_LE(R - h, BIG_HULL_APPROX * R, 0.0);
                } else if (analytic < -BIG_HULL_MARGIN) {
                    EXPECT_TRUE(r.distance == 0.0f);
                }
            }
        }
    }
    test_arena_reset();
}

/* ---------------------------------------------------------------- regressions */

/* The distance of separated convex shapes is the largest gap over unit
 * directions, max over n of (min over B - max over A); every gap is a proven
 * lower bound. Hill-climbs it in double from n0 with shrinking random steps
 * (a deterministic search, independent of the kernel). */
static double maximize_gap(const mink_shape *a, const mink_pose *pa, const mink_shape *b, const mink_pose *pb, dv3 n0)
{
    test_rng rng = rng_seed(77);
    dv3 n = dv_norm(n0);
    double best = gap_along(a, pa, b, pb, n), step = 0.05;
    for (int it = 0; it < 40000 && step > 1e-9; ++it) {
        const dv3 c = dv_norm(dv_add(n, dv_scale(rng_dir(&rng), step)));
        const double g = gap_along(a, pa, b, pb, c);
        if (g > best) {
            best = g;
            n = c;
        } else if (it % 100 == 99) {
            step *= 0.8;
        }
    }
    return best;
}

/* A box 1 x 0.8 x 1.2 and the 5000-point hull of test_big_hull_sphere
 * (R = 1.5), 1e-3 apart: found by test_epa's conventions check (B moved by
 * depth + 1e-3 along an exact EPA normal). */
static void check_near_contact(const char *what, const mink_pose *pa, const mink_pose *pb)
{
    enum { N = 5000 };
    static float pts[3 * N];
    points_on_sphere(pts, N, 1.5);
    const mink_shape hull = test_hull(pts, N, 0.0f), box = mink_box(1.0f, 0.8f, 1.2f, 0.0f);
    /* start the search at the box's closest point to the hull's center */
    const double h[3] = {1.0, 0.8, 1.2};
    const dv3 q = pose_unapply(pa, dv_of(pb->p));
    const dv3 clamp = dv(fmin(fmax(q.x, -h[0]), h[0]), fmin(fmax(q.y, -h[1]), h[1]), fmin(fmax(q.z, -h[2]), h[2]));
    const double lower = maximize_gap(&box, pa, &hull, pb, quat_rotate(pa->q, dv_sub(q, clamp)));
    test_ctx("%s: oracle", what);
    /* proven apart by 1e-3, 160 times the touching band */
    EXPECT_LE(0.99e-3, lower, 0.0);
    expectation e = {lower, 1, 0, dv(0, 0, 0)};
    for (int k = 0; k < TEST_KERNEL_COUNT; ++k) {
        const test_kernel *K = test_kernel_get(k);
        test_ctx("%s on %s: distance >= %.9g (proven)", what, K->name, lower);
        EXPECT_INT(K->intersect(&box, pa, &hull, pb, NULL), 0);
        check_distance(K, &box, pa, &hull, pb, &e, NULL);
    }
    test_arena_reset();
}

/* Bug report: GJK stopped on a repeated support point (box corner 4, hull
 * vertex 3944) after 12 iterations with |v| = 1.183e-3 while its own lower
 * bound v.w/|v| was -1.97e-2: the distance came out 18 % high (true 1.0003e-3)
 * with status MINK_OK, on both kernels. */
static void test_regression_near_contact_distance(void **state)
{
    (void)state;
    const mink_pose pa = {{-0.682918489f, -0.249022648f, -0.681693435f}, {0.726379395f, -0.193698138f, -0.0378490463f, 0.658347547f}};
    const mink_pose pb = {{-0.890596211f, -2.68372321f, -2.32693052f}, {0.489155531f, -0.502213061f, 0.552470684f, -0.450871408f}};
    check_near_contact("box vs 5000-point hull 1e-3 apart (a)", &pa, &pb);
}

/* Bug report: GJK's 12th support point made Johnson accept a flat
 * tetrahedron as holding the origin, so distance 0 and intersect 1 for shapes
 * 1.0e-3 apart (S = 6.1: 80 times the touching band of then, 2e-6 S), on both kernels. */
static void test_regression_near_contact_false_overlap(void **state)
{
    (void)state;
    const mink_pose pa = {{0.511401713f, 0.791822851f, -1.31270814f}, {0.00331188459f, -0.614320099f, -0.782807946f, 0.0990533531f}};
    const mink_pose pb = {{2.91400933f, 1.60564184f, 0.0650013387f}, {0.728656888f, 0.0348828994f, -0.614499867f, -0.300386757f}};
    check_near_contact("box vs 5000-point hull 1e-3 apart (b)", &pa, &pb);
}

/* Bug report (found by test_epa's symmetric-hull sweep): two copies of a
 * centrally symmetric 40-point hull 0.367 apart. The reference GJK stopped
 * on "no progress" with a duality gap of 8.2e-5 (21 times MINK_GJK_GAP_REL * S):
 * the distance is right, but the normal is 1.65e-3 rad off (the SIMD kernel's
 * is right), so the gap along it is 8.2e-5 short of the distance. */
static void test_regression_no_progress_normal(void **state)
{
    (void)state;
    static const float half[20 * 3] = {
        -0.266325772f, -0.145144299f, -0.754197359f, -0.627827942f, -0.36826539f, 0.142716184f,
        -0.840264738f, 0.299815118f, 0.217650101f, -0.696088552f, -0.00536913425f, -0.0657337159f,
        -0.217323214f, -0.210354969f, 0.843652308f, 0.0872187391f, 0.442163527f, -0.182265103f,
        -0.702160656f, 0.267244607f, -0.495870948f, 0.624075472f, -0.453666985f, -0.342843324f,
        -0.879864335f, 0.0858917534f, -0.0468549393f, -0.772982717f, 0.0780125111f, 0.127768427f,
        0.92683053f, 0.136078596f, 0.239286423f, 0.602323413f, 0.322088003f, -0.447926551f,
        0.430249929f, 0.119004548f, 0.628178239f, 0.188262522f, 0.363973439f, -0.417581439f,
        0.76974076f, -0.277417898f, 0.0746531263f, -0.056828633f, -0.288463295f, -0.715072751f,
        0.398917258f, -0.430748522f, 0.656870663f, 0.51519084f, -0.385996282f, 0.575876474f,
        -0.470416486f, -0.238884211f, 0.549254775f, -0.291814983f, -0.187118888f, 0.811222613f,
    };
    /* each point and its mirror, in that order */
    float pts[40 * 3];
    for (int i = 0; i < 20; ++i)
        for (int c = 0; c < 3; ++c) {
            pts[6 * i + c] = half[3 * i + c];
            pts[6 * i + 3 + c] = -half[3 * i + c];
        }
    const mink_shape h = test_hull(pts, 40, 0.0f);
    const mink_pose pa = {{-1.0f, 0.0f, 0.5f}, {0.288854778f, 0.444429845f, 0.500798166f, 0.684285164f}};
    const mink_pose pb = {{0.777590752f, 0.536101222f, 0.698064685f}, {0.623384893f, -0.300192893f, 0.463488132f, 0.553583086f}};
    const double lower = maximize_gap(&h, &pa, &h, &pb, dv_sub(dv_of(pb.p), dv_of(pa.p)));
    test_ctx("symmetric hulls: oracle");
    /* the search found the value this report was written with (to its own
     * precision, which differs by 1.4e-6 between gcc's and clang's code) */
    EXPECT_NEAR(lower, 0.3671143, 5e-6);
    expectation e = {lower, 1, 0, dv(0, 0, 0)};
    for (int k = 0; k < TEST_KERNEL_COUNT; ++k) {
        const test_kernel *K = test_kernel_get(k);
        test_ctx("symmetric hulls 0.367 apart on %s", K->name);
        check_distance(K, &h, &pa, &h, &pb, &e, NULL);
    }
    test_arena_reset();
}

/* Bug report (CI's bounded fuzz): boxes that touch, a face on a face or a
 * corner on a face. Float GJK ends on the origin (v = 0, no tetrahedron),
 * the double check finds a gap of rounding size: "apart", but the answer's
 * axis was float's v, so intersect_ex said separated with a zero normal.
 * Either answer is right here; a separated one needs a unit axis that
 * separates, and the cache keeps it for the next frame. */
static void test_touching_boxes_axis(void **state)
{
    (void)state;
    test_rng rng = rng_seed(0x70c4);
    int apart[TEST_KERNEL_COUNT] = {0};
    for (int i = 0; i < 4000; ++i) {
        const double s = pow(10.0, rng_range(&rng, -2.0, 2.0));
        const mink_shape a = mink_box((float)(s * rng_range(&rng, 0.1, 1.1)), (float)(s * rng_range(&rng, 0.1, 1.1)),
                                      (float)(s * rng_range(&rng, 0.1, 1.1)), 0.0f);
        const mink_shape b = mink_box((float)(s * rng_range(&rng, 0.1, 1.1)), (float)(s * rng_range(&rng, 0.1, 1.1)),
                                      (float)(s * rng_range(&rng, 0.1, 1.1)), 0.0f);
        const int corner = i & 1;
        const mink_pose pa = pose_make(rng_box(&rng, 5.0 * s), rng_quat(&rng));
        const mink_quat qb = corner ? rng_quat(&rng) : pa.q;
        /* B's point of contact (its -x face's centre, or a corner) on A's +x face */
        dv3 on_b = dv(-b.half[0], 0.0, 0.0);
        if (corner)
            on_b = dv(b.half[0] * (rng_below(&rng, 2) ? 1 : -1), b.half[1] * (rng_below(&rng, 2) ? 1 : -1),
                      b.half[2] * (rng_below(&rng, 2) ? 1 : -1));
        const dv3 contact = dv(a.half[0], rng_range(&rng, -0.5, 0.5) * a.half[1], rng_range(&rng, -0.5, 0.5) * a.half[2]);
        const dv3 arm = quat_unrotate(pa.q, quat_rotate(qb, on_b)); /* in A's frame */
        const mink_pose pb = pose_make(pose_apply(&pa, dv_sub(contact, arm)), qb);
        const double L = pair_L(&a, &pa, &b, &pb), band = TOL_TOUCH_REL * L;
        for (int k = 0; k < TEST_KERNEL_COUNT; ++k) {
            const test_kernel *K = test_kernel_get(k);
            test_ctx("touching boxes %d (%s) on %s", i, corner ? "corner on face" : "face on face", K->name);
            mink_cache cache;
            mink_cache_reset(&cache);
            mink_result info;
            if (K->intersect_ex(&a, &pa, &b, &pb, &cache, &info) != 0) continue;
            ++apart[k];
            EXPECT_NEAR(dv_len(dv_of(info.normal)), 1.0, TOL_UNIT);
            EXPECT_LE(-band, gap_along(&a, &pa, &b, &pb, dv_norm(dv_of(info.normal))), 0.0);
            /* the cached axis answers the same pair again */
            mink_result warm;
            EXPECT_INT(K->intersect_ex(&a, &pa, &b, &pb, &cache, &warm), 0);
            EXPECT_NEAR(dv_len(dv_of(warm.normal)), 1.0, TOL_UNIT);
        }
    }
    /* the case this guards: some touching pairs come out apart */
    for (int k = 0; k < TEST_KERNEL_COUNT; ++k) {
        test_ctx("touching boxes on %s: %d of 4000 apart", test_kernel_get(k)->name, apart[k]);
        EXPECT_TRUE(apart[k] > 0);
    }
}

/* Capsules side by side (capsules_side_by_side), both kernels, distance
 * and penetration: distance within 1e-4 of the smaller capsule, and past
 * FORMAT.md's near band the normal within 2e-3 rad of the segments' own in
 * double. GJK stopped on a diagonal of the thin parallelogram the two
 * segments make in D, whose edge pair it took only above 1e-3 rad from
 * parallel: 8 mrad off at 2.4e-4 rad. */
static void test_capsules_side_by_side(void **state)
{
    (void)state;
    test_rng rng = rng_seed(0x51de);
    const mink_shape a = mink_capsule(CAPSULES_SIDE_RADIUS, CAPSULES_SIDE_HALF_A),
                     b = mink_capsule(CAPSULES_SIDE_RADIUS, CAPSULES_SIDE_HALF_B);
    const double l = a.extent + a.radius; /* the smaller capsule */
    double worst[TEST_KERNEL_COUNT] = {0.0};
    int compared = 0;
    for (size_t i = 0; i < 3000; ++i) {
        mink_pose pa, pb;
        capsules_side_by_side(&rng, i, &pa, &pb);
        dv3 n;
        const double d = capsule_distance(&a, &pa, &b, &pb, &n);
        compared += d > 1e-3 * l;
        for (int k = 0; k < TEST_KERNEL_COUNT; ++k) {
            const test_kernel *K = test_kernel_get(k);
            for (int q = 0; q < 2; ++q) {
                test_ctx("capsules side by side %zu, %s %s", i, K->name, q ? "penetration" : "distance");
                mink_result r;
                EXPECT_INT((q ? K->penetration : K->distance)(&a, &pa, &b, &pb, NULL, &r), MINK_OK);
                EXPECT_NEAR(r.distance, q || d > 0.0 ? d : 0.0, 1e-4 * l); /* distance: 0 on overlap */
                if (!(d > 1e-3 * l)) continue; /* FORMAT.md's near band: no normal */
                const double ang = dv_angle(dv_of(r.normal), n);
                worst[k] = ang > worst[k] ? ang : worst[k];
                EXPECT_LE(ang, TOL_SEP_ANGLE, 0.0);
            }
        }
    }
    print_message("capsules side by side: %d normals compared, worst %.3g rad (ref), %.3g rad (simd)\n", compared,
                  worst[0], worst[1]);
    EXPECT_TRUE(compared > 1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sphere_sphere),    cmocka_unit_test(test_sphere_box),
        cmocka_unit_test(test_capsule_capsule),  cmocka_unit_test(test_box_box),
        cmocka_unit_test(test_rounded_box_box),  cmocka_unit_test(test_primitive_intersect),
        cmocka_unit_test(test_primitive_line_hairline),
        cmocka_unit_test(test_hull_line_hairline), cmocka_unit_test(test_dyn4j_polygons),
        cmocka_unit_test(test_catto_segment),    cmocka_unit_test(test_identical_shapes),
        cmocka_unit_test(test_far_from_origin),  cmocka_unit_test(test_big_hull_sphere),
        cmocka_unit_test(test_scale_extremes),
        cmocka_unit_test(test_regression_near_contact_distance),
        cmocka_unit_test(test_regression_near_contact_false_overlap),
        cmocka_unit_test(test_regression_no_progress_normal),
        cmocka_unit_test(test_touching_boxes_axis),
        cmocka_unit_test(test_capsules_side_by_side),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
