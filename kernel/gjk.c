/* GJK, SIMD kernel. */
#include "gjk.h"
#include "tolerance.h"

void simd_gjk(simd_pair *pair, simd_gjk_mode mode, float margin, v4 v0,
              const simd_vertex *seed, unsigned nseed, simd_gjk_result *out)
{
    const float touch2 = (MINK_TOUCH_REL * pair->scale) * (MINK_TOUCH_REL * pair->scale);
    const float gap2 = (MINK_GJK_GAP_REL * pair->scale) * (MINK_GJK_GAP_REL * pair->scale);
    const float margin2 = margin * margin;
    simd_simplex *s = &out->simplex;

    v4 v;
    if (nseed == 0 || !simd_johnson_seed(s, seed, nseed, MINK_TOUCH_REL * pair->scale, &v)) {
        if (!(v4_len2(v0) > 0.0f)) v0 = v4_set(1, 0, 0, 0);
        simd_simplex_init(s);
        const simd_vertex first = simd_support_pair(pair, v4_neg(v0));
        simd_simplex_add(s, &first);
        simd_johnson(s, &v, MINK_TOUCH_REL * pair->scale);
    }

    out->overlap = 0;
    out->status = MINK_OK;
    out->iterations = 0;

    for (;;) {
        const float vv = v4_len2(v);
        /* four points around the origin (a warm seed can start that way), the
         * origin on the simplex up to rounding, or (intersect) cores within
         * the margin: |v| bounds the core distance from above */
        if (s->bits == 15u || vv <= touch2 || (mode == SIMD_GJK_INTERSECT && vv <= margin2)) {
            out->overlap = 1;
            break;
        }
        if (out->iterations >= MINK_GJK_MAX_ITERATIONS) {
            out->status = MINK_MAX_ITERATIONS; /* v is the best upper bound */
            break;
        }
        out->iterations++;

        const simd_vertex w = simd_support_pair(pair, v4_neg(v));
        const float vdotw = v4_dot(v, w.w);
        if (mode == SIMD_GJK_INTERSECT && vdotw > 0.0f && vdotw * vdotw > margin2 * vv) break;

        /* gap (vv - vw)/|v| <= tol, squared to avoid the root */
        const float gap = vv - vdotw;
        if (gap <= 0.0f || gap * gap <= gap2 * vv || simd_simplex_contains(s, &w)) break;

        /* Adding a point writes only its free slot and subsets holding it, so
         * the old simplex comes back from its mask and weights alone. */
        const unsigned old_bits = s->bits;
        const v4 old_lambda = s->lambda;
        simd_simplex_add(s, &w);
        v4 next;
        simd_johnson(s, &next, MINK_TOUCH_REL * pair->scale);
        if (s->bits == 15u) {
            out->overlap = 1;
            v = next;
            break;
        }
        if (v4_len2(next) >= vv) {
            s->bits = old_bits; /* no progress: keep the better simplex */
            s->lambda = old_lambda;
            break;
        }
        v = next;
    }
    out->v = v;
}
