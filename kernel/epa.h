/* EPA, SIMD kernel: the algorithm of kernel/ref/epa_ref.c with the faces'
 * keys (d |d|) in lanes, so the closest-face search is a lane-wide scan
 * over the faces that stay, made while the expansion's new faces are
 * compared in registers. */
#ifndef MINK_EPA_H
#define MINK_EPA_H

#include "johnson.h"

typedef struct simd_epa_result {
    float depth;         /* core depth, >= 0                        */
    v4 normal;           /* unit, from A towards B (A frame)        */
    v4 pa, pb;           /* core witnesses (A frame)                */
    unsigned iterations;
    mink_status status;
    int has_face;        /* the answer is a polytope face's: its features */
    uint32_t face_ia[3], face_ib[3];
    int has_start;       /* the closed tetrahedron it started from (ids below) */
    uint32_t start_ia[4], start_ib[4];
} simd_epa_result;

void mink_simd_epa(simd_pair *pair, const simd_simplex *start, simd_epa_result *out);

#endif
