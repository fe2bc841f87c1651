/* Shape constructors, validation and the hull layout, shared by both kernels. */
#ifndef MINK_SHAPE_H
#define MINK_SHAPE_H

#include "mink/mink.h"

/* 1 if all three components are finite. */
int mink_vec3_finite(mink_vec3 v);

/* Checks a query's inputs; on success writes the poses with normalized
 * quaternions. Returns 0 on success, MINK_ERR_INVALID otherwise. */
int mink_check_query(const mink_shape *a, const mink_pose *pa,
                     const mink_shape *b, const mink_pose *pb,
                     mink_pose *pa_unit, mink_pose *pb_unit);

/* Zeros a result and sets its status (the MINK_ERR_INVALID answer). */
void mink_result_error(mink_result *out, mink_status status);

#endif
