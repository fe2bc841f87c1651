/* GJK's edge pair, both kernels: the point nearest the origin of the
 * parallelogram that an edge of A and an edge of B make in D, as weights
 * on its four corners. Plain C: it runs once, at the end of a GJK that
 * stopped on the parallelogram's diagonal (gjk.c, ref/gjk_ref.c). */
#ifndef MINK_EDGE_PAIR_H
#define MINK_EDGE_PAIR_H

#include "tolerance.h"

#include <math.h>

static inline void edge_pair_cross(const float a[3], const float b[3], float out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

static inline float edge_pair_dot(const float a[3], const float b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* A's edge a(u) = a0 + u da, B's b(t) = b0 + t db, r = a0 - b0: the weights
 * of D's point b(t) - a(u) at the edges' closest points on the corners
 * (a0, b0), (a1, b1), (a1, b0), (a0, b1), in w[0..3]. Both points inside
 * their edges: the half of the parallelogram on the point's side of the
 * diagonal (three weights); an end: the side or the corner that holds it.
 * 0 when the edges have no length or are parallel within
 * MINK_GJK_EDGE_PARALLEL_SIN2 (no parallelogram).
 *
 * The lines' parameters come from cross products, (n.(db x r), n.(da x r))
 * / n.n with n = da x db: the dot-product form (ab f - c ee) / (aa ee - ab^2)
 * loses its denominator to rounding below 1e-3 rad from parallel, these
 * only at about eps / angle. Then clamped to the edges as in Ericson's
 * segment pair (Real-Time Collision Detection 5.1.9). */
static inline int edge_pair_weights(const float da[3], const float db[3], const float r[3], float w[4])
{
    const float aa = edge_pair_dot(da, da), ee = edge_pair_dot(db, db);
    if (!(aa > 0.0f && ee > 0.0f)) return 0;
    float n[3], dbr[3], dar[3];
    edge_pair_cross(da, db, n);
    const float nn = edge_pair_dot(n, n);
    if (!(nn > MINK_GJK_EDGE_PARALLEL_SIN2 * aa * ee)) return 0;
    edge_pair_cross(db, r, dbr);
    edge_pair_cross(da, r, dar);
    float u = edge_pair_dot(n, dbr) / nn, t = edge_pair_dot(n, dar) / nn;
    const float edge = 1e-4f; /* inside an edge, not at an end */
    if (!(u > edge && u < 1.0f - edge && t > edge && t < 1.0f - edge)) {
        const float ab = edge_pair_dot(da, db), c = edge_pair_dot(da, r), f = edge_pair_dot(db, r);
        u = fminf(fmaxf(u, 0.0f), 1.0f);
        t = fminf(fmaxf((ab * u + f) / ee, 0.0f), 1.0f); /* B's point nearest a(u) */
        u = fminf(fmaxf((ab * t - c) / aa, 0.0f), 1.0f); /* A's point nearest b(t) */
        u = u < edge ? 0.0f : u > 1.0f - edge ? 1.0f : u;
        t = t < edge ? 0.0f : t > 1.0f - edge ? 1.0f : t;
    }
    const int u_end = u == 0.0f || u == 1.0f, t_end = t == 0.0f || t == 1.0f;
    if (!u_end && !t_end) {
        const int a1b0 = u >= t;
        w[0] = a1b0 ? 1.0f - u : 1.0f - t;
        w[1] = a1b0 ? t : u;
        w[2] = a1b0 ? u - t : 0.0f;
        w[3] = a1b0 ? 0.0f : t - u;
    } else {
        /* bilinear weights of (u, t), zero but on a side or a corner */
        w[0] = (1.0f - u) * (1.0f - t);
        w[1] = u * t;
        w[2] = u * (1.0f - t);
        w[3] = (1.0f - u) * t;
    }
    return w[0] > 0.0f || w[1] > 0.0f || w[2] > 0.0f || w[3] > 0.0f;
}

#endif
