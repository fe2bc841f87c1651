/* Frame-coherence benchmarks (see bench_coherence.h): cold against warm
 * caches on the trajectories of traj.cases. */
#include "bench_coherence.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_manifold.h"
#include "cases.h"
#include "mink/mink.h"
#include "mink/mink_ref.h"
#include "peers/peers.h"

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
    struct mink_manifold *man; /* manifolds: one slot per timed frame             */
    mink_cache *caches;    /* warm, all frames: one per trajectory                */
    mink_cache *snaps;     /* warm subsets (intersect-sep, manifold-held): one per
                              timed frame                                          */
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
                                                        "intersect-sep", "manifold", "manifold-held"};

static int is_manifold(int query) { return query == BC_MANIFOLD || query == BC_MANIFOLD_HELD; }
/* The queries timed on a subset of the frames, each from its cache snapshot. */
static int is_subset(int query) { return query == BC_INTERSECT_SEP || query == BC_MANIFOLD_HELD; }

const char *bc_query_name(int query)
{
    return query >= 0 && query < BC_QUERY_COUNT ? query_names[query] : "?";
}

int bc_query_base(int query)
{
    switch (query) {
    case BC_DISTANCE: return CASE_QUERY_DISTANCE;
    case BC_PENETRATION: return CASE_QUERY_PENETRATION;
    case BC_MANIFOLD:
    case BC_MANIFOLD_HELD: return -1;
    default: return CASE_QUERY_INTERSECT;
    }
}

const char *bc_query_selector(int query)
{
    return is_manifold(query) ? "manifold" : bq_query_name(bc_query_base(query));
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
    free(b->man);
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
    if (is_manifold(b->query)) {
        if (b->caches)
            memset(b->caches, 0, g_ntraj * sizeof *b->caches);
        return bm_pass(bc_impl_family(b->impl), b->pairs, b->n, b->snaps, b->man);
    }
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
        mink_cache copy, *cache = b->caches ? &b->caches[g_traj_of[frames[k]]] : NULL;
        if (b->snaps) {
            copy = b->snaps[k];
            cache = &copy;
        }
        if (is_manifold(b->query)) {
            struct mink_manifold m;
            bm_answer(bc_impl_family(b->impl), c, cache, &m);
            bm_tally(s, c, &m);
            continue;
        }
        mink_result r;
        answer(b->impl, query, c, cache, &r);
        tally(s, c, query, &r, sums);
    }
    if (is_manifold(b->query)) {
        bm_stats_finish(s);
        return;
    }
    s->ok_frac = s->n ? (double)s->ok / (double)s->n : 0.0;
    s->has_iters = 1;
    if (s->n) {
        s->iters = sums[0] / (double)s->n;
        s->gjk_iters = sums[1] / (double)s->n;
        s->supports = sums[2] / (double)s->n;
    }
}

/* The subsets' snapshots: every frame queried warm in order (intersect or
 * manifold); a picked frame's snapshot is its trajectory's cache just before
 * its own query. */
static int take_snapshots(bc_bench *b, const unsigned char *pick)
{
    mink_cache *caches = calloc(g_ntraj, sizeof *caches);
    if (!caches)
        return -1;
    size_t k = 0;
    for (size_t i = 0; i < g_traj.count; ++i) {
        const mink_case *c = &g_traj.cases[i];
        mink_cache *cache = &caches[g_traj_of[i]];
        if (pick[i])
            b->snaps[k++] = *cache;
        if (is_manifold(b->query)) {
            struct mink_manifold m;
            bm_answer(bc_impl_family(b->impl), c, cache, &m);
        } else {
            mink_result r;
            answer(b->impl, CASE_QUERY_INTERSECT, c, cache, &r);
        }
    }
    free(caches);
    return 0;
}

/* A direction of the world in the local frame of pose q. */
static void local_dir(const case_pose *q, mink_vec3 n, double out[3])
{
    double m[9];
    peer_rotation(q->q, m);
    for (int r = 0; r < 3; ++r)
        out[r] = m[r] * n.x + m[3 + r] * n.y + m[6 + r] * n.z;
}

/* The same direction in the local frames of q0 and q1, within 1e-3 rad. */
static int same_local_dir(const case_pose *q0, mink_vec3 n0, const case_pose *q1, mink_vec3 n1)
{
    double a[3], b[3];
    local_dir(q0, n0, a);
    local_dir(q1, n1, b);
    const double dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    const double len = sqrt((a[0] * a[0] + a[1] * a[1] + a[2] * a[2]) * (b[0] * b[0] + b[1] * b[1] + b[2] * b[2]));
    return len > 0.0 && dot >= cos(1e-3) * len;
}

/* coherence/manifold-held: the frames whose previous frame's deciding
 * feature most likely still decides. The API has no flag for a warm answer
 * rebuilt from its cache, so the frames are picked from the cold answers of
 * the implementation (computed once here; cold and warm then time the same
 * frames): frame k, with frame k - 1 of the same trajectory, both answered,
 * - both beyond the margin (count 0): the cached separating axis or feature
 *   is the warm query's first test, and on these smooth trajectories it
 *   still separates by more than the margin;
 * - both in contact, a pair of boxes or hulls (whose manifolds come from a
 *   deciding face or edge pair), with the same normal within 1e-3 rad in
 *   A's frame or in B's: the same face of A or of B still decides.
 * Pairs with a sphere or a capsule in contact take their normal from
 * GJK/EPA, not from a cached feature: not picked. A frame picked wrongly
 * only dilutes the warm speedup. */
static int held_frames(int impl, unsigned char *pick)
{
    struct mink_manifold *cold = malloc(g_traj.count * sizeof *cold);
    if (!cold)
        return -1;
    for (size_t i = 0; i < g_traj.count; ++i)
        bm_answer(bc_impl_family(impl), &g_traj.cases[i], NULL, &cold[i]);
    for (size_t i = 0; i < g_traj.count; ++i) {
        const struct mink_manifold *m = &cold[i], *prev = i ? &cold[i - 1] : NULL;
        const mink_case *c = &g_traj.cases[i], *pc = i ? &g_traj.cases[i - 1] : NULL;
        int held = prev && g_traj_of[i] == g_traj_of[i - 1] && m->status >= 0 && prev->status >= 0;
        if (held && (m->count || prev->count))
            held = m->count && prev->count && bm_polyhedral_pair(c) &&
                   (same_local_dir(&pc->qa, prev->normal, &c->qa, m->normal) ||
                    same_local_dir(&pc->qb, prev->normal, &c->qb, m->normal));
        pick[i] = (unsigned char)held;
    }
    free(cold);
    return 0;
}

/* pick[i]: frame i is timed. */
static int pick_frames(int query, int impl, unsigned char *pick)
{
    if (query == BC_MANIFOLD_HELD)
        return held_frames(impl, pick);
    for (size_t i = 0; i < g_traj.count; ++i)
        pick[i] = query != BC_INTERSECT_SEP || g_traj.cases[i].kind == CASE_SEP;
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
    unsigned char *pick = malloc(g_traj.count);
    if (!b || !frames || !pick)
        goto oom;
    b->query = query;
    b->impl = impl;
    b->warm = warm;
    if (pick_frames(query, impl, pick) != 0)
        goto oom;
    for (size_t i = 0; i < g_traj.count; ++i)
        if (pick[i])
            frames[b->n++] = i;
    if (b->n == 0) {
        snprintf(err, errlen, "%s holds no %sframes", g_path,
                 query == BC_INTERSECT_SEP ? "separated " : query == BC_MANIFOLD_HELD ? "held " : "");
        free(frames);
        free(pick);
        free_bench(b);
        return NULL;
    }
    b->pairs = calloc(b->n, sizeof *b->pairs);
    if (is_manifold(query))
        b->man = calloc(b->n, sizeof *b->man);
    else
        b->out = calloc(b->n, sizeof *b->out);
    if (!b->pairs || !(b->out || b->man))
        goto oom;
    if (warm && is_subset(query)) {
        b->snaps = calloc(b->n, sizeof *b->snaps);
        if (!b->snaps || take_snapshots(b, pick) != 0)
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
    free(pick);
    g_benches[query][impl][warm] = b;
    return b;

oom:
    free(frames);
    free(pick);
    free_bench(b);
    snprintf(err, errlen, "out of memory");
    return NULL;
}

const bq_stats *bc_bench_stats(const bc_bench *b) { return &b->stats; }
size_t bc_bench_queries(const bc_bench *b) { return b->n; }
