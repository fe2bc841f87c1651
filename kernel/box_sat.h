/* The box test of the SIMD kernel in three parts, so that a caller can stop
 * at the first part that decides: A's three face axes, B's three, and the
 * cross products a_i x b_j of an edge direction of each. Every part is the
 * support separation of the two boxes along its axes (mink_box_sat_scalar's
 * values, manifold.h), in lanes. Used whole by the manifold's test
 * (mink_simd_box_sat, sat.c) and part by part by the intersect of boxes,
 * capsules and spheres (query.c). */
#ifndef MINK_BOX_SAT_H
#define MINK_BOX_SAT_H

#include "manifold.h"
#include "simd.h"

#include <math.h>

/* A pair of boxes set up for the test: B's rotation into A's frame as rows
 * (r_i0, r_i1, r_i2, 0) and their absolute values, B's origin there, the
 * half extents (pad 0). All in vectors: a part that is never reached costs
 * nothing, and lanes are splat where a product needs one. */
typedef struct box_axes {
    v4 row[3], arow[3], acol[3];
    v4 d, ha, hb;
} box_axes;

MINK_INLINE v4 box_abs(v4 a) { return v4_abs(a); }

MINK_INLINE void box_axes_init(box_axes *x, v4 ha, v4 hb, const v4 row[3], v4 d)
{
    for (int i = 0; i < 3; ++i) {
        x->row[i] = row[i];
        x->arow[i] = box_abs(row[i]);
    }
    v4_transpose3(x->arow, x->acol);
    x->d = d;
    x->ha = ha;
    x->hb = hb;
}

/* Lane k of v in every lane. */
MINK_INLINE v4 box_lane(v4 v, int k) { return k == 0 ? v4_splat_x(v) : k == 1 ? v4_splat_y(v) : v4_splat_z(v); }

/* A's face axes, lanes i: |d_i| - (ha_i + sum_j |r_ij| hb_j). */
MINK_INLINE v4 box_sat_faces_a(const box_axes *x)
{
    const v4 rb = v4_add(v4_add(v4_mul(x->acol[0], v4_splat_x(x->hb)), v4_mul(x->acol[1], v4_splat_y(x->hb))),
                         v4_mul(x->acol[2], v4_splat_z(x->hb)));
    return v4_sub(box_abs(x->d), v4_add(x->ha, rb));
}

/* B's face axes, lanes j: |b_j . d| - (sum_i |r_ij| ha_i + hb_j), db the
 * offset in B's frame (b_j . d in lane j, either sign). */
MINK_INLINE v4 box_sat_faces_b_at(const box_axes *x, v4 db)
{
    const v4 ra = v4_add(v4_add(v4_mul(x->arow[0], v4_splat_x(x->ha)), v4_mul(x->arow[1], v4_splat_y(x->ha))),
                         v4_mul(x->arow[2], v4_splat_z(x->ha)));
    return v4_sub(box_abs(db), v4_add(ra, x->hb));
}

/* The same, the offset turned into B's frame by the rows. */
MINK_INLINE v4 box_sat_faces_b(const box_axes *x)
{
    const v4 db = v4_add(v4_add(v4_mul(x->row[0], v4_splat_x(x->d)), v4_mul(x->row[1], v4_splat_y(x->d))),
                         v4_mul(x->row[2], v4_splat_z(x->d)));
    return box_sat_faces_b_at(x, db);
}

/* The axes a_i x b_j, lanes j, each divided by its length; -inf where the
 * edges are parallel within SAT_NEAR_PARALLEL_SIN (the value would be
 * rounding divided by a tiny length). */
MINK_INLINE v4 box_sat_edges(const box_axes *x, int i)
{
    const int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
    const v4 hb1 = v4_shuffle(x->hb, x->hb, 1, 2, 0, 3), hb2 = v4_shuffle(x->hb, x->hb, 2, 0, 1, 3);
    const v4 near2 = v4_splat(SAT_NEAR_PARALLEL_SIN * SAT_NEAR_PARALLEL_SIN);
    const v4 ud = v4_sub(v4_mul(x->row[i1], box_lane(x->d, i2)), v4_mul(x->row[i2], box_lane(x->d, i1)));
    const v4 radii = v4_add(v4_add(v4_mul(x->arow[i2], box_lane(x->ha, i1)), v4_mul(x->arow[i1], box_lane(x->ha, i2))),
                            v4_add(v4_mul(hb1, v4_shuffle(x->arow[i], x->arow[i], 2, 0, 1, 3)),
                                   v4_mul(hb2, v4_shuffle(x->arow[i], x->arow[i], 1, 2, 0, 3))));
    const v4 len2 = v4_add(v4_mul(x->row[i1], x->row[i1]), v4_mul(x->row[i2], x->row[i2]));
    const v4 value = v4_div(v4_sub(box_abs(ud), radii), v4_sqrt(v4_max(len2, near2)));
    return v4_select(v4_cmpgt(near2, len2), v4_splat(-INFINITY), value);
}

/* Box B seen from box A for the corner tests below: B's half axes by
 * coordinate of A's frame (h[i]: coordinate i of each, pad 0) and its
 * origin d there. row: the rows of B's rotation into A's frame; hb: B's
 * half extents, pad 0. */
typedef struct box_seen {
    v4 h[3], d;
} box_seen;

MINK_INLINE box_seen box_seen_from(const v4 row[3], v4 hb, v4 d)
{
    const box_seen s = {{v4_mul(row[0], hb), v4_mul(row[1], hb), v4_mul(row[2], hb)}, d};
    return s;
}

/* The first corner (bits zyx, as mink_simd_core_point numbers them) of box
 * B inside box A (half extents ha), boundary included: a point of both
 * without a search; -1 when none is. Lanes: the four corners of each z
 * side. */
MINK_INLINE int box_corner_in(v4 ha, const box_seen *b)
{
    const v4 sx = v4_set(-1.0f, 1.0f, -1.0f, 1.0f), sy = v4_set(-1.0f, -1.0f, 1.0f, 1.0f);
    const v4 dk[3] = {v4_splat_x(b->d), v4_splat_y(b->d), v4_splat_z(b->d)};
    const v4 hk[3] = {v4_splat_x(ha), v4_splat_y(ha), v4_splat_z(ha)};
    v4m low = v4_cmpeq(v4_zero(), v4_zero()), high = low;
    for (int i = 0; i < 3; ++i) {
        const v4 h = b->h[i];
        const v4 mid = v4_add(dk[i], v4_add(v4_mul(v4_splat_x(h), sx), v4_mul(v4_splat_y(h), sy)));
        low = v4_and(low, v4_cmpge(hk[i], v4_abs(v4_sub(mid, v4_splat_z(h)))));
        high = v4_and(high, v4_cmpge(hk[i], v4_abs(v4_add(mid, v4_splat_z(h)))));
    }
    const uint32_t bits = v4_mask_bits(low) | v4_mask_bits(high) << 4;
    return bits ? __builtin_ctz(bits) : -1;
}

#endif
