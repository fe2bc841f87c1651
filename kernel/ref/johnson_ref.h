/* Johnson's distance subalgorithm with cached dot products and Cramer
 * determinants (van den Bergen 1999; Gilbert, Johnson, Keerthi 1988).
 *
 * Up to four simplex points live in fixed slots named by a bitmask. When a
 * point enters, its dot products with the others are computed once, and the
 * determinants det[X][i] of every subset X that contains it are built from
 * the determinants of X's subsets; subsets without the new point keep the
 * values computed when their newest member entered. */
#ifndef MINK_JOHNSON_REF_H
#define MINK_JOHNSON_REF_H

#include "support_ref.h"

typedef struct ref_simplex {
    ref_vertex vert[4];
    float dp[4][4];       /* dp[i][j] = w_i . w_j                           */
    float det[16][4];     /* det[X][i]: Cramer determinant of i in subset X  */
    float lambda[4];      /* barycentric weights of v on the current subset  */
    unsigned bits;        /* slots of the current simplex                    */
    unsigned last;        /* slot of the newest point                        */
    unsigned det_evals;   /* determinant entries computed (shows the reuse)  */
    unsigned backups;     /* times the backup procedure was needed           */
} ref_simplex;

/* An empty simplex. */
void mink_scalar_simplex_init(ref_simplex *s);
/* 1 if a point with the same support indices (or the same position) is in
 * the simplex: GJK stops on a repeated support point. */
int mink_scalar_simplex_contains(const ref_simplex *s, const ref_vertex *v);
/* Adds a point to a free slot (the simplex must hold fewer than 4). */
void mink_scalar_simplex_add(ref_simplex *s, const ref_vertex *v);
/* Reduces the simplex (old points + the newest) to the smallest subset whose
 * affine hull holds the point v closest to the origin, and returns v.
 * Returns 1 when a subset passed Johnson's test, 0 when the backup procedure
 * (the proper subset with the smallest |v|) had to pick.
 * A tetrahedron whose newest point lies within flat_tol of the old
 * triangle's plane is never taken whole: its Cramer determinants are then
 * rounding noise (a capsule's parallel edges make such parallelograms). */
int mink_scalar_johnson(ref_simplex *s, v3 *v, float flat_tol);
/* Warm start: loads up to four points (duplicates dropped), computes every
 * subset's determinants and keeps the subset passing Johnson's test among
 * all of them. Returns 0 when none does (the caller starts cold). */
int mink_scalar_johnson_seed(ref_simplex *s, const ref_vertex *pts, unsigned n, float flat_tol, v3 *v);
/* Number of points in the current simplex. */
unsigned mink_scalar_simplex_count(const ref_simplex *s);

#endif
