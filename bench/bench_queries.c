/* Benchmark bodies (see bench_queries.h): group split, per-implementation
 * timed passes, the correctness pass, and the peer check. */
#include "bench_queries.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"
#include "mink/mink.h"
#include "mink/mink_ref.h"
#include "peers/peers.h"

#ifndef MINK_SIMD_NAME
#define MINK_SIMD_NAME "unknown"
#endif

#define MAX_IMPLS 12
#define GROUP_NAME_MAX 128

typedef struct bq_group {
    char name[GROUP_NAME_MAX];
    mink_case *cases;   /* copies of the set's cases (hull memory stays in the set) */
    size_t count, cap;
} bq_group;

struct bq_groups {
    bq_group *g;
    size_t count;
};

typedef struct bq_impl {
    char name[48];
    int family;
    const peer_api *peer;  /* BQ_PEER only */
    /* BQ_PEER: 1 if the peer takes the case's pair, NULL: every pair. A group
     * is timed for a peer only when it takes every case of the group. */
    int (*takes)(const mink_case *c);
} bq_impl;

struct bq_bench {
    int query;
    size_t impl;
    const bq_group *g;
    mink_pair *pairs;      /* mink: the group's pairs, cache NULL (cold queries) */
    mink_result *out;      /* mink: one result slot per case                    */
    void *peer_ctx;        /* peers: shared by the three queries of a group     */
    bq_stats stats;
};

static case_set g_set;
static bq_groups *g_main;     /* the groups of g_set */
static bq_group *g_groups;    /* g_main's, for short */
static size_t g_group_count;
static bq_impl g_impls[MAX_IMPLS];
static size_t g_impl_count;
/* Built lazily, [query][group][impl]. */
static bq_bench **g_benches;
/* Peer contexts, [group][impl]: prepared once per group. */
static void **g_peer_ctx;

static const char *const query_names[BQ_QUERY_COUNT] = {"intersect", "distance", "penetration"};

const char *bq_query_name(int query)
{
    return query >= 0 && query < BQ_QUERY_COUNT ? query_names[query] : "?";
}

static void add_impl_taking(const char *name, int family, const peer_api *peer,
                            int (*takes)(const mink_case *c))
{
    if (g_impl_count == MAX_IMPLS)
        return;
    bq_impl *m = &g_impls[g_impl_count++];
    snprintf(m->name, sizeof m->name, "%s", name);
    m->family = family;
    m->peer = peer;
    m->takes = takes;
}

static void add_impl(const char *name, int family, const peer_api *peer)
{
    add_impl_taking(name, family, peer, NULL);
}

static int add_case(bq_groups *gs, const mink_case *c)
{
    char name[GROUP_NAME_MAX];
    case_group(c->id, name, sizeof name);
    bq_group *g = NULL;
    /* Groups are contiguous in the case files, so the last group is the usual
     * hit; the scan covers files that interleave them. */
    for (size_t k = gs->count; k-- > 0;) {
        if (strcmp(gs->g[k].name, name) == 0) {
            g = &gs->g[k];
            break;
        }
    }
    if (!g) {
        bq_group *grown = realloc(gs->g, (gs->count + 1) * sizeof *grown);
        if (!grown)
            return -1;
        gs->g = grown;
        g = &gs->g[gs->count++];
        memset(g, 0, sizeof *g);
        snprintf(g->name, sizeof g->name, "%s", name);
    }
    if (g->count == g->cap) {
        size_t cap = g->cap ? 2 * g->cap : 64;
        mink_case *grown = realloc(g->cases, cap * sizeof *grown);
        if (!grown)
            return -1;
        g->cases = grown;
        g->cap = cap;
    }
    g->cases[g->count++] = *c;
    return 0;
}

bq_groups *bq_groups_split(const case_set *set)
{
    bq_groups *gs = calloc(1, sizeof *gs);
    if (!gs)
        return NULL;
    for (size_t i = 0; i < set->count; ++i) {
        if (add_case(gs, &set->cases[i]) != 0) {
            bq_groups_free(gs);
            return NULL;
        }
    }
    return gs;
}

void bq_groups_free(bq_groups *gs)
{
    if (!gs)
        return;
    for (size_t g = 0; g < gs->count; ++g)
        free(gs->g[g].cases);
    free(gs->g);
    free(gs);
}

size_t bq_groups_count(const bq_groups *gs) { return gs ? gs->count : 0; }
const char *bq_groups_name(const bq_groups *gs, size_t group) { return gs->g[group].name; }

const mink_case *bq_groups_cases(const bq_groups *gs, size_t group, size_t *count)
{
    *count = gs->g[group].count;
    return gs->g[group].cases;
}

const bq_groups *bq_main_groups(void) { return g_main; }

int bq_load(const char *path, char *err, size_t errlen)
{
    if (case_set_load(path, &g_set, err, errlen) != 0)
        return -1;
    g_main = bq_groups_split(&g_set);
    if (!g_main) {
        snprintf(err, errlen, "out of memory splitting %s into groups", path);
        return -1;
    }
    g_groups = g_main->g;
    g_group_count = g_main->count;
    if (g_group_count == 0) {
        snprintf(err, errlen, "%s holds no cases", path);
        return -1;
    }

    g_impl_count = 0;
    add_impl("ref", BQ_REF, NULL);
    add_impl("simd-" MINK_SIMD_NAME, BQ_SIMD, NULL);
    add_impl("simd-gjk-" MINK_SIMD_NAME, BQ_SIMD_GJK, NULL);
#ifdef MINK_HAVE_CCD
    add_impl(peer_ccd_gjk.name, BQ_PEER, &peer_ccd_gjk);
    add_impl(peer_ccd_mpr.name, BQ_PEER, &peer_ccd_mpr);
#endif
#ifdef MINK_HAVE_BULLET
    add_impl(peer_bullet.name, BQ_PEER, &peer_bullet);
    add_impl(peer_bullet_gjkepa2.name, BQ_PEER, &peer_bullet_gjkepa2);
#endif
#ifdef MINK_HAVE_FCL
    add_impl_taking(peer_fcl_indep.name, BQ_PEER, &peer_fcl_indep, peer_fcl_supports);
    add_impl_taking(peer_fcl_ccd.name, BQ_PEER, &peer_fcl_ccd, peer_fcl_supports);
#endif

    g_benches = calloc((size_t)BQ_QUERY_COUNT * g_group_count * g_impl_count, sizeof *g_benches);
    g_peer_ctx = calloc(g_group_count * g_impl_count, sizeof *g_peer_ctx);
    if (!g_benches || !g_peer_ctx) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

void bq_unload(void)
{
    size_t nb = (size_t)BQ_QUERY_COUNT * g_group_count * g_impl_count;
    for (size_t k = 0; g_benches && k < nb; ++k) {
        if (g_benches[k]) {
            free(g_benches[k]->pairs);
            free(g_benches[k]->out);
            free(g_benches[k]);
        }
    }
    for (size_t g = 0; g_peer_ctx && g < g_group_count; ++g)
        for (size_t i = 0; i < g_impl_count; ++i)
            if (g_peer_ctx[g * g_impl_count + i])
                g_impls[i].peer->release(g_peer_ctx[g * g_impl_count + i]);
    bq_groups_free(g_main);
    free(g_benches);
    free(g_peer_ctx);
    g_main = NULL;
    g_benches = NULL;
    g_peer_ctx = NULL;
    g_groups = NULL;
    g_group_count = 0;
    g_impl_count = 0;
    case_set_free(&g_set);
}

size_t bq_group_count(void) { return g_group_count; }
const char *bq_group_name(size_t group) { return g_groups[group].name; }
size_t bq_group_size(size_t group) { return g_groups[group].count; }
size_t bq_impl_count(void) { return g_impl_count; }
const char *bq_impl_name(size_t i) { return g_impls[i].name; }
int bq_impl_family(size_t i) { return g_impls[i].family; }

int bq_impl_supports(size_t i, int query)
{
    if (query < 0 || query >= BQ_QUERY_COUNT)
        return 0;
    if (g_impls[i].family == BQ_SIMD_GJK)
        return query == CASE_QUERY_INTERSECT || query == CASE_QUERY_PENETRATION; /* the queries with other paths */
    if (g_impls[i].family != BQ_PEER)
        return 1;
    return (g_impls[i].peer->queries >> query) & 1u;
}

/* ---------------------------------------------------------------- timed passes
 * One function per (implementation, query) so the loop calls the API
 * directly: what is timed is the query plus a store of its result. */

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

DEFINE_INTERSECT_PASS(pass_ref_intersect, mink_ref_intersect)
DEFINE_RESULT_PASS(pass_ref_distance, mink_ref_distance)
DEFINE_RESULT_PASS(pass_ref_penetration, mink_ref_penetration)
DEFINE_INTERSECT_PASS(pass_simd_intersect, mink_intersect)
/* with a NULL info, as mink_intersect passes */
static int simd_gjk_intersect(const mink_shape *a, const mink_pose *pa, const mink_shape *b, const mink_pose *pb,
                              mink_cache *cache)
{
    return mink_intersect_gjk_ex(a, pa, b, pb, cache, NULL);
}
DEFINE_INTERSECT_PASS(pass_simd_gjk_intersect, simd_gjk_intersect)
DEFINE_RESULT_PASS(pass_simd_distance, mink_distance)
DEFINE_RESULT_PASS(pass_simd_penetration, mink_penetration)
DEFINE_RESULT_PASS(pass_simd_gjk_penetration, mink_penetration_gjk)

typedef double (*mink_pass_fn)(const mink_pair *, size_t, mink_result *);

static const mink_pass_fn mink_passes[2][BQ_QUERY_COUNT] = {
    {pass_ref_intersect, pass_ref_distance, pass_ref_penetration},
    {pass_simd_intersect, pass_simd_distance, pass_simd_penetration},
};

double bq_bench_pass(bq_bench *b)
{
    const bq_impl *m = &g_impls[b->impl];
    if (m->family == BQ_PEER)
        return m->peer->pass(b->peer_ctx, b->query);
    if (m->family == BQ_SIMD_GJK)
        return b->query == CASE_QUERY_INTERSECT ? pass_simd_gjk_intersect(b->pairs, b->g->count, b->out)
                                                : pass_simd_gjk_penetration(b->pairs, b->g->count, b->out);
    return mink_passes[m->family][b->query](b->pairs, b->g->count, b->out);
}

/* ---------------------------------------------------------------- checks */

/* One answer of mink's implementation `family` to case c, through the same
 * API function the timed pass calls (case_run, NULL cache: cold). case_run
 * maps an intersect to distance 1 (separated) or 0 (overlapping); its work
 * counters come from the _ex variant. */
static void mink_answer(int family, int query, const mink_case *c, mink_result *r)
{
    const int ref = family == BQ_REF;
    case_run(c, ref ? CASE_KERNEL_REF : CASE_KERNEL_SIMD, query, NULL, r);
    if (query == CASE_QUERY_INTERSECT) {
        mink_result info;
        memset(&info, 0, sizeof info);
        if (ref) {
            mink_ref_intersect_ex(&c->a, &c->pa, &c->b, &c->pb, NULL, &info);
        } else if (family == BQ_SIMD_GJK) {
            const int hit = mink_intersect_gjk_ex(&c->a, &c->pa, &c->b, &c->pb, NULL, &info);
            memset(r, 0, sizeof *r);
            r->status = hit < 0 ? MINK_ERR_INVALID : MINK_OK;
            r->distance = hit ? 0.0f : 1.0f; /* case_run's mapping */
        } else {
            mink_intersect_ex(&c->a, &c->pa, &c->b, &c->pb, NULL, &info);
        }
        r->iterations = info.iterations;
        r->gjk_iterations = info.gjk_iterations;
        r->support_calls = info.support_calls;
    } else if (query == CASE_QUERY_PENETRATION && family == BQ_SIMD_GJK) {
        mink_penetration_gjk(&c->a, &c->pa, &c->b, &c->pb, NULL, r);
    }
}

/* The peer check.
 *
 * case_check also verifies witness points, which peers report in their own
 * ways (libccd: one contact midpoint; Bullet: a point on B) or not at all, so
 * peers are checked on what they do report, with FORMAT.md's tolerances:
 * - kind (sep/pen) must match, except that a case whose scalar is below
 *   1e-3*L accepts either kind (then the signed scalar, when reported, must
 *   be within 1e-4*L, as case_check asks);
 * - the scalar within 1e-4*L, when the query computes one for that kind: not
 *   for intersect, not for distance on pen cases, not for penetration on sep
 *   cases when the peer's penetration query stops at "separated"
 *   (libccd, api->pen_sep_value == 0);
 * - a unique normal within 2e-3 rad (sep) or 1e-2 rad (pen) whenever a scalar
 *   is checked; a pen normal outside the limit still passes when the depth
 *   along it (from the support functions) is within 1e-4*L of the expected
 *   depth (FORMAT.md's near-tie rule). */
static int peer_check(const mink_case *c, int query, const peer_api *api,
                      const peer_answer *a, int *scalar_checked, char *why, size_t whylen)
{
    *scalar_checked = 0;
    const double tol = 1e-4 * c->L;
    const double band = 1e-3 * c->L;
    if (a->kind != CASE_SEP && a->kind != CASE_PEN) {
        snprintf(why, whylen, "no answer");
        return 0;
    }
    if (c->value < band) {
        /* Either kind; the scalar as case_check reads it: the distance query
         * answers max(0, signed distance), penetration the signed distance. */
        if (query == CASE_QUERY_INTERSECT || !a->has_value)
            return 1;
        *scalar_checked = 1;
        double want = c->kind == CASE_SEP ? c->value : -c->value;
        double got = a->kind == CASE_SEP ? a->value : -a->value;
        if (query == CASE_QUERY_DISTANCE) {
            want = want > 0.0 ? want : 0.0;
            got = got > 0.0 ? got : 0.0;
        }
        if (fabs(got - want) > tol) {
            snprintf(why, whylen, "near-touching: signed %.9g, expected %.9g (tol %.3g)", got, want, tol);
            return 0;
        }
        return 1;
    }
    if (a->kind != c->kind) {
        snprintf(why, whylen, "kind %s, expected %s", a->kind == CASE_SEP ? "sep" : "pen",
                 c->kind == CASE_SEP ? "sep" : "pen");
        return 0;
    }
    int scalar = query != CASE_QUERY_INTERSECT &&
                 !(query == CASE_QUERY_DISTANCE && c->kind == CASE_PEN) &&
                 !(query == CASE_QUERY_PENETRATION && c->kind == CASE_SEP && !api->pen_sep_value);
    if (!scalar)
        return 1;
    *scalar_checked = 1;
    if (!a->has_value) {
        snprintf(why, whylen, "no scalar");
        return 0;
    }
    if (fabs(a->value - c->value) > tol) {
        snprintf(why, whylen, "%s %.9g, expected %.9g (tol %.3g)",
                 c->kind == CASE_SEP ? "distance" : "depth", a->value, c->value, tol);
        return 0;
    }
    const double *e = c->normal;
    if (e[0] == 0.0 && e[1] == 0.0 && e[2] == 0.0)
        return 1; /* tie: no unique normal */
    if (!a->has_normal) {
        snprintf(why, whylen, "no normal");
        return 0;
    }
    const double *n = a->normal;
    double cx = n[1] * e[2] - n[2] * e[1];
    double cy = n[2] * e[0] - n[0] * e[2];
    double cz = n[0] * e[1] - n[1] * e[0];
    double dot = n[0] * e[0] + n[1] * e[1] + n[2] * e[2];
    double nn = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    double angle = nn > 0.0 ? atan2(sqrt(cx * cx + cy * cy + cz * cz), dot) : 4.0 * atan(1.0);
    double limit = c->kind == CASE_SEP ? 2e-3 : 1e-2;
    if (angle <= limit)
        return 1;
    if (c->kind == CASE_PEN && nn > 0.0) {
        double u[3] = {n[0] / nn, n[1] / nn, n[2] / nn};
        double mu[3] = {-u[0], -u[1], -u[2]};
        double along = case_support_h(&c->sa, &c->qa, u) + case_support_h(&c->sb, &c->qb, mu);
        if (fabs(along - c->value) <= tol)
            return 1; /* near tie: an equally shallow escape direction */
    }
    snprintf(why, whylen, "normal off by %.3g rad (limit %.3g)", angle, limit);
    return 0;
}

static void check_bench(bq_bench *b)
{
    const bq_impl *m = &g_impls[b->impl];
    const bq_group *g = b->g;
    bq_stats *s = &b->stats;
    double it = 0.0, git = 0.0, sup = 0.0;
    s->n = g->count;
    for (size_t i = 0; i < g->count; ++i) {
        const mink_case *c = &g->cases[i];
        char why[256] = "";
        int ok;
        if (m->family == BQ_PEER) {
            peer_answer a;
            memset(&a, 0, sizeof a);
            a.kind = -1;
            m->peer->answer(b->peer_ctx, i, b->query, &a);
            int scalar = 0;
            ok = peer_check(c, b->query, m->peer, &a, &scalar, why, sizeof why);
            /* A wrong answer was not let through on its kind alone: the
             * share checked on the kind only counts right answers only. */
            s->scalar_checked += (size_t)(scalar || !ok);
        } else {
            mink_result r;
            mink_answer(m->family, b->query, c, &r);
            ok = r.status >= 0 && case_check(c, b->query, &r, why, sizeof why);
            if (r.status < 0 && !why[0])
                snprintf(why, sizeof why, "status %d", (int)r.status);
            it += r.iterations;
            git += r.gjk_iterations;
            sup += r.support_calls;
        }
        if (ok)
            s->ok++;
        else if (!s->first_fail[0])
            snprintf(s->first_fail, sizeof s->first_fail, "%s: %s", c->id, why);
    }
    s->ok_frac = s->n ? (double)s->ok / (double)s->n : 0.0;
    if (m->family != BQ_PEER && s->n) {
        s->has_iters = 1;
        s->iters = it / (double)s->n;
        s->gjk_iters = git / (double)s->n;
        s->supports = sup / (double)s->n;
    }
}

bq_bench *bq_bench_get(int query, size_t group, size_t impl_index, char *err, size_t errlen)
{
    if (query < 0 || query >= BQ_QUERY_COUNT || group >= g_group_count || impl_index >= g_impl_count) {
        snprintf(err, errlen, "no such benchmark");
        return NULL;
    }
    size_t key = ((size_t)query * g_group_count + group) * g_impl_count + impl_index;
    if (g_benches[key])
        return g_benches[key];

    const bq_impl *m = &g_impls[impl_index];
    const bq_group *g = &g_groups[group];
    bq_bench *b = calloc(1, sizeof *b);
    if (!b) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    b->query = query;
    b->impl = impl_index;
    b->g = g;
    if (m->family == BQ_PEER && m->takes) {
        for (size_t i = 0; i < g->count; ++i) {
            if (!m->takes(&g->cases[i])) {
                /* not timed: bench_table.py shows "n/a" for this message */
                snprintf(err, errlen, "unsupported: %s does not take the pair of %s", m->name, g->cases[i].id);
                free(b);
                return NULL;
            }
        }
    }
    if (m->family == BQ_PEER) {
        void **ctx = &g_peer_ctx[group * g_impl_count + impl_index];
        if (!*ctx)
            *ctx = m->peer->prepare(g->cases, g->count);
        if (!*ctx) {
            snprintf(err, errlen, "%s could not build the shapes of %s", m->name, g->name);
            free(b);
            return NULL;
        }
        b->peer_ctx = *ctx;
    } else {
        b->pairs = calloc(g->count, sizeof *b->pairs);
        b->out = calloc(g->count, sizeof *b->out);
        if (!b->pairs || !b->out) {
            free(b->pairs);
            free(b->out);
            free(b);
            snprintf(err, errlen, "out of memory");
            return NULL;
        }
        for (size_t i = 0; i < g->count; ++i) {
            const mink_case *c = &g->cases[i];
            b->pairs[i].a = &c->a;
            b->pairs[i].pa = c->pa;
            b->pairs[i].b = &c->b;
            b->pairs[i].pb = c->pb;
            b->pairs[i].cache = NULL; /* cold queries */
        }
    }
    check_bench(b);
    g_benches[key] = b;
    return b;
}

const bq_stats *bq_bench_stats(const bq_bench *b) { return &b->stats; }
size_t bq_bench_queries(const bq_bench *b) { return b->g->count; }
