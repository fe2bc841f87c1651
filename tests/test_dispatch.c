/* The SIMD backend in use (mink_simd_backend) and, in the run-time dispatch
 * build (MINK_SIMD=auto on x86-64), the dispatcher: the backend it picks
 * (the widest the CPU runs, or MINK_SIMD_BACKEND's when the CPU runs it;
 * ctest runs this test with that variable unset, set to each backend and
 * set to a bogus name), one choice for threads racing on the first call,
 * and every public entry point wired to the right function of the table
 * (each query of the simd kernel against the scalar reference, each batch
 * against its single query). In a single-width build the backend is the
 * configured one and the variable is ignored. */
#define _POSIX_C_SOURCE 200809L /* pthread_barrier_t under -std=c11 */
#include "test_util.h"

#include <pthread.h>
#include <stdlib.h>

#if defined(MINK_DISPATCH)
#include "dispatch_cpu.h"
#else
#include "simd.h" /* MINK_SIMD_NAME: compiled with the library's flags */
#endif

static const char *expected_backend(void)
{
#if defined(MINK_DISPATCH)
    const char *want = getenv("MINK_SIMD_BACKEND");
    if (want && dispatch_cpu_runs(want)) return want;
    return dispatch_cpu_best();
#else
    return MINK_SIMD_NAME;
#endif
}

/* ---------------------------------------------------------------- first use */

#define NTHREADS 8

typedef struct racer {
    pthread_t thread;
    pthread_barrier_t *start;
    int index;
    const char *name;
    float distance;
} racer;

static void *race(void *arg)
{
    racer *r = arg;
    const mink_shape s = mink_sphere(0.5f);
    const mink_pose pa = {{0, 0, 0}, {0, 0, 0, 1}}, pb = {{2, 0, 0}, {0, 0, 0, 1}};
    mink_result res;
    pthread_barrier_wait(r->start);
    /* half the threads enter through a query, half through the name */
    if (r->index % 2 == 0) {
        mink_distance(&s, &pa, &s, &pb, NULL, &res);
        r->distance = res.distance;
        r->name = mink_simd_backend();
    } else {
        r->name = mink_simd_backend();
        mink_distance(&s, &pa, &s, &pb, NULL, &res);
        r->distance = res.distance;
    }
    return NULL;
}

/* Runs first: no call into the library before it, so the threads make the
 * choice together. They all see the same backend (the same string). */
static void test_first_use_race(void **state)
{
    (void)state;
    racer w[NTHREADS];
    pthread_barrier_t start;
    assert_int_equal(pthread_barrier_init(&start, NULL, NTHREADS), 0);
    for (int t = 0; t < NTHREADS; ++t) {
        w[t].start = &start;
        w[t].index = t;
        w[t].name = NULL;
        w[t].distance = -1.0f;
        assert_int_equal(pthread_create(&w[t].thread, NULL, race, &w[t]), 0);
    }
    for (int t = 0; t < NTHREADS; ++t) assert_int_equal(pthread_join(w[t].thread, NULL), 0);
    pthread_barrier_destroy(&start);
    for (int t = 0; t < NTHREADS; ++t) {
        assert_non_null(w[t].name);
        assert_ptr_equal(w[t].name, w[0].name);
        EXPECT_NEAR(w[t].distance, 1.0, 1e-6);
    }
}

static void test_backend_name(void **state)
{
    (void)state;
    const char *name = mink_simd_backend();
    const char *env = getenv("MINK_SIMD_BACKEND");
    print_message("backend %s (MINK_SIMD_BACKEND %s)\n", name, env ? env : "unset");
    assert_string_equal(name, expected_backend());
    assert_ptr_equal(mink_simd_backend(), name); /* chosen once */
    const char *const known[] = {"sse41", "avx2", "avx512", "neon", "portable"};
    int found = 0;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; ++i) found |= strcmp(name, known[i]) == 0;
    assert_true(found);
}

/* ---------------------------------------------------------------- wiring */

#define NSHAPES 4
#define NPAIRS 64

typedef struct world {
    mink_shape shapes[NSHAPES];
    mink_pair pairs[NPAIRS];
} world;

static void world_make(world *w)
{
    float pts[3 * 32];
    points_on_sphere(pts, 32, 0.6);
    w->shapes[0] = mink_sphere(0.5f);
    w->shapes[1] = mink_capsule(0.3f, 0.6f);
    w->shapes[2] = mink_box(0.5f, 0.4f, 0.3f, 0.0f);
    w->shapes[3] = test_hull(pts, 32, 0.0f);
    test_rng r = rng_seed(23);
    for (int i = 0; i < NPAIRS; ++i) {
        mink_pair *p = &w->pairs[i];
        p->a = &w->shapes[i % NSHAPES];
        p->b = &w->shapes[(i / NSHAPES) % NSHAPES];
        p->pa = pose_make((dv3){rng_range(&r, -0.3, 0.3), rng_range(&r, -0.3, 0.3), rng_range(&r, -0.3, 0.3)},
                          rng_quat(&r));
        p->pb = pose_make((dv3){rng_range(&r, -1.4, 1.4), rng_range(&r, -1.4, 1.4), rng_range(&r, -1.4, 1.4)},
                          rng_quat(&r));
        p->cache = NULL;
    }
}

/* Each single query against the reference kernel: a slot of the table
 * holding the wrong function (intersect_ex for intersect, distance for
 * penetration) fails here. */
static void test_queries_match_reference(void **state)
{
    (void)state;
    world w;
    world_make(&w);
    int overlapping = 0;
    for (int i = 0; i < NPAIRS; ++i) {
        const mink_pair *p = &w.pairs[i];
        test_ctx("pair %d (types %u, %u)", i, p->a->type, p->b->type);
        mink_result d, dr, pen, penr, info;
        EXPECT_INT(mink_distance(p->a, &p->pa, p->b, &p->pb, NULL, &d) >= 0, 1);
        EXPECT_INT(mink_ref_distance(p->a, &p->pa, p->b, &p->pb, NULL, &dr) >= 0, 1);
        EXPECT_NEAR(d.distance, dr.distance, 1e-4);
        EXPECT_INT(mink_penetration(p->a, &p->pa, p->b, &p->pb, NULL, &pen) >= 0, 1);
        EXPECT_INT(mink_ref_penetration(p->a, &p->pa, p->b, &p->pb, NULL, &penr) >= 0, 1);
        EXPECT_NEAR(pen.distance, penr.distance, 1e-3);
        if (pen.distance > 0.0f) EXPECT_NEAR(pen.distance, d.distance, 1e-4);
        else EXPECT_NEAR(d.distance, 0.0, 0.0);
        if (fabs(pen.distance) < 1e-3) continue; /* the touching band: either answer */
        const int hit = pen.distance < 0.0f;
        overlapping += hit;
        EXPECT_INT(mink_intersect(p->a, &p->pa, p->b, &p->pb, NULL), hit);
        EXPECT_INT(mink_intersect_ex(p->a, &p->pa, p->b, &p->pb, NULL, &info), hit);
        EXPECT_INT(mink_intersect_gjk_ex(p->a, &p->pa, p->b, &p->pb, NULL, &info), hit);
        EXPECT_INT(mink_ref_intersect(p->a, &p->pa, p->b, &p->pb, NULL), hit);
        struct mink_manifold m;
        const float margin = 0.02f;
        EXPECT_INT(mink_manifold(p->a, &p->pa, p->b, &p->pb, margin, NULL, &m) >= 0, 1);
        if (pen.distance > margin + 1e-3f) EXPECT_INT(m.count, 0);
        if (pen.distance < margin - 1e-3f) {
            EXPECT_TRUE(m.count > 0);
            float lowest = INFINITY;
            for (uint32_t k = 0; k < m.count; ++k) lowest = fminf(lowest, m.points[k].separation);
            EXPECT_NEAR(lowest, pen.distance, 1e-3);
        }
    }
    print_message("%d of %d pairs overlap\n", overlapping, NPAIRS);
    assert_true(overlapping > NPAIRS / 8 && overlapping < NPAIRS - NPAIRS / 8);
    test_arena_reset();
}

/* Each batch entry point against its single query, the _mt ones against
 * the batch bit for bit. */
static void test_batches_match_single(void **state)
{
    (void)state;
    world w;
    world_make(&w);
    mink_result res[NPAIRS], res_mt[NPAIRS];
    int hit[NPAIRS], hit_mt[NPAIRS];
    struct mink_manifold man[NPAIRS], man_mt[NPAIRS];
    /* unused manifold points stay as they were: start alike */
    memset(man, 0, sizeof man);
    memset(man_mt, 0, sizeof man_mt);
    mink_penetration_batch(w.pairs, NPAIRS, res);
    mink_intersect_batch(w.pairs, NPAIRS, hit);
    mink_manifold_batch(w.pairs, NPAIRS, 0.02f, man);
    mink_penetration_batch_mt(w.pairs, NPAIRS, res_mt, 2);
    mink_intersect_batch_mt(w.pairs, NPAIRS, hit_mt, 2);
    mink_manifold_batch_mt(w.pairs, NPAIRS, 0.02f, man_mt, 2);
    assert_memory_equal(res, res_mt, sizeof res);
    assert_memory_equal(hit, hit_mt, sizeof hit);
    assert_memory_equal(man, man_mt, sizeof man);
    for (int i = 0; i < NPAIRS; ++i) {
        const mink_pair *p = &w.pairs[i];
        test_ctx("pair %d (types %u, %u)", i, p->a->type, p->b->type);
        mink_result one;
        mink_penetration(p->a, &p->pa, p->b, &p->pb, NULL, &one);
        EXPECT_INT(res[i].status, MINK_OK);
        EXPECT_NEAR(res[i].distance, one.distance, 1e-3);
        if (fabs(one.distance) >= 1e-3) EXPECT_INT(hit[i], one.distance < 0.0f);
        struct mink_manifold m;
        memset(&m, 0, sizeof m);
        mink_manifold(p->a, &p->pa, p->b, &p->pb, 0.02f, NULL, &m);
        assert_memory_equal(&m, &man[i], sizeof m);
    }
    test_arena_reset();
}

/* Casts run in the shared code and ask the SIMD kernel's support through
 * the dispatcher. */
static void test_cast(void **state)
{
    (void)state;
    const mink_shape ball = mink_sphere(0.25f), box = mink_box(0.5f, 0.5f, 0.5f, 0.0f);
    const mink_pose pa = {{-3, 0, 0}, {0, 0, 0, 1}}, pb = {{0, 0, 0}, {0, 0, 0, 1}};
    const mink_vec3 da = {4, 0, 0}, still = {0, 0, 0};
    mink_cast_result c, cr;
    test_ctx("sphere cast into a box");
    EXPECT_INT(mink_cast(&ball, &pa, da, &box, &pb, still, 0.0f, &c), 1);
    EXPECT_INT(mink_ref_cast(&ball, &pa, da, &box, &pb, still, 0.0f, &cr), 1);
    /* first contact when the ball's centre reaches x = -0.75: t = 2.25 / 4 */
    EXPECT_LE(c.t, 2.25 / 4.0, 1e-6);
    EXPECT_NEAR(c.t, 2.25 / 4.0, 1e-3);
    EXPECT_NEAR(c.t, cr.t, 1e-3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_use_race), /* first: before any other call */
        cmocka_unit_test(test_backend_name),
        cmocka_unit_test(test_queries_match_reference),
        cmocka_unit_test(test_batches_match_single),
        cmocka_unit_test(test_cast),
    };
    return cmocka_run_group_tests_name("dispatch", tests, NULL, NULL);
}
