/* mink scalar reference: the same queries as mink.h, in plain portable C with
 * no intrinsics, written for clarity. It is the baseline the benchmarks measure
 * the SIMD kernel against and an oracle in tests. Same conventions, same
 * tolerances, same statuses as the SIMD kernel. */
#ifndef MINK_REF_H
#define MINK_REF_H

#include "mink.h"

#ifdef __cplusplus
extern "C" {
#endif

MINK_API int mink_ref_intersect(const mink_shape *a, const mink_pose *pa,
                                const mink_shape *b, const mink_pose *pb, mink_cache *cache);

MINK_API int mink_ref_intersect_ex(const mink_shape *a, const mink_pose *pa,
                                   const mink_shape *b, const mink_pose *pb,
                                   mink_cache *cache, mink_result *info);

MINK_API mink_status mink_ref_distance(const mink_shape *a, const mink_pose *pa,
                                       const mink_shape *b, const mink_pose *pb,
                                       mink_cache *cache, mink_result *out);

MINK_API mink_status mink_ref_penetration(const mink_shape *a, const mink_pose *pa,
                                          const mink_shape *b, const mink_pose *pb,
                                          mink_cache *cache, mink_result *out);

/* The contact manifold (see mink_manifold), scalar reference. */
MINK_API mink_status mink_ref_manifold(const mink_shape *a, const mink_pose *pa,
                                       const mink_shape *b, const mink_pose *pb,
                                       float margin, mink_cache *cache, struct mink_manifold *out);

/* Linear cast and time of impact (see mink_cast, mink_toi), scalar reference. */
MINK_API int mink_ref_cast(const mink_shape *a, const mink_pose *pa, mink_vec3 da,
                           const mink_shape *b, const mink_pose *pb, mink_vec3 db,
                           float target, mink_cast_result *out);

MINK_API int mink_ref_toi(const mink_shape *a, const mink_sweep *sa,
                          const mink_shape *b, const mink_sweep *sb,
                          float target, mink_cast_result *out);

#ifdef __cplusplus
}
#endif

#endif /* MINK_REF_H */
