/* Batch entry points: one answer per pair, in input order. */
#include "mink/mink.h"
#include "shape.h"

void mink_penetration_batch(const mink_pair *pairs, size_t n, mink_result *out)
{
    if (!out) return;
    for (size_t i = 0; i < n; ++i) {
        if (!pairs) {
            mink_result_error(&out[i], MINK_ERR_INVALID);
            continue;
        }
        mink_penetration(pairs[i].a, &pairs[i].pa, pairs[i].b, &pairs[i].pb, pairs[i].cache, &out[i]);
    }
}

void mink_intersect_batch(const mink_pair *pairs, size_t n, int *out)
{
    if (!out) return;
    for (size_t i = 0; i < n; ++i)
        out[i] = pairs ? mink_intersect(pairs[i].a, &pairs[i].pa, pairs[i].b, &pairs[i].pb, pairs[i].cache)
                       : MINK_ERR_INVALID;
}
