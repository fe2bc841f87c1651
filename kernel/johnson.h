/* Johnson's distance subalgorithm with cached dot products and Cramer
 * determinants, SIMD kernel. Same algorithm as kernel/ref/johnson_ref.c;
 * here the determinants of one subset X are one vector (lane i = det of
 * point i in X), and each is built in one step from X's sub-subsets:
 *   det[X][j] = sum over i in X\{j} of det[X\{j}][i] * (dp[k][i] - dp[j][i])
 * as four lane-wise products summed across (k = lowest slot of X\{j}). */
#ifndef MINK_JOHNSON_H
#define MINK_JOHNSON_H

#include "support.h"

#include <string.h>

typedef struct simd_simplex {
    simd_vertex vert[4];
    _Alignas(16) float dp[4][4];   /* dp[i][j] = w_i . w_j, rows load as v4        */
    _Alignas(16) float det[16][4]; /* det[X][i]: Cramer determinant of i in X (0
                                      outside X), rows load as v4              */
    v4 lambda;         /* weights of v on the current subset (lanes)         */
    unsigned bits;     /* slots of the current simplex                       */
    unsigned last;     /* slot of the newest point                           */
} simd_simplex;

void mink_simd_simplex_init(simd_simplex *s);

/* Whether v repeats a point of the slots in `bits` (same features, or the
 * same point). Always inline: GJK's step asks it with `bits` a constant,
 * which leaves no slot tests. */
MINK_ALWAYS_INLINE int simplex_repeats(const simd_simplex *s, unsigned bits, const simd_vertex *v)
{
    /* ia and ib compared as one 64-bit word, read once */
    uint64_t id, uid;
    memcpy(&id, v->ids, sizeof id);
    for (unsigned i = 0; i < 4; ++i) {
        if (!(bits & (1u << i))) continue;
        const simd_vertex *u = &s->vert[i];
        memcpy(&uid, u->ids, sizeof uid);
        if (uid == id || v4_all(v4_cmpeq(u->w, v->w))) return 1;
    }
    return 0;
}

MINK_INLINE int mink_simd_simplex_contains(const simd_simplex *s, const simd_vertex *v)
{
    return simplex_repeats(s, s->bits, v);
}

/* The new point goes into the lowest free slot (slot 3 if none is free);
 * Johnson's step relies on that (johnson() in johnson_step.h adds its point
 * there itself). */
MINK_INLINE void mink_simd_simplex_add(simd_simplex *s, const simd_vertex *v)
{
    const unsigned slot = (unsigned)__builtin_ctz(~s->bits | 8u);
    s->vert[slot] = *v;
    s->last = slot;
}
/* Warm start: loads up to four points (duplicates dropped), computes every
 * subset's determinants and picks the subset that passes Johnson's test
 * among all of them. Returns 0 when none does (the seed is degenerate at
 * the new poses): the caller then starts cold. */
int mink_simd_johnson_seed(simd_simplex *s, const simd_vertex *pts, unsigned n, float flat_tol, v4 *v);
/* Closest points of the cores from the weights (A frame). Inline: once
 * per query, a call cost more than its stores. */
MINK_INLINE void mink_simd_simplex_points(const simd_simplex *s, v4 *pa, v4 *pb)
{
    const v4 l = s->lambda;
    const v4 l0 = v4_splat_x(l), l1 = v4_splat_y(l), l2 = v4_splat_z(l);
    const v4 l3 = v4_shuffle(l, l, 3, 3, 3, 3);
    *pa = v4_madd(l3, s->vert[3].pa, v4_madd(l2, s->vert[2].pa, v4_madd(l1, s->vert[1].pa, v4_mul(l0, s->vert[0].pa))));
    *pb = v4_madd(l3, s->vert[3].pb, v4_madd(l2, s->vert[2].pb, v4_madd(l1, s->vert[1].pb, v4_mul(l0, s->vert[0].pb))));
}

#endif
