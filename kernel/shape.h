/* Shape constructors, validation and the hull layout, shared by both kernels. */
#ifndef MINK_SHAPE_H
#define MINK_SHAPE_H

#include "mink/mink.h"

/* 1 if all three components are finite. */
int mink_vec3_finite(mink_vec3 v);

/* Checks a query's inputs without copying them; on success gives |q|^2 of
 * each pose (within MINK_QUAT_UNIT_TOL of 1). Returns 0 on success,
 * MINK_ERR_INVALID otherwise. */
int mink_check_inputs(const mink_shape *a, const mink_pose *pa, const mink_shape *b, const mink_pose *pb,
                      float *qa_norm2, float *qb_norm2);

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
