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
}

static inline double dot3(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

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

/* The feature index of the core's support along the world direction d. A
 * hull's is the kernel's own scan along d in float: it may pick a vertex
 * within a float rounding of the best (eps times the hull's size, far below
 * the answer's tolerance), and scanning every vertex in double cost more
 * than the rest of this stage. */
static inline uint32_t support_id(const dpair *p, const mink_shape *s, const dframe *f, const double d[3])
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
        /* scaled to its largest component first: a tiny d would round to
         * float denormals */
        const double m = fmax(fabs(l[0]), fmax(fabs(l[1]), fabs(l[2])));
        if (!(m > 0.0)) return 0u;
        const float lf[3] = {(float)(l[0] / m), (float)(l[1] / m), (float)(l[2] / m)};
        return p->hull_support(s, lf);
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
}

/* The coordinates' size: double rounds points to about 1e-16 of it. */
static inline double dpair_size(const dpair *p)
{
    return fabs(p->fa.p[0]) + fabs(p->fa.p[1]) + fabs(p->fa.p[2]) + fabs(p->fb.p[0]) + fabs(p->fb.p[1]) +
           fabs(p->fb.p[2]) + p->a->extent + p->b->extent;
}

#endif
