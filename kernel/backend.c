/* One backend's table for the run-time dispatch (dispatch.h). Compiled once
 * per backend, like the kernel's width-dependent sources, with
 * -DMINK_BACKEND=<name> and backend_names.h, so every name below is that
 * backend's copy (mink_distance is mink_distance_<name>). */
#include "dispatch.h"
#include "simd.h"
#include "support.h"

#define MINK_BACKEND_STR_(b) #b
#define MINK_BACKEND_STR(b) MINK_BACKEND_STR_(b)

static float support_dot(const mink_shape *s, float dx, float dy, float dz)
{
    return mink_simd_support_dot(s, v4_set(dx, dy, dz, 0.0f));
}

const mink_backend MINK_BACKEND_NAME(mink_backend) = {
    MINK_BACKEND_STR(MINK_BACKEND),
    mink_intersect,
    mink_intersect_ex,
    mink_intersect_gjk_ex,
    mink_distance,
    mink_penetration,
    mink_penetration_gjk,
    MINK_BACKEND_NAME(mink_manifold), /* mink_manifold(...) is a function-like macro */
    mink_penetration_batch,
    mink_intersect_batch,
    mink_penetration_batch_mt,
    mink_intersect_batch_mt,
    mink_manifold_batch,
    mink_manifold_batch_mt,
    support_dot,
};

/* The compile flags and the name must agree (simd.h picks the width from the
 * flags; the four names have distinct lengths). */
_Static_assert(sizeof MINK_SIMD_NAME == sizeof MINK_BACKEND_STR(MINK_BACKEND),
               "backend flags and MINK_BACKEND disagree");
