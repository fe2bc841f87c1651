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

/* For the warm start (johnson() in johnson_step.h has its own copies, in
 * johnson_step): one copy per old simplex, so every test and row address is
 * a constant. The seed fills slots in order, so the old simplex is always
 * 0, 1, 3 or 7. */
static void update_determinants(simd_simplex *s)
{
    switch (s->bits) {
    case 0: update_determinants_from(s, 0); break;
    case 1: update_determinants_from(s, 1); break;
    case 3: update_determinants_from(s, 3); break;
    default: update_determinants_from(s, 7); break;
    }
}

/* The subset of `all` passing Johnson's test: `all` itself first (the
 * seed is last frame's closest subset, which mostly still is), then the
 * others in numeric order; all a constant (unrolled: each test reads fixed
 * rows). In exact arithmetic one subset passes, so the order only breaks
 * float's ties. */
MINK_ALWAYS_INLINE int seed_pick(simd_simplex *s, unsigned all, int full_ok, v4 *v)
{
    if ((all != 15u || full_ok) && subset_is_closest(s, all, all)) {
        s->bits = all;
        *v = subset_point(s, all, &s->lambda);
        return 1;
    }
#pragma GCC unroll 16
    for (unsigned x = 1; x < 16; ++x) {
        if ((x & all) != x || x == all || !subset_is_closest(s, x, all)) continue;
        s->bits = x;
        *v = subset_point(s, x, &s->lambda);
        return 1;
    }
    return 0;
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
    /* the points fill slots 0, 1, ... in order: all is 0, 1, 3, 7 or 15 */
    switch (s->bits) {
    case 0: return 0;
    case 1: return seed_pick(s, 1, 1, v);
    case 3: return seed_pick(s, 3, 1, v);
    case 7: return seed_pick(s, 7, 1, v);
    default: return seed_pick(s, 15, !tetra_is_flat(s, s->last, flat_tol), v);
    }
}
