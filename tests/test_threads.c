/* Thread safety: queries of both kernels on shared shapes from four threads
 * at once give, bit for bit, the answers of a single-threaded run.
 *
 * The shapes are bench.cases' (hulls of 8 to 1024 points, boxes, spheres,
 * capsules), shared read-only by every thread; caches and results are per
 * thread. Each thread starts at a different case and wraps around, so the
 * threads run different pairs, and then the same ones, at the same time.
 * cmocka's assertions are not thread-safe: the threads only compute, the
 * main thread compares after joining. */
#define _POSIX_C_SOURCE 200809L /* pthread_barrier_t under -std=c11 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <cmocka.h>

#include "cases.h"
#include "mink/mink_ref.h"

#define NTHREADS 4
/* Every thread runs the whole set this many times (more overlap in time). */
#define ROUNDS 2

/* What one case answers: per kernel (ref, simd), per query, with no cache,
 * with an empty cache and with that cache warm. */
enum { NO_CACHE, EMPTY_CACHE, WARM_CACHE, NCACHE };

typedef struct record {
    int hit[2][NCACHE];
    mink_result dist[2][NCACHE];
    mink_result pen[2][NCACHE];
} record;

typedef struct kernel {
    int (*intersect)(const mink_shape *, const mink_pose *, const mink_shape *, const mink_pose *, mink_cache *);
    mink_status (*distance)(const mink_shape *, const mink_pose *, const mink_shape *, const mink_pose *,
                            mink_cache *, mink_result *);
    mink_status (*penetration)(const mink_shape *, const mink_pose *, const mink_shape *, const mink_pose *,
                               mink_cache *, mink_result *);
} kernel;

static const kernel kernels[2] = {
    {mink_ref_intersect, mink_ref_distance, mink_ref_penetration},
    {mink_intersect, mink_distance, mink_penetration},
};

static case_set set;

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
    if (case_set_load(MINK_TEST_DATA "/bench.cases", &set, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    subsample(&set);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    case_set_free(&set);
    return 0;
}

static void run_case(const mink_case *c, record *r)
{
    /* results start zeroed so that memcmp compares only what queries write */
    memset(r, 0, sizeof *r);
    for (int k = 0; k < 2; ++k) {
        const kernel *q = &kernels[k];
        mink_cache ci, cd, cp;
        mink_cache_reset(&ci);
        mink_cache_reset(&cd);
        mink_cache_reset(&cp);
        r->hit[k][NO_CACHE] = q->intersect(&c->a, &c->pa, &c->b, &c->pb, NULL);
        r->hit[k][EMPTY_CACHE] = q->intersect(&c->a, &c->pa, &c->b, &c->pb, &ci);
        r->hit[k][WARM_CACHE] = q->intersect(&c->a, &c->pa, &c->b, &c->pb, &ci);
        q->distance(&c->a, &c->pa, &c->b, &c->pb, NULL, &r->dist[k][NO_CACHE]);
        q->distance(&c->a, &c->pa, &c->b, &c->pb, &cd, &r->dist[k][EMPTY_CACHE]);
        q->distance(&c->a, &c->pa, &c->b, &c->pb, &cd, &r->dist[k][WARM_CACHE]);
        q->penetration(&c->a, &c->pa, &c->b, &c->pb, NULL, &r->pen[k][NO_CACHE]);
        q->penetration(&c->a, &c->pa, &c->b, &c->pb, &cp, &r->pen[k][EMPTY_CACHE]);
        q->penetration(&c->a, &c->pa, &c->b, &c->pb, &cp, &r->pen[k][WARM_CACHE]);
    }
}

/* The batch entry points over the whole set, cold then warm (caches[]). */
typedef struct batch_record {
    mink_result *pen_cold, *pen_warm;
    int *hit_cold, *hit_warm;
} batch_record;

static int batch_alloc(batch_record *b, size_t n)
{
    b->pen_cold = calloc(n, sizeof *b->pen_cold);
    b->pen_warm = calloc(n, sizeof *b->pen_warm);
    b->hit_cold = calloc(n, sizeof *b->hit_cold);
    b->hit_warm = calloc(n, sizeof *b->hit_warm);
    return b->pen_cold && b->pen_warm && b->hit_cold && b->hit_warm;
}

static void batch_free(batch_record *b)
{
    free(b->pen_cold);
    free(b->pen_warm);
    free(b->hit_cold);
    free(b->hit_warm);
}

static int run_batches(batch_record *b)
{
    const size_t n = set.count;
    mink_pair *pairs = calloc(n, sizeof *pairs);
    mink_cache *caches = calloc(n, sizeof *caches); /* zero-filled: empty */
    if (!pairs || !caches) {
        free(pairs);
        free(caches);
        return 0;
    }
    for (size_t i = 0; i < n; ++i) {
        const mink_case *c = &set.cases[i];
        pairs[i].a = &c->a;
        pairs[i].pa = c->pa;
        pairs[i].b = &c->b;
        pairs[i].pb = c->pb;
        pairs[i].cache = &caches[i];
    }
    mink_penetration_batch(pairs, n, b->pen_cold);
    mink_penetration_batch(pairs, n, b->pen_warm);
    memset(caches, 0, n * sizeof *caches);
    mink_intersect_batch(pairs, n, b->hit_cold);
    mink_intersect_batch(pairs, n, b->hit_warm);
    free(pairs);
    free(caches);
    return 1;
}

#define KEEP_BAD 4 /* differing records a thread keeps for the report */

typedef struct worker {
    pthread_t thread;
    pthread_barrier_t *start;
    size_t first;              /* case this thread starts at */
    const record *want;        /* the single-threaded answers (read only) */
    const batch_record *want_batch;
    batch_record batch;
    unsigned bad, bad_batch;   /* records and batch calls that differ */
    size_t bad_index[KEEP_BAD];
    record bad_record[KEEP_BAD];
    int ok;
} worker;

/* Runs and compares in the thread: memcmp is thread-safe, cmocka is not. */
static void *work(void *arg)
{
    worker *w = arg;
    const size_t n = set.count;
    record r;
    pthread_barrier_wait(w->start);
    w->ok = 1;
    for (int round = 0; round < ROUNDS; ++round) {
        for (size_t j = 0; j < n; ++j) {
            const size_t i = (w->first + j) % n;
            run_case(&set.cases[i], &r);
            if (memcmp(&r, &w->want[i], sizeof r) != 0) {
                if (w->bad < KEEP_BAD) {
                    w->bad_index[w->bad] = i;
                    w->bad_record[w->bad] = r;
                }
                w->bad++;
            }
        }
        if (!run_batches(&w->batch)) {
            w->ok = 0;
            continue;
        }
        w->bad_batch += memcmp(w->want_batch->pen_cold, w->batch.pen_cold, n * sizeof(mink_result)) != 0;
        w->bad_batch += memcmp(w->want_batch->pen_warm, w->batch.pen_warm, n * sizeof(mink_result)) != 0;
        w->bad_batch += memcmp(w->want_batch->hit_cold, w->batch.hit_cold, n * sizeof(int)) != 0;
        w->bad_batch += memcmp(w->want_batch->hit_warm, w->batch.hit_warm, n * sizeof(int)) != 0;
    }
    return NULL;
}

static const char *const cache_name[NCACHE] = {"no cache", "empty cache", "warm cache"};

static void print_difference(int t, const record *want, const record *got, const char *id)
{
    for (int k = 0; k < 2; ++k)
        for (int m = 0; m < NCACHE; ++m) {
            const char *kn = k ? "simd" : "ref";
            if (want->hit[k][m] != got->hit[k][m])
                printf("  thread %d, %s, %s, %s intersect: %d vs %d\n", t, id, kn, cache_name[m], want->hit[k][m],
                       got->hit[k][m]);
            if (memcmp(&want->dist[k][m], &got->dist[k][m], sizeof(mink_result)) != 0)
                printf("  thread %d, %s, %s, %s distance: %.9g vs %.9g\n", t, id, kn, cache_name[m],
                       want->dist[k][m].distance, got->dist[k][m].distance);
            if (memcmp(&want->pen[k][m], &got->pen[k][m], sizeof(mink_result)) != 0)
                printf("  thread %d, %s, %s, %s penetration: %.9g vs %.9g\n", t, id, kn, cache_name[m],
                       want->pen[k][m].distance, got->pen[k][m].distance);
        }
}

static void test_threads_match_single_thread(void **state)
{
    (void)state;
    const size_t n = set.count;
    assert_true(n > 0);

    /* the single-threaded answers */
    record *want = calloc(n, sizeof *want);
    batch_record want_batch;
    assert_non_null(want);
    assert_true(batch_alloc(&want_batch, n));
    for (size_t i = 0; i < n; ++i) run_case(&set.cases[i], &want[i]);
    assert_true(run_batches(&want_batch));

    pthread_barrier_t start;
    assert_int_equal(pthread_barrier_init(&start, NULL, NTHREADS), 0);
    worker w[NTHREADS];
    for (int t = 0; t < NTHREADS; ++t) {
        memset(&w[t], 0, sizeof w[t]);
        w[t].start = &start;
        w[t].first = (size_t)t * n / NTHREADS;
        w[t].want = want;
        w[t].want_batch = &want_batch;
        assert_true(batch_alloc(&w[t].batch, n));
    }
    for (int t = 0; t < NTHREADS; ++t) assert_int_equal(pthread_create(&w[t].thread, NULL, work, &w[t]), 0);
    for (int t = 0; t < NTHREADS; ++t) assert_int_equal(pthread_join(w[t].thread, NULL), 0);
    pthread_barrier_destroy(&start);

    unsigned mismatches = 0;
    for (int t = 0; t < NTHREADS; ++t) {
        assert_true(w[t].ok);
        for (unsigned j = 0; j < w[t].bad && j < KEEP_BAD; ++j)
            print_difference(t, &want[w[t].bad_index[j]], &w[t].bad_record[j], set.cases[w[t].bad_index[j]].id);
        if (w[t].bad_batch) printf("  thread %d: %u batch calls differ\n", t, w[t].bad_batch);
        mismatches += w[t].bad + w[t].bad_batch;
        batch_free(&w[t].batch);
    }
    printf("%d threads x %d rounds x %zu cases x 2 kernels x 9 queries, plus batches: %u mismatches\n", NTHREADS,
           ROUNDS, n, mismatches);
    free(want);
    batch_free(&want_batch);
    assert_int_equal(mismatches, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threads_match_single_thread),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
