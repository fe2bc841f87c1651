/* The penetration of two boxes whose cores overlap, by the box test: a
 * capsule's core is the box (0, h, 0) and a sphere's the point, so a box
 * against a box, capsule or sphere. Over a set of axes that holds every
 * face normal of the cores' Minkowski difference (A's faces, B's, the
 * cross products of their edges), the least overlap is the depth and its
 * axis the normal; the witnesses come from the features along it. One
 * pair at a time in vectors (lanes: B's axes j), for the SIMD kernel's
 * single queries; the batch lanes solve the same in their own layout
 * (batch_lanes.c) with the same tolerances. */
#ifndef MINK_BOX_DEPTH_H
#define MINK_BOX_DEPTH_H

#include "box_sat.h"
#include "simd.h"
#include "support.h"
#include "tolerance.h"

#include <math.h>

/* Tolerances: BOX_*_REL of tolerance.h (the batch lanes' too). */

/* The answer: the cores' depth, the unit normal from A to B and the core
 * witnesses (pb - pa = -depth n), all in A's frame. */
typedef struct box_depth {
    v4 n, pa, pb;
    float depth;
} box_depth;

/* The largest of lanes 0-2 (lane 3 is no axis). */
MINK_INLINE float box_top3(v4 v) { return v4_x(v4_max(v4_max(v, v4_splat_y(v)), v4_splat_z(v))); }

/* The first of lanes 0-2 holding value. */
MINK_INLINE uint32_t box_lane_of(v4 v, float value)
{
    const uint32_t bits = v4_mask_bits(v4_cmpeq(v, v4_splat(value))) & 7u;
    return bits & 1u ? 0u : bits & 2u ? 1u : 2u;
}

/* The separations along the unit axes e_i x b_j (lanes j; -inf where the
 * edges are parallel within BOX_EDGE_MIN_LEN2), every projection a sum of
 * products of the axis's own components: a near-parallel pair keeps its
 * relative precision (box_sat_edges's identities, for orthonormal rows, do
 * not). With l = e_i x b_j: l_i = 0, l_i1 = -R_i2j, l_i2 = R_i1j, and
 * l . b_j' = R_i1j R_i2j' - R_i2j R_i1j' (0 for j' = j). */
MINK_INLINE v4 box_depth_edges(const box_axes *x, int i)
{
    const int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
    const v4 r1 = x->row[i1], r2 = x->row[i2];
    const v4 ld = v4_sub(v4_mul(r1, box_lane(x->d, i2)), v4_mul(r2, box_lane(x->d, i1)));
    const v4 ra = v4_add(v4_mul(x->arow[i2], box_lane(x->ha, i1)), v4_mul(x->arow[i1], box_lane(x->ha, i2)));
    /* lane j: j + 1 and j + 2 (mod 3) rotated in */
    const v4 r1n = v4_shuffle(r1, r1, 1, 2, 0, 3), r2n = v4_shuffle(r2, r2, 1, 2, 0, 3);
    const v4 r1m = v4_shuffle(r1, r1, 2, 0, 1, 3), r2m = v4_shuffle(r2, r2, 2, 0, 1, 3);
    const v4 hbn = v4_shuffle(x->hb, x->hb, 1, 2, 0, 3), hbm = v4_shuffle(x->hb, x->hb, 2, 0, 1, 3);
    const v4 rb = v4_add(v4_mul(hbn, v4_abs(v4_sub(v4_mul(r1, r2n), v4_mul(r2, r1n)))),
                         v4_mul(hbm, v4_abs(v4_sub(v4_mul(r1, r2m), v4_mul(r2, r1m)))));
    const v4 len2 = v4_add(v4_mul(r1, r1), v4_mul(r2, r2));
    const v4m ok = v4_cmpgt(len2, v4_splat(BOX_EDGE_MIN_LEN2)); /* never lane 3: the rows' pad is 0 */
    const v4 value = v4_div(v4_sub(v4_sub(v4_abs(ld), ra), rb), v4_sqrt(v4_select(ok, len2, v4_splat(1.0f))));
    return v4_select(ok, value, v4_splat(-INFINITY));
}

/* The free axes' bound (BOX_FREE_REL) for the single query: times the
 * smaller core's extent, not S. The witness on a free axis may stand off
 * the support plane by up to three times it, and the answer's witnesses
 * are placed from the smaller shape's (finish, query.c): a 0.3 box 9 m
 * from the centre of a 26 m one stood 3e-5 off, above FORMAT.md's local
 * tolerance (1e-4 of the small shape) with a bound of 1e-6 S. Faces
 * parallel to rounding (1e-7) stay free. */
MINK_INLINE v4 box_free(const simd_pair *pair)
{
    const float ea = pair->a->extent, eb = pair->b->extent;
    return v4_splat(BOX_FREE_REL * (ea < eb ? ea : eb));
}

/* x clamped to [-h, h], lane-wise. */
MINK_INLINE v4 box_clamp(v4 x, v4 h) { return v4_min(v4_max(x, v4_neg(h)), h); }

/* h with the sign of s, lane-wise (+h for s = 0). */
MINK_INLINE v4 box_flip(v4 h, v4 s) { return v4_select(v4_cmpgt(v4_zero(), s), v4_neg(h), h); }

/* R^T v: v in B's frame (lanes j: b_j . v). */
MINK_INLINE v4 box_in_b(const box_axes *x, v4 v) { return rot_apply_t(x->row, v); }

/* The box test's face axes for a primitive pair (pair: A's frame), from
 * the pair's rows and columns: the separations along A's axes (*fa, lanes
 * k) and B's (*fb, lanes j), box_sat_faces_a's and _b's values, and the
 * largest. The faces bound the depth (the edges can only make it less):
 * most shallow or separated pairs stop at this, inline. */
MINK_INLINE float box_face_separation(const simd_pair *pair, v4 *fa, v4 *fb)
{
    const v4 ha = mink_simd_core_half(pair->a), hb = mink_simd_core_half(pair->b), c = pair->pos_b;
    const v4 *row = pair->row, *col = pair->col;
    const v4 rb = v4_add(v4_add(v4_mul(v4_abs(col[0]), v4_splat_x(hb)), v4_mul(v4_abs(col[1]), v4_splat_y(hb))),
                         v4_mul(v4_abs(col[2]), v4_splat_z(hb)));
    const v4 cb = rot_apply_t(row, c);
    const v4 ra = v4_add(v4_add(v4_mul(v4_abs(row[0]), v4_splat_x(ha)), v4_mul(v4_abs(row[1]), v4_splat_y(ha))),
                         v4_mul(v4_abs(row[2]), v4_splat_z(ha)));
    const v4 pad = v4_set(INFINITY, INFINITY, INFINITY, -INFINITY); /* lane 3 is no axis */
    *fa = v4_min(v4_sub(v4_abs(c), v4_add(ha, rb)), pad);
    *fb = v4_min(v4_sub(v4_abs(cb), v4_add(ra, hb)), pad);
    return box_top3(v4_max(*fa, *fb));
}

/* Whether the cores of a primitive pair (pair: A's frame; fa, fb, face:
 * box_face_separation's) overlap by at least MINK_DOUBLE_NEAR_REL S
 * (shallower depths go to GJK and EPA, whose double stage answers near
 * contact), and then their depth, normal and witnesses. 0 also when an
 * edge pair's witnesses miss each other by more than BOX_INSIDE_REL S, or
 * a witness misses its box by more than BOX_WITNESS_REL S (GJK and EPA
 * decide). */
MINK_INLINE int box_overlap_depth(const simd_pair *pair, v4 fa, v4 fb, float face, box_depth *out)
{
    const float s = pair->scale, deep = -MINK_DOUBLE_NEAR_REL * s;
    if (!(face <= deep)) return 0;
    const v4 ha = mink_simd_core_half(pair->a), hb = mink_simd_core_half(pair->b), c = pair->pos_b;
    box_axes x;
    box_axes_init(&x, ha, hb, pair->row, c);
    const v4 e0 = box_depth_edges(&x, 0), e1 = box_depth_edges(&x, 1), e2 = box_depth_edges(&x, 2);
    const float edge = box_top3(v4_max(v4_max(e0, e1), e2));
    const int by_edge = edge > face + BOX_EDGE_BIAS_REL * s;
    const float best = by_edge ? edge : face;
    if (!(best <= deep)) return 0; /* shallow, apart, or NaN */

    /* the axis, unit, turned towards B */
    v4 n, axis;
    uint32_t i = 0, j = 0;
    if (by_edge) {
        i = box_top3(e0) == edge ? 0u : box_top3(e1) == edge ? 1u : 2u;
        j = box_lane_of(i == 0 ? e0 : i == 1 ? e1 : e2, edge);
        axis = v4_cross(v4_set(i == 0, i == 1, i == 2, 0.0f), pair->col[j]);
    } else if (box_top3(fa) == face) {
        const uint32_t k = box_lane_of(fa, face);
        axis = v4_set(k == 0, k == 1, k == 2, 0.0f);
    } else {
        axis = pair->col[box_lane_of(fb, face)];
    }
    const float along = v4_dot(axis, c);
    n = v4_scale(axis, (along < 0.0f ? -1.0f : 1.0f) / sqrtf(v4_len2(axis)));

    /* A's support along n, B's along -n (a free axis: the point nearest
     * the other's centre) */
    const v4 free_rel = box_free(pair);
    const v4 sa = v4_select(v4_cmpge(free_rel, v4_mul(v4_abs(n), ha)), box_clamp(c, ha), box_flip(ha, n));
    const v4 nb = box_in_b(&x, n), cb = box_in_b(&x, c);
    const v4 xb = v4_select(v4_cmpge(free_rel, v4_mul(v4_abs(nb), hb)), box_clamp(v4_neg(cb), hb), box_flip(hb, v4_neg(nb)));
    const v4 sb = v4_add(c, rot_apply(pair->row, xb));

    const float depth = -best;
    const v4 tol = v4_splat(BOX_WITNESS_REL * s);
    v4 pa, pb;
    if (by_edge) {
        /* the closest points of the edges' lines through sa and sb */
        const v4 e = v4_set(i == 0, i == 1, i == 2, 0.0f), f = pair->col[j];
        const v4 d = v4_sub(sb, sa);
        const float beta = v4_dot(e, f), ed = v4_dot(e, d), fd = v4_dot(f, d);
        const float inv = 1.0f / v4_len2(axis); /* |e x f|^2 > BOX_EDGE_MIN_LEN2 */
        pa = v4_add(sa, v4_scale(e, (ed - beta * fd) * inv));
        pb = v4_sub(pa, v4_scale(n, depth));
        const v4 lb = v4_add(sb, v4_scale(f, (beta * ed - fd) * inv));
        const v4 miss = v4_sub(lb, pb);
        if (!(v4_len2(miss) <= BOX_INSIDE_REL * s * BOX_INSIDE_REL * s)) return 0;
    } else if (box_top3(fa) == face) {
        pb = sb; /* B's deepest point; A's face through it */
        pa = v4_add(sb, v4_scale(n, depth));
    } else {
        pa = sa;
        pb = v4_sub(sa, v4_scale(n, depth));
    }
    /* both on their boxes (lane 3: 0 <= tol) */
    const v4m in_a = v4_cmpge(v4_add(ha, tol), v4_abs(pa));
    const v4m in_b = v4_cmpge(v4_add(hb, tol), v4_abs(box_in_b(&x, v4_sub(pb, c))));
    if (!v4_all(v4_and(in_a, in_b))) return 0;
    out->n = n;
    out->pa = pa;
    out->pb = pb;
    out->depth = depth;
    return 1;
}

/* Cores apart along a face axis (fa, fb, face: box_face_separation's, face
 * > 0) with the other core's support point over that face: the axis bounds
 * the distance from below and the support point and its foot on the face
 * reach it, so the distance is the face's separation and the axis the
 * normal (a corner, edge or face of one core over a face of the other:
 * most separated pairs). 0 when the point is off the face by more than
 * BOX_INSIDE_REL S (closest features edge to edge, or corner to edge:
 * GJK answers). A point beside the face by less faces its edge: the foot
 * is clamped onto the face, and when the step from the edge is more than
 * the rounding of the pair's coordinates the normal and distance are the
 * separation plus that step's (a 13 cm box 90 m under a capsule's axis,
 * 0.66 mm beside its face, had its witness that far outside the box).
 * *out: the normal, the core witnesses (pb - pa = -depth n up to that
 * rounding), depth. */
MINK_INLINE int box_face_distance(const simd_pair *pair, v4 fa, v4 fb, float face, box_depth *out)
{
    const float s = pair->scale;
    const v4 ha = mink_simd_core_half(pair->a), hb = mink_simd_core_half(pair->b), c = pair->pos_b;
    /* a point beside the face by t turns the normal by t / face: at most
     * BOX_OVER_TILT (a capsule 0.17 m from a 60 m box 80 m out, 0.7 mm
     * beside its face within 4e-6 S, was answered 4 mrad off) */
    const float inside = BOX_INSIDE_REL * s, beside = 0.5f * BOX_OVER_TILT * face;
    const float over_tol = beside < inside ? beside : inside;
    const v4 tol = v4_splat(over_tol), free_rel = box_free(pair);
    const v4 *row = pair->row;
    v4 n, pa, pb;
    v4 side = v4_zero(); /* pb - pa - face n: the step from the face's edge, if any */
    v4m over;
    if (box_top3(fa) == face) {
        /* A's face k; B's support along -n (a free axis: its point nearest
         * A's centre), and its foot on the face */
        const uint32_t k = box_lane_of(fa, face);
        const v4m lane_k = v4_cmpeq(v4_set(k == 0, k == 1, k == 2, 0.0f), v4_splat(1.0f));
        n = v4_select(lane_k, box_flip(v4_splat(1.0f), c), v4_zero());
        const v4 nb = rot_apply_t(row, n), cb = rot_apply_t(row, c);
        const v4 xb = v4_select(v4_cmpge(free_rel, v4_mul(v4_abs(nb), hb)), box_clamp(v4_neg(cb), hb),
                                box_flip(hb, v4_neg(nb)));
        pb = v4_add(c, rot_apply(row, xb));
        const v4 foot = box_clamp(pb, ha);
        pa = v4_select(lane_k, box_flip(ha, n), foot);
        over = v4_or(lane_k, v4_cmpge(v4_add(ha, tol), v4_abs(pb)));
        side = v4_select(lane_k, v4_zero(), v4_sub(pb, foot));
    } else {
        /* B's face j; A's support along n, and its foot on the face */
        const uint32_t j = box_lane_of(fb, face);
        const v4m lane_j = v4_cmpeq(v4_set(j == 0, j == 1, j == 2, 0.0f), v4_splat(1.0f));
        const v4 bj = pair->col[j];
        n = v4_dot(bj, c) < 0.0f ? v4_neg(bj) : bj;
        pa = v4_select(v4_cmpge(free_rel, v4_mul(v4_abs(n), ha)), box_clamp(c, ha), box_flip(ha, n));
        pb = v4_add(pa, v4_scale(n, face));
        const v4 lb = v4_sub(pb, c);
        const v4 local = rot_apply_t(row, lb);
        /* lane j of local is on the face: within hb_j up to rounding */
        over = v4_cmpge(v4_add(v4_add(hb, tol), tol), v4_abs(local));
        if (!v4_all(v4_or(lane_j, v4_cmpge(hb, v4_abs(local))))) {
            side = rot_apply(row, v4_select(lane_j, v4_zero(), v4_sub(box_clamp(local, hb), local)));
            pb = v4_add(pb, side);
        }
    }
    if (!v4_all(over)) return 0;
    float depth = -face;
    const float t2 = v4_len2(side), rounding = BOX_WITNESS_REL * s;
    if (t2 > rounding * rounding) {
        /* from the face's separation and the step (not pb - pa: both
         * round as the pair's coordinates, and face may be far smaller) */
        const v4 d = v4_add(v4_scale(n, face), side);
        const float len = sqrtf(v4_len2(d));
        n = v4_scale(d, 1.0f / len);
        depth = -len;
    }
    out->n = n;
    out->pa = pa;
    out->pb = pb;
    out->depth = depth;
    return 1;
}

#endif
