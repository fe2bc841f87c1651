/* The GJK loop, SIMD kernel: the same termination rules as the reference
 * (kernel/ref/gjk_ref.c), on v4 math, without square roots in the loop. */
#ifndef MINK_GJK_H
#define MINK_GJK_H

#include "johnson.h"

typedef enum simd_gjk_mode { SIMD_GJK_DISTANCE = 0, SIMD_GJK_INTERSECT = 1 } simd_gjk_mode;

typedef struct simd_gjk_result {
    int overlap;
    v4 v;                 /* closest point of D (or a separating axis) */
    simd_simplex simplex;
    int apart_proven;     /* intersect: v's support plane clears the margin
                             (else "apart" is GJK's stall, unproven) */
    int stalled;          /* apart, but stopped by rounding (a repeated
                             point, no progress) before the bounds met */
    int tied;             /* apart, the bounds met on a vertex or an edge of
                             D with a new point tied within rounding: the
                             normal may be off by more than the tie angle */
    unsigned iterations;
    mink_status status;
} simd_gjk_result;

/* Runs GJK on the cores. With seed points (a cached simplex re-evaluated at
 * the new poses) it starts from their closest subset, else cold from the
 * support point along -v0. `margin` = rA + rB (intersect mode). */
void mink_simd_gjk(simd_pair *pair, simd_gjk_mode mode, float margin, v4 v0,
              const simd_vertex *seed, unsigned nseed, simd_gjk_result *out);

/* The boolean search of an intersect of sharp cores (no radii) with no
 * simplex to start from: GJK's path from the support along -v0, without
 * closest points or weights (each step keeps the simplex's feature whose
 * region holds the origin, by the signs of Muratori's tests, and searches
 * along its normal). It answers only what it can prove: apart when D's
 * support plane clears the touching band, overlap when four points hold
 * the origin by GJK's own containment test. 1 with the answer in *out
 * (overlap, v: the separating axis or about 0, the simplex's points and
 * ids, iterations), 0 when the pair is left to mink_simd_gjk: touching,
 * within the band, a repeated point or a flat simplex. */
int mink_simd_gjk_boolean(simd_pair *pair, v4 v0, simd_gjk_result *out);

/* The same search started from `inner`, a point of D that costs no support
 * (A frame: the cores' centres' difference, query.c's pair_inner_point):
 * the first support, along -inner, and that point already make a segment,
 * so four points can hold the origin after three supports instead of four.
 * The point's ids are CACHE_INNER_ID (cache.h). 0 also when inner is 0. */
int mink_simd_gjk_boolean_inner(simd_pair *pair, v4 inner, simd_gjk_result *out);

/* Whether four points of D hold the origin by GJK's own containment test
 * (MINK_GJK_INSIDE_REL S, which float rounding cannot fake): the cores
 * overlap. For a cached tetrahedron re-evaluated at new poses. */
int mink_simd_tetra_holds_origin(const v4 w[4], float scale);

#endif
