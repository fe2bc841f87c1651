/* Expanding polytope algorithm, scalar reference (van den Bergen 2001;
 * Ericson, Real-Time Collision Detection 9.5): penetration depth of the
 * cores when GJK found them overlapping. Fixed capacity, no allocation. */
#ifndef MINK_EPA_REF_H
#define MINK_EPA_REF_H

#include "johnson_ref.h"

typedef struct ref_epa_result {
    float depth;         /* core penetration depth, >= 0                          */
    v3 normal;           /* unit, from A towards B (A frame): moving B by
                            depth * normal separates the cores                    */
    v3 pa, pb;           /* A's core point deepest in B, B's deepest in A (A frame) */
    unsigned iterations;
    mink_status status;  /* MINK_MAX_ITERATIONS: capacity or cap hit, best face   */
    int has_face;        /* the answer is a polytope face's: its features         */
    uint32_t face_ia[3], face_ib[3];
    int has_start;       /* the closed tetrahedron it started from (ids below)    */
    uint32_t start_ia[4], start_ib[4];
} ref_epa_result;

/* Runs EPA from GJK's terminal simplex (whose hull holds the origin up to the
 * touching band). When it has fewer than 4 points, or is flat, it is blown up
 * to a polytope around the origin first; when D = B - A is itself flat along
 * some direction, the depth there is 0 and no expansion is needed. */
void mink_scalar_epa(ref_pair *pair, const ref_simplex *start, ref_epa_result *out);

#endif
