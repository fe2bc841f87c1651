/* Public queries of the SIMD kernel. Until the vector kernel lands these
 * forward to the scalar reference, so every entry point already answers. */
#include "mink/mink_ref.h"

int mink_intersect(const mink_shape *a, const mink_pose *pa,
                   const mink_shape *b, const mink_pose *pb, mink_cache *cache)
{
    return mink_ref_intersect(a, pa, b, pb, cache);
}

mink_status mink_distance(const mink_shape *a, const mink_pose *pa,
                          const mink_shape *b, const mink_pose *pb,
                          mink_cache *cache, mink_result *out)
{
    return mink_ref_distance(a, pa, b, pb, cache, out);
}

mink_status mink_penetration(const mink_shape *a, const mink_pose *pa,
                             const mink_shape *b, const mink_pose *pb,
                             mink_cache *cache, mink_result *out)
{
    return mink_ref_penetration(a, pa, b, pb, cache, out);
}
