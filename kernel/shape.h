/* Shape constructors, validation and the hull layout, shared by both kernels. */
#ifndef MINK_SHAPE_H
#define MINK_SHAPE_H

#include "mink/mink.h"
#include "simd.h"
#include "tolerance.h"

#include <math.h>
#include <stddef.h>

/* 1 if all three components are finite. */
int mink_vec3_finite(mink_vec3 v);

/* The validation rules, inline: every query pays them for two shapes and
 * two poses, so the float fields are compared a vector at a time and every
 * flag is combined without branches, tested once. */

/* The vector compares read neighbouring fields together. */
_Static_assert(offsetof(mink_shape, half) == offsetof(mink_shape, radius) + sizeof(float) &&
                   offsetof(mink_shape, extent) == offsetof(mink_shape, half) + 3 * sizeof(float),
               "radius, half[3], extent contiguous");
_Static_assert(offsetof(mink_pose, q) == sizeof(mink_vec3), "q.x follows p");

/* Lanes within [lo, hi]; a NaN lane never is. */
static inline v4m mink_in_range(v4 v, v4 lo, v4 hi) { return v4_and(v4_cmpge(v, lo), v4_cmpge(hi, v)); }
/* Lanes where low >= lo and high <= hi (NaN lanes never). */
static inline v4m mink_in_range2(v4 low, v4 high, v4 lo, v4 hi)
{
    return v4_and(v4_cmpge(low, lo), v4_cmpge(hi, high));
}

/* Lanes set where s's sizes are good: radius and half extents in
 * [0, MINK_MAX_MAGNITUDE] (-0 too), the extent (a box's or hull's may reach
 * sqrt(3) times the limit) in [0, 2 MINK_MAX_MAGNITUDE]. */
static inline v4m mink_shape_sizes_ok(const mink_shape *s)
{
    const float lim = MINK_MAX_MAGNITUDE;
    const v4 radius_half = v4_load(&s->radius); /* radius, half[0..2] */
    const v4 half_extent = v4_load(s->half);    /* half[0..2], extent */
    /* lane-wise min and max of the two, then one range test: each value
     * meets its own bounds in some lane (half[2] in lane 2's max). Each
     * vector is the second operand of one of them: min and max return
     * their second operand when either is NaN, which then fails the test. */
    return mink_in_range2(v4_min(radius_half, half_extent), v4_max(half_extent, radius_half), v4_zero(),
                          v4_set(lim, lim, lim, 2.0f * lim));
}

/* 1 if s's kind and, for a hull, its counts and arrays are bad. */
static inline int mink_shape_kind_bad(const mink_shape *s)
{
    if (s->type != MINK_SHAPE_HULL) return s->type - MINK_SHAPE_SPHERE > MINK_SHAPE_BOX - MINK_SHAPE_SPHERE;
    /* branches, each as good as never taken: fewer instructions than the
     * seven flags combined */
    return s->count - 1u >= MINK_HULL_MAX_POINTS || s->padded < s->count || s->padded % MINK_HULL_PAD != 0 || !s->x ||
           !s->y || !s->z;
}

/* Lanes set where p's position is within MINK_MAX_MAGNITUDE (finite), in
 * absolute value. The fourth lane reads q.x, left to the |q|^2 band (set
 * unless NaN, which the band rejects as well). */
static inline v4m mink_position_ok(const mink_pose *p)
{
    const float lim = MINK_MAX_MAGNITUDE;
    return v4_cmpge(v4_set(lim, lim, lim, INFINITY), v4_abs(v4_load(&p->p.x)));
}

/* 1 unless |q| is within MINK_QUAT_UNIT_TOL of 1, tested on |q|^2, which it
 * gives (no root; a NaN or Inf in q makes |q|^2 NaN or Inf: rejected). */
static inline int mink_quat_bad(const mink_pose *p, float *norm2)
{
    const float n2 = p->q.x * p->q.x + p->q.y * p->q.y + p->q.z * p->q.z + p->q.w * p->q.w;
    const float lo = (1.0f - MINK_QUAT_UNIT_TOL) * (1.0f - MINK_QUAT_UNIT_TOL);
    const float hi = (1.0f + MINK_QUAT_UNIT_TOL) * (1.0f + MINK_QUAT_UNIT_TOL);
    *norm2 = n2;
    return !(n2 >= lo) | !(n2 <= hi);
}

/* |q|^2 of both poses, lanes (a, a, b, b): mink_quat_bad's sums, each
 * ((x x + y y) + z z) + w w, two poses a vector at a time. */
static inline v4 mink_quat_norm2_pair(const mink_pose *pa, const mink_pose *pb)
{
    const v4 a = v4_load(&pa->q.x), b = v4_load(&pb->q.x);
    const v4 a2 = v4_mul(a, a), b2 = v4_mul(b, b);
    const v4 xy = v4_add(v4_shuffle(a2, b2, 0, 0, 0, 0), v4_shuffle(a2, b2, 1, 1, 1, 1));
    return v4_add(v4_add(xy, v4_shuffle(a2, b2, 2, 2, 2, 2)), v4_shuffle(a2, b2, 3, 3, 3, 3));
}

/* mink_check_inputs_v's tests of the values alone, for a caller that has
 * checked the pointers and the shapes' kinds itself: sizes, positions, and
 * |q|^2 of each pose, lanes (a, a, b, b) of *norm2 (within
 * MINK_QUAT_UNIT_TOL of 1: mink_quat_bad's test). */
static inline int mink_check_values_v(const mink_shape *a, const mink_pose *pa, const mink_shape *b,
                                      const mink_pose *pb, v4 *norm2)
{
    const float lo = (1.0f - MINK_QUAT_UNIT_TOL) * (1.0f - MINK_QUAT_UNIT_TOL);
    const float hi = (1.0f + MINK_QUAT_UNIT_TOL) * (1.0f + MINK_QUAT_UNIT_TOL);
    const v4 n2 = mink_quat_norm2_pair(pa, pb);
    *norm2 = n2;
    const v4m ok = v4_and(v4_and(v4_and(mink_shape_sizes_ok(a), mink_shape_sizes_ok(b)),
                                 v4_and(mink_position_ok(pa), mink_position_ok(pb))),
                          mink_in_range(n2, v4_splat(lo), v4_splat(hi)));
    return v4_all(ok) ? 0 : MINK_ERR_INVALID;
}

/* Checks a query's inputs without copying them (the values, and the
 * pointers and kinds); on success gives |q|^2 as above. Returns 0 on
 * success, MINK_ERR_INVALID otherwise. */
static inline int mink_check_inputs_v(const mink_shape *a, const mink_pose *pa, const mink_shape *b,
                                      const mink_pose *pb, v4 *norm2)
{
    if (!a || !b || !pa || !pb) return MINK_ERR_INVALID;
    const int bad = mink_shape_kind_bad(a) | mink_shape_kind_bad(b);
    return (bad | mink_check_values_v(a, pa, b, pb, norm2)) ? MINK_ERR_INVALID : 0;
}

/* The same with |q|^2 of each pose as floats. */
static inline int mink_check_inputs(const mink_shape *a, const mink_pose *pa, const mink_shape *b,
                                    const mink_pose *pb, float *qa_norm2, float *qb_norm2)
{
    v4 n2 = v4_zero();
    const int status = mink_check_inputs_v(a, pa, b, pb, &n2);
    *qa_norm2 = v4_x(n2);
    *qb_norm2 = v4_z(n2);
    return status;
}

/* Checks a query's inputs; on success writes the poses with normalized
 * quaternions. Returns 0 on success, MINK_ERR_INVALID otherwise. */
int mink_check_query(const mink_shape *a, const mink_pose *pa,
                     const mink_shape *b, const mink_pose *pb,
                     mink_pose *pa_unit, mink_pose *pb_unit);

/* A common point of two overlapping rounded shapes along their core axis,
 * as a distance from A's core point towards B's (dc apart): the points in
 * both are [max(-ra, dc - rb), min(ra, dc + rb)]; this is its middle, inside
 * both even when one shape holds the other. */
float mink_overlap_middle(float ra, float rb, float dc);

/* Zeros a result and sets its status (the MINK_ERR_INVALID answer). */
void mink_result_error(mink_result *out, mink_status status);

#endif
