/* The per-pair cache: same answers with and without it on every frame of
 * traj.cases (both kernels, all three queries), far fewer GJK iterations and
 * support evaluations when warm, and stale, foreign or garbage caches that
 * change nothing. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "cache.h"
#include "cases.h"
#include "mink/mink_ref.h"

/* Cached and cold answers are both within the case tolerance (1e-4 * L) of
 * the exact value, so they agree within twice that. */
#define AGREE_REL 2e-4

typedef struct kernel {
    const char *name;
    int (*intersect)(const mink_shape *, const mink_pose *, const mink_shape *, const mink_pose *, mink_cache *, mink_result *);
    mink_status (*distance)(const mink_shape *, const mink_pose *, const mink_shape *, const mink_pose *, mink_cache *, mink_result *);
    mink_status (*penetration)(const mink_shape *, const mink_pose *, const mink_shape *, const mink_pose *, mink_cache *, mink_result *);
} kernel;

static const kernel kernels[2] = {
    {"ref", mink_ref_intersect_ex, mink_ref_distance, mink_ref_penetration},
    {"simd", mink_intersect_ex, mink_distance, mink_penetration},
};

static case_set traj;

static int setup(void **state)
{
    (void)state;
    char err[256];
    if (case_set_load(MINK_TEST_DATA "/traj.cases", &traj, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    case_set_free(&traj);
    return 0;
}

static int same_trajectory(const mink_case *a, const mink_case *b)
{
    char ga[64], gb[64];
    case_group(a->id, ga, sizeof ga);
    case_group(b->id, gb, sizeof gb);
    return strcmp(ga, gb) == 0;
}

typedef struct tally {
    double cold_iters[3], warm_iters[3];
    double cold_sep_supports, warm_sep_supports;
    unsigned frames, separated;
    unsigned mismatches;
} tally;

static void agree(const char *what, const mink_case *c, float cold, float warm, tally *t)
{
    if (fabs((double)cold - (double)warm) > AGREE_REL * c->L) {
        if (t->mismatches++ < 10) printf("  %s %s: cold %.9g warm %.9g\n", c->id, what, cold, warm);
    }
}

static void run_trajectories(const kernel *k, tally *t)
{
    mink_cache ci, cd, cp;
    memset(t, 0, sizeof *t);
    for (size_t i = 0; i < traj.count; ++i) {
        const mink_case *c = &traj.cases[i];
        if (i == 0 || !same_trajectory(c, &traj.cases[i - 1])) {
            /* a zero-filled cache is an empty cache */
            memset(&ci, 0, sizeof ci);
            mink_cache_reset(&cd);
            mink_cache_reset(&cp);
        }
        mink_result cold, warm;
        const int cold_hit = k->intersect(&c->a, &c->pa, &c->b, &c->pb, NULL, &cold);
        const int warm_hit = k->intersect(&c->a, &c->pa, &c->b, &c->pb, &ci, &warm);
        if (cold_hit != warm_hit && c->value >= 1e-3 * c->L) {
            if (t->mismatches++ < 10) printf("  %s intersect: cold %d warm %d\n", c->id, cold_hit, warm_hit);
        }
        t->cold_iters[0] += cold.iterations;
        t->warm_iters[0] += warm.iterations;
        if (!cold_hit) {
            t->separated++;
            t->cold_sep_supports += cold.support_calls;
            t->warm_sep_supports += warm.support_calls;
        }

        k->distance(&c->a, &c->pa, &c->b, &c->pb, NULL, &cold);
        k->distance(&c->a, &c->pa, &c->b, &c->pb, &cd, &warm);
        agree("distance", c, cold.distance, warm.distance, t);
        t->cold_iters[1] += cold.gjk_iterations;
        t->warm_iters[1] += warm.gjk_iterations;

        k->penetration(&c->a, &c->pa, &c->b, &c->pb, NULL, &cold);
        k->penetration(&c->a, &c->pa, &c->b, &c->pb, &cp, &warm);
        agree("penetration", c, cold.distance, warm.distance, t);
        assert_int_equal(warm.status, MINK_OK);
        t->cold_iters[2] += cold.gjk_iterations;
        t->warm_iters[2] += warm.gjk_iterations;
        t->frames++;
    }
}

static void test_warm_equals_cold(void **state)
{
    (void)state;
    for (int k = 0; k < 2; ++k) {
        tally t;
        run_trajectories(&kernels[k], &t);
        printf("%s: %u frames, %u separated\n", kernels[k].name, t.frames, t.separated);
        printf("  GJK iterations/query cold -> warm: intersect %.2f -> %.2f, distance %.2f -> %.2f, penetration %.2f -> %.2f\n",
               t.cold_iters[0] / t.frames, t.warm_iters[0] / t.frames, t.cold_iters[1] / t.frames,
               t.warm_iters[1] / t.frames, t.cold_iters[2] / t.frames, t.warm_iters[2] / t.frames);
        printf("  supports/query on separated frames (intersect) cold %.2f warm %.2f\n",
               t.cold_sep_supports / t.separated, t.warm_sep_supports / t.separated);
        assert_int_equal(t.mismatches, 0);
        assert_true(t.frames == 2400);
        /* the targets of the cache issue, as deterministic counts */
        assert_true(t.warm_sep_supports / t.separated <= 1.5);
        assert_true(2.0 * t.warm_iters[1] <= t.cold_iters[1]);
    }
}

/* Queries one case with a given cache and compares with the cold answer. */
static void expect_cold_answer(const kernel *k, const mink_case *c, mink_cache *cache)
{
    mink_result cold, warm;
    mink_cache copy = *cache;
    k->penetration(&c->a, &c->pa, &c->b, &c->pb, NULL, &cold);
    k->penetration(&c->a, &c->pa, &c->b, &c->pb, cache, &warm);
    assert_true(fabs((double)cold.distance - (double)warm.distance) <= AGREE_REL * c->L);
    assert_int_equal(cold.status, warm.status);
    *cache = copy;
    k->distance(&c->a, &c->pa, &c->b, &c->pb, NULL, &cold);
    k->distance(&c->a, &c->pa, &c->b, &c->pb, cache, &warm);
    assert_true(fabs((double)cold.distance - (double)warm.distance) <= AGREE_REL * c->L);
    *cache = copy;
    const int hit_cold = k->intersect(&c->a, &c->pa, &c->b, &c->pb, NULL, NULL);
    const int hit_warm = k->intersect(&c->a, &c->pa, &c->b, &c->pb, cache, NULL);
    if (c->value >= 1e-3 * c->L) assert_int_equal(hit_cold, hit_warm);
}

/* A cache filled by one pair and used by another (same shapes: a teleport;
 * different shapes: a foreign cache). */
static void test_stale_and_foreign(void **state)
{
    (void)state;
    for (int k = 0; k < 2; ++k) {
        for (size_t i = 0; i + 700 < traj.count; i += 97) {
            const mink_case *from = &traj.cases[i], *to = &traj.cases[i + 700];
            mink_cache cache;
            mink_cache_reset(&cache);
            mink_result r;
            kernels[k].penetration(&from->a, &from->pa, &from->b, &from->pb, &cache, &r);
            expect_cold_answer(&kernels[k], to, &cache);
            /* teleport: the same pair moved far and turned */
            mink_case moved = *from;
            moved.pb.p.x += 3.0f;
            moved.pb.p.z -= 1.5f;
            moved.pb.q = moved.pa.q;
            kernels[k].penetration(&from->a, &from->pa, &from->b, &from->pb, &cache, &r);
            expect_cold_answer(&kernels[k], &moved, &cache);
        }
    }
}

/* Garbage in a cache (random words, NaN and Inf bit patterns, a valid cache
 * with one word flipped) is detected and ignored. */
static void test_garbage(void **state)
{
    (void)state;
    uint32_t x = 0x12345678u;
    for (int k = 0; k < 2; ++k) {
        for (size_t i = 0; i < traj.count; i += 61) {
            const mink_case *c = &traj.cases[i];
            mink_cache cache;
            for (int w = 0; w < 16; ++w) {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                cache.opaque[w] = (w % 3 == 0) ? 0x7fc00000u : (w % 3 == 1) ? 0x7f800000u : x;
            }
            expect_cold_answer(&kernels[k], c, &cache);
            mink_result r;
            mink_cache_reset(&cache);
            kernels[k].penetration(&c->a, &c->pa, &c->b, &c->pb, &cache, &r);
            cache.opaque[2 + (i % 12)] ^= 0x00400000u; /* a flipped bit */
            expect_cold_answer(&kernels[k], c, &cache);
        }
    }
}

/* A cache that checks out (its checksum made to fit) holding a separating
 * axis that is not finite or overflows when squared, from a separated frame
 * and used on a later frame of the same pair where the shapes overlap: the
 * answer of no cache. The intersect's held test reads the axis unchecked
 * and must never pass on it (it would answer "apart"). */
static void test_nonfinite_axis(void **state)
{
    (void)state;
    const uint32_t bad[] = {0x7fc00000u /* NaN */, 0x7f800000u /* +Inf */, 0xff800000u /* -Inf */,
                            0x7f7fffffu /* FLT_MAX */};
    unsigned tried = 0;
    for (int k = 0; k < 2; ++k) {
        for (size_t i = 0; i + 1 < traj.count; i += 7) {
            const mink_case *c = &traj.cases[i];
            size_t j = i + 1;
            while (j < traj.count && same_trajectory(c, &traj.cases[j]) && traj.cases[j].kind != CASE_PEN) ++j;
            if (j == traj.count || !same_trajectory(c, &traj.cases[j])) continue;
            for (size_t m = 0; m < sizeof bad / sizeof bad[0]; ++m) {
                mink_cache cache;
                mink_cache_reset(&cache);
                mink_result r;
                if (kernels[k].intersect(&c->a, &c->pa, &c->b, &c->pb, &cache, &r) != 0) break;
                cache.opaque[CACHE_W_AXIS + m % 3] = bad[m];
                cache.opaque[CACHE_W_CHECK] = mink_cache_checksum(cache.opaque);
                expect_cold_answer(&kernels[k], &traj.cases[j], &cache);
                tried++;
            }
        }
    }
    assert_true(tried > 100);
}

/* An invalid query leaves the cache as it was. */
/* The intersect's held test trusts nothing it reads: a cache whose
 * checksum or fingerprint is wrong (corrupt, or another pair's) but that
 * holds a separating axis still answers as no cache does, on the next frames
 * of the pair (separated or overlapping) and on another trajectory's pair;
 * where the axis holds, the answer is the held one (one support evaluation)
 * and the cache is left as it was. */
static void test_untrusted_axis(void **state)
{
    (void)state;
    unsigned held = 0, tried = 0;
    for (int k = 0; k < 2; ++k) {
        for (size_t i = 0; i + 5 < traj.count; i += 5) {
            const mink_case *c = &traj.cases[i];
            mink_cache good;
            mink_cache_reset(&good);
            mink_result r;
            if (kernels[k].intersect(&c->a, &c->pa, &c->b, &c->pb, &good, &r) != 0) continue;
            for (int spoil = 0; spoil < 3; ++spoil) {
                mink_cache bad = good;
                if (spoil == 0) bad.opaque[CACHE_W_CHECK] ^= 1u;  /* corrupt */
                if (spoil == 1) bad.opaque[CACHE_W_PAIR] ^= 16u;  /* another pair's */
                /* spoil 2: both, on a pair of another trajectory */
                const size_t far = (i + 997) % traj.count;
                if (spoil == 2) bad.opaque[CACHE_W_CHECK] ^= 1u, bad.opaque[CACHE_W_PAIR] ^= 16u;
                for (size_t j = i + 1; j <= i + 5; ++j) {
                    const mink_case *next = spoil == 2 ? &traj.cases[(far + j - i) % traj.count] : &traj.cases[j];
                    if (spoil < 2 && !same_trajectory(c, next)) break;
                    mink_cache copy = bad, fresh;
                    mink_cache_reset(&fresh);
                    mink_result warm;
                    const int hit_cold = kernels[k].intersect(&next->a, &next->pa, &next->b, &next->pb, &fresh, NULL);
                    const int hit = kernels[k].intersect(&next->a, &next->pa, &next->b, &next->pb, &copy, &warm);
                    if (next->value >= 1e-3 * next->L) assert_int_equal(hit, hit_cold);
                    /* held: one support evaluation, nothing written; else
                     * the spoiled cache was ignored: the cold query's cache
                     * (a cold query may also end at its first support) */
                    if (memcmp(&copy, &bad, sizeof bad) == 0) {
                        assert_int_equal(hit, 0);
                        assert_int_equal(warm.support_calls, 1);
                        held++;
                    } else {
                        assert_memory_equal(&copy, &fresh, sizeof fresh);
                    }
                    tried++;
                }
            }
        }
    }
    print_message("untrusted caches: %u queries, %u answered by the held axis\n", tried, held);
    assert_true(tried > 1000);
    assert_true(held > 300);
}

/* The held overlap (SIMD kernel): a cache from an overlapping frame whose
 * simplex, re-evaluated at the next poses, still proves the overlap
 * answers alone (no support evaluation, the cache left as it was), on most
 * overlapping frames of traj.cases that follow one. Whatever the cache
 * holds, the answer is the cold one: on the pair's own next frames and,
 * with the cache spoiled (its checksum, or another pair's fingerprint), on
 * another trajectory's pair, separated or not. */
static void test_held_overlap(void **state)
{
    (void)state;
    unsigned held = 0, chained = 0, tried = 0;
    mink_cache cache;
    for (size_t i = 0; i < traj.count; ++i) {
        const mink_case *c = &traj.cases[i];
        if (i == 0 || !same_trajectory(c, &traj.cases[i - 1])) mink_cache_reset(&cache);
        const mink_cache before = cache;
        const int was_overlap = ((before.opaque[CACHE_W_META] >> 3) & 3u) == CACHE_OVERLAP;
        mink_result warm;
        const int hit = mink_intersect_ex(&c->a, &c->pa, &c->b, &c->pb, &cache, &warm);
        const int cold = mink_intersect(&c->a, &c->pa, &c->b, &c->pb, NULL);
        if (c->value >= 1e-3 * c->L) assert_int_equal(hit, cold);
        if (!was_overlap || c->kind != CASE_PEN) continue;
        chained++;
        if (memcmp(&before, &cache, sizeof cache) == 0) {
            assert_int_equal(hit, 1);
            assert_int_equal(warm.support_calls, 0);
            held++;
        }
        /* the same cache, spoiled, on a pair of another trajectory */
        for (int spoil = 0; spoil < 2; ++spoil) {
            const mink_case *other = &traj.cases[(i + 613 + 120 * (size_t)spoil) % traj.count];
            mink_cache bad = before;
            bad.opaque[spoil ? CACHE_W_PAIR : CACHE_W_CHECK] ^= 16u;
            const int other_hit = mink_intersect(&other->a, &other->pa, &other->b, &other->pb, &bad);
            const int other_cold = mink_intersect(&other->a, &other->pa, &other->b, &other->pb, NULL);
            if (other->value >= 1e-3 * other->L) assert_int_equal(other_hit, other_cold);
            tried++;
        }
    }
    print_message("held overlap: %u of %u overlapping frames after an overlap; %u spoiled caches tried\n", held,
                  chained, tried);
    assert_true(chained > 1000);
    assert_true(held > chained * 4 / 5);
}

/* Rounded cores moving apart through contact, warm all the way: each
 * frame's intersect is the exact one outside the touching band (the held
 * overlap must let go once the radii no longer reach). Spheres (a cached
 * point), capsules side by side (a segment), a rounded box on a box's face
 * (a triangle or more), both kernels. */
static void test_held_overlap_lets_go(void **state)
{
    (void)state;
    const float r = 0.25f;
    const mink_shape sphere = mink_sphere(r), capsule = mink_capsule(r, 0.5f), box = mink_box(0.5f, 0.5f, 0.5f, r);
    const mink_shape flat = mink_box(2.0f, 0.5f, 2.0f, 0.0f);
    const struct {
        const mink_shape *a, *b;
        float contact; /* centre distance along x at first touch */
    } pairs[3] = {{&sphere, &sphere, 2.0f * r}, {&capsule, &capsule, 2.0f * r}, {&flat, &box, 0.5f + 0.5f + r}};
    unsigned held = 0;
    for (int k = 0; k < 2; ++k) {
        for (int p = 0; p < 3; ++p) {
            mink_cache cache;
            mink_cache_reset(&cache);
            for (int f = 0; f <= 400; ++f) {
                /* 1 % of the contact distance in, to 1 % out, in even steps */
                const float x = pairs[p].contact * (0.99f + 0.02f * (float)f / 400.0f);
                mink_pose pa = {{0, 0, 0}, {0, 0, 0, 1}}, pb = {{0, x, 0}, {0, 0, 0, 1}};
                if (p < 2) pb.p = (mink_vec3){x, p == 1 ? 0.1f : 0.0f, 0}; /* capsules overlap along y */
                const mink_cache before = cache;
                const int hit = kernels[k].intersect(pairs[p].a, &pa, pairs[p].b, &pb, &cache, NULL);
                const float gap = x - pairs[p].contact;
                if (fabsf(gap) > 1e-5f) assert_int_equal(hit, gap < 0.0f);
                held += k == 1 && hit && memcmp(&before, &cache, sizeof cache) == 0;
            }
        }
    }
    print_message("held overlaps while moving apart: %u\n", held);
    assert_true(held > 300);
}

/* A cold intersect of sharp cores starts its boolean search from the
 * cores' centres' difference, a point of D but no support, and its
 * tetrahedron may keep it (CACHE_INNER_ID in the cache). The held test
 * rebuilds that point: the same poses again hold, with no support. Every
 * other query drops it and starts from the rest: distance and penetration
 * of both kernels answer as cold. */
static void test_inner_point_in_cache(void **state)
{
    (void)state;
    unsigned with_inner = 0;
    for (size_t i = 0; i < traj.count; ++i) {
        const mink_case *c = &traj.cases[i];
        if (c->kind != CASE_PEN || c->a.radius > 0.0f || c->b.radius > 0.0f) continue;
        mink_cache cache;
        mink_cache_reset(&cache);
        if (mink_intersect(&c->a, &c->pa, &c->b, &c->pb, &cache) != 1) continue;
        const uint32_t count = cache.opaque[CACHE_W_META] & 7u;
        int inner = 0;
        for (uint32_t k = 0; k < count; ++k)
            inner |= cache.opaque[CACHE_W_IA + k] == CACHE_INNER_ID && cache.opaque[CACHE_W_IB + k] == CACHE_INNER_ID;
        if (!inner) continue;
        with_inner++;
        mink_cache held = cache;
        mink_result r;
        assert_int_equal(mink_intersect_ex(&c->a, &c->pa, &c->b, &c->pb, &held, &r), 1);
        assert_int_equal(r.support_calls, 0);
        assert_memory_equal(&held, &cache, sizeof cache);
        for (int k = 0; k < 2; ++k) {
            for (int q = 0; q < 2; ++q) {
                mink_cache warm_cache = cache;
                mink_result warm, cold;
                mink_status (*query)(const mink_shape *, const mink_pose *, const mink_shape *, const mink_pose *,
                                     mink_cache *, mink_result *) = q ? kernels[k].penetration : kernels[k].distance;
                assert_int_equal(query(&c->a, &c->pa, &c->b, &c->pb, &warm_cache, &warm), MINK_OK);
                assert_int_equal(query(&c->a, &c->pa, &c->b, &c->pb, NULL, &cold), MINK_OK);
                if (fabs((double)warm.distance - cold.distance) > AGREE_REL * c->L)
                    fail_msg("%s %s %s: warm %.9g, cold %.9g", c->id, kernels[k].name, q ? "penetration" : "distance",
                             warm.distance, cold.distance);
            }
        }
    }
    print_message("overlaps whose cached simplex holds the centres' point: %u\n", with_inner);
    assert_true(with_inner > 50);
}

static void test_error_leaves_cache(void **state)
{
    (void)state;
    const mink_case *c = &traj.cases[0];
    mink_cache cache, before;
    mink_result r;
    mink_cache_reset(&cache);
    mink_penetration(&c->a, &c->pa, &c->b, &c->pb, &cache, &r);
    before = cache;
    mink_pose bad = c->pb;
    bad.q.w = NAN;
    assert_int_equal(mink_penetration(&c->a, &c->pa, &c->b, &bad, &cache, &r), MINK_ERR_INVALID);
    assert_memory_equal(&cache, &before, sizeof cache);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_warm_equals_cold),
        cmocka_unit_test(test_stale_and_foreign),
        cmocka_unit_test(test_garbage),
        cmocka_unit_test(test_nonfinite_axis),
        cmocka_unit_test(test_untrusted_axis),
        cmocka_unit_test(test_held_overlap),
        cmocka_unit_test(test_held_overlap_lets_go),
        cmocka_unit_test(test_inner_point_in_cache),
        cmocka_unit_test(test_error_leaves_cache),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
