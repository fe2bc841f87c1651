/* Batch benchmarks (see bench_batch.h): the batch entry points against a
 * loop of single queries over the same pairs, and the two-thread variant.
 *
 * Standalone: compiled with -DMINK_BENCH_BATCH_MAIN this file has a main
 * that checks every kind, times each (kind, variant, query) best of a few
 * repetitions and prints pairs per second and the batch/loop ratios:
 *   cc -O2 -DMINK_BENCH_BATCH_MAIN -Iinclude -Ibench bench/bench_batch.c \
 *      <build>/kernel/libmink.a -lm -lpthread */
#define _POSIX_C_SOURCE 200809L

#include "bench_batch.h"
#include "mink/mink.h"
#include "tsc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Declared in mink.h once the multi-core entry points land there; repeated
 * here (an identical declaration is legal C). */
void mink_penetration_batch_mt(const mink_pair *pairs, size_t n, mink_result *out, unsigned threads);
void mink_intersect_batch_mt(const mink_pair *pairs, size_t n, int *out, unsigned threads);

/* ------------------------------------------------------------ state */

typedef struct bb_set {
    mink_shape *shapes; /* 2 per pair */
    mink_pair *pairs;
} bb_set;

static struct {
    bb_set set[BB_KIND_COUNT];
    size_t n;
    mink_result *results;
    int *hits;
} g_bb;

/* A sink the compiler cannot see through, so passes are not elided. */
static volatile float g_bb_sink;

const char *bench_batch_kind_name(int kind)
{
    static const char *const names[BB_KIND_COUNT] = {"box-box", "sphere-box", "capsule-capsule"};
    return kind >= 0 && kind < BB_KIND_COUNT ? names[kind] : "?";
}

const char *bench_batch_variant_name(int variant)
{
    static const char *const names[BB_VARIANT_COUNT] = {"batch", "loop", "batch-mt2"};
    return variant >= 0 && variant < BB_VARIANT_COUNT ? names[variant] : "?";
}

const char *bench_batch_query_name(int query)
{
    return query == BB_PENETRATION ? "penetration" : query == BB_INTERSECT ? "intersect" : "?";
}

/* ------------------------------------------------------------ generation */

/* splitmix64: seeded, the same sequence everywhere. */
static uint64_t bb_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static double bb_unit(uint64_t *s) { return (double)(bb_next(s) >> 11) * (1.0 / 9007199254740992.0); }
static double bb_range(uint64_t *s, double lo, double hi) { return lo + (hi - lo) * bb_unit(s); }

static mink_quat bb_quat(uint64_t *s)
{
    const double u1 = bb_unit(s), u2 = 6.283185307179586 * bb_unit(s), u3 = 6.283185307179586 * bb_unit(s);
    const double a = sqrt(1.0 - u1), b = sqrt(u1);
    const mink_quat q = {(float)(a * sin(u2)), (float)(a * cos(u2)), (float)(b * sin(u3)), (float)(b * cos(u3))};
    return q;
}

static mink_vec3 bb_dir(uint64_t *s)
{
    for (int i = 0; i < 1000; ++i) {
        const double x = bb_range(s, -1, 1), y = bb_range(s, -1, 1), z = bb_range(s, -1, 1);
        const double l = sqrt(x * x + y * y + z * z);
        if (l > 1e-3 && l <= 1.0) {
            const mink_vec3 v = {(float)(x / l), (float)(y / l), (float)(z / l)};
            return v;
        }
    }
    const mink_vec3 x = {1, 0, 0};
    return x;
}

/* Shapes sized like tests/data/bench.cases: box half extents 0.25-1,
 * capsules and spheres of comparable size. */
static void bb_shapes(int kind, uint64_t *s, mink_shape *a, mink_shape *b)
{
    switch (kind) {
    case BB_BOX_BOX:
        *a = mink_box((float)bb_range(s, 0.25, 1.0), (float)bb_range(s, 0.25, 1.0), (float)bb_range(s, 0.25, 1.0), 0.0f);
        *b = mink_box((float)bb_range(s, 0.25, 1.0), (float)bb_range(s, 0.25, 1.0), (float)bb_range(s, 0.25, 1.0), 0.0f);
        break;
    case BB_SPHERE_BOX:
        *a = mink_sphere((float)bb_range(s, 0.1, 0.8));
        *b = mink_box((float)bb_range(s, 0.25, 1.0), (float)bb_range(s, 0.25, 1.0), (float)bb_range(s, 0.25, 1.0), 0.0f);
        break;
    default:
        *a = mink_capsule((float)bb_range(s, 0.05, 0.5), (float)bb_range(s, 0.2, 1.0));
        *b = mink_capsule((float)bb_range(s, 0.05, 0.5), (float)bb_range(s, 0.2, 1.0));
        break;
    }
}

/* Pair i is penetrating when i's bit from the seed says so (about half):
 * placements are drawn until the single query agrees (at most 64 draws). */
static void bb_build(int kind, bb_set *set, size_t n, uint64_t *s)
{
    for (size_t i = 0; i < n; ++i) {
        mink_shape *a = &set->shapes[2 * i], *b = &set->shapes[2 * i + 1];
        mink_pair *p = &set->pairs[i];
        const int want_pen = (int)(bb_next(s) & 1u);
        for (int tries = 0; tries < 64; ++tries) {
            bb_shapes(kind, s, a, b);
            const double reach = a->extent + a->radius + b->extent + b->radius;
            const mink_vec3 d = bb_dir(s);
            const double dist = bb_range(s, 0.1, 1.1) * reach;
            p->a = a;
            p->b = b;
            p->cache = NULL;
            p->pa.p.x = (float)bb_range(s, -2, 2);
            p->pa.p.y = (float)bb_range(s, -2, 2);
            p->pa.p.z = (float)bb_range(s, -2, 2);
            p->pa.q = bb_quat(s);
            p->pb.p.x = p->pa.p.x + (float)(dist * d.x);
            p->pb.p.y = p->pa.p.y + (float)(dist * d.y);
            p->pb.p.z = p->pa.p.z + (float)(dist * d.z);
            p->pb.q = bb_quat(s);
            mink_result r;
            mink_penetration(p->a, &p->pa, p->b, &p->pb, NULL, &r);
            if ((r.distance < 0.0f) == (want_pen != 0)) break;
        }
    }
}

void bench_batch_teardown(void)
{
    for (int k = 0; k < BB_KIND_COUNT; ++k) {
        free(g_bb.set[k].shapes);
        free(g_bb.set[k].pairs);
        g_bb.set[k].shapes = NULL;
        g_bb.set[k].pairs = NULL;
    }
    free(g_bb.results);
    free(g_bb.hits);
    g_bb.results = NULL;
    g_bb.hits = NULL;
    g_bb.n = 0;
}

int bench_batch_setup(size_t pairs, uint64_t seed)
{
    bench_batch_teardown();
    if (pairs == 0) return -1;
    uint64_t s = seed;
    for (int k = 0; k < BB_KIND_COUNT; ++k) {
        g_bb.set[k].shapes = calloc(2 * pairs, sizeof(mink_shape));
        g_bb.set[k].pairs = calloc(pairs, sizeof(mink_pair));
        if (!g_bb.set[k].shapes || !g_bb.set[k].pairs) {
            bench_batch_teardown();
            return -1;
        }
        bb_build(k, &g_bb.set[k], pairs, &s);
    }
    g_bb.results = calloc(pairs, sizeof(mink_result));
    g_bb.hits = calloc(pairs, sizeof(int));
    if (!g_bb.results || !g_bb.hits) {
        bench_batch_teardown();
        return -1;
    }
    g_bb.n = pairs;
    return 0;
}

size_t bench_batch_pairs(void) { return g_bb.n; }

/* ------------------------------------------------------------ one pass */

static void bb_pass(int kind, int variant, int query, mink_result *res, int *hits)
{
    const mink_pair *pairs = g_bb.set[kind].pairs;
    const size_t n = g_bb.n;
    if (query == BB_PENETRATION) {
        if (variant == BB_BATCH) {
            mink_penetration_batch(pairs, n, res);
        } else if (variant == BB_LOOP) {
            for (size_t i = 0; i < n; ++i) mink_penetration(pairs[i].a, &pairs[i].pa, pairs[i].b, &pairs[i].pb, NULL, &res[i]);
        } else {
            mink_penetration_batch_mt(pairs, n, res, 2);
        }
    } else {
        if (variant == BB_BATCH) {
            mink_intersect_batch(pairs, n, hits);
        } else if (variant == BB_LOOP) {
            for (size_t i = 0; i < n; ++i) hits[i] = mink_intersect(pairs[i].a, &pairs[i].pa, pairs[i].b, &pairs[i].pb, NULL);
        } else {
            mink_intersect_batch_mt(pairs, n, hits, 2);
        }
    }
}

double bench_batch_run(int kind, int variant, int query, size_t iters)
{
    if (kind < 0 || kind >= BB_KIND_COUNT || variant < 0 || variant >= BB_VARIANT_COUNT || query < 0 ||
        query >= BB_QUERY_COUNT || g_bb.n == 0)
        return -1.0;
    const uint64_t t0 = mink_clock_ns();
    for (size_t it = 0; it < iters; ++it) {
        bb_pass(kind, variant, query, g_bb.results, g_bb.hits);
        g_bb_sink = query == BB_PENETRATION ? g_bb.results[it % g_bb.n].distance : (float)g_bb.hits[it % g_bb.n];
    }
    return (double)(mink_clock_ns() - t0);
}

/* ------------------------------------------------------------ check */

/* FORMAT.md's L: max(1, largest |coordinate| of a center) plus the sizes
 * (a bound of the largest |coordinate| of the shapes). */
static double bb_scale(const mink_pair *p)
{
    const mink_vec3 c[2] = {p->pa.p, p->pb.p};
    double m = 0.0;
    for (int i = 0; i < 2; ++i) {
        const double v = fmax(fabs(c[i].x), fmax(fabs(c[i].y), fabs(c[i].z)));
        if (v > m) m = v;
    }
    m += fmax(p->a->extent + p->a->radius, p->b->extent + p->b->radius);
    return fmax(1.0, m);
}

int bench_batch_check(int kind, double *pen_fraction, char *why, size_t whylen)
{
    if (why && whylen) why[0] = '\0';
    if (kind < 0 || kind >= BB_KIND_COUNT || g_bb.n == 0) {
        if (why) snprintf(why, whylen, "no setup or bad kind");
        return 0;
    }
    const size_t n = g_bb.n;
    const mink_pair *pairs = g_bb.set[kind].pairs;
    mink_result *single = calloc(n, sizeof *single), *batch = calloc(n, sizeof *batch), *mt = calloc(n, sizeof *mt);
    int *hs = calloc(n, sizeof *hs), *hb = calloc(n, sizeof *hb), *hm = calloc(n, sizeof *hm);
    int ok = single && batch && mt && hs && hb && hm;
    if (!ok && why) snprintf(why, whylen, "out of memory");
    if (ok) {
        bb_pass(kind, BB_LOOP, BB_PENETRATION, single, NULL);
        bb_pass(kind, BB_BATCH, BB_PENETRATION, batch, NULL);
        bb_pass(kind, BB_BATCH_MT2, BB_PENETRATION, mt, NULL);
        bb_pass(kind, BB_LOOP, BB_INTERSECT, NULL, hs);
        bb_pass(kind, BB_BATCH, BB_INTERSECT, NULL, hb);
        bb_pass(kind, BB_BATCH_MT2, BB_INTERSECT, NULL, hm);
        size_t pen = 0;
        for (size_t i = 0; i < n && ok; ++i) {
            const double L = bb_scale(&pairs[i]);
            pen += single[i].distance < 0.0f;
            if (batch[i].status != single[i].status || fabs((double)batch[i].distance - single[i].distance) > 1e-4 * L) {
                ok = 0;
                if (why)
                    snprintf(why, whylen, "%s pair %zu: batch distance %.9g (status %d), single %.9g (status %d)",
                             bench_batch_kind_name(kind), i, batch[i].distance, batch[i].status, single[i].distance,
                             single[i].status);
            } else if (memcmp(&batch[i], &mt[i], sizeof mt[i]) != 0 || hb[i] != hm[i]) {
                ok = 0;
                if (why) snprintf(why, whylen, "%s pair %zu: batch-mt2 differs from batch", bench_batch_kind_name(kind), i);
            } else if (hb[i] != hs[i] && fabs(single[i].distance) > 1e-5 * L) {
                ok = 0;
                if (why)
                    snprintf(why, whylen, "%s pair %zu: batch intersect %d, single %d (distance %.9g)",
                             bench_batch_kind_name(kind), i, hb[i], hs[i], single[i].distance);
            }
        }
        if (pen_fraction) *pen_fraction = (double)pen / (double)n;
    }
    free(single);
    free(batch);
    free(mt);
    free(hs);
    free(hb);
    free(hm);
    return ok;
}

/* ------------------------------------------------------------ standalone */

#ifdef MINK_BENCH_BATCH_MAIN
/* Best of `reps` timings of passes repeated for about 50 ms. */
static double bb_best_ns_per_pair(int kind, int variant, int query, int reps)
{
    size_t iters = 1;
    double t = bench_batch_run(kind, variant, query, iters);
    while (t < 5e7 && iters < (1u << 20)) {
        iters *= 2;
        t = bench_batch_run(kind, variant, query, iters);
    }
    double best = t / (double)iters;
    for (int r = 1; r < reps; ++r) {
        const double tr = bench_batch_run(kind, variant, query, iters) / (double)iters;
        if (tr < best) best = tr;
    }
    return best / (double)bench_batch_pairs();
}

int main(int argc, char **argv)
{
    const size_t n = argc > 1 ? (size_t)strtoul(argv[1], NULL, 10) : 4096;
    if (bench_batch_setup(n, 12345) != 0) {
        fprintf(stderr, "setup failed\n");
        return 1;
    }
    printf("%zu pairs per kind; Mpairs/s (best of 5); ratio = batch / loop\n", n);
    printf("%-16s %-12s %10s %10s %10s %8s %8s\n", "kind", "query", "loop", "batch", "batch-mt2", "batch/x", "mt2/x");
    int status = 0;
    for (int k = 0; k < BB_KIND_COUNT; ++k) {
        char why[512];
        double pen = 0.0;
        if (!bench_batch_check(k, &pen, why, sizeof why)) {
            fprintf(stderr, "CHECK FAILED: %s\n", why);
            status = 1;
        }
        for (int q = 0; q < BB_QUERY_COUNT; ++q) {
            const double loop = bb_best_ns_per_pair(k, BB_LOOP, q, 5);
            const double batch = bb_best_ns_per_pair(k, BB_BATCH, q, 5);
            const double mt = bb_best_ns_per_pair(k, BB_BATCH_MT2, q, 5);
            printf("%-16s %-12s %10.2f %10.2f %10.2f %7.2fx %7.2fx   (%.0f%% penetrating)\n", bench_batch_kind_name(k),
                   bench_batch_query_name(q), 1e3 / loop, 1e3 / batch, 1e3 / mt, loop / batch, loop / mt, 100.0 * pen);
        }
    }
    bench_batch_teardown();
    return status;
}
#endif
