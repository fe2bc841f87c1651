/* Continuous-collision benchmarks (see bench_cast.h): groups, timed passes,
 * the checks. */
#include "bench_cast.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"
#include "mink/mink.h"
#include "mink/mink_ref.h"
#include "peers/cast_peers.h"

#ifndef MINK_SIMD_NAME
#define MINK_SIMD_NAME "unknown"
#endif

/* FORMAT.md, "Casts": the normal is right within 1e-2 rad. */
#define NORMAL_TOL_RAD 1e-2

typedef struct bk_impl {
    const char *name;            /* NULL: the peer's */
    int family;
    const peer_cast_api *peer;   /* BQ_PEER only     */
} bk_impl;

static const bk_impl g_impls[] = {
    {"ref", BQ_REF, NULL},
    {"simd-" MINK_SIMD_NAME, BQ_SIMD, NULL},
#ifdef MINK_HAVE_BULLET
    {NULL, BQ_PEER, &peer_bullet_gjkcast},
    {NULL, BQ_PEER, &peer_bullet_ccd},
#endif
};
#define IMPL_COUNT (sizeof g_impls / sizeof g_impls[0])

struct bk_bench {
    size_t group, impl;
    case_cast_input *in;         /* mink: the group's casts, built once  */
    mink_cast_result *out;       /* mink: one answer slot per case       */
    int *rc;                     /* mink: what each cast returned        */
    void *peer_ctx;              /* peers                                */
    double iterations;           /* mean per cast; -1 for peers          */
    double hit_frac;
    bq_stats stats;
};

static case_set g_set;
static int g_set_loaded;
static bq_groups *g_split;
static bk_bench **g_benches;     /* [group][impl], built lazily */

int bk_load(const char *path, char *err, size_t errlen)
{
    if (case_set_load(path, &g_set, err, errlen) != 0)
        return -1;
    g_set_loaded = 1;
    for (size_t i = 0; i < g_set.count; ++i) {
        if (!g_set.cases[i].is_cast) {
            snprintf(err, errlen, "%s: case %s is not a cast case", path, g_set.cases[i].id);
            return -1;
        }
    }
    g_split = bq_groups_split(&g_set);
    if (!g_split || !(g_benches = calloc(bq_groups_count(g_split) * IMPL_COUNT + 1, sizeof *g_benches))) {
        snprintf(err, errlen, "out of memory reading %s", path);
        return -1;
    }
    return 0;
}

static void free_bench(bk_bench *b)
{
    if (b->peer_ctx)
        g_impls[b->impl].peer->release(b->peer_ctx);
    free(b->in);
    free(b->out);
    free(b->rc);
    free(b);
}

void bk_unload(void)
{
    const size_t groups = bq_groups_count(g_split);
    for (size_t k = 0; g_benches && k < groups * IMPL_COUNT; ++k)
        if (g_benches[k])
            free_bench(g_benches[k]);
    free(g_benches);
    bq_groups_free(g_split);
    if (g_set_loaded)
        case_set_free(&g_set);
    g_benches = NULL;
    g_split = NULL;
    g_set_loaded = 0;
}

size_t bk_group_count(void) { return bq_groups_count(g_split); }
const char *bk_group_name(size_t group) { return bq_groups_name(g_split, group); }
size_t bk_impl_count(void) { return IMPL_COUNT; }
const char *bk_impl_name(size_t impl) { return g_impls[impl].peer ? g_impls[impl].peer->name : g_impls[impl].name; }
int bk_impl_family(size_t impl) { return g_impls[impl].family; }

static const mink_case *group_cases(size_t group, size_t *n) { return bq_groups_cases(g_split, group, n); }

/* ---------------------------------------------------------------- timed passes
 * One function per kernel so the loop calls the API directly: what is timed
 * is the cast plus a store of its answer. */

#define DEFINE_CAST_PASS(fname, cast, toi)                                                    \
    static double fname(const case_cast_input *in, size_t n, mink_cast_result *out, int *rc)  \
    {                                                                                         \
        double sum = 0.0;                                                                     \
        for (size_t i = 0; i < n; ++i) {                                                      \
            const case_cast_input *p = &in[i];                                                \
            rc[i] = p->linear ? cast(p->a, &p->pa, p->da, p->b, &p->pb, p->db, p->target, &out[i]) \
                              : toi(p->a, &p->sa, p->b, &p->sb, p->target, &out[i]);          \
            sum += out[i].t;                                                                  \
        }                                                                                     \
        return sum;                                                                           \
    }

DEFINE_CAST_PASS(pass_ref, mink_ref_cast, mink_ref_toi)
DEFINE_CAST_PASS(pass_simd, mink_cast, mink_toi)

double bk_bench_pass(bk_bench *b)
{
    const bk_impl *m = &g_impls[b->impl];
    size_t n;
    group_cases(b->group, &n);
    if (m->family == BQ_PEER)
        return m->peer->pass(b->peer_ctx);
    return m->family == BQ_REF ? pass_ref(b->in, n, b->out, b->rc) : pass_simd(b->in, n, b->out, b->rc);
}

/* ---------------------------------------------------------------- checks */

static void tally(bq_stats *s, const mink_case *c, int ok, const char *why)
{
    if (ok)
        s->ok++;
    else if (!s->first_fail[0])
        snprintf(s->first_fail, sizeof s->first_fail, "%s: %s", c->id, why);
    s->n++;
}

static double angle_between(const double u[3], const double v[3])
{
    const double nu = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    const double nv = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (!(nu > 0.0) || !(nv > 0.0))
        return acos(-1.0); /* no direction: as far off as it gets */
    const double d = (u[0] * v[0] + u[1] * v[1] + u[2] * v[2]) / (nu * nv);
    return acos(fmax(-1.0, fmin(1.0, d)));
}

static mink_pose to_pose(const case_pose *q)
{
    mink_pose p;
    p.p = (mink_vec3){(float)q->p[0], (float)q->p[1], (float)q->p[2]};
    p.q.w = (float)q->q[0], p.q.x = (float)q->q[1], p.q.y = (float)q->q[2], p.q.z = (float)q->q[3];
    return p;
}

/* A peer's normal at its t, by FORMAT.md's normal rule as far as an answer
 * without witnesses allows: within NORMAL_TOL_RAD of the expected normal
 * when t is the expected t (|dt| V <= tol), or of the exact normal at t (the
 * reference's mink_ref_penetration at the poses then: unique wherever the
 * cores are apart); not checked where the cores touch at t (core distance
 * below FORMAT.md's near = max(1e-3 L, 2 tol)), where no normal is exact. */
static int peer_normal_ok(const mink_case *c, double t, const double n[3], char *why, size_t whylen)
{
    const double tol = 1e-4 * c->L;
    const double near = fmax(1e-3 * c->L, 2.0 * tol);
    double expected_angle = -1.0;
    if (c->kind == CASE_HIT && fabs(t - c->value) * case_cast_travel(c) <= tol) {
        expected_angle = angle_between(n, c->normal);
        if (expected_angle <= NORMAL_TOL_RAD)
            return 1;
    }
    case_pose qa, qb;
    case_cast_poses(c, t, &qa, &qb);
    const mink_pose pa = to_pose(&qa), pb = to_pose(&qb);
    mink_result r;
    if (mink_ref_penetration(&c->a, &pa, &c->b, &pb, NULL, &r) < 0) {
        snprintf(why, whylen, "the reference failed at t = %.9g", t);
        return 0;
    }
    if (r.distance + c->sa.radius + c->sb.radius < near)
        return 1;
    const double exact[3] = {r.normal.x, r.normal.y, r.normal.z};
    const double angle = angle_between(n, exact);
    if (angle <= NORMAL_TOL_RAD)
        return 1;
    snprintf(why, whylen, "normal %.6g %.6g %.6g at t = %.9g: %.3g rad from the exact normal then%s", n[0], n[1],
             n[2], t, angle, expected_angle >= 0.0 ? " and from the expected one" : "");
    return 0;
}

static void check_peer(bk_bench *b, const mink_case *cases, size_t n)
{
    const peer_cast_api *api = g_impls[b->impl].peer;
    size_t hits = 0;
    for (size_t i = 0; i < n; ++i) {
        peer_cast_answer a;
        char why[256] = "";
        memset(&a, 0, sizeof a);
        api->answer(b->peer_ctx, i, &a);
        hits += a.hit != 0;
        int ok = case_check_cast_time(&cases[i], a.hit, a.t, why, sizeof why);
        if (ok && a.hit && a.has_normal)
            ok = peer_normal_ok(&cases[i], a.t, a.normal, why, sizeof why);
        tally(&b->stats, &cases[i], ok, why);
    }
    b->iterations = -1.0;
    b->hit_frac = n ? (double)hits / (double)n : 0.0;
}

/* mink: the answers of one untimed pass of the timed function, checked. */
static void check_mink(bk_bench *b, const mink_case *cases, size_t n)
{
    bk_bench_pass(b);
    double iters = 0.0;
    size_t hits = 0;
    for (size_t i = 0; i < n; ++i) {
        char why[256] = "";
        const int ok = case_check_cast(&cases[i], b->rc[i], &b->out[i], why, sizeof why);
        tally(&b->stats, &cases[i], ok, why);
        iters += b->out[i].iterations;
        hits += b->rc[i] == 1;
    }
    b->iterations = n ? iters / (double)n : 0.0;
    b->hit_frac = n ? (double)hits / (double)n : 0.0;
}

bk_bench *bk_bench_get(size_t group, size_t impl, char *err, size_t errlen)
{
    if (group >= bk_group_count() || impl >= IMPL_COUNT) {
        snprintf(err, errlen, "no such benchmark");
        return NULL;
    }
    bk_bench **slot = &g_benches[group * IMPL_COUNT + impl];
    if (*slot)
        return *slot;
    const bk_impl *m = &g_impls[impl];
    size_t n;
    const mink_case *cases = group_cases(group, &n);
    bk_bench *b = calloc(1, sizeof *b);
    if (!b) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    b->group = group;
    b->impl = impl;
    if (m->family == BQ_PEER) {
        b->peer_ctx = m->peer->prepare(cases, n);
        if (!b->peer_ctx) {
            snprintf(err, errlen, "%s could not build the shapes of %s", bk_impl_name(impl), bk_group_name(group));
            free_bench(b);
            return NULL;
        }
        check_peer(b, cases, n);
    } else {
        b->in = calloc(n ? n : 1, sizeof *b->in);
        b->out = calloc(n ? n : 1, sizeof *b->out);
        b->rc = calloc(n ? n : 1, sizeof *b->rc);
        if (!b->in || !b->out || !b->rc) {
            snprintf(err, errlen, "out of memory");
            free_bench(b);
            return NULL;
        }
        for (size_t i = 0; i < n; ++i)
            b->in[i] = case_cast_input_of(&cases[i]);
        check_mink(b, cases, n);
    }
    b->stats.ok_frac = b->stats.n ? (double)b->stats.ok / (double)b->stats.n : 0.0;
    *slot = b;
    return b;
}

const bq_stats *bk_bench_stats(const bk_bench *b) { return &b->stats; }
double bk_bench_iterations(const bk_bench *b) { return b->iterations; }
double bk_bench_hit_frac(const bk_bench *b) { return b->hit_frac; }

size_t bk_bench_queries(const bk_bench *b)
{
    size_t n;
    group_cases(b->group, &n);
    return n;
}
