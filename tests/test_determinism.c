/* Determinism: on one build, the same query gives bit-identical results
 * every time, whatever ran before it. Every case of mixed.cases (spheres,
 * capsules, boxes, hulls; separated and penetrating) is run through both
 * kernels and all queries:
 * - twice in file order and once in a shuffled order, without a cache;
 * - with a cache per case, cold then warm, in file order and again after
 *   resetting every cache, in a shuffled order (results and final cache
 *   contents identical);
 * - an empty cache answers exactly like no cache;
 * - the batch calls twice over the same pairs.
 * Results are filled with a different byte pattern before each run, so a
 * field a query leaves unwritten shows up as a difference. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cases.h"
#include "mink/mink_ref.h"

enum { Q_INTERSECT, Q_DISTANCE, Q_PENETRATION, NQUERY };

typedef struct kernel {
    const char *name;
    int (*intersect_ex)(const mink_shape *, const mink_pose *, const mink_shape *, const mink_pose *, mink_cache *,
                        mink_result *);
    mink_status (*distance)(const mink_shape *, const mink_pose *, const mink_shape *, const mink_pose *,
                            mink_cache *, mink_result *);
    mink_status (*penetration)(const mink_shape *, const mink_pose *, const mink_shape *, const mink_pose *,
                               mink_cache *, mink_result *);
} kernel;

static const kernel kernels[2] = {
    {"ref", mink_ref_intersect_ex, mink_ref_distance, mink_ref_penetration},
    {"simd", mink_intersect_ex, mink_distance, mink_penetration},
};

static const char *const query_name[NQUERY] = {"intersect", "distance", "penetration"};

/* One answer: for intersect, the return value and the info result. */
typedef struct answer {
    int hit;
    mink_result r;
} answer;

static case_set set;
static size_t *shuffled; /* a permutation of the case indices */

/* MINK_TEST_STRIDE=k keeps every k-th case: scripts/sanitize.sh sets it
 * under valgrind, where the full set takes minutes. */
static void subsample(case_set *s)
{
    const char *env = getenv("MINK_TEST_STRIDE");
    const long stride = env ? strtol(env, NULL, 10) : 1;
    if (stride <= 1) return;
    size_t n = 0;
    for (size_t i = 0; i < s->count; i += (size_t)stride) s->cases[n++] = s->cases[i];
    s->count = n;
}

static int setup(void **state)
{
    (void)state;
    char err[256];
    if (case_set_load(MINK_TEST_DATA "/mixed.cases", &set, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    subsample(&set);
    shuffled = malloc(set.count * sizeof *shuffled);
    if (!shuffled) return -1;
    for (size_t i = 0; i < set.count; ++i) shuffled[i] = i;
    uint32_t x = 0x9e3779b9u; /* fixed seed: the test itself is deterministic */
    for (size_t i = set.count; i > 1; --i) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        const size_t j = x % i;
        const size_t t = shuffled[i - 1];
        shuffled[i - 1] = shuffled[j];
        shuffled[j] = t;
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    free(shuffled);
    case_set_free(&set);
    return 0;
}

static void query(const kernel *k, int q, const mink_case *c, mink_cache *cache, answer *out, uint8_t pattern)
{
    memset(out, pattern, sizeof *out);
    switch (q) {
    case Q_INTERSECT: out->hit = k->intersect_ex(&c->a, &c->pa, &c->b, &c->pb, cache, &out->r); break;
    case Q_DISTANCE: out->hit = (int)k->distance(&c->a, &c->pa, &c->b, &c->pb, cache, &out->r); break;
    default: out->hit = (int)k->penetration(&c->a, &c->pa, &c->b, &c->pb, cache, &out->r); break;
    }
}

static int same(const answer *a, const answer *b) { return a->hit == b->hit && memcmp(&a->r, &b->r, sizeof a->r) == 0; }

/* Counts differences, printing the first few. */
static unsigned report(const char *what, const kernel *k, int q, size_t i, const answer *a, const answer *b,
                       unsigned *printed)
{
    if (same(a, b)) return 0;
    if ((*printed)++ < 8)
        printf("  %s: %s %s %s: %d/%.9g (it %u) vs %d/%.9g (it %u)\n", what, k->name, query_name[q], set.cases[i].id,
               a->hit, a->r.distance, a->r.iterations, b->hit, b->r.distance, b->r.iterations);
    return 1;
}

static answer *alloc_answers(void)
{
    answer *a = calloc(set.count, sizeof *a);
    assert_non_null(a);
    return a;
}

static void test_repeat_and_reorder_without_cache(void **state)
{
    (void)state;
    answer *first = alloc_answers(), *again = alloc_answers(), *reordered = alloc_answers();
    unsigned bad = 0, printed = 0;
    for (int ki = 0; ki < 2; ++ki) {
        for (int q = 0; q < NQUERY; ++q) {
            for (size_t i = 0; i < set.count; ++i) query(&kernels[ki], q, &set.cases[i], NULL, &first[i], 0xa5);
            for (size_t i = 0; i < set.count; ++i) query(&kernels[ki], q, &set.cases[i], NULL, &again[i], 0x5a);
            for (size_t j = 0; j < set.count; ++j) {
                const size_t i = shuffled[j];
                query(&kernels[ki], q, &set.cases[i], NULL, &reordered[i], 0xff);
            }
            for (size_t i = 0; i < set.count; ++i) {
                bad += report("repeat", &kernels[ki], q, i, &first[i], &again[i], &printed);
                bad += report("shuffled", &kernels[ki], q, i, &first[i], &reordered[i], &printed);
            }
        }
    }
    printf("%zu cases x 2 kernels x 3 queries, 3 runs: %u differences\n", set.count, bad);
    free(first);
    free(again);
    free(reordered);
    assert_int_equal(bad, 0);
}

/* Runs every case twice on its own cache (cold, warm), in the given order. */
static void run_cached(const kernel *k, int q, const size_t *order, mink_cache *caches, answer *cold, answer *warm,
                       uint8_t pattern)
{
    for (size_t i = 0; i < set.count; ++i) mink_cache_reset(&caches[i]);
    for (size_t j = 0; j < set.count; ++j) {
        const size_t i = order ? order[j] : j;
        query(k, q, &set.cases[i], &caches[i], &cold[i], pattern);
        query(k, q, &set.cases[i], &caches[i], &warm[i], (uint8_t)~pattern);
    }
}

static void test_cached_runs_identical(void **state)
{
    (void)state;
    answer *cold1 = alloc_answers(), *warm1 = alloc_answers(), *cold2 = alloc_answers(), *warm2 = alloc_answers();
    mink_cache *c1 = calloc(set.count, sizeof *c1), *c2 = calloc(set.count, sizeof *c2);
    assert_non_null(c1);
    assert_non_null(c2);
    unsigned bad = 0, printed = 0, cache_bad = 0;
    for (int ki = 0; ki < 2; ++ki) {
        for (int q = 0; q < NQUERY; ++q) {
            run_cached(&kernels[ki], q, NULL, c1, cold1, warm1, 0xa5);
            run_cached(&kernels[ki], q, shuffled, c2, cold2, warm2, 0x3c);
            for (size_t i = 0; i < set.count; ++i) {
                bad += report("cold, cache reset", &kernels[ki], q, i, &cold1[i], &cold2[i], &printed);
                bad += report("warm, cache reset", &kernels[ki], q, i, &warm1[i], &warm2[i], &printed);
                if (memcmp(&c1[i], &c2[i], sizeof c1[i]) != 0 && cache_bad++ < 8)
                    printf("  %s %s %s: cache contents differ\n", kernels[ki].name, query_name[q], set.cases[i].id);
            }
        }
    }
    printf("%zu cases x 2 kernels x 3 queries, cold and warm, twice: %u result and %u cache differences\n", set.count,
           bad, cache_bad);
    free(cold1);
    free(warm1);
    free(cold2);
    free(warm2);
    free(c1);
    free(c2);
    assert_int_equal(bad + cache_bad, 0);
}

/* "A zero-filled cache is valid and empty": it answers exactly like NULL. */
static void test_empty_cache_is_no_cache(void **state)
{
    (void)state;
    unsigned bad = 0, printed = 0;
    for (int ki = 0; ki < 2; ++ki) {
        for (int q = 0; q < NQUERY; ++q) {
            for (size_t i = 0; i < set.count; ++i) {
                answer none, empty;
                mink_cache c;
                memset(&c, 0, sizeof c);
                query(&kernels[ki], q, &set.cases[i], NULL, &none, 0x11);
                query(&kernels[ki], q, &set.cases[i], &c, &empty, 0xee);
                bad += report("empty cache vs none", &kernels[ki], q, i, &none, &empty, &printed);
            }
        }
    }
    printf("%zu cases x 2 kernels x 3 queries: %u differences\n", set.count, bad);
    assert_int_equal(bad, 0);
}

static void test_batch_repeat(void **state)
{
    (void)state;
    const size_t n = set.count;
    mink_pair *pairs = calloc(n, sizeof *pairs);
    mink_result *r1 = malloc(n * sizeof *r1), *r2 = malloc(n * sizeof *r2);
    int *h1 = malloc(n * sizeof *h1), *h2 = malloc(n * sizeof *h2);
    assert_non_null(pairs);
    assert_non_null(r1);
    assert_non_null(r2);
    assert_non_null(h1);
    assert_non_null(h2);
    for (size_t i = 0; i < n; ++i) {
        pairs[i].a = &set.cases[i].a;
        pairs[i].pa = set.cases[i].pa;
        pairs[i].b = &set.cases[i].b;
        pairs[i].pb = set.cases[i].pb;
        pairs[i].cache = NULL;
    }
    memset(r1, 0xa5, n * sizeof *r1);
    memset(r2, 0x5a, n * sizeof *r2);
    mink_penetration_batch(pairs, n, r1);
    mink_penetration_batch(pairs, n, r2);
    memset(h1, 0xa5, n * sizeof *h1);
    memset(h2, 0x5a, n * sizeof *h2);
    mink_intersect_batch(pairs, n, h1);
    mink_intersect_batch(pairs, n, h2);
    unsigned bad = 0;
    for (size_t i = 0; i < n; ++i) {
        if (memcmp(&r1[i], &r2[i], sizeof r1[i]) != 0 || h1[i] != h2[i]) {
            if (bad < 8) printf("  batch %s: %.9g/%d vs %.9g/%d\n", set.cases[i].id, r1[i].distance, h1[i], r2[i].distance, h2[i]);
            bad++;
        }
    }
    printf("%zu pairs, penetration and intersect batches twice: %u differences\n", n, bad);
    free(pairs);
    free(r1);
    free(r2);
    free(h1);
    free(h2);
    assert_int_equal(bad, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_repeat_and_reorder_without_cache),
        cmocka_unit_test(test_cached_runs_identical),
        cmocka_unit_test(test_empty_cache_is_no_cache),
        cmocka_unit_test(test_batch_repeat),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
