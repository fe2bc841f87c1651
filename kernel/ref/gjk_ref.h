/* The GJK loop, scalar reference (van den Bergen 1999): distance between the
 * cores, or a boolean answer that exits at the first separating axis. */
#ifndef MINK_GJK_REF_H
#define MINK_GJK_REF_H

#include "johnson_ref.h"

typedef enum ref_gjk_mode {
    REF_GJK_DISTANCE = 0,  /* converge to the closest points of the cores   */
    REF_GJK_INTERSECT = 1  /* stop once the answer to "overlap?" is known    */
} ref_gjk_mode;

typedef struct ref_gjk_result {
    int overlap;           /* cores closer than `margin` (distance mode: the
                              cores touch within the touching band)          */
    v3 v;                  /* closest point of D = B - A to the origin (A
                              frame); in intersect mode when separated: a
                              separating axis                                */
    ref_simplex simplex;   /* terminal simplex and its weights              */
    int apart_proven;      /* intersect: v's support plane clears the margin
                              (else "apart" is GJK's stall, unproven)        */
    int stalled;           /* apart, but stopped by rounding (a repeated
                              point, no progress) before the bounds met      */
    int tied;              /* apart, the bounds met on a vertex or an edge of
                              D with a new point tied within rounding        */
    unsigned iterations;
    mink_status status;
} ref_gjk_result;

/* Runs GJK on the pair's cores. With seed points (a cached simplex
 * re-evaluated at the new poses) it starts from their closest subset; else
 * cold, from the support point along -v0 (any nonzero vector). `margin` is
 * rA + rB: in intersect mode the shapes overlap when the cores are within it. */
void mink_scalar_gjk(ref_pair *pair, ref_gjk_mode mode, float margin, v3 v0,
             const ref_vertex *seed, unsigned nseed, ref_gjk_result *out);

/* The closest points on the cores from the simplex weights (A frame). */
void mink_scalar_simplex_points(const ref_simplex *s, v3 *pa, v3 *pb);

#endif
