/* Contact-manifold benchmarks (see bench_manifold.h): groups, timed passes,
 * the check. */
#include "bench_manifold.h"

#include <stdio.h>
#include <stdlib.h>

#include "cases.h"
#include "mink/mink.h"
#include "mink/mink_ref.h"
#include "peers/peers.h"

#ifndef MINK_SIMD_NAME
#define MINK_SIMD_NAME "unknown"
#endif

typedef struct bm_group {
    const char *name;
    const mink_case *cases;  /* in a bq_groups split (this file's or the main one) */
    size_t count;
} bm_group;

typedef struct bm_impl {
    const char *name;               /* NULL: the peer's                */
    int family;
    const peer_manifold_api *peer;  /* BQ_PEER only                    */
} bm_impl;

static const bm_impl g_impls[] = {
    {"ref", BQ_REF, NULL},
    {"simd-" MINK_SIMD_NAME, BQ_SIMD, NULL},
#ifdef MINK_HAVE_BULLET
    {NULL, BQ_PEER, &peer_bullet_manifold},
    {NULL, BQ_PEER, &peer_bullet_gjk_manifold},
#endif
};
#define IMPL_COUNT (sizeof g_impls / sizeof g_impls[0])

struct bm_bench {
    size_t group, impl;
    mink_pair *pairs;            /* mink: the group's pairs, cache NULL (cold) */
    struct mink_manifold *out;   /* mink: one answer slot per case             */
    void *peer_ctx;              /* peers                                      */
    bq_stats stats;
};

static case_set g_set;
static int g_set_loaded;
static bq_groups *g_split;       /* the manifold file's groups */
static bm_group *g_groups;
static size_t g_group_count;
static bm_bench **g_benches;     /* [group][impl], built lazily */

static int polyhedral(int type) { return type == MINK_SHAPE_BOX || type == MINK_SHAPE_HULL; }

int bm_polyhedral_pair(const mink_case *c) { return polyhedral(c->sa.type) && polyhedral(c->sb.type); }

/* A group of boxes and hulls only: the main file's groups the family takes. */
static int polyhedral_group(const mink_case *cases, size_t n)
{
    for (size_t i = 0; i < n; ++i)
        if (!bm_polyhedral_pair(&cases[i]))
            return 0;
    return n > 0;
}

/* Appends the groups of a split; `all` 0: only the polyhedral ones. */
static int add_groups(const bq_groups *gs, int all)
{
    for (size_t g = 0; g < bq_groups_count(gs); ++g) {
        size_t n;
        const mink_case *cases = bq_groups_cases(gs, g, &n);
        if (!all && !polyhedral_group(cases, n))
            continue;
        bm_group *grown = realloc(g_groups, (g_group_count + 1) * sizeof *grown);
        if (!grown)
            return -1;
        g_groups = grown;
        g_groups[g_group_count++] = (bm_group){bq_groups_name(gs, g), cases, n};
    }
    return 0;
}

int bm_load(const char *path, char *err, size_t errlen)
{
    if (case_set_load(path, &g_set, err, errlen) != 0)
        return -1;
    g_set_loaded = 1;
    g_split = bq_groups_split(&g_set);
    if (!g_split || add_groups(g_split, 1) != 0 ||
        (bq_main_groups() && add_groups(bq_main_groups(), 0) != 0) ||
        !(g_benches = calloc(g_group_count * IMPL_COUNT + 1, sizeof *g_benches))) {
        snprintf(err, errlen, "out of memory reading %s", path);
        return -1;
    }
    return 0;
}

static void free_bench(bm_bench *b)
{
    if (b->peer_ctx)
        g_impls[b->impl].peer->release(b->peer_ctx);
    free(b->pairs);
    free(b->out);
    free(b);
}

void bm_unload(void)
{
    for (size_t k = 0; g_benches && k < g_group_count * IMPL_COUNT; ++k)
        if (g_benches[k])
            free_bench(g_benches[k]);
    free(g_benches);
    free(g_groups);
    bq_groups_free(g_split);
    if (g_set_loaded)
        case_set_free(&g_set);
    g_benches = NULL;
    g_groups = NULL;
    g_split = NULL;
    g_set_loaded = 0;
    g_group_count = 0;
}

size_t bm_group_count(void) { return g_group_count; }
const char *bm_group_name(size_t group) { return g_groups[group].name; }
size_t bm_impl_count(void) { return IMPL_COUNT; }
const char *bm_impl_name(size_t impl) { return g_impls[impl].peer ? g_impls[impl].peer->name : g_impls[impl].name; }
int bm_impl_family(size_t impl) { return g_impls[impl].family; }

int bm_impl_supports(size_t impl, size_t group)
{
    const bm_impl *m = &g_impls[impl];
    const bm_group *g = &g_groups[group];
    if (m->family != BQ_PEER)
        return 1;
    for (size_t i = 0; i < g->count; ++i)
        if (!m->peer->supports(&g->cases[i]))
            return 0;
    return 1;
}

/* ---------------------------------------------------------------- timed passes
 * One function per implementation (and cache use) so the loop calls the API
 * directly: what is timed is the query plus a store of its answer. */

#define DEFINE_MANIFOLD_PASSES(cold, snap, call)                                               \
    static double cold(const mink_pair *p, size_t n, struct mink_manifold *out)                \
    {                                                                                          \
        double sum = 0.0;                                                                      \
        for (size_t i = 0; i < n; ++i) {                                                       \
            call(p[i].a, &p[i].pa, p[i].b, &p[i].pb, BM_MARGIN, p[i].cache, &out[i]);          \
            sum += out[i].count;                                                               \
        }                                                                                      \
        return sum;                                                                            \
    }                                                                                          \
    static double snap(const mink_pair *p, size_t n, const mink_cache *snaps,                  \
                       struct mink_manifold *out)                                              \
    {                                                                                          \
        double sum = 0.0;                                                                      \
        for (size_t i = 0; i < n; ++i) {                                                       \
            mink_cache c = snaps[i];                                                           \
            call(p[i].a, &p[i].pa, p[i].b, &p[i].pb, BM_MARGIN, &c, &out[i]);                  \
            sum += out[i].count;                                                               \
        }                                                                                      \
        return sum;                                                                            \
    }

DEFINE_MANIFOLD_PASSES(pass_ref, pass_ref_snap, mink_ref_manifold)
DEFINE_MANIFOLD_PASSES(pass_simd, pass_simd_snap, mink_manifold)

double bm_pass(int family, const mink_pair *pairs, size_t n, const mink_cache *snaps,
               struct mink_manifold *out)
{
    if (family == BQ_REF)
        return snaps ? pass_ref_snap(pairs, n, snaps, out) : pass_ref(pairs, n, out);
    return snaps ? pass_simd_snap(pairs, n, snaps, out) : pass_simd(pairs, n, out);
}

double bm_bench_pass(bm_bench *b)
{
    const bm_impl *m = &g_impls[b->impl];
    if (m->family == BQ_PEER)
        return m->peer->pass(b->peer_ctx);
    return bm_pass(m->family, b->pairs, g_groups[b->group].count, NULL, b->out);
}

/* ---------------------------------------------------------------- checks */

void bm_answer(int family, const mink_case *c, mink_cache *cache, struct mink_manifold *m)
{
    case_run_manifold(c, family == BQ_REF ? CASE_KERNEL_REF : CASE_KERNEL_SIMD, BM_MARGIN, cache, m);
}

void bm_tally(bq_stats *s, const mink_case *c, const struct mink_manifold *m)
{
    char why[256] = "";
    if (case_check_manifold(c, BM_MARGIN, m, why, sizeof why))
        s->ok++;
    else if (!s->first_fail[0])
        snprintf(s->first_fail, sizeof s->first_fail, "%s: %s", c->id, why);
    s->n++;
    s->points += m->count; /* a sum until bm_stats_finish */
}

void bm_stats_finish(bq_stats *s)
{
    s->ok_frac = s->n ? (double)s->ok / (double)s->n : 0.0;
    s->has_points = 1;
    s->points = s->n ? s->points / (double)s->n : 0.0;
}

bm_bench *bm_bench_get(size_t group, size_t impl, char *err, size_t errlen)
{
    if (group >= g_group_count || impl >= IMPL_COUNT) {
        snprintf(err, errlen, "no such benchmark");
        return NULL;
    }
    bm_bench **slot = &g_benches[group * IMPL_COUNT + impl];
    if (*slot)
        return *slot;
    const bm_impl *m = &g_impls[impl];
    const bm_group *g = &g_groups[group];
    bm_bench *b = calloc(1, sizeof *b);
    if (!b) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    b->group = group;
    b->impl = impl;
    struct mink_manifold man;
    if (m->family == BQ_PEER) {
        b->peer_ctx = m->peer->prepare(g->cases, g->count, BM_MARGIN);
        if (!b->peer_ctx) {
            snprintf(err, errlen, "%s could not build the shapes of %s", bm_impl_name(impl), g->name);
            free_bench(b);
            return NULL;
        }
        for (size_t i = 0; i < g->count; ++i) {
            m->peer->answer(b->peer_ctx, i, &man);
            bm_tally(&b->stats, &g->cases[i], &man);
        }
    } else {
        b->pairs = calloc(g->count, sizeof *b->pairs);
        b->out = calloc(g->count, sizeof *b->out);
        if (!b->pairs || !b->out) {
            snprintf(err, errlen, "out of memory");
            free_bench(b);
            return NULL;
        }
        for (size_t i = 0; i < g->count; ++i) {
            const mink_case *c = &g->cases[i];
            b->pairs[i] = (mink_pair){&c->a, c->pa, &c->b, c->pb, NULL}; /* cold */
            bm_answer(m->family, c, NULL, &man);
            bm_tally(&b->stats, c, &man);
        }
    }
    bm_stats_finish(&b->stats);
    *slot = b;
    return b;
}

const bq_stats *bm_bench_stats(const bm_bench *b) { return &b->stats; }
size_t bm_bench_queries(const bm_bench *b) { return g_groups[b->group].count; }
