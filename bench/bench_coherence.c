/* Frame-coherence benchmarks (see bench_coherence.h): cold against warm
 * caches on the trajectories of traj.cases. */
#include "bench_coherence.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"
#include "mink/mink.h"
#include "mink/mink_ref.h"

#ifndef MINK_SIMD_NAME
#define MINK_SIMD_NAME "unknown"
#endif
#ifndef MINK_BENCH_TRAJ_DEFAULT
#define MINK_BENCH_TRAJ_DEFAULT "tests/data/traj.cases"
#endif

struct bc_bench {
    int query, impl, warm;
    size_t n;              /* timed frames                                        */
    mink_pair *pairs;      /* the timed frames, in file order; cache NULL (cold),
                              or the frame's trajectory cache (warm, all frames) */
    mink_result *out;      /* distance, penetration: one slot per timed frame     */
    mink_cache *caches;    /* warm, all frames: one per trajectory                */
    mink_cache *snaps;     /* warm intersect-sep: one per timed frame             */
    bq_stats stats;
};

static const char *g_path = MINK_BENCH_TRAJ_DEFAULT;
static int g_state;              /* 0 not loaded, 1 loaded, -1 failed          */
static char g_load_err[512];
static case_set g_traj;
static size_t *g_traj_of;        /* frame -> trajectory index                  */
static size_t g_ntraj;
static bc_bench *g_benches[BC_QUERY_COUNT][BC_IMPL_COUNT][2];

static const char *const query_names[BC_QUERY_COUNT] = {"intersect", "distance", "penetration",
                                                        "intersect-sep"};

const char *bc_query_name(int query)
{
    return query >= 0 && query < BC_QUERY_COUNT ? query_names[query] : "?";
}

int bc_query_base(int query)
{
    switch (query) {
    case BC_DISTANCE: return CASE_QUERY_DISTANCE;
    case BC_PENETRATION: return CASE_QUERY_PENETRATION;
    default: return CASE_QUERY_INTERSECT;
    }
}

const char *bc_impl_name(int impl) { return impl == 0 ? "ref" : "simd-" MINK_SIMD_NAME; }
int bc_impl_family(int impl) { return impl == 0 ? BQ_REF : BQ_SIMD; }

void bc_set_path(const char *path)
{
    if (path && *path)
        g_path = path;
}

const char *bc_path(void) { return g_path; }
size_t bc_trajectories(void) { return g_ntraj; }

static int load(char *err, size_t errlen)
{
    if (g_state == 0) {
        g_state = -1;
        if (case_set_load(g_path, &g_traj, g_load_err, sizeof g_load_err) != 0)
            goto out;
        if (g_traj.count == 0) {
            snprintf(g_load_err, sizeof g_load_err, "%s holds no frames", g_path);
            goto out;
        }
        g_traj_of = malloc(g_traj.count * sizeof *g_traj_of);
        if (!g_traj_of) {
            snprintf(g_load_err, sizeof g_load_err, "out of memory");
            goto out;
        }
        /* A trajectory: a run of consecutive frames of one group ("trajNN"). */
        char prev[128] = "", cur[128];
        g_ntraj = 0;
        for (size_t i = 0; i < g_traj.count; ++i) {
            case_group(g_traj.cases[i].id, cur, sizeof cur);
            if (i == 0 || strcmp(cur, prev) != 0) {
                g_ntraj++;
                memcpy(prev, cur, strlen(cur) + 1);
            }
            g_traj_of[i] = g_ntraj - 1;
        }
        g_state = 1;
    }
out:
    if (g_state < 0)
        snprintf(err, errlen, "%s", g_load_err);
    return g_state > 0 ? 0 : -1;
}

static void free_bench(bc_bench *b)
{
    if (!b)
        return;
    free(b->pairs);
    free(b->out);
    free(b->caches);
    free(b->snaps);
    free(b);
}

void bc_unload(void)
{
    for (int q = 0; q < BC_QUERY_COUNT; ++q)
        for (int i = 0; i < BC_IMPL_COUNT; ++i)
            for (int w = 0; w < 2; ++w) {
                free_bench(g_benches[q][i][w]);
                g_benches[q][i][w] = NULL;
            }
    if (g_state > 0)
        case_set_free(&g_traj);
    free(g_traj_of);
    g_traj_of = NULL;
    g_ntraj = 0;
    g_state = 0;
}

/* ---------------------------------------------------------------- timed passes
 * One function per (implementation, query) so the loop calls the API
 * directly: what is timed is the query plus a store of its result. The
 * caches are whatever the pairs point at. */

#define DEFINE_INTERSECT_PASS(fname, call)                                     \
    static double fname(const mink_pair *p, size_t n, mink_result *out)        \
    {                                                                          \
        (void)out;                                                             \
        long hits = 0;                                                         \
        for (size_t i = 0; i < n; ++i)                                         \
            hits += call(p[i].a, &p[i].pa, p[i].b, &p[i].pb, p[i].cache);      \
        return (double)hits;                                                   \
    }

#define DEFINE_RESULT_PASS(fname, call)                                        \
    static double fname(const mink_pair *p, size_t n, mink_result *out)        \
    {                                                                          \
        double sum = 0.0;                                                      \
        for (size_t i = 0; i < n; ++i) {                                       \
            call(p[i].a, &p[i].pa, p[i].b, &p[i].pb, p[i].cache, &out[i]);     \
            sum += out[i].distance;                                            \
        }                                                                      \
        return sum;                                                            \
    }

/* intersect-sep, warm: every frame starts from its snapshot. */
#define DEFINE_SNAPSHOT_PASS(fname, call)                                      \
    static double fname(const mink_pair *p, size_t n, const mink_cache *snap)  \
    {                                                                          \
        long hits = 0;                                                         \
        for (size_t i = 0; i < n; ++i) {                                       \
            mink_cache c = snap[i];                                            \
            hits += call(p[i].a, &p[i].pa, p[i].b, &p[i].pb, &c);              \
        }                                                                      \
        return (double)hits;                                                   \
    }

DEFINE_INTERSECT_PASS(pass_ref_intersect, mink_ref_intersect)
DEFINE_RESULT_PASS(pass_ref_distance, mink_ref_distance)
DEFINE_RESULT_PASS(pass_ref_penetration, mink_ref_penetration)
DEFINE_SNAPSHOT_PASS(pass_ref_intersect_snap, mink_ref_intersect)
DEFINE_INTERSECT_PASS(pass_simd_intersect, mink_intersect)
DEFINE_RESULT_PASS(pass_simd_distance, mink_distance)
DEFINE_RESULT_PASS(pass_simd_penetration, mink_penetration)
DEFINE_SNAPSHOT_PASS(pass_simd_intersect_snap, mink_intersect)

typedef double (*bc_pass_fn)(const mink_pair *, size_t, mink_result *);

static const bc_pass_fn passes[BC_IMPL_COUNT][3] = {
    {pass_ref_intersect, pass_ref_distance, pass_ref_penetration},
    {pass_simd_intersect, pass_simd_distance, pass_simd_penetration},
};

double bc_bench_pass(bc_bench *b)
{
    if (b->snaps)
        return b->impl == 0 ? pass_ref_intersect_snap(b->pairs, b->n, b->snaps)
                            : pass_simd_intersect_snap(b->pairs, b->n, b->snaps);
    if (b->caches) /* a new pass starts every trajectory over, caches empty */
        memset(b->caches, 0, g_ntraj * sizeof *b->caches);
    return passes[b->impl][bc_query_base(b->query)](b->pairs, b->n, b->out);
}

/* ---------------------------------------------------------------- checks */

/* One answer through the API function the timed pass calls (intersect: its
 * _ex twin, for the counters), with `cache` (NULL: cold), translated for
 * case_check as case_run does (intersect: distance 1 separated, 0 not). */
static void answer(int impl, int query, const mink_case *c, mink_cache *cache, mink_result *r)
{
    if (query != CASE_QUERY_INTERSECT) {
        case_run(c, impl == 0 ? CASE_KERNEL_REF : CASE_KERNEL_SIMD, query, cache, r);
        return;
    }
    mink_result info;
    memset(&info, 0, sizeof info);
    const int hit = impl == 0 ? mink_ref_intersect_ex(&c->a, &c->pa, &c->b, &c->pb, cache, &info)
                              : mink_intersect_ex(&c->a, &c->pa, &c->b, &c->pb, cache, &info);
    memset(r, 0, sizeof *r);
    if (hit < 0)
        r->status = MINK_ERR_INVALID;
    else
        r->distance = hit ? 0.0f : 1.0f;
    r->iterations = info.iterations;
    r->gjk_iterations = info.gjk_iterations;
    r->support_calls = info.support_calls;
}

static void tally(bq_stats *s, const mink_case *c, int query, const mink_result *r, double sums[3])
{
    char why[256] = "";
    const int ok = r->status >= 0 && case_check(c, query, r, why, sizeof why);
    if (r->status < 0 && !why[0])
        snprintf(why, sizeof why, "status %d", (int)r->status);
    if (ok)
        s->ok++;
    else if (!s->first_fail[0])
        snprintf(s->first_fail, sizeof s->first_fail, "%s: %s", c->id, why);
    s->n++;
    sums[0] += r->iterations;
    sums[1] += r->gjk_iterations;
    sums[2] += r->support_calls;
}

/* Answers every timed frame as the timed pass will (same order, same
 * caches) and checks the answers. frames[k]: the k-th timed frame's index. */
static void check_bench(bc_bench *b, const size_t *frames)
{
    const int query = bc_query_base(b->query);
    bq_stats *s = &b->stats;
    double sums[3] = {0.0, 0.0, 0.0};
    for (size_t k = 0; k < b->n; ++k) {
        const mink_case *c = &g_traj.cases[frames[k]];
        mink_result r;
        if (b->snaps) {
            mink_cache copy = b->snaps[k];
            answer(b->impl, query, c, &copy, &r);
        } else {
            answer(b->impl, query, c, b->caches ? &b->caches[g_traj_of[frames[k]]] : NULL, &r);
        }
        tally(s, c, query, &r, sums);
    }
    s->ok_frac = s->n ? (double)s->ok / (double)s->n : 0.0;
    s->has_iters = 1;
    if (s->n) {
        s->iters = sums[0] / (double)s->n;
        s->gjk_iters = sums[1] / (double)s->n;
        s->supports = sums[2] / (double)s->n;
    }
}

/* The intersect-sep snapshots: every frame queried warm in order; a
 * separated frame's snapshot is its trajectory's cache just before its own
 * query. */
static int take_snapshots(bc_bench *b)
{
    mink_cache *caches = calloc(g_ntraj, sizeof *caches);
    if (!caches)
        return -1;
    size_t k = 0;
    for (size_t i = 0; i < g_traj.count; ++i) {
        const mink_case *c = &g_traj.cases[i];
        mink_cache *cache = &caches[g_traj_of[i]];
        if (c->kind == CASE_SEP)
            b->snaps[k++] = *cache;
        mink_result r;
        answer(b->impl, CASE_QUERY_INTERSECT, c, cache, &r);
    }
    free(caches);
    return 0;
}

bc_bench *bc_bench_get(int query, int impl, int warm, char *err, size_t errlen)
{
    if (query < 0 || query >= BC_QUERY_COUNT || impl < 0 || impl >= BC_IMPL_COUNT) {
        snprintf(err, errlen, "no such benchmark");
        return NULL;
    }
    warm = warm != 0;
    if (g_benches[query][impl][warm])
        return g_benches[query][impl][warm];
    if (load(err, errlen) != 0)
        return NULL;

    bc_bench *b = calloc(1, sizeof *b);
    size_t *frames = calloc(g_traj.count, sizeof *frames);
    if (!b || !frames)
        goto oom;
    b->query = query;
    b->impl = impl;
    b->warm = warm;
    for (size_t i = 0; i < g_traj.count; ++i)
        if (query != BC_INTERSECT_SEP || g_traj.cases[i].kind == CASE_SEP)
            frames[b->n++] = i;
    if (b->n == 0) {
        snprintf(err, errlen, "%s holds no %s frames", g_path,
                 query == BC_INTERSECT_SEP ? "separated" : "");
        free(frames);
        free_bench(b);
        return NULL;
    }
    b->pairs = calloc(b->n, sizeof *b->pairs);
    b->out = calloc(b->n, sizeof *b->out);
    if (!b->pairs || !b->out)
        goto oom;
    if (warm && query == BC_INTERSECT_SEP) {
        b->snaps = calloc(b->n, sizeof *b->snaps);
        if (!b->snaps || take_snapshots(b) != 0)
            goto oom;
    } else if (warm) {
        b->caches = calloc(g_ntraj, sizeof *b->caches);
        if (!b->caches)
            goto oom;
    }
    for (size_t k = 0; k < b->n; ++k) {
        const mink_case *c = &g_traj.cases[frames[k]];
        b->pairs[k].a = &c->a;
        b->pairs[k].pa = c->pa;
        b->pairs[k].b = &c->b;
        b->pairs[k].pb = c->pb;
        b->pairs[k].cache = b->caches ? &b->caches[g_traj_of[frames[k]]] : NULL;
    }
    check_bench(b, frames);
    free(frames);
    g_benches[query][impl][warm] = b;
    return b;

oom:
    free(frames);
    free_bench(b);
    snprintf(err, errlen, "out of memory");
    return NULL;
}

const bq_stats *bc_bench_stats(const bc_bench *b) { return &b->stats; }
size_t bc_bench_queries(const bc_bench *b) { return b->n; }
