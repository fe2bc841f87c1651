/* Johnson's subalgorithm, SIMD kernel. */
#include "johnson.h"

#include <string.h>

/* Subsets in order of size, so each one's sub-subsets come first. */
static const unsigned char by_size[15] = {1, 2, 4, 8, 3, 5, 6, 9, 10, 12, 7, 11, 13, 14, 15};
static const unsigned char lowest[16] = {0, 0, 1, 0, 2, 0, 1, 0, 3, 0, 1, 0, 2, 0, 1, 0};

static v4 lane_mask(unsigned bits)
{
    const simde__m128i m = simde_mm_set_epi32((bits & 8u) ? -1 : 0, (bits & 4u) ? -1 : 0,
                                              (bits & 2u) ? -1 : 0, (bits & 1u) ? -1 : 0);
    return simde_mm_castsi128_ps(m);
}

void simd_simplex_init(simd_simplex *s)
{
    memset(s, 0, sizeof *s);
}

int simd_simplex_contains(const simd_simplex *s, const simd_vertex *v)
{
    for (unsigned i = 0; i < 4; ++i) {
        if (!(s->bits & (1u << i))) continue;
        const simd_vertex *u = &s->vert[i];
        if ((u->ia == v->ia && u->ib == v->ib) || v4_all(v4_cmpeq(u->w, v->w))) return 1;
    }
    return 0;
}

void simd_simplex_add(simd_simplex *s, const simd_vertex *v)
{
    unsigned slot = 0;
    while (slot < 3 && (s->bits & (1u << slot))) ++slot;
    s->vert[slot] = *v;
    s->last = slot;
}

/* The new point's dot products with all four slots in one vector, written
 * into its row and into its lane of every other row. */
static void update_dots(simd_simplex *s)
{
    const unsigned last = s->last;
    const v4 wl = s->vert[last].w;
    const v4 row = v4_hsum4(v4_mul(s->vert[0].w, wl), v4_mul(s->vert[1].w, wl),
                            v4_mul(s->vert[2].w, wl), v4_mul(s->vert[3].w, wl));
    const v4 in_last = lane_mask(1u << last);
    s->dp[0] = v4_select(in_last, v4_splat_x(row), s->dp[0]);
    s->dp[1] = v4_select(in_last, v4_splat_y(row), s->dp[1]);
    s->dp[2] = v4_select(in_last, v4_splat_z(row), s->dp[2]);
    s->dp[3] = v4_select(in_last, simde_mm_shuffle_ps(row, row, SIMDE_MM_SHUFFLE(3, 3, 3, 3)), s->dp[3]);
    s->dp[last] = row; /* its own row, whole (the selects above touched one lane) */
}

/* det[X] for one subset X (|X| >= 2): lane j is the sum over lanes of
 * det[X\{j}] * (dp[k] - dp[j]); slots outside X contribute zero vectors. */
static v4 subset_det(const simd_simplex *s, unsigned x)
{
    v4 term[4];
    for (unsigned j = 0; j < 4; ++j) {
        if (!(x & (1u << j))) {
            term[j] = v4_zero();
            continue;
        }
        const unsigned y = x & ~(1u << j);
        term[j] = v4_mul(s->det[y], v4_sub(s->dp[lowest[y]], s->dp[j]));
    }
    return v4_hsum4(term[0], term[1], term[2], term[3]);
}

static void update_determinants(simd_simplex *s)
{
    const unsigned last_bit = 1u << s->last;
    const unsigned all = s->bits | last_bit;
    update_dots(s);
    s->det[last_bit] = simde_mm_and_ps(lane_mask(last_bit), v4_splat(1.0f));
    for (unsigned n = 4; n < 15; ++n) {
        const unsigned x = by_size[n];
        if ((x & all) != x || !(x & last_bit)) continue;
        s->det[x] = subset_det(s, x);
    }
}

/* Johnson's test for subset x of the full set `all`, lanes at a time:
 * det[x] > 0 on x's lanes, det[x + i][i] <= 0 for every other i. */
static int subset_is_closest(const simd_simplex *s, unsigned x, unsigned all)
{
    const v4 in_x = lane_mask(x);
    if (!v4_all(v4_or(v4_cmpgt(s->det[x], v4_zero()), simde_mm_andnot_ps(in_x, lane_mask(15u)))))
        return 0;
    float grown[4] = {0, 0, 0, 0};
    for (unsigned i = 0; i < 4; ++i) {
        const unsigned bit = 1u << i;
        if ((all & bit) && !(x & bit)) {
            float t[4];
            v4_store(t, s->det[x | bit]);
            grown[i] = t[i];
        }
    }
    return !v4_any(v4_cmpgt(v4_load(grown), v4_zero()));
}

static int subset_is_proper(const simd_simplex *s, unsigned x)
{
    const v4 outside = simde_mm_andnot_ps(lane_mask(x), lane_mask(15u));
    return v4_all(v4_or(v4_cmpgt(s->det[x], v4_zero()), outside));
}

static v4 subset_point(simd_simplex *s, unsigned x)
{
    const v4 d = simde_mm_and_ps(s->det[x], lane_mask(x));
    const v4 lambda = v4_div(d, v4_hsum_splat(d));
    s->lambda = lambda;
    const v4 v = v4_madd(v4_splat_x(lambda), s->vert[0].w, v4_mul(v4_splat_y(lambda), s->vert[1].w));
    return v4_madd(v4_splat_z(lambda), s->vert[2].w,
                   v4_madd(simde_mm_shuffle_ps(lambda, lambda, SIMDE_MM_SHUFFLE(3, 3, 3, 3)), s->vert[3].w, v));
}

/* Height of the newest point over the other three's plane, squared and
 * compared without a root: h^2 = (n.e)^2 / |n|^2. */
static int tetra_is_flat(const simd_simplex *s, float flat_tol)
{
    const unsigned i0 = (s->last + 1) & 3u, i1 = (s->last + 2) & 3u, i2 = (s->last + 3) & 3u;
    const v4 p0 = s->vert[i0].w;
    const v4 n = v4_cross(v4_sub(s->vert[i1].w, p0), v4_sub(s->vert[i2].w, p0));
    const float h = v4_dot(n, v4_sub(s->vert[s->last].w, p0));
    return h * h <= flat_tol * flat_tol * v4_len2(n);
}

int simd_johnson(simd_simplex *s, v4 *v, float flat_tol)
{
    const unsigned last_bit = 1u << s->last;
    const unsigned all = s->bits | last_bit;
    update_determinants(s);
    const int full_ok = all != 15u || !tetra_is_flat(s, flat_tol);

    for (unsigned sub = s->bits;; sub = (sub - 1) & s->bits) {
        const unsigned x = sub | last_bit;
        if (x == 15u && !full_ok) continue;
        if (subset_is_closest(s, x, all)) {
            s->bits = x;
            *v = subset_point(s, x);
            return 1;
        }
        if (sub == 0) break;
    }
    /* Backup: the proper subset with the smallest |v| (singletons qualify). */
    float best = -1.0f;
    unsigned best_x = last_bit;
    for (unsigned x = 1; x < 16; ++x) {
        if ((x & all) != x || (x == 15u && !full_ok) || !subset_is_proper(s, x)) continue;
        const float d2 = v4_len2(subset_point(s, x));
        if (best < 0.0f || d2 < best) {
            best = d2;
            best_x = x;
        }
    }
    s->bits = best_x;
    *v = subset_point(s, best_x);
    return 0;
}

void simd_simplex_points(const simd_simplex *s, v4 *pa, v4 *pb)
{
    const v4 l = s->lambda;
    const v4 l0 = v4_splat_x(l), l1 = v4_splat_y(l), l2 = v4_splat_z(l);
    const v4 l3 = simde_mm_shuffle_ps(l, l, SIMDE_MM_SHUFFLE(3, 3, 3, 3));
    *pa = v4_madd(l3, s->vert[3].pa, v4_madd(l2, s->vert[2].pa, v4_madd(l1, s->vert[1].pa, v4_mul(l0, s->vert[0].pa))));
    *pb = v4_madd(l3, s->vert[3].pb, v4_madd(l2, s->vert[2].pb, v4_madd(l1, s->vert[1].pb, v4_mul(l0, s->vert[0].pb))));
}
