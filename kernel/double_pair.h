/* Points of a pair computed in double from the shapes' own coordinates and
 * the poses (world frame): the double stage's plumbing (gjk_double.c,
 * epa_double.c). */
#ifndef MINK_DOUBLE_PAIR_H
#define MINK_DOUBLE_PAIR_H

#include "gjk_double.h"

#include <math.h>
#include <stdint.h>

/* world = r local + p, r from q / |q| (poses are checked: |q| near 1) */
typedef struct dframe {
    double r[3][3];
    double p[3];
    int climb; /* a hull many times the other shape's size: supports climbed in double */
} dframe;

typedef struct dvertex {
    double w[3], pa[3], pb[3];
    uint32_t ia, ib;
} dvertex;

static inline void dframe_of(const mink_pose *pose, dframe *f)
{
    const double x = pose->q.x, y = pose->q.y, z = pose->q.z, w = pose->q.w;
    const double s = 2.0 / (x * x + y * y + z * z + w * w);
    f->r[0][0] = 1.0 - s * (y * y + z * z), f->r[0][1] = s * (x * y - w * z), f->r[0][2] = s * (x * z + w * y);
    f->r[1][0] = s * (x * y + w * z), f->r[1][1] = 1.0 - s * (x * x + z * z), f->r[1][2] = s * (y * z - w * x);
    f->r[2][0] = s * (x * z - w * y), f->r[2][1] = s * (y * z + w * x), f->r[2][2] = 1.0 - s * (x * x + y * y);
    f->p[0] = pose->p.x, f->p[1] = pose->p.y, f->p[2] = pose->p.z;
    f->climb = 0;
}

static inline double dot3(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* A world direction d in the frame's own axes: r^T d. */
static inline void dframe_unturn(const dframe *f, const double d[3], double out[3])
{
    for (int i = 0; i < 3; ++i) out[i] = f->r[0][i] * d[0] + f->r[1][i] * d[1] + f->r[2][i] * d[2];
}

/* The core point of a feature index (as the kernels number them), world. */
static inline void world_core_point(const mink_shape *s, const dframe *f, uint32_t id, double out[3])
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

typedef struct dpair {
    const mink_shape *a, *b;
    dframe fa, fb;
    mink_hull_support_fn hull_support;
} dpair;

/* A hull's point id (the float scan's pick along l, the hull's frame)
 * climbed in double: to the best point of the faces around it while one is
 * better. A float pick can miss the best by a rounding of the hull's size,
 * which near contact turns the normal: a 4 mm gap to a 700 m prism 560 m
 * out came out 2.8 mrad off. Convex: the climb ends at the support. */
static inline uint32_t climb_double(const mink_shape *s, const double l[3], uint32_t id)
{
    const hull_topology *t = s->topology;
    if (!t || id >= s->count || id >= t->point_count) return id;
    const uint32_t *around_first = hull_point_first(t), *around = hull_point_face(t);
    const uint32_t *loop_first = hull_face_first(t), *loop = hull_face_vertex(t);
    double best = l[0] * s->x[id] + l[1] * s->y[id] + l[2] * s->z[id];
    for (uint32_t step = 0; step < s->count; ++step) { /* each step gains: a cap, never reached */
        uint32_t next = id;
        for (uint32_t k = around_first[id]; k < around_first[id + 1]; ++k)
            for (uint32_t j = loop_first[around[k]]; j < loop_first[around[k] + 1]; ++j) {
                const uint32_t v = loop[j];
                const double h = l[0] * s->x[v] + l[1] * s->y[v] + l[2] * s->z[v];
                if (h > best) best = h, next = v;
            }
        if (next == id) break;
        id = next;
    }
    return id;
}

/* The feature index of the core's support along the world direction d. A
 * hull's is the kernel's own scan along d in float (scanning every vertex
 * in double cost more than the rest of this stage), climbed in double when
 * the hull is many times the other shape's size (f->climb). */
static inline uint32_t support_id(const dpair *p, const mink_shape *s, const dframe *f, const double d[3])
{
    double l[3]; /* d in the shape's frame */
    dframe_unturn(f, d, l);
    switch (s->type) {
    case MINK_SHAPE_CAPSULE:
        return l[1] >= 0.0 ? 1u : 0u;
    case MINK_SHAPE_BOX:
        return (l[0] >= 0.0 ? 1u : 0u) | (l[1] >= 0.0 ? 2u : 0u) | (l[2] >= 0.0 ? 4u : 0u);
    case MINK_SHAPE_HULL: {
        /* scaled to its largest component first: a tiny d would round to
         * float denormals */
        const double m = fmax(fabs(l[0]), fmax(fabs(l[1]), fabs(l[2])));
        if (!(m > 0.0)) return 0u;
        const float lf[3] = {(float)(l[0] / m), (float)(l[1] / m), (float)(l[2] / m)};
        const uint32_t id = p->hull_support(s, lf);
        return f->climb ? climb_double(s, l, id) : id;
    }
    default:
        return 0u;
    }
}

static inline void make_vertex(const dpair *p, uint32_t ia, uint32_t ib, dvertex *v)
{
    v->ia = ia, v->ib = ib;
    world_core_point(p->a, &p->fa, ia, v->pa);
    world_core_point(p->b, &p->fb, ib, v->pb);
    for (int i = 0; i < 3; ++i) v->w[i] = v->pb[i] - v->pa[i];
}

static inline void sub3(const double a[3], const double b[3], double out[3])
{
    out[0] = a[0] - b[0], out[1] = a[1] - b[1], out[2] = a[2] - b[2];
}

static inline void cross3(const double a[3], const double b[3], double out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1], out[1] = a[2] * b[0] - a[0] * b[2], out[2] = a[0] * b[1] - a[1] * b[0];
}

static inline double det3(const double a[3], const double b[3], const double c[3])
{
    double x[3];
    cross3(b, c, x);
    return dot3(a, x);
}

static inline void dpair_init(dpair *p, const mink_shape *a, const mink_pose *pa, const mink_shape *b,
                              const mink_pose *pb, mink_hull_support_fn hull_support)
{
    p->a = a, p->b = b, p->hull_support = hull_support;
    dframe_of(pa, &p->fa);
    dframe_of(pb, &p->fb);
    /* a float pick misses by a rounding of the hull's size: within the
     * other, smaller shape's tolerance but for a hull many times larger */
    p->fa.climb = a->type == MINK_SHAPE_HULL && a->extent > MINK_CHECKED_RATIO * (b->extent + b->radius);
    p->fb.climb = b->type == MINK_SHAPE_HULL && b->extent > MINK_CHECKED_RATIO * (a->extent + a->radius);
}

/* The coordinates' size: double rounds points to about 1e-16 of it. */
static inline double dpair_size(const dpair *p)
{
    return fabs(p->fa.p[0]) + fabs(p->fa.p[1]) + fabs(p->fa.p[2]) + fabs(p->fb.p[0]) + fabs(p->fb.p[1]) +
           fabs(p->fb.p[2]) + p->a->extent + p->b->extent;
}

#endif
