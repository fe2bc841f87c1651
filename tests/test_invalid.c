/* Input validation of every entry point: NULL pointers, NaN and Inf in
 * positions, quaternions and sizes, negative sizes, empty or non-finite
 * hulls, bad hull memory, non-unit quaternions, a zeroed shape. Invalid input
 * gives MINK_ERR_INVALID (intersect: a negative value) and a result that is
 * all zeros except its status; the valid side of each boundary (quaternions
 * within 1e-3 of unit, zero sizes, exact memory size) is accepted with a
 * correct answer. */
#include "test_util.h"

/* The quaternion band of mink.h: norms within 1e-3 of 1 are accepted (and
 * normalized), beyond it rejected. The test probes 5e-4 and 2e-3. */
#define QUAT_INSIDE_BAND 5e-4
#define QUAT_OUTSIDE_BAND 2e-3

/* A non-normalized quaternion 5e-4 off would scale a shape by 1e-3 if it
 * were used as is; the normalized answer must match far better than that. */
#define NORMALIZED_TOL 1e-5

/* Point and sphere distances with small exact inputs: float gets them to an
 * ulp or two. */
#define EXACT_TOL 1e-6

static const float NaN_ = NAN;
static const float Inf_ = INFINITY;

/* A result full of NaN bytes, so every field the query fails to write shows. */
static mink_result poisoned(void)
{
    mink_result r;
    memset(&r, 0xff, sizeof r);
    return r;
}

static void expect_zero_result(const mink_result *r)
{
    EXPECT_INT(r->status, MINK_ERR_INVALID);
    EXPECT_TRUE(r->distance == 0.0f);
    EXPECT_TRUE(r->normal.x == 0.0f && r->normal.y == 0.0f && r->normal.z == 0.0f);
    EXPECT_TRUE(r->point_a.x == 0.0f && r->point_a.y == 0.0f && r->point_a.z == 0.0f);
    EXPECT_TRUE(r->point_b.x == 0.0f && r->point_b.y == 0.0f && r->point_b.z == 0.0f);
    EXPECT_INT(r->iterations, 0);
    EXPECT_INT(r->gjk_iterations, 0);
    EXPECT_INT(r->support_calls, 0);
}

/* Every query of both kernels rejects (a, pa, b, pb), with and without a
 * cache, and with the shapes swapped; and so do the batch functions when
 * the poses are not NULL (a batch pair holds its poses by value). */
static void expect_rejected(const mink_shape *a, const mink_pose *pa, const mink_shape *b, const mink_pose *pb)
{
    for (int k = 0; k < TEST_KERNEL_COUNT; ++k) {
        const test_kernel *K = test_kernel_get(k);
        for (int swap = 0; swap < 2; ++swap) {
            const mink_shape *s0 = swap ? b : a, *s1 = swap ? a : b;
            const mink_pose *p0 = swap ? pb : pa, *p1 = swap ? pa : pb;
            for (int use_cache = 0; use_cache < 2; ++use_cache) {
                mink_cache cache;
                memset(&cache, 0, sizeof cache);
                mink_cache *c = use_cache ? &cache : NULL;
                char saved[512];
                snprintf(saved, sizeof saved, "%s", test_ctx_buf());
                test_ctx("%s; kernel %s, swap %d, cache %d", saved, K->name, swap, use_cache);

                EXPECT_INT(K->intersect(s0, p0, s1, p1, c), MINK_ERR_INVALID);
                mink_result r = poisoned();
                EXPECT_INT(K->intersect_ex(s0, p0, s1, p1, c, &r), MINK_ERR_INVALID);
                expect_zero_result(&r);
                EXPECT_INT(K->intersect_ex(s0, p0, s1, p1, c, NULL), MINK_ERR_INVALID);
                r = poisoned();
                EXPECT_INT(K->distance(s0, p0, s1, p1, c, &r), MINK_ERR_INVALID);
                expect_zero_result(&r);
                r = poisoned();
                EXPECT_INT(K->penetration(s0, p0, s1, p1, c, &r), MINK_ERR_INVALID);
                expect_zero_result(&r);
                /* NULL out: nothing to write, still an error */
                EXPECT_INT(K->distance(s0, p0, s1, p1, c, NULL), MINK_ERR_INVALID);
                EXPECT_INT(K->penetration(s0, p0, s1, p1, c, NULL), MINK_ERR_INVALID);
                snprintf(test_ctx_buf(), 512, "%s", saved);
            }
        }
    }
    if (!pa || !pb) return;

    /* in a batch between two valid pairs: only the bad one fails */
    const mink_shape good_a = mink_sphere(1.0f), good_b = mink_box(1, 1, 1, 0);
    mink_pair pairs[3];
    memset(pairs, 0, sizeof pairs);
    for (int i = 0; i < 3; ++i) {
        pairs[i].a = &good_a;
        pairs[i].b = &good_b;
        pairs[i].pa = pose_make(dv(0, 0, 0), quat_identity());
        pairs[i].pb = pose_make(dv(3, 0, 0), quat_identity());
    }
    pairs[1].a = a;
    pairs[1].pa = *pa;
    pairs[1].b = b;
    pairs[1].pb = *pb;
    mink_result out[3] = {poisoned(), poisoned(), poisoned()};
    mink_penetration_batch(pairs, 3, out);
    expect_zero_result(&out[1]);
    for (int i = 0; i < 3; i += 2) {
        EXPECT_INT(out[i].status, MINK_OK);
        EXPECT_NEAR(out[i].distance, 1.0, EXACT_TOL);
    }
    int hits[3] = {7, 7, 7};
    mink_intersect_batch(pairs, 3, hits);
    EXPECT_TRUE(hits[0] == 0 && hits[1] < 0 && hits[2] == 0);
}

static mink_pose pose_at(double x, double y, double z) { return pose_make(dv(x, y, z), quat_identity()); }

/* A valid pose with one float replaced: position 0..2, quaternion 3..6. */
static mink_pose pose_with(int slot, float value)
{
    mink_pose p = pose_make(dv(0.5, -1.0, 2.0), quat_axis_angle(dv(1, 2, 3), 0.7));
    float *f[7] = {&p.p.x, &p.p.y, &p.p.z, &p.q.x, &p.q.y, &p.q.z, &p.q.w};
    *f[slot] = value;
    return p;
}

static void test_null_pointers(void **state)
{
    (void)state;
    const mink_shape s = mink_box(1, 1, 1, 0.1f);
    const mink_pose p0 = pose_at(0, 0, 0), p1 = pose_at(1, 0, 0);
    test_ctx("NULL shape A");
    expect_rejected(NULL, &p0, &s, &p1);
    test_ctx("NULL pose A");
    expect_rejected(&s, NULL, &s, &p1);
    test_ctx("NULL shape B");
    expect_rejected(&s, &p0, NULL, &p1);
    test_ctx("NULL pose B");
    expect_rejected(&s, &p0, &s, NULL);
    test_ctx("all NULL");
    expect_rejected(NULL, NULL, NULL, NULL);

    /* valid input with a NULL result: distance/penetration cannot answer */
    for (int k = 0; k < TEST_KERNEL_COUNT; ++k) {
        const test_kernel *K = test_kernel_get(k);
        test_ctx("kernel %s, NULL out", K->name);
        EXPECT_INT(K->distance(&s, &p0, &s, &p1, NULL, NULL), MINK_ERR_INVALID);
        EXPECT_INT(K->penetration(&s, &p0, &s, &p1, NULL, NULL), MINK_ERR_INVALID);
        /* intersect_ex's info is optional */
        EXPECT_INT(K->intersect_ex(&s, &p0, &s, &p1, NULL, NULL), 1);
    }
}

static void test_nonfinite_poses(void **state)
{
    (void)state;
    const mink_shape a = mink_capsule(0.5f, 1.0f), b = mink_box(1, 2, 3, 0);
    const mink_pose good = pose_at(4, 0, 0);
    const float bad[] = {NaN_, Inf_, -Inf_};
    for (int slot = 0; slot < 7; ++slot)
        for (int v = 0; v < 3; ++v) {
            const mink_pose p = pose_with(slot, bad[v]);
            test_ctx("pose slot %d = %g", slot, bad[v]);
            EXPECT_INT(mink_pose_is_valid(&p), 0);
            test_ctx("pose A slot %d = %g", slot, bad[v]);
            expect_rejected(&a, &p, &b, &good);
            test_ctx("pose B slot %d = %g", slot, bad[v]);
            expect_rejected(&a, &good, &b, &p);
        }
}

static void test_quaternion_norm(void **state)
{
    (void)state;
    const mink_shape a = mink_box(10.0f, 1.0f, 1.0f, 0.0f), b = mink_sphere(0.5f);
    const mink_quat q = quat_axis_angle(dv(0.3, 1.0, -0.2), 0.9);
    const mink_pose pb = pose_make(dv(3.0, 12.0, 1.0), quat_identity());

    /* the zero quaternion and ones 2e-3 off either way are rejected */
    const double outside[] = {1.0 + QUAT_OUTSIDE_BAND, 1.0 - QUAT_OUTSIDE_BAND, 0.0, 2.0};
    for (unsigned i = 0; i < sizeof outside / sizeof outside[0]; ++i) {
        mink_pose pa = pose_make(dv(0, 0, 0), q);
        pa.q.x = (float)(q.x * outside[i]);
        pa.q.y = (float)(q.y * outside[i]);
        pa.q.z = (float)(q.z * outside[i]);
        pa.q.w = (float)(q.w * outside[i]);
        test_ctx("quaternion scaled by %g", outside[i]);
        EXPECT_INT(mink_pose_is_valid(&pa), 0);
        expect_rejected(&a, &pa, &b, &pb);
        expect_rejected(&b, &pb, &a, &pa);
    }

    /* 5e-4 off either way: accepted, and used normalized (a long box makes
     * a 1e-3 scale error show as ~1e-2 in the distance) */
    const mink_pose unit = pose_make(dv(0, 0, 0), q);
    const double inside[] = {1.0 + QUAT_INSIDE_BAND, 1.0 - QUAT_INSIDE_BAND};
    for (unsigned i = 0; i < 2; ++i) {
        mink_pose pa = unit;
        pa.q.x = (float)(q.x * inside[i]);
        pa.q.y = (float)(q.y * inside[i]);
        pa.q.z = (float)(q.z * inside[i]);
        pa.q.w = (float)(q.w * inside[i]);
        EXPECT_INT(mink_pose_is_valid(&pa), 1);
        for (int k = 0; k < TEST_KERNEL_COUNT; ++k) {
            const test_kernel *K = test_kernel_get(k);
            test_ctx("kernel %s, quaternion scaled by %g", K->name, inside[i]);
            mink_result want, got;
            EXPECT_INT(K->distance(&a, &unit, &b, &pb, NULL, &want), MINK_OK);
            EXPECT_INT(K->distance(&a, &pa, &b, &pb, NULL, &got), MINK_OK);
            EXPECT_TRUE(want.distance > 0.1f);
            EXPECT_NEAR(got.distance, want.distance, NORMALIZED_TOL);
            /* and the answer is right: the double oracle normalizes too */
            const dv3 n = dv_norm(dv_of(got.normal));
            EXPECT_NEAR(gap_along(&a, &pa, &b, &pb, n), got.distance, NORMALIZED_TOL * 10);
            EXPECT_INT(K->penetration(&a, &pa, &b, &pb, NULL, &got), MINK_OK);
            EXPECT_NEAR(got.distance, want.distance, NORMALIZED_TOL);
            EXPECT_INT(K->intersect(&a, &pa, &b, &pb, NULL), 0);
        }
    }
}

/* Constructors: NaN, Inf or negative sizes give a zeroed shape of type
 * MINK_SHAPE_INVALID, which every query rejects. */
static void test_bad_constructors(void **state)
{
    (void)state;
    const float bad[] = {NaN_, Inf_, -Inf_, -1.0f, -1e-30f};
    const mink_shape good = mink_box(1, 1, 1, 0);
    const mink_pose p0 = pose_at(0, 0, 0), p1 = pose_at(0.5, 0, 0);
    for (unsigned v = 0; v < sizeof bad / sizeof bad[0]; ++v) {
        const float x = bad[v];
        const mink_shape shapes[] = {
            mink_sphere(x),
            mink_capsule(x, 1.0f), mink_capsule(1.0f, x),
            mink_box(x, 1, 1, 0), mink_box(1, x, 1, 0), mink_box(1, 1, x, 0), mink_box(1, 1, 1, x),
        };
        for (unsigned i = 0; i < sizeof shapes / sizeof shapes[0]; ++i) {
            test_ctx("constructor %u with %g", i, x);
            EXPECT_INT(shapes[i].type, MINK_SHAPE_INVALID);
            EXPECT_INT(mink_shape_is_valid(&shapes[i]), 0);
            expect_rejected(&shapes[i], &p0, &good, &p1);
        }
    }
}

/* Shapes damaged after construction (the struct is public): the queries
 * must check them, not trust the constructor. */
static void test_damaged_shapes(void **state)
{
    (void)state;
    const mink_pose p0 = pose_at(0, 0, 0), p1 = pose_at(0.5, 0, 0);
    const mink_shape good = mink_sphere(1.0f);

    mink_shape zero;
    memset(&zero, 0, sizeof zero);
    test_ctx("zeroed shape");
    EXPECT_INT(mink_shape_is_valid(&zero), 0);
    expect_rejected(&zero, &p0, &good, &p1);

    mink_shape s = mink_box(1, 1, 1, 0);
    s.half[0] = NaN_;
    test_ctx("box half NaN");
    expect_rejected(&s, &p0, &good, &p1);
    s = mink_box(1, 1, 1, 0);
    s.half[2] = -1.0f;
    test_ctx("box half negative");
    expect_rejected(&s, &p0, &good, &p1);
    s = mink_capsule(1, 1);
    s.radius = -0.5f;
    test_ctx("capsule radius negative");
    expect_rejected(&s, &p0, &good, &p1);
    s = mink_sphere(1);
    s.radius = Inf_;
    test_ctx("sphere radius Inf");
    expect_rejected(&s, &p0, &good, &p1);
    s = mink_sphere(1);
    s.type = 99;
    test_ctx("unknown type");
    expect_rejected(&s, &p0, &good, &p1);

    const float pts[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    const mink_shape hull = test_hull(pts, 4, 0.0f);
    assert_true(mink_shape_is_valid(&hull));
    s = hull;
    s.count = 0;
    test_ctx("hull count 0");
    expect_rejected(&s, &p0, &good, &p1);
    s = hull;
    s.x = NULL;
    test_ctx("hull x NULL");
    expect_rejected(&s, &p0, &good, &p1);
    s = hull;
    s.padded = 3;
    test_ctx("hull padded < count");
    expect_rejected(&s, &p0, &good, &p1);
    test_arena_reset();
}

/* mink_hull_init: every bad argument is rejected and *out made invalid;
 * the boundary cases (exact size, n = 1) are accepted. */
static void test_hull_init_invalid(void **state)
{
    (void)state;
    float pts[3 * 20];
    for (int i = 0; i < 60; ++i) pts[i] = (float)((i * 37) % 11) - 5.0f;
    const uint32_t n = 20;
    const size_t need = mink_hull_bytes(n);
    unsigned char *mem = (unsigned char *)test_arena_alloc(need + 2 * MINK_HULL_ALIGN);
    const mink_shape sentinel = mink_box(1, 1, 1, 0);
    const mink_pose p0 = pose_at(0, 0, 0), p1 = pose_at(0.5, 0, 0);

    struct { const char *what; void *mem; size_t bytes; const float *xyz; uint32_t n; float r; int bad_point; } cases[] = {
        {"n = 0", mem, need, pts, 0, 0.0f, -1},
        {"NULL points", mem, need, NULL, n, 0.0f, -1},
        {"NULL memory", NULL, need, pts, n, 0.0f, -1},
        {"memory one byte short", mem, need - 1, pts, n, 0.0f, -1},
        {"no memory", mem, 0, pts, n, 0.0f, -1},
        {"memory off by 4 bytes", mem + 4, need, pts, n, 0.0f, -1},
        {"memory off by 32 bytes", mem + 32, need, pts, n, 0.0f, -1},
        {"negative radius", mem, need, pts, n, -0.1f, -1},
        {"NaN radius", mem, need, pts, n, NaN_, -1},
        {"Inf radius", mem, need, pts, n, Inf_, -1},
        {"NaN point", mem, need, pts, n, 0.0f, 0},
        {"Inf point", mem, need, pts, n, 0.0f, 1},
        {"-Inf point", mem, need, pts, n, 0.0f, 2},
    };
    for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        test_ctx("hull_init: %s", cases[i].what);
        float copy[3 * 20];
        memcpy(copy, pts, sizeof copy);
        const float bad[] = {NaN_, Inf_, -Inf_};
        if (cases[i].bad_point >= 0) copy[3 * 13 + 1 + cases[i].bad_point % 2] = bad[cases[i].bad_point];
        mink_shape out = sentinel;
        const float *xyz = cases[i].xyz ? copy : NULL;
        EXPECT_INT(mink_hull_init(&out, cases[i].mem, cases[i].bytes, xyz, cases[i].n, cases[i].r), MINK_ERR_INVALID);
        EXPECT_INT(out.type, MINK_SHAPE_INVALID);
        EXPECT_INT(mink_shape_is_valid(&out), 0);
        expect_rejected(&out, &p0, &sentinel, &p1);
        /* NULL out: still rejected, no crash */
        EXPECT_INT(mink_hull_init(NULL, cases[i].mem, cases[i].bytes, xyz, cases[i].n, cases[i].r), MINK_ERR_INVALID);
    }
    test_ctx("hull_init: NULL out with good arguments");
    EXPECT_INT(mink_hull_init(NULL, mem, need, pts, n, 0.0f), MINK_ERR_INVALID);

    /* the boundaries: exactly enough aligned memory, one point */
    test_ctx("hull_init: exact size");
    mink_shape out;
    EXPECT_INT(mink_hull_init(&out, mem + MINK_HULL_ALIGN, need, pts, n, 0.0f), MINK_OK);
    EXPECT_INT(mink_shape_is_valid(&out), 1);
    test_ctx("hull_init: one point");
    EXPECT_INT(mink_hull_init(&out, mem, mink_hull_bytes(1), pts, 1, 0.5f), MINK_OK);
    EXPECT_INT(mink_shape_is_valid(&out), 1);
    test_arena_reset();
}

/* The valid side: zero sizes are legal degenerate shapes with exact answers,
 * the predicates say so, and no error leaks between queries. */
static void test_degenerate_but_valid(void **state)
{
    (void)state;
    EXPECT_INT(mink_shape_is_valid(NULL), 0);
    EXPECT_INT(mink_pose_is_valid(NULL), 0);
    const mink_pose p0 = pose_at(0, 0, 0), p3 = pose_at(3, 0, 0);
    EXPECT_INT(mink_pose_is_valid(&p0), 1);
    const float one_point[3] = {0, 0, 0};
    const mink_shape shapes[] = {mink_sphere(0.0f), mink_capsule(0.0f, 0.0f), mink_box(0, 0, 0, 0),
                                 test_hull(one_point, 1, 0.0f)};
    for (unsigned i = 0; i < 4; ++i) {
        EXPECT_INT(mink_shape_is_valid(&shapes[i]), 1);
        for (unsigned j = 0; j < 4; ++j)
            for (int k = 0; k < TEST_KERNEL_COUNT; ++k) {
                const test_kernel *K = test_kernel_get(k);
                test_ctx("kernel %s, points %u and %u", K->name, i, j);
                /* two points 3 apart */
                mink_result r = poisoned();
                EXPECT_INT(K->distance(&shapes[i], &p0, &shapes[j], &p3, NULL, &r), MINK_OK);
                EXPECT_NEAR(r.distance, 3.0, EXACT_TOL);
                check_result_basic(&r, 3.0);
                EXPECT_NEAR(r.normal.x, 1.0, TOL_UNIT);
                EXPECT_INT(K->intersect(&shapes[i], &p0, &shapes[j], &p3, NULL), 0);
                /* two points at one place: touching, a defined answer */
                r = poisoned();
                EXPECT_INT(K->penetration(&shapes[i], &p0, &shapes[j], &p0, NULL, &r), MINK_OK);
                EXPECT_NEAR(r.distance, 0.0, EXACT_TOL);
                check_result_basic(&r, 1.0);
                EXPECT_INT(K->intersect(&shapes[i], &p0, &shapes[j], &p0, NULL), 1);
            }
    }
    test_arena_reset();
}

/* Batches: NULL pairs answer every slot with the error, NULL out and n = 0
 * touch nothing. */
static void test_batch_null(void **state)
{
    (void)state;
    mink_result out[3] = {poisoned(), poisoned(), poisoned()};
    test_ctx("penetration batch, NULL pairs");
    mink_penetration_batch(NULL, 3, out);
    for (int i = 0; i < 3; ++i) expect_zero_result(&out[i]);
    int hits[3] = {7, 7, 7};
    test_ctx("intersect batch, NULL pairs");
    mink_intersect_batch(NULL, 3, hits);
    for (int i = 0; i < 3; ++i) EXPECT_TRUE(hits[i] < 0);

    const mink_shape s = mink_sphere(1.0f);
    mink_pair pair;
    memset(&pair, 0, sizeof pair);
    pair.a = pair.b = &s;
    pair.pa = pose_at(0, 0, 0);
    pair.pb = pose_at(1, 0, 0);
    mink_penetration_batch(&pair, 1, NULL);
    mink_intersect_batch(&pair, 1, NULL);
    /* n = 0: out untouched */
    out[0] = poisoned();
    hits[0] = 7;
    mink_penetration_batch(&pair, 0, out);
    mink_intersect_batch(&pair, 0, hits);
    test_ctx("batch n = 0");
    EXPECT_TRUE(isnan(out[0].distance));
    EXPECT_INT(hits[0], 7);
    /* a good pair after all that */
    mink_penetration_batch(&pair, 1, out);
    EXPECT_INT(out[0].status, MINK_OK);
    EXPECT_NEAR(out[0].distance, -1.0, EXACT_TOL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_null_pointers),
        cmocka_unit_test(test_nonfinite_poses),
        cmocka_unit_test(test_quaternion_norm),
        cmocka_unit_test(test_bad_constructors),
        cmocka_unit_test(test_damaged_shapes),
        cmocka_unit_test(test_hull_init_invalid),
        cmocka_unit_test(test_degenerate_but_valid),
        cmocka_unit_test(test_batch_null),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
