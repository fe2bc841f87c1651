/* Johnson's subalgorithm, SIMD kernel. */
#include "johnson.h"
#include "johnson_step.h"

void mink_simd_simplex_init(simd_simplex *s)
{
    /* Empty slots take part in four-lane products (under zero weights), so
     * they must be finite. det needs nothing: only rows of subsets of the
     * simplex are read, and each is written when its newest point joins. */
    for (unsigned i = 0; i < 4; ++i) {
        s->vert[i].w = s->vert[i].pa = s->vert[i].pb = v4_zero();
        v4_store_aligned(s->dp[i], v4_zero());
    }
    s->bits = 0;
    s->last = 0;
}

/* For the warm start (johnson() in johnson_step.h has its own copies, in johnson_step):
 * one copy per old simplex, so every test and row address is a constant. */
static void update_determinants(simd_simplex *s)
{
    switch (s->bits) {
    case 0: update_determinants_from(s, 0); break;
    case 1: update_determinants_from(s, 1); break;
    case 2: update_determinants_from(s, 2); break;
    case 3: update_determinants_from(s, 3); break;
    case 4: update_determinants_from(s, 4); break;
    case 5: update_determinants_from(s, 5); break;
    case 6: update_determinants_from(s, 6); break;
    case 7: update_determinants_from(s, 7); break;
    case 8: update_determinants_from(s, 8); break;
    case 9: update_determinants_from(s, 9); break;
    case 10: update_determinants_from(s, 10); break;
    case 11: update_determinants_from(s, 11); break;
    case 12: update_determinants_from(s, 12); break;
    case 13: update_determinants_from(s, 13); break;
    default: update_determinants_from(s, 14); break;
    }
}

int mink_simd_johnson_seed(simd_simplex *s, const simd_vertex *pts, unsigned n, float flat_tol, v4 *v)
{
    mink_simd_simplex_init(s);
    for (unsigned i = 0; i < n && i < 4; ++i) {
        if (mink_simd_simplex_contains(s, &pts[i])) continue;
        mink_simd_simplex_add(s, &pts[i]);
        update_determinants(s);
        s->bits |= 1u << s->last;
    }
    const unsigned all = s->bits;
    if (all == 0) return 0;
    const int full_ok = all != 15u || !tetra_is_flat(s, s->last, flat_tol);
    for (unsigned x = 1; x < 16; ++x) {
        if ((x & all) != x || (x == 15u && !full_ok) || !subset_is_closest(s, x, all)) continue;
        s->bits = x;
        *v = subset_point(s, x);
        return 1;
    }
    return 0;
}
