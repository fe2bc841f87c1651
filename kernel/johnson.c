/* Johnson's subalgorithm, SIMD kernel. */
#include "johnson.h"

#include <string.h>


static const unsigned char lowest[16] = {0, 0, 1, 0, 2, 0, 1, 0, 3, 0, 1, 0, 2, 0, 1, 0};

/* Lane masks of the 16 slot sets (all ones in the lanes of the set). */
static const int32_t lane_masks[16][4] __attribute__((aligned(16))) = {
    {0, 0, 0, 0},   {-1, 0, 0, 0},   {0, -1, 0, 0},   {-1, -1, 0, 0},
    {0, 0, -1, 0},  {-1, 0, -1, 0},  {0, -1, -1, 0},  {-1, -1, -1, 0},
    {0, 0, 0, -1},  {-1, 0, 0, -1},  {0, -1, 0, -1},  {-1, -1, 0, -1},
    {0, 0, -1, -1}, {-1, 0, -1, -1}, {0, -1, -1, -1}, {-1, -1, -1, -1}};

static v4 lane_mask(unsigned bits) { return simde_mm_load_ps((const float *)lane_masks[bits]); }
static v4 row(const float r[4]) { return simde_mm_load_ps(r); }

void mink_simd_simplex_init(simd_simplex *s)
{
    /* Empty slots and not yet computed subsets take part in four-lane
     * products (under zero weights or masks), so they must be finite. */
    memset(s->vert, 0, sizeof s->vert);
    memset(s->dp, 0, sizeof s->dp);
    memset(s->det, 0, sizeof s->det);
    s->bits = 0;
    s->last = 0;
}

int mink_simd_simplex_contains(const simd_simplex *s, const simd_vertex *v)
{
    for (unsigned i = 0; i < 4; ++i) {
        if (!(s->bits & (1u << i))) continue;
        const simd_vertex *u = &s->vert[i];
        if ((u->ia == v->ia && u->ib == v->ib) || v4_all(v4_cmpeq(u->w, v->w))) return 1;
    }
    return 0;
}

void mink_simd_simplex_add(simd_simplex *s, const simd_vertex *v)
{
    unsigned slot = 0;
    while (slot < 3 && (s->bits & (1u << slot))) ++slot;
    s->vert[slot] = *v;
    s->last = slot;
}

/* The new point's dot products with all four slots in one vector, written
 * into its row and (the matrix is symmetric) into its column. */
static void update_dots(simd_simplex *s)
{
    const unsigned last = s->last;
    const v4 wl = s->vert[last].w;
    const v4 dots = v4_hsum4(v4_mul(s->vert[0].w, wl), v4_mul(s->vert[1].w, wl),
                             v4_mul(s->vert[2].w, wl), v4_mul(s->vert[3].w, wl));
    /* The column as whole-row blends: a lane stored alone and soon loaded
     * with its row would stall store forwarding. */
    const v4m at_last = lane_mask(1u << last);
    simde_mm_store_ps(s->dp[0], v4_select(at_last, v4_splat_x(dots), row(s->dp[0])));
    simde_mm_store_ps(s->dp[1], v4_select(at_last, v4_splat_y(dots), row(s->dp[1])));
    simde_mm_store_ps(s->dp[2], v4_select(at_last, v4_splat_z(dots), row(s->dp[2])));
    simde_mm_store_ps(s->dp[3], v4_select(at_last, simde_mm_shuffle_ps(dots, dots, SIMDE_MM_SHUFFLE(3, 3, 3, 3)), row(s->dp[3])));
    simde_mm_store_ps(s->dp[last], dots);
}

/* det[X] for one subset X (|X| >= 2): lane j is the sum over lanes of
 * det[X\{j}] * (dp[k] - dp[j]), k the lowest slot of X\{j}. Branch-free:
 * all four terms are formed (for j outside X they read X's own stale, finite
 * row) and the lanes outside X are masked to zero at the end. */
static v4 subset_det(const simd_simplex *s, unsigned x)
{
    const unsigned y0 = x & ~1u, y1 = x & ~2u, y2 = x & ~4u, y3 = x & ~8u;
    const v4 t0 = v4_mul(row(s->det[y0]), v4_sub(row(s->dp[lowest[y0]]), row(s->dp[0])));
    const v4 t1 = v4_mul(row(s->det[y1]), v4_sub(row(s->dp[lowest[y1]]), row(s->dp[1])));
    const v4 t2 = v4_mul(row(s->det[y2]), v4_sub(row(s->dp[lowest[y2]]), row(s->dp[2])));
    const v4 t3 = v4_mul(row(s->det[y3]), v4_sub(row(s->dp[lowest[y3]]), row(s->dp[3])));
    return simde_mm_and_ps(v4_hsum4(t0, t1, t2, t3), lane_mask(x));
}

/* det[X] of a pair X = {i, l}: the general step with a singleton's unit
 * determinant, det[X][i] = dp[l][l] - dp[i][l] and det[X][l] = dp[i][i] -
 * dp[l][i] (the same float operations), as one subtraction of two blends. */
static v4 pair_det(const simd_simplex *s, unsigned i, unsigned l)
{
    const v4m at_l = lane_mask(1u << l);
    const v4 diag = v4_select(at_l, v4_splat(s->dp[i][i]), v4_splat(s->dp[l][l]));
    const v4 cross = v4_select(at_l, row(s->dp[i]), row(s->dp[l]));
    return simde_mm_and_ps(v4_sub(diag, cross), lane_mask((1u << i) | (1u << l)));
}

/* Subsets holding the new point, each after its own subsets: x = sub + last
 * for the nonempty subsets sub of the old simplex in increasing order (a
 * proper subset is always numerically smaller). */
static void update_determinants(simd_simplex *s)
{
    const unsigned last = s->last, last_bit = 1u << last, old = s->bits;
    update_dots(s);
    simde_mm_store_ps(s->det[last_bit], simde_mm_and_ps(lane_mask(last_bit), v4_splat(1.0f)));
    for (unsigned sub = old & (0u - old); sub; sub = (sub - old) & old) {
        const v4 d = (sub & (sub - 1)) ? subset_det(s, sub | last_bit) : pair_det(s, lowest[sub], last);
        simde_mm_store_ps(s->det[sub | last_bit], d);
    }
}

/* Johnson's test for subset x of the full set `all`, four lanes at once:
 * det[x][i] > 0 for i in x, det[x + i][i] <= 0 for the other points. Rows of
 * subsets outside `all` are stale but finite, and masked out. */
static int subset_is_closest(const simd_simplex *s, unsigned x, unsigned all)
{
    const v4 zero = v4_zero();
    const v4 not_x = lane_mask(15u & ~x);
    if (!v4_all(v4_or(v4_cmpgt(row(s->det[x]), zero), not_x))) return 0;
    const v4 grown = v4_set(s->det[x | 1u][0], s->det[x | 2u][1], s->det[x | 4u][2], s->det[x | 8u][3]);
    return !v4_any(v4_and(v4_cmpgt(grown, zero), lane_mask(all & ~x)));
}

static int subset_is_proper(const simd_simplex *s, unsigned x)
{
    const v4 outside = simde_mm_andnot_ps(lane_mask(x), lane_mask(15u));
    return v4_all(v4_or(v4_cmpgt(row(s->det[x]), v4_zero()), outside));
}

static v4 subset_point(simd_simplex *s, unsigned x)
{
    const v4 d = simde_mm_and_ps(row(s->det[x]), lane_mask(x));
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

int mink_simd_johnson(simd_simplex *s, v4 *v, float flat_tol)
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
    const int full_ok = all != 15u || !tetra_is_flat(s, flat_tol);
    for (unsigned x = 1; x < 16; ++x) {
        if ((x & all) != x || (x == 15u && !full_ok) || !subset_is_closest(s, x, all)) continue;
        s->bits = x;
        *v = subset_point(s, x);
        return 1;
    }
    return 0;
}

void mink_simd_simplex_points(const simd_simplex *s, v4 *pa, v4 *pb)
{
    const v4 l = s->lambda;
    const v4 l0 = v4_splat_x(l), l1 = v4_splat_y(l), l2 = v4_splat_z(l);
    const v4 l3 = simde_mm_shuffle_ps(l, l, SIMDE_MM_SHUFFLE(3, 3, 3, 3));
    *pa = v4_madd(l3, s->vert[3].pa, v4_madd(l2, s->vert[2].pa, v4_madd(l1, s->vert[1].pa, v4_mul(l0, s->vert[0].pa))));
    *pb = v4_madd(l3, s->vert[3].pb, v4_madd(l2, s->vert[2].pb, v4_madd(l1, s->vert[1].pb, v4_mul(l0, s->vert[0].pb))));
}
