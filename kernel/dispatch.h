/* Run-time dispatch (MINK_SIMD=auto on x86-64): one table per backend of the
 * SIMD kernel's entry points. backend.c, compiled once per backend with the
 * backend's flags and names (backend_names.h), defines that backend's table;
 * dispatch.c, compiled for the baseline, picks one table at first use and
 * forwards the public functions through it. Only public types cross the
 * boundary (no vector types: the baseline and the backends agree on them). */
#ifndef MINK_DISPATCH_H
#define MINK_DISPATCH_H

#include "mink/mink.h"

typedef struct mink_backend {
    const char *name; /* "portable", "sse41", "avx2", "avx512" */
    int (*intersect)(const mink_shape *a, const mink_pose *pa, const mink_shape *b, const mink_pose *pb,
                     mink_cache *cache);
    int (*intersect_ex)(const mink_shape *a, const mink_pose *pa, const mink_shape *b, const mink_pose *pb,
                        mink_cache *cache, mink_result *info);
    int (*intersect_gjk_ex)(const mink_shape *a, const mink_pose *pa, const mink_shape *b, const mink_pose *pb,
                            mink_cache *cache, mink_result *info);
    mink_status (*distance)(const mink_shape *a, const mink_pose *pa, const mink_shape *b, const mink_pose *pb,
                            mink_cache *cache, mink_result *out);
    mink_status (*penetration)(const mink_shape *a, const mink_pose *pa, const mink_shape *b, const mink_pose *pb,
                               mink_cache *cache, mink_result *out);
    mink_status (*penetration_gjk)(const mink_shape *a, const mink_pose *pa, const mink_shape *b, const mink_pose *pb,
                                   mink_cache *cache, mink_result *out);
    mink_status (*manifold)(const mink_shape *a, const mink_pose *pa, const mink_shape *b, const mink_pose *pb,
                            float margin, mink_cache *cache, struct mink_manifold *out);
    void (*penetration_batch)(const mink_pair *pairs, size_t n, mink_result *out);
    void (*intersect_batch)(const mink_pair *pairs, size_t n, int *out);
    void (*penetration_batch_mt)(const mink_pair *pairs, size_t n, mink_result *out, unsigned threads);
    void (*intersect_batch_mt)(const mink_pair *pairs, size_t n, int *out, unsigned threads);
    void (*manifold_batch)(const mink_pair *pairs, size_t n, float margin, struct mink_manifold *out);
    void (*manifold_batch_mt)(const mink_pair *pairs, size_t n, float margin, struct mink_manifold *out,
                              unsigned threads);
    /* mink_simd_support_dot (cast.c, shared, calls it) with the direction as floats */
    float (*support_dot)(const mink_shape *s, float dx, float dy, float dz);
} mink_backend;

/* The tables (backend.c); one per backend compiled in. */
extern const mink_backend mink_backend_portable;
extern const mink_backend mink_backend_sse41;
extern const mink_backend mink_backend_avx2;
extern const mink_backend mink_backend_avx512;

#endif /* MINK_DISPATCH_H */
