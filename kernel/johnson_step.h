/* Johnson's step of the SIMD kernel, inline: GJK's loop calls it once per
 * iteration, and as a call it made the loop spill its vectors around it. */
#ifndef MINK_JOHNSON_STEP_H
#define MINK_JOHNSON_STEP_H

#include "johnson.h"
#include "tolerance.h"

static const unsigned char lowest[16] = {0, 0, 1, 0, 2, 0, 1, 0, 3, 0, 1, 0, 2, 0, 1, 0};

/* Lane masks of the 16 slot sets (all ones in the lanes of the set). */
static const int32_t lane_masks[16][4] __attribute__((aligned(16))) = {
    {0, 0, 0, 0},   {-1, 0, 0, 0},   {0, -1, 0, 0},   {-1, -1, 0, 0},
    {0, 0, -1, 0},  {-1, 0, -1, 0},  {0, -1, -1, 0},  {-1, -1, -1, 0},
    {0, 0, 0, -1},  {-1, 0, 0, -1},  {0, -1, 0, -1},  {-1, -1, 0, -1},
    {0, 0, -1, -1}, {-1, 0, -1, -1}, {0, -1, -1, -1}, {-1, -1, -1, -1}};

static v4 lane_mask(unsigned bits) { return v4_load_aligned((const float *)lane_masks[bits]); }
static v4 row(const float r[4]) { return v4_load_aligned(r); }

/* a with lane `lane` (a constant) taken from b: an immediate blend, where
 * a select would load its mask. */
MINK_ALWAYS_INLINE v4 blend_lane(unsigned lane, v4 a, v4 b)
{
    switch (lane) {
    case 0: return v4_blend(a, b, 1);
    case 1: return v4_blend(a, b, 2);
    case 2: return v4_blend(a, b, 4);
    default: return v4_blend(a, b, 8);
    }
}

/* The new point's dot products with all four slots in one vector, written
 * into its row and (the matrix is symmetric) into its column. The column
 * only in the rows of `old`: an empty slot's row is never read before its
 * point's own row overwrites it whole (a dropped point never comes back). */
MINK_ALWAYS_INLINE void update_dots(simd_simplex *s, unsigned old, unsigned last)
{
    const v4 wl = s->vert[last].w;
    const v4 dots = v4_hsum4(v4_mul(s->vert[0].w, wl), v4_mul(s->vert[1].w, wl),
                             v4_mul(s->vert[2].w, wl), v4_mul(s->vert[3].w, wl));
    /* The column as whole-row blends: a lane stored alone and soon loaded
     * with its row would stall store forwarding. */
    if (old & 1u) v4_store_aligned(s->dp[0], blend_lane(last, row(s->dp[0]), v4_splat_x(dots)));
    if (old & 2u) v4_store_aligned(s->dp[1], blend_lane(last, row(s->dp[1]), v4_splat_y(dots)));
    if (old & 4u) v4_store_aligned(s->dp[2], blend_lane(last, row(s->dp[2]), v4_splat_z(dots)));
    if (old & 8u) v4_store_aligned(s->dp[3], blend_lane(last, row(s->dp[3]), v4_shuffle(dots, dots, 3, 3, 3, 3)));
    v4_store_aligned(s->dp[last], dots);
}

/* det[X] for a triangle or the tetrahedron X, x a constant: lane j is the sum
 * over lanes of det[X\{j}] * (dp[k] - dp[j]), k the lowest slot of X\{j}.
 * A slot outside X gets a zero term, so its lane is the +0 of the 0 + 0 sums
 * (no mask). Inlined per subset: the rows then have fixed addresses. */
MINK_ALWAYS_INLINE v4 subset_det(const simd_simplex *s, unsigned x)
{
    v4 t[4];
    for (unsigned j = 0; j < 4; ++j) {
        const unsigned y = x & ~(1u << j);
        t[j] = y == x ? v4_zero() : v4_mul(row(s->det[y]), v4_sub(row(s->dp[lowest[y]]), row(s->dp[j])));
    }
    return v4_hsum4(t[0], t[1], t[2], t[3]);
}

/* det[X] of a pair X = {i, l}: the general step with a singleton's unit
 * determinant, det[X][i] = dp[l][l] - dp[i][l] and det[X][l] = dp[i][i] -
 * dp[l][i] (the same float operations), as one subtraction of two blends. */
MINK_ALWAYS_INLINE v4 pair_det(const simd_simplex *s, unsigned i, unsigned l)
{
    const v4 diag = blend_lane(l, v4_splat(s->dp[l][l]), v4_splat(s->dp[i][i]));
    const v4 cross = blend_lane(l, row(s->dp[l]), row(s->dp[i]));
    return v4_and(v4_sub(diag, cross), lane_mask((1u << i) | (1u << l)));
}

/* det[X] of one subset X (|X| >= 2), x a constant. */
MINK_ALWAYS_INLINE v4 det_row(const simd_simplex *s, unsigned x)
{
    switch (x) {
    case 3: return pair_det(s, 0, 1);
    case 5: return pair_det(s, 0, 2);
    case 6: return pair_det(s, 1, 2);
    case 9: return pair_det(s, 0, 3);
    case 10: return pair_det(s, 1, 3);
    case 12: return pair_det(s, 2, 3);
    default: return subset_det(s, x);
    }
}

/* det[X] again if X holds the new point and lies in the new simplex. */
MINK_ALWAYS_INLINE void update_row(simd_simplex *s, unsigned all, unsigned last, unsigned x)
{
    if ((x & (1u << last)) && (x & all) == x) v4_store_aligned(s->det[x], det_row(s, x));
}

/* The new point (in the lowest free slot, where simplex_add puts it) joins
 * `old`: its dot products, then the subsets holding it, each after its own
 * subsets (which are numerically smaller). */
MINK_ALWAYS_INLINE void update_determinants_from(simd_simplex *s, unsigned old)
{
    const unsigned last = (unsigned)__builtin_ctz(~old), all = old | (1u << last);
    update_dots(s, old, last);
    v4_store_aligned(s->det[1u << last], v4_and(lane_mask(1u << last), v4_splat(1.0f)));
    update_row(s, all, last, 3);
    update_row(s, all, last, 5);
    update_row(s, all, last, 6);
    update_row(s, all, last, 7);
    update_row(s, all, last, 9);
    update_row(s, all, last, 10);
    update_row(s, all, last, 11);
    update_row(s, all, last, 12);
    update_row(s, all, last, 13);
    update_row(s, all, last, 14);
    update_row(s, all, last, 15);
}

/* Johnson's test for subset x of the full set `all`, four lanes at once:
 * det[x][i] > 0 for i in x, det[x + i][i] <= 0 for the other points. A lane
 * outside `all` reads x's own row instead (rows outside `all` are not
 * computed), and is masked out. */
MINK_ALWAYS_INLINE int subset_is_closest(const simd_simplex *s, unsigned x, unsigned all)
{
    const v4 zero = v4_zero();
    if (!v4_all_in(v4_cmpgt(row(s->det[x]), zero), lane_mask(x))) return 0;
    if (x == all) return 1; /* no other point to test */
    const unsigned other = all & ~x;
    if (!(other & (other - 1))) /* one other point: its lane alone, no gather */
        return !(s->det[all][__builtin_ctz(other)] > 0.0f);
    const v4 grown = v4_set(s->det[x | (all & 1u)][0], s->det[x | (all & 2u)][1], s->det[x | (all & 4u)][2],
                            s->det[x | (all & 8u)][3]);
    return !v4_any(v4_and(v4_cmpgt(grown, zero), lane_mask(all & ~x)));
}

static int subset_is_proper(const simd_simplex *s, unsigned x)
{
    return v4_all_in(v4_cmpgt(row(s->det[x]), v4_zero()), lane_mask(x));
}

/* The points weighted by lambda (lanes, zero for unused slots). */
static v4 weighted_point(const simd_simplex *s, v4 lambda)
{
    const v4 v = v4_madd(v4_splat_x(lambda), s->vert[0].w, v4_mul(v4_splat_y(lambda), s->vert[1].w));
    return v4_madd(v4_splat_z(lambda), s->vert[2].w,
                   v4_madd(v4_shuffle(lambda, lambda, 3, 3, 3, 3), s->vert[3].w, v));
}

/* The point of subset x and (in *lambda) its weights. */
static v4 subset_point(const simd_simplex *s, unsigned x, v4 *lambda_out)
{
    const v4 d = v4_and(row(s->det[x]), lane_mask(x));
    const v4 lambda = v4_div(d, v4_hsum_splat(d));
    *lambda_out = lambda;
    return weighted_point(s, lambda);
}

/* The direction of subset x's point v for the next support, without
 * v's division: the points weighted by the determinants, h v (h their
 * sum, > 0 for a subset Johnson's step picks). The division sat on GJK's
 * chain of dependent steps: the next support now starts before v is
 * known. *inv_h gets 1 / h, off that chain: GJK's bounds use
 * (h v).w / h, not v.w, since w is the support along -h v (see gjk.c).
 * Only for h within [2^-60, 2^60]: further out (a needle of a simplex,
 * or shapes 1e-8 across) the scans' dot products with h v leave the
 * normal floats, and without the range about half the answers on such
 * shapes were wrong (tests/test_gjk.c, test_scale_extremes). There the
 * direction is v itself, and *inv_h 1. */
static v4 subset_direction(const simd_simplex *s, unsigned x, v4 v, float *inv_h)
{
    const v4 d = v4_and(row(s->det[x]), lane_mask(x));
    const float h = v4_x(v4_hsum_splat(d));
    if (!(h >= 0x1p-60f && h <= 0x1p60f)) {
        *inv_h = 1.0f;
        return v;
    }
    *inv_h = 1.0f / h;
    const v4 u = v4_madd(v4_splat_x(d), s->vert[0].w, v4_mul(v4_splat_y(d), s->vert[1].w));
    return v4_madd(v4_splat_z(d), s->vert[2].w, v4_madd(v4_shuffle(d, d, 3, 3, 3, 3), s->vert[3].w, u));
}

/* The four points hold the origin by a clear margin, lanes = faces (face i
 * omits point i): for each face, the origin and the point it omits on the
 * same side of its plane, by at least MINK_GJK_INSIDE_REL S times the
 * product of the face's edge lengths (n unnormalized), which float
 * rounding cannot fake. Then double precision cannot disagree and is not
 * asked. The origin's weights then come from the same numbers: point i's
 * is side_o / side_p of the face that omits it, the ratio of the origin's
 * and the point's heights over it (Cramer's rule from dot products, the
 * Johnson step's, cancels terms of order |p|^4 |e|^2 on a flat
 * tetrahedron, and its weights put the common point of an overlapping
 * distance query up to 4e-5 outside a shape). */
MINK_ALWAYS_INLINE int origin_clearly_inside_sides(const simd_simplex *s, float scale, v4 *side_o_out, v4 *side_p_out)
{
    const v4 pts[4] = {s->vert[0].w, s->vert[1].w, s->vert[2].w, s->vert[3].w};
    v4 p[3], a[3], e1[3], e2[3], o[3];
    v4_transpose_points(pts, p);
    for (int c = 0; c < 3; ++c) {
        /* face i: points j, k, l = (1 0 0 0), (2 2 1 1), (3 3 3 2) */
        a[c] = v4_shuffle(p[c], p[c], 1, 0, 0, 0);
        e1[c] = v4_sub(v4_shuffle(p[c], p[c], 2, 2, 1, 1), a[c]);
        e2[c] = v4_sub(v4_shuffle(p[c], p[c], 3, 3, 3, 2), a[c]);
        o[c] = v4_sub(p[c], a[c]); /* the omitted point, from the face */
    }
    v4 n[3];
    v4_cross_rows(e1, e2, n);
    const v4 l1 = v4_dot_rows(e1, e1), l2 = v4_dot_rows(e2, e2);
    /* n.(0 - a) and n.(omitted - a) */
    const v4 side_o = v4_neg(v4_dot_rows(n, a));
    const v4 side_p = v4_dot_rows(n, o);
    const float m = MINK_GJK_INSIDE_REL * scale;
    const v4 need = v4_mul(v4_splat(m * m), v4_mul(l1, l2));
    const v4m ok = v4_and(v4_and(v4_cmpgt(v4_mul(side_o, side_p), v4_zero()), v4_cmpge(need, v4_splat(MINK_GJK_INSIDE_MIN))),
                          v4_and(v4_cmpge(v4_mul(side_o, side_o), need), v4_cmpge(v4_mul(side_p, side_p), need)));
    *side_o_out = side_o;
    *side_p_out = side_p;
    return v4_all(ok);
}

/* The same with the weights (a boolean answer needs none: their two
 * divisions would end its chain). */
static int origin_clearly_inside(const simd_simplex *s, float scale, v4 *lambda)
{
    v4 side_o, side_p;
    if (!origin_clearly_inside_sides(s, scale, &side_o, &side_p)) return 0;
    const v4 heights = v4_div(side_o, side_p);
    *lambda = v4_div(heights, v4_hsum_splat(heights));
    return 1;
}

/* Height of the newest point over the other three's plane, squared and
 * compared without a root: h^2 = (n.e)^2 / |n|^2. */
MINK_ALWAYS_INLINE int tetra_is_flat(const simd_simplex *s, unsigned last, float flat_tol)
{
    const unsigned i0 = (last + 1) & 3u, i1 = (last + 2) & 3u, i2 = (last + 3) & 3u;
    const v4 p0 = s->vert[i0].w;
    const v4 n = v4_cross(v4_sub(s->vert[i1].w, p0), v4_sub(s->vert[i2].w, p0));
    const float h = v4_dot(n, v4_sub(s->vert[last].w, p0));
    return h * h <= flat_tol * flat_tol * v4_len2(n);
}

/* What johnson_step returns when w repeats a point of the simplex, and
 * when it completes four points that clearly hold the origin. */
#define JOHNSON_REPEATED 16u
#define JOHNSON_INSIDE 17u

/* Johnson's step for a constant old simplex: JOHNSON_REPEATED, nothing
 * changed, if w repeats one of its points (the slot tests are then
 * constants); else w joins it in its lowest free slot
 * (mink_simd_simplex_add's, a constant here), the new determinants, then
 * the first subset passing the test in the search order, x = sub + the new
 * point for sub = old and then old's subsets downwards; 0 if none.
 * Unrolled: each test reads fixed rows.
 *
 * With `beyond` (w lies past the origin from the old points: v.w <= 0,
 * without which four points cannot hold it), four points are first given
 * GJK's containment test: if they clearly hold the origin, JOHNSON_INSIDE
 * (s->bits = 15, s->lambda its weights) without the determinants, which
 * are then not needed (the last step of an overlapping query: 3 % of
 * hull32-pen's distance instructions, 4.5 % of its time). Without the
 * gate, separated queries, whose tetrahedra seldom hold the origin, paid
 * 8 % more instructions; with it 0-3 % (the small groups, whose first
 * steps can pass the origin), in time within the noise. */
MINK_ALWAYS_INLINE unsigned johnson_step_from(simd_simplex *s, unsigned old, const simd_vertex *w, float flat_tol,
                                              float scale, int beyond, int *full_ok)
{
    if (simplex_repeats(s, old, w)) return JOHNSON_REPEATED;
    const unsigned last = (unsigned)__builtin_ctz(~old), all = old | (1u << last);
    s->vert[last] = *w;
    s->last = last;
    if (all == 15u && beyond && origin_clearly_inside(s, scale, &s->lambda)) {
        s->bits = 15u;
        return JOHNSON_INSIDE;
    }
    update_determinants_from(s, old);
    /* a tetrahedron flatter than flat_tol is never taken whole */
    *full_ok = all != 15u || !tetra_is_flat(s, last, flat_tol);
#pragma GCC unroll 16
    for (unsigned sub = 16; sub-- > 0;) {
        const unsigned x = sub | (1u << last);
        if ((sub & old) == sub && (x != 15u || *full_ok) && subset_is_closest(s, x, all)) return x;
    }
    return 0;
}

/* s->bits is never 15 here: GJK stops at four points, never adds a fifth. */
MINK_ALWAYS_INLINE unsigned johnson_step(simd_simplex *s, const simd_vertex *w, float flat_tol, float scale,
                                         int beyond, int *full_ok)
{
    switch (s->bits) {
    case 0: return johnson_step_from(s, 0, w, flat_tol, scale, beyond, full_ok);
    case 1: return johnson_step_from(s, 1, w, flat_tol, scale, beyond, full_ok);
    case 2: return johnson_step_from(s, 2, w, flat_tol, scale, beyond, full_ok);
    case 3: return johnson_step_from(s, 3, w, flat_tol, scale, beyond, full_ok);
    case 4: return johnson_step_from(s, 4, w, flat_tol, scale, beyond, full_ok);
    case 5: return johnson_step_from(s, 5, w, flat_tol, scale, beyond, full_ok);
    case 6: return johnson_step_from(s, 6, w, flat_tol, scale, beyond, full_ok);
    case 7: return johnson_step_from(s, 7, w, flat_tol, scale, beyond, full_ok);
    case 8: return johnson_step_from(s, 8, w, flat_tol, scale, beyond, full_ok);
    case 9: return johnson_step_from(s, 9, w, flat_tol, scale, beyond, full_ok);
    case 10: return johnson_step_from(s, 10, w, flat_tol, scale, beyond, full_ok);
    case 11: return johnson_step_from(s, 11, w, flat_tol, scale, beyond, full_ok);
    case 12: return johnson_step_from(s, 12, w, flat_tol, scale, beyond, full_ok);
    case 13: return johnson_step_from(s, 13, w, flat_tol, scale, beyond, full_ok);
    default: return johnson_step_from(s, 14, w, flat_tol, scale, beyond, full_ok);
    }
}

/* The cold start: the simplex of the one point `first`, in slot 0, with
 * the state mink_simd_simplex_init, simplex_add and johnson() leave (empty
 * slots zero, the same dot products), returns v. Johnson's step on one
 * point always keeps it, with weight 1: v = 1 w + 0 + 0 + 0, which is
 * w + 0 (exact; it only turns -0 into +0). */
MINK_ALWAYS_INLINE v4 simplex_start(simd_simplex *s, const simd_vertex *first)
{
    const v4 zero = v4_zero(), w = first->w;
    s->vert[0] = *first;
    for (unsigned i = 1; i < 4; ++i) s->vert[i].w = s->vert[i].pa = s->vert[i].pb = zero;
    /* update_dots over the zero slots: their products with w, summed (the
     * empty slots' rows are never read: update_dots) */
    const v4 zw = v4_mul(zero, w);
    v4_store_aligned(s->dp[0], v4_hsum4(v4_mul(w, w), zw, zw, zw));
    const v4 one = v4_and(lane_mask(1u), v4_splat(1.0f));
    v4_store_aligned(s->det[1], one);
    s->lambda = one;
    s->bits = 1u;
    s->last = 0;
    return v4_add(w, zero);
}

/* What johnson() returns: w repeated a point (nothing changed); a new
 * closest point v; four points whose determinants all say they hold the
 * origin (no v, no weights: GJK's containment check decides, with its
 * own); or four points that clearly hold it (origin_clearly_inside). */
#define JOHNSON_NONE 0
#define JOHNSON_CLOSEST 1
#define JOHNSON_SURROUNDS 2
#define JOHNSON_HOLDS 3

/* Returns JOHNSON_NONE, the simplex unchanged, if w repeats one of its points
 * (mink_simd_simplex_contains). JOHNSON_HOLDS if w (beyond: see
 * johnson_step_from) completes four points that clearly hold the origin:
 * s->bits = 15, s->lambda their weights. JOHNSON_SURROUNDS if the step
 * takes all four points otherwise: s->bits = 15, nothing else set. Else adds w to the simplex
 * (mink_simd_simplex_add's slot), runs Johnson's step (its test, else the
 * backup; a tetrahedron flatter than flat_tol is never taken whole), sets
 * v, *dir (the direction of the next support: subset_direction, or v
 * after the backup) and *dir_inv_h (dir = v / *dir_inv_h), and returns 1.
 * The new weights go to *lambda, not s->lambda: the old ones stay for the
 * caller to keep or replace; JOHNSON_CLOSEST. */
MINK_ALWAYS_INLINE int johnson(simd_simplex *s, const simd_vertex *w, v4 *v, v4 *lambda, float flat_tol, float scale,
                               int beyond, v4 *dir, float *dir_inv_h)
{
    const unsigned old = s->bits;
    int full_ok;
    const unsigned closest = johnson_step(s, w, flat_tol, scale, beyond, &full_ok);
    if (closest == JOHNSON_REPEATED) return JOHNSON_NONE;
    if (closest == JOHNSON_INSIDE) return JOHNSON_HOLDS;
    const unsigned last_bit = 1u << s->last;
    const unsigned all = old | last_bit;
    if (closest == 15u) {
        s->bits = 15u;
        return JOHNSON_SURROUNDS;
    }
    if (closest) {
        s->bits = closest;
        *v = subset_point(s, closest, lambda);
        *dir = subset_direction(s, closest, *v, dir_inv_h);
        return JOHNSON_CLOSEST;
    }
    /* Backup: the proper subset with the smallest |v| (singletons qualify). */
    float best = -1.0f;
    unsigned best_x = last_bit;
    for (unsigned x = 1; x < 16; ++x) {
        if ((x & all) != x || (x == 15u && !full_ok) || !subset_is_proper(s, x)) continue;
        const float d2 = v4_len2(subset_point(s, x, lambda));
        if (best < 0.0f || d2 < best) {
            best = d2;
            best_x = x;
        }
    }
    s->bits = best_x;
    *v = subset_point(s, best_x, lambda);
    *dir = *v;
    *dir_inv_h = 1.0f;
    return JOHNSON_CLOSEST;
}

#endif
