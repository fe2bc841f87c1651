/* Support mapping, SIMD kernel: branch-free primitives, wide hull scans. */
#include "support.h"
#include "tolerance.h"

#include <math.h>

/* Rows of the rotation matrix of a quaternion q (lanes x, y, z, w) with
 * s = 2 / |q|^2: the rotation of q / |q|, without normalizing q (no square
 * root). Each entry is the textbook expression, three at a time in lanes:
 *   diagonal    1 - s (yy + zz),  1 - s (xx + zz),  1 - s (xx + yy)
 *   plus        s (xy + wz),      s (xz + wy),      s (yz + wx)
 *   minus       s (xy - wz),      s (xz - wy),      s (yz - wx) */
static void quat_rows(v4 q, float s, v4 rows[3])
{
    const v4 vs = v4_splat(s);
    const v4 yxx = v4_shuffle(q, q, 1, 0, 0, 3), zzy = v4_shuffle(q, q, 2, 2, 1, 3);
    const v4 diag = v4_sub(v4_splat(1.0f), v4_mul(vs, v4_add(v4_mul(yxx, yxx), v4_mul(zzy, zzy))));
    const v4 prod = v4_mul(v4_shuffle(q, q, 0, 0, 1, 3), v4_shuffle(q, q, 1, 2, 2, 3)); /* xy xz yz */
    const v4 wterm = v4_mul(v4_shuffle(q, q, 3, 3, 3, 3), v4_shuffle(q, q, 2, 1, 0, 3)); /* wz wy wx */
    const v4 plus = v4_mul(vs, v4_add(prod, wterm)), minus = v4_mul(vs, v4_sub(prod, wterm));
    /* each row from two shuffles; the pad lanes zeroed */
    rows[0] = v4_xyz(v4_shuffle(v4_shuffle(diag, minus, 0, 0, 0, 0), plus, 0, 2, 1, 1));
    rows[1] = v4_xyz(v4_shuffle(v4_shuffle(plus, diag, 0, 0, 1, 1), minus, 0, 2, 2, 2));
    rows[2] = v4_xyz(v4_shuffle(v4_shuffle(minus, plus, 1, 1, 2, 2), diag, 0, 2, 2, 2));
}

/* conj(a) b, lanes x, y, z, w: a.w b + a.x (-b.w, b.z, -b.y, b.x)
 * + a.y (-b.z, -b.w, b.x, b.y) + a.z (b.y, -b.x, -b.w, b.z), summed in that
 * order (signs flipped on b: exact). */
static v4 quat_conj_mul(v4 a, v4 b)
{
    const v4 t0 = v4_mul(v4_shuffle(a, a, 3, 3, 3, 3), b);
    const v4 t1 = v4_mul(v4_splat_x(a), v4_mul(v4_shuffle(b, b, 3, 2, 1, 0), v4_set(-1, 1, -1, 1)));
    const v4 t2 = v4_mul(v4_splat_y(a), v4_mul(v4_shuffle(b, b, 2, 3, 0, 1), v4_set(-1, -1, 1, 1)));
    const v4 t3 = v4_mul(v4_splat_z(a), v4_mul(v4_shuffle(b, b, 1, 0, 3, 2), v4_set(1, -1, -1, 1)));
    return v4_add(v4_add(v4_add(t0, t1), t2), t3);
}

static void move_hull_b(simd_pair *pair, const mink_shape *b);

void mink_simd_pair_init(simd_pair *pair, const mink_shape *a, const mink_pose *pa, float qa_norm2,
                         const mink_shape *b, const mink_pose *pb, float qb_norm2, v4 *rot_a_rows)
{
    const v4 qa = v4_load(&pa->q.x), qb = v4_load(&pb->q.x);
    quat_rows(qa, 2.0f / qa_norm2, rot_a_rows);
    pair->a = a;
    pair->b = b;
    /* |conj(qa) qb|^2 = |qa|^2 |qb|^2 */
    quat_rows(quat_conj_mul(qa, qb), 2.0f / (qa_norm2 * qb_norm2), pair->row);
    /* R^T's rows are R's columns (the same values quat_rows gives for the
     * inverse rotation: only signs of exact products differ) */
    v4_transpose3(pair->row, pair->col);
    /* R_a^T d = d.x row0 + d.y row1 + d.z row2 (rows of R_a) */
    const v4 d = v4_sub(v4_from_vec3(pb->p), v4_from_vec3(pa->p));
    pair->pos_b = v4_madd(v4_splat_z(d), rot_a_rows[2],
                          v4_madd(v4_splat_y(d), rot_a_rows[1], v4_mul(v4_splat_x(d), rot_a_rows[0])));
    pair->scale = a->extent + b->extent + sqrtf(v4_len2(pair->pos_b));
    if (!(pair->scale > 1e-30f)) pair->scale = 1e-30f;
    pair->support_calls = 0;
    pair->b_moved.type = MINK_SHAPE_INVALID;
    if (b->type == MINK_SHAPE_HULL && b->count <= SIMD_MOVED_POINTS) move_hull_b(pair, b);
}

/* d's dot products with one lane-width of hull points, from point i. */
static inline vw hull_dots(const mink_shape *s, size_t i, vw dx, vw dy, vw dz)
{
    return vw_fma(vw_load(s->z + i), dz, vw_fma(vw_load(s->y + i), dy, vw_mul(vw_load(s->x + i), dx)));
}

/* End of the scan: the lane-widths holding real points. The padding past
 * them copies vertex 0, which it can only tie with, so it is skipped. */
static inline size_t hull_scan_end(const mink_shape *s)
{
    return (s->count + (MINK_W_LANES - 1)) & ~(uint32_t)(MINK_W_LANES - 1);
}

/* B's hull points as R p in the pair's own arrays, over the lane-widths the
 * scan reads (the padding, copies of vertex 0, stays copies of it). */
static void move_hull_b(simd_pair *pair, const mink_shape *b)
{
    float c[3][4];
    for (unsigned k = 0; k < 3; ++k) v4_store(c[k], pair->col[k]);
    const vw c0x = vw_splat(c[0][0]), c0y = vw_splat(c[0][1]), c0z = vw_splat(c[0][2]);
    const vw c1x = vw_splat(c[1][0]), c1y = vw_splat(c[1][1]), c1z = vw_splat(c[1][2]);
    const vw c2x = vw_splat(c[2][0]), c2y = vw_splat(c[2][1]), c2z = vw_splat(c[2][2]);
    const size_t end = hull_scan_end(b);
    for (size_t i = 0; i < end; i += MINK_W_LANES) {
        const vw x = vw_load(b->x + i), y = vw_load(b->y + i), z = vw_load(b->z + i);
        vw_store(pair->bx + i, vw_fma(z, c2x, vw_fma(y, c1x, vw_mul(x, c0x))));
        vw_store(pair->by + i, vw_fma(z, c2y, vw_fma(y, c1y, vw_mul(x, c0y))));
        vw_store(pair->bz + i, vw_fma(z, c2z, vw_fma(y, c1z, vw_mul(x, c0z))));
    }
    pair->b_moved = *b;
    pair->b_moved.x = pair->bx;
    pair->b_moved.y = pair->by;
    pair->b_moved.z = pair->bz;
}

/* One lane-width folded into a running max and its index: strictly greater
 * wins, so each lane keeps its lowest index among equal maxima. */
#define SCAN_STEP(best, best_i, idx, i)                                                                \
    do {                                                                                               \
        const vw dot_ = hull_dots(s, (i), dx, dy, dz);                                                 \
        const vwm better_ = vw_cmpgt(dot_, best);                                                      \
        best = vw_max(dot_, best); /* = select(better_, dot_, best) */                                 \
        best_i = vw_select(better_, idx, best_i);                                                      \
    } while (0)

/* The support vertex's index: the lowest index among the largest dot
 * products. NaN dot products never win (max(NaN, x) is x), and if no dot
 * product beats -inf the answer is vertex 0. */
static inline uint32_t hull_argmax(const mink_shape *s, v4 d)
{
    const vw dx = vw_splat(v4_x(d)), dy = vw_splat(v4_y(d)), dz = vw_splat(v4_z(d));
    const vw none = vw_splat(-INFINITY);
    if (s->count <= MINK_W_LANES) { /* one lane-width: lane = index; NaN dot products never win */
        const vw d0 = vw_max(hull_dots(s, 0, dx, dy, dz), none);
        return vw_first_lane(vw_cmpeq(d0, vw_from_v4(v4_hmax_splat(vw_fold_max(d0)))));
    }
    if (s->count <= 4 * MINK_W_LANES) {
        /* up to four lane-widths: their dot products stay in registers, and
         * the index is the first lane, in scan order, holding the maximum
         * (no index lanes to carry). Lane-widths past the points repeat the
         * first: the same maximum, and any lane of theirs that holds it has
         * its twin in the first, earlier (as the padding lanes have vertex
         * 0). NaN dot products (a NaN d) may leave no lane equal to the
         * maximum: then vertex 0. */
        const vw d0 = hull_dots(s, 0, dx, dy, dz);
        const vw d1 = hull_dots(s, MINK_W_LANES, dx, dy, dz);
        const vw d2 = s->count > 2 * MINK_W_LANES ? hull_dots(s, 2 * MINK_W_LANES, dx, dy, dz) : d0;
        const vw d3 = s->count > 3 * MINK_W_LANES ? hull_dots(s, 3 * MINK_W_LANES, dx, dy, dz) : d0;
        /* lane 0's maximum in every lane: with NaNs the lanes of a
         * horizontal max can differ */
        const vw top = vw_from_v4(v4_splat_x(v4_hmax_splat(vw_fold_max(vw_max(vw_max(d0, d1), vw_max(d2, d3))))));
        const uint64_t bits = vw_mask_bits4(vw_cmpeq(d0, top), vw_cmpeq(d1, top), vw_cmpeq(d2, top), vw_cmpeq(d3, top));
        return bits ? (uint32_t)__builtin_ctzll(bits) : 0u;
    }

    /* Two running maxima (even and odd lane-widths) hide the latency of the
     * compare-select chain; NaN dot products never win (max(NaN, x) is x). */
    vw best0 = vw_max(hull_dots(s, 0, dx, dy, dz), none);
    const vw step = vw_splat(2.0f * MINK_W_LANES);
    vw idx0 = vw_iota(), idx1 = vw_add(idx0, vw_splat((float)MINK_W_LANES));
    vw best1 = vw_max(hull_dots(s, MINK_W_LANES, dx, dy, dz), none);
    vw best_i0 = idx0, best_i1 = idx1;
    const size_t end = hull_scan_end(s);
    size_t i = 2 * MINK_W_LANES;
    for (; i + MINK_W_LANES < end; i += 2 * MINK_W_LANES) {
        idx0 = vw_add(idx0, step);
        idx1 = vw_add(idx1, step);
        SCAN_STEP(best0, best_i0, idx0, i);
        SCAN_STEP(best1, best_i1, idx1, i + MINK_W_LANES);
    }
    if (i < end) SCAN_STEP(best0, best_i0, vw_add(idx0, step), i);
    /* the lowest index over both sets of lanes holding the maximum */
    const vw top = vw_from_v4(v4_hmax_splat(vw_fold_max(vw_max(best0, best1))));
    const vw none_i = vw_splat(3.0e38f);
    const vw cand = vw_min(vw_select(vw_cmpeq(best0, top), best_i0, none_i),
                           vw_select(vw_cmpeq(best1, top), best_i1, none_i));
    return (uint32_t)v4_x(v4_hmin_splat(vw_fold_min(cand)));
}

/* The support point and index of any core. */
static inline v4 support_local(const mink_shape *s, v4 d, uint32_t *index)
{
    switch (s->type) {
    case MINK_SHAPE_HULL: {
        /* a lane the scan read (or 0): below padded, inside the arrays;
         * below count, as padding only ties vertex 0 */
        const uint32_t k = hull_argmax(s, d);
        *index = k;
        return v4_set(s->x[k], s->y[k], s->z[k], 0.0f);
    }
    case MINK_SHAPE_BOX: {
        const v4m pos = v4_cmpge(d, v4_zero());
        const v4 h = v4_set(s->half[0], s->half[1], s->half[2], 0.0f);
        *index = v4_mask_bits(pos) & 7u; /* corner bits zyx */
        return v4_select(pos, h, v4_neg(h));
    }
    case MINK_SHAPE_CAPSULE: {
        const v4m pos = v4_cmpge(v4_splat_y(d), v4_zero());
        const v4 h = v4_set(0.0f, s->half[1], 0.0f, 0.0f);
        *index = v4_any(pos) ? 1u : 0u;
        return v4_select(pos, h, v4_neg(h));
    }
    default:
        *index = 0;
        return v4_zero();
    }
}

v4 mink_simd_support_local(const mink_shape *s, v4 d, uint32_t *index) { return support_local(s, d, index); }

/* The largest dot product alone: no index to carry, one reduction. */
static float hull_support_dot(const mink_shape *s, v4 d)
{
    const vw dx = vw_splat(v4_x(d)), dy = vw_splat(v4_y(d)), dz = vw_splat(v4_z(d));
    const size_t end = hull_scan_end(s);
    /* two running maxima: half the latency chain on large hulls */
    vw best0 = hull_dots(s, 0, dx, dy, dz), best1 = best0;
    size_t i = MINK_W_LANES;
    for (; i + MINK_W_LANES < end; i += 2 * MINK_W_LANES) {
        best0 = vw_max(best0, hull_dots(s, i, dx, dy, dz));
        best1 = vw_max(best1, hull_dots(s, i + MINK_W_LANES, dx, dy, dz));
    }
    if (i < end) best0 = vw_max(best0, hull_dots(s, i, dx, dy, dz));
    return v4_x(v4_hmax_splat(vw_fold_max(vw_max(best0, best1))));
}

float mink_simd_support_dot(const mink_shape *s, v4 d)
{
    switch (s->type) {
    case MINK_SHAPE_HULL: return hull_support_dot(s, d);
    case MINK_SHAPE_BOX: {
        const v4 h = v4_set(s->half[0], s->half[1], s->half[2], 0.0f);
        return v4_dot(v4_max(d, v4_neg(d)), h);
    }
    case MINK_SHAPE_CAPSULE: return fabsf(v4_y(d)) * s->half[1];
    default: return 0.0f;
    }
}

/* B's support point along d, in A's frame. */
static inline v4 support_b(const simd_pair *pair, v4 d, uint32_t *index)
{
    /* moved: B's points are in A's frame already */
    if (pair->b_moved.type == MINK_SHAPE_HULL) return v4_add(support_local(&pair->b_moved, d, index), pair->pos_b);
    /* d in B's frame: R^T d = d.x*row0 + d.y*row1 + d.z*row2 */
    const v4 db = v4_madd(v4_splat_z(d), pair->row[2],
                          v4_madd(v4_splat_y(d), pair->row[1], v4_mul(v4_splat_x(d), pair->row[0])));
    const v4 sb = support_local(pair->b, db, index);
    /* R sb = sb.x*col0 + sb.y*col1 + sb.z*col2, plus the offset */
    return v4_madd(v4_splat_z(sb), pair->col[2],
                   v4_madd(v4_splat_y(sb), pair->col[1], v4_madd(v4_splat_x(sb), pair->col[0], pair->pos_b)));
}

simd_vertex mink_simd_support_pair(simd_pair *pair, v4 d)
{
    simd_vertex v;
    uint32_t ia, ib;
    v.pa = support_local(pair->a, v4_neg(d), &ia);
    v.pb = support_b(pair, d, &ib);
    simd_vertex_set_ids(&v, ia, ib);
    v.w = v4_sub(v.pb, v.pa);
    pair->support_calls++;
    return v;
}
