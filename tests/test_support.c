/* Support mapping of the reference kernel (kernel/ref/support_ref.h) against
 * brute force: every shape's core support in many random directions, the
 * documented tie rules, the pair frame (B placed in A's frame) against an
 * independent double-precision computation from the world poses, and the
 * hull memory layout written by mink_hull_init. */
#include "test_util.h"

#include "hull.h"
#include "ref/support_ref.h"

/* A float dot product of a unit direction with a point of size E is off by
 * a few ulps of E; the brute force runs in double on the same float points.
 * 8 ulps of |d| * E covers the kernel's three products and two sums. */
#define SUPPORT_DOT_ULPS 8.0

/* The pair frame is two float rotations and a float subtraction away from
 * the double oracle: ~1e-7 per operation of the scale S; 1e-5 * S leaves
 * two orders of magnitude and still fails any wrong transform. */
#define PAIR_TOL_REL 1e-5

#define RANDOM_DIRECTIONS 2000

/* A random direction of random length (1e-3 .. 1e3): the support must not
 * depend on |d|. */
static v3 random_direction(test_rng *r)
{
    const dv3 u = rng_dir(r);
    const double len = pow(10.0, rng_range(r, -3.0, 3.0));
    return vec3_of(dv_scale(u, len));
}

/* The random hulls every test uses: points in a box, some interior. */
static mink_shape random_hull(test_rng *r, uint32_t n, double size, float radius)
{
    float xyz[3 * 64];
    assert_true(n <= 64);
    for (uint32_t i = 0; i < 3 * n; ++i) xyz[i] = (float)rng_range(r, -size, size);
    return test_hull(xyz, n, radius);
}

/* The shapes of the support tests: every type, rounded and not, and the
 * degenerate but legal sizes (zero height, flat box, one-point hull). */
static unsigned support_shapes(test_rng *r, mink_shape *out)
{
    unsigned n = 0;
    out[n++] = mink_sphere(0.0f);
    out[n++] = mink_sphere(0.7f);
    out[n++] = mink_capsule(0.0f, 1.5f);
    out[n++] = mink_capsule(0.3f, 0.8f);
    out[n++] = mink_capsule(0.5f, 0.0f);
    out[n++] = mink_box(1.0f, 2.0f, 3.0f, 0.0f);
    out[n++] = mink_box(0.5f, 0.25f, 2.0f, 0.2f);
    out[n++] = mink_box(0.0f, 1.0f, 0.0f, 0.0f);
    out[n++] = random_hull(r, 37, 2.0, 0.0f);
    out[n++] = random_hull(r, 16, 1.0, 0.25f);
    out[n++] = random_hull(r, 17, 3.0, 0.0f);
    out[n++] = random_hull(r, 1, 1.0, 0.1f);
    out[n++] = random_hull(r, 64, 0.5, 0.0f);
    return n;
}

static uint32_t index_limit(const mink_shape *s)
{
    switch (s->type) {
    case MINK_SHAPE_CAPSULE: return 2;
    case MINK_SHAPE_BOX: return 8;
    case MINK_SHAPE_HULL: return s->count;
    default: return 1;
    }
}

/* Dense core points (beyond the vertices) of a shape: a grid on a box, a
 * row on a segment, random convex combinations of hull vertices. */
static unsigned dense_core_points(test_rng *r, const mink_shape *s, dv3 *out, unsigned cap)
{
    unsigned n = 0;
    switch (s->type) {
    case MINK_SHAPE_CAPSULE:
        for (int i = 0; i <= 100 && n < cap; ++i) out[n++] = dv(0, s->half[1] * (-1.0 + i / 50.0), 0);
        break;
    case MINK_SHAPE_BOX:
        for (int i = 0; i <= 4; ++i)
            for (int j = 0; j <= 4; ++j)
                for (int k = 0; k <= 4 && n < cap; ++k)
                    out[n++] = dv(s->half[0] * (-1.0 + i / 2.0), s->half[1] * (-1.0 + j / 2.0),
                                  s->half[2] * (-1.0 + k / 2.0));
        break;
    case MINK_SHAPE_HULL:
        while (n < cap && n < 200) {
            dv3 p = dv(0, 0, 0);
            double wsum = 0.0;
            for (uint32_t i = 0; i < s->count; ++i) {
                const double w = rng_unit(r);
                p = dv_add(p, dv_scale(core_vertex(s, i), w));
                wsum += w;
            }
            out[n++] = dv_scale(p, 1.0 / wsum);
        }
        break;
    default:
        out[n++] = dv(0, 0, 0);
        break;
    }
    return n;
}

/* mink_scalar_support_local in random directions: the point is the core point of
 * its index, and no core vertex or dense core point beats it. */
static void test_support_local_brute_force(void **state)
{
    (void)state;
    test_rng r = rng_seed(101);
    mink_shape shapes[16];
    const unsigned nshapes = support_shapes(&r, shapes);
    static dv3 dense[256];
    for (unsigned si = 0; si < nshapes; ++si) {
        const mink_shape *s = &shapes[si];
        assert_true(mink_shape_is_valid(s));
        const unsigned ndense = dense_core_points(&r, s, dense, 256);
        for (int k = 0; k < RANDOM_DIRECTIONS; ++k) {
            const v3 d = random_direction(&r);
            const dv3 dd = dv_of(d);
            test_ctx("shape %u (type %u), direction %d = (%.9g %.9g %.9g)", si, s->type, k, d.x, d.y, d.z);
            const ref_support sp = mink_scalar_support_local(s, d);
            EXPECT_TRUE(sp.index < index_limit(s));
            /* the feature index names the point (the cache relies on it) */
            EXPECT_TRUE(v3_equal(mink_scalar_core_point(s, sp.index), sp.p));
            const double got = dv_dot(dd, dv_of(sp.p));
            const double tol = SUPPORT_DOT_ULPS * FLT_EPSILON * dv_len(dd) * (s->extent + 1e-30);
            double best = -HUGE_VAL;
            for (uint32_t i = 0; i < core_vertex_count(s); ++i) best = fmax(best, dv_dot(dd, core_vertex(s, i)));
            EXPECT_NEAR(got, best, tol);
            for (unsigned i = 0; i < ndense; ++i) EXPECT_LE(dv_dot(dd, dense[i]), got, tol);
        }
    }
    test_arena_reset();
}

/* The support in the axis directions is exact: the extreme coordinate. */
static void test_support_local_axes(void **state)
{
    (void)state;
    const mink_shape box = mink_box(1.5f, 0.5f, 2.5f, 0.3f);
    const mink_shape cap = mink_capsule(0.4f, 1.25f);
    for (int i = 0; i < 3; ++i)
        for (int sgn = -1; sgn <= 1; sgn += 2) {
            const dv3 d = dv_scale(dv_axis(i), sgn);
            test_ctx("axis %d sign %d", i, sgn);
            const ref_support sb = mink_scalar_support_local(&box, vec3_of(d));
            EXPECT_NEAR(dv_dot(d, dv_of(sb.p)), box.half[i], 0.0);
            const ref_support sc = mink_scalar_support_local(&cap, vec3_of(d));
            EXPECT_NEAR(dv_dot(d, dv_of(sc.p)), i == 1 ? cap.half[1] : 0.0, 0.0);
        }
    /* a sphere's core is the origin, feature 0, whatever the direction */
    const mink_shape sph = mink_sphere(2.0f);
    const ref_support ss = mink_scalar_support_local(&sph, v3_make(0.3f, -4.0f, 1.0f));
    EXPECT_TRUE(ss.index == 0 && ss.p.x == 0.0f && ss.p.y == 0.0f && ss.p.z == 0.0f);
}

/* Ties: a hull returns the lowest index among equal maxima (the SIMD scan's
 * rule, and what makes the answer independent of the padding lanes); box
 * and capsule break d = 0 components towards the + side (support_ref.c). */
static void test_support_ties(void **state)
{
    (void)state;
    /* index: 0 origin, 1..3 on the top face, 4 repeats 1, 5 a top corner;
     * 6 points padded to 16 with copies of vertex 0 */
    const float pts[] = {0, 0, 0, 1, 0, 1, 0, 1, 1, 1, 1, 1, 1, 0, 1, -1, -1, 1};
    test_arena_reset();
    const mink_shape h = test_hull(pts, 6, 0.0f);
    static const struct { float d[3]; uint32_t want; } cases[] = {
        {{0, 0, 1}, 1},    /* z = 1 at 1, 2, 3, 4, 5: lowest is 1            */
        {{1, 0, 0}, 1},    /* x = 1 at 1, 3, 4                               */
        {{0, 1, 0}, 2},    /* y = 1 at 2, 3                                  */
        {{1, 1, 0}, 3},    /* unique                                         */
        {{1, 1, 1}, 3},    /* unique                                         */
        {{-1, -1, 1}, 5},  /* unique: the last real vertex, not a pad lane   */
        {{0, 0, -1}, 0},   /* z = 0 only at 0 (and its padding copies)       */
        {{-1, 0, -1}, 0},  /* 0 and 5 tie at 0: lowest is 0                 */
        {{0, 0, 0}, 0},    /* everything ties                                */
    };
    for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        test_ctx("hull tie case %u", i);
        const ref_support s = mink_scalar_support_local(&h, v3_make(cases[i].d[0], cases[i].d[1], cases[i].d[2]));
        EXPECT_INT(s.index, cases[i].want);
    }

    const mink_shape box = mink_box(1, 2, 3, 0);
    test_ctx("box ties");
    EXPECT_INT(mink_scalar_support_local(&box, v3_make(0, 0, 0)).index, 7);
    EXPECT_INT(mink_scalar_support_local(&box, v3_make(1, 0, -1)).index, 3);
    EXPECT_INT(mink_scalar_support_local(&box, v3_make(-1, -1, 0)).index, 4);
    const mink_shape cap = mink_capsule(0.5f, 1.0f);
    test_ctx("capsule ties");
    EXPECT_INT(mink_scalar_support_local(&cap, v3_make(1, 0, 0)).index, 1);
    EXPECT_INT(mink_scalar_support_local(&cap, v3_make(0, -1e-30f, 0)).index, 0);
}

/* A random shape for the pair tests (hulls in the arena). */
static mink_shape random_shape(test_rng *r)
{
    switch (rng_below(r, 5)) {
    case 0: return mink_sphere((float)rng_range(r, 0.0, 1.0));
    case 1: return mink_capsule((float)rng_range(r, 0.0, 0.5), (float)rng_range(r, 0.1, 2.0));
    case 2:
        return mink_box((float)rng_range(r, 0.1, 2.0), (float)rng_range(r, 0.1, 2.0), (float)rng_range(r, 0.1, 2.0),
                        (float)rng_range(r, 0.0, 0.3));
    default: return random_hull(r, 4 + rng_below(r, 40), rng_range(r, 0.2, 2.0), (float)rng_range(r, 0.0, 0.3));
    }
}

/* The pair frame: B's core in A's frame, D = B - A's support, checked
 * against the world poses in double (transform to A's frame here). */
static void test_support_pair(void **state)
{
    (void)state;
    test_rng r = rng_seed(202);
    for (int trial = 0; trial < 300; ++trial) {
        test_arena_reset();
        const mink_shape a = random_shape(&r), b = random_shape(&r);
        const mink_pose pa = pose_make(rng_box(&r, 5.0), rng_quat(&r));
        const mink_pose pb = pose_make(rng_box(&r, 5.0), rng_quat(&r));
        ref_pair pair;
        mink_scalar_pair_init(&pair, &a, &pa, &b, &pb);

        /* B's core vertices in A's frame, in double, from world space */
        static dv3 bv[64], av[64];
        const uint32_t na = core_vertex_count(&a), nb = core_vertex_count(&b);
        for (uint32_t i = 0; i < na; ++i) av[i] = core_vertex(&a, i);
        for (uint32_t i = 0; i < nb; ++i) bv[i] = pose_unapply(&pa, pose_apply(&pb, core_vertex(&b, i)));

        const double S = a.extent + b.extent + dv_len(dv_sub(dv_of(pb.p), dv_of(pa.p)));
        const double tol = PAIR_TOL_REL * S;
        test_ctx("trial %d: types %u %u", trial, a.type, b.type);
        EXPECT_NEAR(pair.scale, S, tol);
        EXPECT_NEAR(dv_len(dv_sub(dv_of(pair.pos_b), pose_unapply(&pa, dv_of(pb.p)))), 0.0, tol);

        for (int k = 0; k < 50; ++k) {
            const v3 d = random_direction(&r);
            const dv3 dd = dv_norm(dv_of(d));
            test_ctx("trial %d: types %u %u, direction %d = (%.9g %.9g %.9g)", trial, a.type, b.type, k, d.x, d.y, d.z);
            const unsigned calls = pair.support_calls;
            const ref_vertex v = mink_scalar_support_pair(&pair, d);
            EXPECT_INT(pair.support_calls, calls + 1);
            EXPECT_TRUE(v.ia < na && v.ib < nb);
            /* w is exactly pb - pa */
            EXPECT_TRUE(v3_equal(v.w, v3_sub(v.pb, v.pa)));
            /* the witnesses are the named core points, A's local and B's moved */
            EXPECT_TRUE(v3_equal(v.pa, mink_scalar_core_point(&a, v.ia)));
            EXPECT_NEAR(dv_len(dv_sub(dv_of(v.pb), bv[v.ib])), 0.0, tol);
            /* maximal over all pairs: max over B of d.b minus min over A of d.a */
            double maxb = -HUGE_VAL, mina = HUGE_VAL;
            for (uint32_t i = 0; i < nb; ++i) maxb = fmax(maxb, dv_dot(dd, bv[i]));
            for (uint32_t i = 0; i < na; ++i) mina = fmin(mina, dv_dot(dd, av[i]));
            EXPECT_NEAR(dv_dot(dd, dv_of(v.w)), maxb - mina, tol);
        }
    }
    test_arena_reset();
}

static uint32_t round_up_pad(uint32_t n) { return (n + MINK_HULL_PAD - 1) / MINK_HULL_PAD * MINK_HULL_PAD; }

/* mink_hull_init's layout: SoA x, y, z of `padded` floats each, padded
 * with copies of vertex 0, every array 64-byte aligned; extent = max |p|. */
static void test_hull_layout(void **state)
{
    (void)state;
    test_rng r = rng_seed(303);
    static const uint32_t counts[] = {1, 2, 15, 16, 17, 31, 32, 33, 100, 1000, 5000};
    static float xyz[3 * 5000];
    for (unsigned c = 0; c < sizeof counts / sizeof counts[0]; ++c) {
        const uint32_t n = counts[c];
        test_ctx("n = %u", n);
        const uint32_t padded = round_up_pad(n);
        /* the vertex arrays, then the topology and the builder's scratch */
        EXPECT_INT(mink_hull_bytes(n), (size_t)3 * padded * sizeof(float) + mink_hull_topology_bytes(n));
        double extent = 0.0;
        for (uint32_t i = 0; i < n; ++i) {
            const dv3 p = dv_scale(rng_box(&r, 1.0), rng_range(&r, 0.1, 10.0));
            xyz[3 * i + 0] = (float)p.x;
            xyz[3 * i + 1] = (float)p.y;
            xyz[3 * i + 2] = (float)p.z;
            extent = fmax(extent, dv_len(dv(xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2])));
        }
        test_arena_reset();
        const size_t bytes = mink_hull_bytes(n);
        float *mem = (float *)test_arena_alloc(bytes);
        mink_shape s;
        EXPECT_INT(mink_hull_init(&s, mem, bytes, xyz, n, 0.125f), MINK_OK);
        EXPECT_TRUE(mink_shape_is_valid(&s));
        EXPECT_INT(s.type, MINK_SHAPE_HULL);
        EXPECT_INT(s.count, n);
        EXPECT_INT(s.padded, padded);
        EXPECT_NEAR(s.radius, 0.125, 0.0);
        /* the arrays live in the caller's memory, back to back, aligned */
        EXPECT_TRUE(s.x == mem && s.y == mem + padded && s.z == mem + 2 * padded);
        EXPECT_INT((uintptr_t)s.x % MINK_HULL_ALIGN, 0);
        EXPECT_INT((uintptr_t)s.y % MINK_HULL_ALIGN, 0);
        EXPECT_INT((uintptr_t)s.z % MINK_HULL_ALIGN, 0);
        for (uint32_t i = 0; i < padded; ++i) {
            const uint32_t src = i < n ? i : 0;
            EXPECT_TRUE(s.x[i] == xyz[3 * src] && s.y[i] == xyz[3 * src + 1] && s.z[i] == xyz[3 * src + 2]);
        }
        /* extent is max |p| of the input points, to float rounding */
        EXPECT_NEAR(s.extent, extent, 4.0 * FLT_EPSILON * extent);
        /* the input is copied: changing it afterwards changes nothing */
        const float keep = xyz[0];
        xyz[0] = 1e6f;
        EXPECT_TRUE(s.x[0] == keep);
        xyz[0] = keep;
    }
    test_arena_reset();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_support_local_brute_force),
        cmocka_unit_test(test_support_local_axes),
        cmocka_unit_test(test_support_ties),
        cmocka_unit_test(test_support_pair),
        cmocka_unit_test(test_hull_layout),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
