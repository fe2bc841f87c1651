/* GJK in double precision near contact (gjk_double.h). */
#include "gjk_double.h"
#include "closest_double.h"
#include "shape.h"

#include <math.h>

/* world = r local + p, r from q / |q| (poses are checked: |q| near 1) */
typedef struct dframe {
    double r[3][3];
    double p[3];
} dframe;

typedef struct dvertex {
    double w[3], pa[3], pb[3];
    uint32_t ia, ib;
} dvertex;

static void dframe_of(const mink_pose *pose, dframe *f)
{
    const double x = pose->q.x, y = pose->q.y, z = pose->q.z, w = pose->q.w;
    const double s = 2.0 / (x * x + y * y + z * z + w * w);
    f->r[0][0] = 1.0 - s * (y * y + z * z), f->r[0][1] = s * (x * y - w * z), f->r[0][2] = s * (x * z + w * y);
    f->r[1][0] = s * (x * y + w * z), f->r[1][1] = 1.0 - s * (x * x + z * z), f->r[1][2] = s * (y * z - w * x);
    f->r[2][0] = s * (x * z - w * y), f->r[2][1] = s * (y * z + w * x), f->r[2][2] = 1.0 - s * (x * x + y * y);
    f->p[0] = pose->p.x, f->p[1] = pose->p.y, f->p[2] = pose->p.z;
}

static double dot3(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* The core point of a feature index (as the kernels number them), world. */
static void world_core_point(const mink_shape *s, const dframe *f, uint32_t id, double out[3])
{
    double l[3] = {0.0, 0.0, 0.0};
    switch (s->type) {
    case MINK_SHAPE_CAPSULE:
        l[1] = (id & 1u) ? s->half[1] : -s->half[1];
        break;
    case MINK_SHAPE_BOX:
        l[0] = (id & 1u) ? s->half[0] : -s->half[0];
        l[1] = (id & 2u) ? s->half[1] : -s->half[1];
        l[2] = (id & 4u) ? s->half[2] : -s->half[2];
        break;
    case MINK_SHAPE_HULL:
        if (id >= s->count) id = 0;
        l[0] = s->x[id], l[1] = s->y[id], l[2] = s->z[id];
        break;
    default:
        break;
    }
    for (int i = 0; i < 3; ++i) out[i] = dot3(f->r[i], l) + f->p[i];
}

/* The feature index of the core's support along the world direction d
 * (first maximum on ties, like the float scans). */
static uint32_t support_id(const mink_shape *s, const dframe *f, const double d[3])
{
    /* d in the shape's frame: r^T d */
    double l[3];
    for (int i = 0; i < 3; ++i) l[i] = f->r[0][i] * d[0] + f->r[1][i] * d[1] + f->r[2][i] * d[2];
    switch (s->type) {
    case MINK_SHAPE_CAPSULE:
        return l[1] >= 0.0 ? 1u : 0u;
    case MINK_SHAPE_BOX:
        return (l[0] >= 0.0 ? 1u : 0u) | (l[1] >= 0.0 ? 2u : 0u) | (l[2] >= 0.0 ? 4u : 0u);
    case MINK_SHAPE_HULL: {
        uint32_t arg = 0;
        double best = s->x[0] * l[0] + s->y[0] * l[1] + s->z[0] * l[2];
        for (uint32_t i = 1; i < s->count; ++i) {
            const double dot = s->x[i] * l[0] + s->y[i] * l[1] + s->z[i] * l[2];
            if (dot > best) best = dot, arg = i;
        }
        return arg;
    }
    default:
        return 0u;
    }
}

typedef struct dpair {
    const mink_shape *a, *b;
    dframe fa, fb;
} dpair;

static void make_vertex(const dpair *p, uint32_t ia, uint32_t ib, dvertex *v)
{
    v->ia = ia, v->ib = ib;
    world_core_point(p->a, &p->fa, ia, v->pa);
    world_core_point(p->b, &p->fb, ib, v->pb);
    for (int i = 0; i < 3; ++i) v->w[i] = v->pb[i] - v->pa[i];
}

/* Closest point of the slots in `bits` to the origin: sets bits and
 * lambda, writes v. Heights below flat_abs (the rounding of double
 * coordinates of size M) are flat. */
static unsigned solve(const dvertex vert[4], unsigned bits, double flat_abs, double lambda[4], double v[3])
{
    double pts[4][3] = {{0}};
    for (unsigned i = 0; i < 4; ++i)
        if (bits >> i & 1u)
            for (int c = 0; c < 3; ++c) pts[i][c] = vert[i].w[c];
    return mink_closest_double_pts((const double(*)[3])pts, bits, 1e-13, flat_abs, lambda, v);
}

void mink_gjk_double(const mink_shape *a, const mink_pose *pa, const mink_shape *b, const mink_pose *pb,
                     const uint32_t ia[], const uint32_t ib[], unsigned n, mink_double_closest *out)
{
    dpair p = {a, b, {{{0}}, {0}}, {{{0}}, {0}}};
    dframe_of(pa, &p.fa);
    dframe_of(pb, &p.fb);
    /* the coordinates' size: rounding of double points is about 1e-16 of it */
    const double size = fabs(p.fa.p[0]) + fabs(p.fa.p[1]) + fabs(p.fa.p[2]) + fabs(p.fb.p[0]) + fabs(p.fb.p[1]) +
                        fabs(p.fb.p[2]) + a->extent + b->extent;
    const double flat_abs = 1e-14 * size;

    dvertex vert[4];
    unsigned bits = 0;
    if (n > 4) n = 4;
    for (unsigned i = 0; i < n; ++i) {
        make_vertex(&p, ia[i], ib[i], &vert[i]);
        bits |= 1u << i;
    }
    if (!bits) {
        const double d[3] = {p.fa.p[0] - p.fb.p[0], p.fa.p[1] - p.fb.p[1], p.fa.p[2] - p.fb.p[2]};
        const double nd[3] = {-d[0], -d[1], -d[2]};
        make_vertex(&p, support_id(a, &p.fa, nd), support_id(b, &p.fb, d), &vert[0]);
        bits = 1u;
    }
    double lambda[4], v[3];
    bits = solve(vert, bits, flat_abs, lambda, v);
    double vv = dot3(v, v);
    unsigned iterations = 0;
    /* v.w of the last support point w along -v: D lies on the far side of
     * the plane v.x = v.w, so the cores are apart only when it is positive
     * (a simplex through the origin, where v is rounding, may give a point
     * of its own with v.w < 0: an overlap, or a touch, for EPA to measure) */
    double lower = -1.0;
    while (bits != 15u && vv > flat_abs * flat_abs && iterations < MINK_GJK_MAX_ITERATIONS) {
        ++iterations;
        /* the support of D = B - A along -v: A's along v, B's along -v */
        const double nv[3] = {-v[0], -v[1], -v[2]};
        const uint32_t sa = support_id(a, &p.fa, v), sb = support_id(b, &p.fb, nv);
        dvertex w;
        make_vertex(&p, sa, sb, &w);
        lower = dot3(v, w.w);
        int repeated = 0;
        for (unsigned i = 0; i < 4; ++i) repeated |= (bits >> i & 1u) && vert[i].ia == sa && vert[i].ib == sb;
        if (repeated) break; /* converged: v is the closest point of D */
        /* no gain past rounding along v: converged */
        if (vv - lower <= 1e-13 * (vv + flat_abs * sqrt(vv))) break;
        unsigned slot = 0;
        while (bits >> slot & 1u) ++slot;
        const dvertex kept = vert[slot];
        vert[slot] = w;
        double next_lambda[4], next_v[3];
        const unsigned next_bits = solve(vert, bits | 1u << slot, flat_abs, next_lambda, next_v);
        const double next_vv = dot3(next_v, next_v);
        if (next_bits != 15u && !(next_vv < vv)) {
            vert[slot] = kept; /* no progress: v stands */
            break;
        }
        bits = next_bits;
        vv = next_vv;
        for (int i = 0; i < 4; ++i) lambda[i] = next_lambda[i];
        for (int c = 0; c < 3; ++c) v[c] = next_v[c];
    }
    out->iterations = iterations;
    out->bits = bits;
    for (unsigned i = 0; i < 4; ++i) {
        const int used = bits >> i & 1u;
        out->ia[i] = used ? vert[i].ia : 0u;
        out->ib[i] = used ? vert[i].ib : 0u;
        out->lambda[i] = used ? lambda[i] : 0.0;
    }
    for (int c = 0; c < 3; ++c) {
        out->pa[c] = out->pb[c] = 0.0;
        for (unsigned i = 0; i < 4; ++i)
            if (bits >> i & 1u) out->pa[c] += lambda[i] * vert[i].pa[c], out->pb[c] += lambda[i] * vert[i].pb[c];
    }
    /* within the rounding of double coordinates of 0: touching */
    out->distance = bits == 15u || !(vv > flat_abs * flat_abs) || !(lower > 0.0) ? 0.0 : sqrt(vv);
    out->overlap = !(out->distance > 0.0);
    for (int c = 0; c < 3; ++c) out->normal[c] = out->overlap ? 0.0 : v[c] / out->distance;
    if (out->overlap)
        for (int c = 0; c < 3; ++c) out->pb[c] = out->pa[c]; /* a common point */
}

void mink_double_answer(const mink_double_closest *c, float ra, float rb, int common_point, mink_result *out)
{
    const double dc = c->distance, margin = (double)ra + rb;
    const double *n = c->normal;
    double qa[3], qb[3];
    if (common_point && dc <= margin) {
        /* mid-overlap along the core axis, from A's core witness */
        const double lo = dc - rb > -ra ? dc - rb : -ra, hi = dc + rb < ra ? dc + rb : ra;
        for (int i = 0; i < 3; ++i) qa[i] = qb[i] = c->pa[i] + n[i] * 0.5 * (lo + hi);
        out->distance = 0.0f;
    } else {
        for (int i = 0; i < 3; ++i) qa[i] = c->pa[i] + n[i] * ra, qb[i] = c->pb[i] - n[i] * rb;
        out->distance = (float)(dc - margin);
    }
    out->normal.x = (float)n[0], out->normal.y = (float)n[1], out->normal.z = (float)n[2];
    out->point_a.x = (float)qa[0], out->point_a.y = (float)qa[1], out->point_a.z = (float)qa[2];
    out->point_b.x = (float)qb[0], out->point_b.y = (float)qb[1], out->point_b.z = (float)qb[2];
}
