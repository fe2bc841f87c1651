/* What the case-file modules (cases.c: queries and manifolds; cast_cases.c:
 * casts) share besides the public cases.h. */
#ifndef MINK_CASES_INTERNAL_H
#define MINK_CASES_INTERNAL_H

#include "cases.h"

#if defined(__GNUC__) || defined(__clang__)
#define CASES_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CASES_PRINTF(f, a)
#endif

/* Writes the reason into why and returns 0 (a failed check). */
int case_reject(char *why, size_t whylen, const char *fmt, ...) CASES_PRINTF(3, 4);

/* Rotates v by q = (w, x, y, z), normalized; `inverse` applies the conjugate. */
void case_quat_rotate(const double q[4], int inverse, const double v[3], double out[3]);

/* FORMAT.md's per-shape scale: largest |world coordinate| of a core point, plus the radius. */
double case_shape_scale(const case_shape *s, const case_pose *q);

typedef mink_status (*ref_query)(const mink_shape *, const mink_pose *, const mink_shape *, const mink_pose *,
                                 mink_cache *, mink_result *);

/* The reference's answer for the point x (a sphere of radius 0) against a
 * shape: with mink_ref_distance its distance (0 inside), with
 * mink_ref_penetration its signed distance. -1 when x cannot be queried. */
int case_point_gap(ref_query query, const mink_shape *s, const mink_pose *ps, mink_vec3 x, double *gap);

#endif
