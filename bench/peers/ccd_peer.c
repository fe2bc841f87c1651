/* libccd peer (Debian's build is double precision: CCD_DOUBLE).
 *
 * "ccd":     ccdGJKIntersect, and ccdGJKPenetration (GJK + EPA).
 * "ccd-mpr": ccdMPRIntersect, and ccdMPRPenetration (Minkowski portal
 *            refinement: depth along the centre line, not the minimum).
 * libccd has no distance query. Its penetration calls return -1 for separated
 * pairs without a distance, so only the kind is checked there.
 *
 * libccd's convention matches mink's: "if obj2 is translated by depth in
 * direction dir, the objects touch", i.e. dir points from A towards B. Its
 * EPA allocates its polytope on the heap inside every call; that is the
 * library's cost and is timed with it. */
#include <math.h>
#include <stdlib.h>

#include <ccd/ccd.h>

#include "peers.h"

/* A case shape posed in the world, read by the support function. */
typedef struct ccd_shape {
    int type;
    double r;
    double h[3];          /* box half extents; capsule half height in h[1] */
    const double *pts;    /* hull: 3n local coordinates (the case set's)  */
    unsigned n;
    double R[9];          /* world = R * local + p                         */
    double p[3];
    double center[3];     /* world point inside the shape, for MPR         */
} ccd_shape;

typedef struct ccd_ctx {
    size_t n;
    ccd_shape *shapes;    /* 2n: A then B of each case */
    ccd_t ccd;
} ccd_ctx;

/* libccd support: the farthest point of the rounded shape along dir (dir need
 * not be unit): core support + r * dir / |dir|. */
static void support(const void *obj, const ccd_vec3_t *dir, ccd_vec3_t *out)
{
    const ccd_shape *s = obj;
    const double *d = dir->v;
    const double *R = s->R;
    /* Direction in the local frame: R^T d. */
    double lx = R[0] * d[0] + R[3] * d[1] + R[6] * d[2];
    double ly = R[1] * d[0] + R[4] * d[1] + R[7] * d[2];
    double lz = R[2] * d[0] + R[5] * d[1] + R[8] * d[2];
    double c[3] = {0.0, 0.0, 0.0};
    switch (s->type) {
    case MINK_SHAPE_CAPSULE:
        c[1] = ly >= 0.0 ? s->h[1] : -s->h[1];
        break;
    case MINK_SHAPE_BOX:
        c[0] = lx >= 0.0 ? s->h[0] : -s->h[0];
        c[1] = ly >= 0.0 ? s->h[1] : -s->h[1];
        c[2] = lz >= 0.0 ? s->h[2] : -s->h[2];
        break;
    case MINK_SHAPE_HULL: {
        const double *q = s->pts;
        double best = -HUGE_VAL;
        unsigned arg = 0;
        for (unsigned i = 0; i < s->n; ++i) {
            double t = q[3 * i] * lx + q[3 * i + 1] * ly + q[3 * i + 2] * lz;
            if (t > best) {
                best = t;
                arg = i;
            }
        }
        c[0] = q[3 * arg];
        c[1] = q[3 * arg + 1];
        c[2] = q[3 * arg + 2];
        break;
    }
    default: /* sphere: the core is the origin */
        break;
    }
    for (int k = 0; k < 3; ++k)
        out->v[k] = R[3 * k] * c[0] + R[3 * k + 1] * c[1] + R[3 * k + 2] * c[2] + s->p[k];
    if (s->r > 0.0) {
        double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        if (len > 0.0)
            for (int k = 0; k < 3; ++k)
                out->v[k] += s->r * d[k] / len;
    }
}

static void center(const void *obj, ccd_vec3_t *out)
{
    const ccd_shape *s = obj;
    for (int k = 0; k < 3; ++k)
        out->v[k] = s->center[k];
}

static void build_shape(ccd_shape *s, const case_shape *cs, const case_pose *q)
{
    s->type = cs->type;
    s->r = cs->radius;
    s->h[0] = s->h[1] = s->h[2] = 0.0;
    if (cs->type == MINK_SHAPE_CAPSULE)
        s->h[1] = cs->param[0];
    else if (cs->type == MINK_SHAPE_BOX)
        for (int k = 0; k < 3; ++k)
            s->h[k] = cs->param[k];
    s->pts = cs->pts;
    s->n = cs->type == MINK_SHAPE_HULL ? cs->n : 0;
    peer_rotation(q->q, s->R);
    for (int k = 0; k < 3; ++k)
        s->p[k] = q->p[k];
    /* MPR needs an interior point: the vertex mean of a hull, else the origin. */
    double lc[3] = {0.0, 0.0, 0.0};
    for (unsigned i = 0; i < s->n; ++i)
        for (int k = 0; k < 3; ++k)
            lc[k] += s->pts[3 * i + k] / (double)s->n;
    for (int k = 0; k < 3; ++k)
        s->center[k] = s->R[3 * k] * lc[0] + s->R[3 * k + 1] * lc[1] + s->R[3 * k + 2] * lc[2] + s->p[k];
}

static void *prepare(const mink_case *cases, size_t n)
{
    ccd_ctx *x = calloc(1, sizeof *x);
    if (!x)
        return NULL;
    x->n = n;
    x->shapes = calloc(2 * n + 1, sizeof *x->shapes);
    if (!x->shapes) {
        free(x);
        return NULL;
    }
    for (size_t i = 0; i < n; ++i) {
        build_shape(&x->shapes[2 * i], &cases[i].sa, &cases[i].qa);
        build_shape(&x->shapes[2 * i + 1], &cases[i].sb, &cases[i].qb);
    }
    CCD_INIT(&x->ccd); /* default tolerances: epa 1e-4, mpr 1e-4, dist 1e-6 */
    x->ccd.support1 = support;
    x->ccd.support2 = support;
    x->ccd.center1 = center;
    x->ccd.center2 = center;
    /* The default cap is unlimited; a cap only matters on a stuck case, and
     * then it keeps the benchmark from hanging. */
    x->ccd.max_iterations = 1000;
    return x;
}

static void release(void *ctx)
{
    ccd_ctx *x = ctx;
    if (x) {
        free(x->shapes);
        free(x);
    }
}

/* Maps a libccd penetration call: 0 = overlap (depth, dir from A to B),
 * -1 = separated (no distance), anything else = failure. */
static void map_penetration(int ret, ccd_real_t depth, const ccd_vec3_t *dir, peer_answer *out)
{
    if (ret == -1) {
        out->kind = CASE_SEP;
        return;
    }
    if (ret != 0)
        return; /* kind stays -1: failed */
    out->kind = CASE_PEN;
    out->has_value = 1;
    out->value = depth;
    double len = sqrt(dir->v[0] * dir->v[0] + dir->v[1] * dir->v[1] + dir->v[2] * dir->v[2]);
    if (len > 0.0) {
        out->has_normal = 1;
        for (int k = 0; k < 3; ++k)
            out->normal[k] = dir->v[k] / len;
    }
}

static void answer_gjk(void *ctx, size_t i, int query, peer_answer *out)
{
    const ccd_ctx *x = ctx;
    const ccd_shape *a = &x->shapes[2 * i], *b = &x->shapes[2 * i + 1];
    if (query == CASE_QUERY_INTERSECT) {
        out->kind = ccdGJKIntersect(a, b, &x->ccd) ? CASE_PEN : CASE_SEP;
    } else if (query == CASE_QUERY_PENETRATION) {
        ccd_real_t depth = 0;
        ccd_vec3_t dir = {{0, 0, 0}}, pos;
        int ret = ccdGJKPenetration(a, b, &x->ccd, &depth, &dir, &pos);
        map_penetration(ret, depth, &dir, out);
    }
}

static void answer_mpr(void *ctx, size_t i, int query, peer_answer *out)
{
    const ccd_ctx *x = ctx;
    const ccd_shape *a = &x->shapes[2 * i], *b = &x->shapes[2 * i + 1];
    if (query == CASE_QUERY_INTERSECT) {
        out->kind = ccdMPRIntersect(a, b, &x->ccd) ? CASE_PEN : CASE_SEP;
    } else if (query == CASE_QUERY_PENETRATION) {
        ccd_real_t depth = 0;
        ccd_vec3_t dir = {{0, 0, 0}}, pos;
        int ret = ccdMPRPenetration(a, b, &x->ccd, &depth, &dir, &pos);
        map_penetration(ret, depth, &dir, out);
    }
}

static double pass_gjk(void *ctx, int query)
{
    const ccd_ctx *x = ctx;
    const ccd_shape *s = x->shapes;
    double sum = 0.0;
    if (query == CASE_QUERY_INTERSECT) {
        for (size_t i = 0; i < x->n; ++i)
            sum += ccdGJKIntersect(&s[2 * i], &s[2 * i + 1], &x->ccd);
    } else {
        for (size_t i = 0; i < x->n; ++i) {
            ccd_real_t depth = 0;
            ccd_vec3_t dir, pos;
            if (ccdGJKPenetration(&s[2 * i], &s[2 * i + 1], &x->ccd, &depth, &dir, &pos) == 0)
                sum += depth;
        }
    }
    return sum;
}

static double pass_mpr(void *ctx, int query)
{
    const ccd_ctx *x = ctx;
    const ccd_shape *s = x->shapes;
    double sum = 0.0;
    if (query == CASE_QUERY_INTERSECT) {
        for (size_t i = 0; i < x->n; ++i)
            sum += ccdMPRIntersect(&s[2 * i], &s[2 * i + 1], &x->ccd);
    } else {
        for (size_t i = 0; i < x->n; ++i) {
            ccd_real_t depth = 0;
            ccd_vec3_t dir, pos;
            if (ccdMPRPenetration(&s[2 * i], &s[2 * i + 1], &x->ccd, &depth, &dir, &pos) == 0)
                sum += depth;
        }
    }
    return sum;
}

#define CCD_QUERIES ((1u << CASE_QUERY_INTERSECT) | (1u << CASE_QUERY_PENETRATION))

const peer_api peer_ccd_gjk = {"ccd", CCD_QUERIES, 0, prepare, release, answer_gjk, pass_gjk};
const peer_api peer_ccd_mpr = {"ccd-mpr", CCD_QUERIES, 0, prepare, release, answer_mpr, pass_mpr};
