/* The support scans and the pair support of the SIMD kernel, inline: GJK
 * and EPA call the pair support once per iteration, and as a call it
 * returned its vertex through memory and made them spill their vectors. */
#ifndef MINK_SUPPORT_SCAN_H
#define MINK_SUPPORT_SCAN_H

#include "support.h"

#include <math.h>

/* MINK_ALWAYS_INLINE below: GCC otherwise keeps a copy of the shape
 * support, called per shape, where the pair support is inlined twice. */

/* d's dot products with one lane-width of hull points, from point i. */
static inline vw hull_dots(const mink_shape *s, size_t i, vw dx, vw dy, vw dz)
{
    return vw_fma(vw_load(s->z + i), dz, vw_fma(vw_load(s->y + i), dy, vw_mul(vw_load(s->x + i), dx)));
}

/* The same over MINK_N_LANES points (narrow scans of short hulls). */
static inline vn hull_dots_narrow(const mink_shape *s, size_t i, vn dx, vn dy, vn dz)
{
    return vn_fma(vn_load(s->z + i), dz, vn_fma(vn_load(s->y + i), dy, vn_mul(vn_load(s->x + i), dx)));
}

/* End of a vw scan: the lane-widths holding real points. The padding past
 * them copies vertex 0, which it can only tie with, so it is skipped. */
static inline size_t hull_scan_end(const mink_shape *s)
{
    return (s->count + (MINK_W_LANES - 1)) & ~(uint32_t)(MINK_W_LANES - 1);
}

/* One lane-width (lanes of type T, operations P##_...: vw or vn) folded
 * into a running max and its index: strictly greater wins, so each lane
 * keeps its lowest index among equal maxima. */
#define SCAN_STEP(T, P, DOTS, best, best_i, idx, i)                                                     \
    do {                                                                                                \
        const T dot_ = DOTS(s, (i), dx, dy, dz);                                                        \
        best_i = P##_select_gt(dot_, best, idx, best_i);                                                \
        best = P##_max(dot_, best); /* = select(dot_ > best, dot_, best) */                             \
    } while (0)

/* The scan of a hull of any size over LANES lanes of type T, as a function
 * `name`: defined below for vw, and for vn where its lanes are fewer. Two
 * running maxima (even and odd lane-widths) hide the latency of the
 * compare-select chain; NaN dot products never win (max(NaN, x) is x). The
 * scan ends with the lane-widths holding real points: the padding past
 * them copies vertex 0, which it can only tie with. */
#define DEFINE_HULL_ARGMAX_LOOP(name, T, P, LANES, DOTS)                                                \
    MINK_ALWAYS_INLINE uint32_t name(const mink_shape *s, v4 d)                                         \
    {                                                                                                   \
        const T dx = P##_splat(v4_x(d)), dy = P##_splat(v4_y(d)), dz = P##_splat(v4_z(d));              \
        const T none = P##_splat(-INFINITY);                                                            \
        T best0 = P##_max(DOTS(s, 0, dx, dy, dz), none);                                                \
        const T step = P##_splat(2.0f * (LANES));                                                       \
        T idx0 = P##_iota(), idx1 = P##_add(idx0, P##_splat((float)(LANES)));                           \
        T best1 = P##_max(DOTS(s, (LANES), dx, dy, dz), none);                                          \
        T best_i0 = idx0, best_i1 = idx1;                                                               \
        const size_t end = (s->count + ((LANES) - 1)) & ~(uint32_t)((LANES) - 1);                       \
        size_t i = 2 * (LANES);                                                                         \
        for (; i + (LANES) < end; i += 2 * (LANES)) {                                                   \
            idx0 = P##_add(idx0, step);                                                                 \
            idx1 = P##_add(idx1, step);                                                                 \
            SCAN_STEP(T, P, DOTS, best0, best_i0, idx0, i);                                             \
            SCAN_STEP(T, P, DOTS, best1, best_i1, idx1, i + (LANES));                                   \
        }                                                                                               \
        if (i < end) SCAN_STEP(T, P, DOTS, best0, best_i0, P##_add(idx0, step), i);                     \
        /* the lowest index over both sets of lanes holding the maximum */                              \
        const T top = P##_from_v4(v4_hmax_splat(P##_fold_max(P##_max(best0, best1))));                  \
        const T none_i = P##_splat(3.0e38f);                                                            \
        const T cand = P##_min(P##_select_eq(best0, top, best_i0, none_i),                              \
                               P##_select_eq(best1, top, best_i1, none_i));                             \
        return (uint32_t)v4_x(v4_hmin_splat(P##_fold_min(cand)));                                       \
    }

/* The scan of a hull of 2 to 4 lane-widths, as a function `name` (lanes
 * as above): the dot products stay in registers, and the index is the
 * first lane, in scan order, holding the maximum (no index lanes to
 * carry). Lane-widths past the points repeat the first: the same maximum,
 * and any lane of theirs that holds it has its twin in the first, earlier
 * (as the padding lanes have vertex 0). NaN dot products (a NaN d) may
 * leave no lane equal to the maximum: then vertex 0. */
#define DEFINE_HULL_ARGMAX_FIXED(name, T, P, LANES, DOTS)                                               \
    MINK_ALWAYS_INLINE uint32_t name(const mink_shape *s, v4 d)                                         \
    {                                                                                                   \
        const T dx = P##_splat(v4_x(d)), dy = P##_splat(v4_y(d)), dz = P##_splat(v4_z(d));              \
        const T d0 = DOTS(s, 0, dx, dy, dz);                                                            \
        const T d1 = DOTS(s, (LANES), dx, dy, dz);                                                      \
        const T d2 = s->count > 2 * (LANES) ? DOTS(s, 2 * (LANES), dx, dy, dz) : d0;                    \
        const T d3 = s->count > 3 * (LANES) ? DOTS(s, 3 * (LANES), dx, dy, dz) : d0;                    \
        /* lane 0's maximum in every lane: with NaNs the lanes of a                                     \
         * horizontal max can differ */                                                                 \
        const T max4 = P##_max(P##_max(d0, d1), P##_max(d2, d3));                                       \
        const T top = P##_from_v4(v4_splat_x(v4_hmax_splat(P##_fold_max(max4))));                       \
        const uint64_t bits = P##_eq_bits4(d0, d1, d2, d3, top);                                        \
        return (uint32_t)__builtin_ctzll(bits | (bits == 0)); /* no bit: vertex 0, without a branch */  \
    }

/* The same over 5 to 8 lane-widths (the first five always hold points). */
#define DEFINE_HULL_ARGMAX_FIXED8(name, T, P, LANES, DOTS)                                              \
    MINK_ALWAYS_INLINE uint32_t name(const mink_shape *s, v4 d)                                         \
    {                                                                                                   \
        const T dx = P##_splat(v4_x(d)), dy = P##_splat(v4_y(d)), dz = P##_splat(v4_z(d));              \
        const T d0 = DOTS(s, 0, dx, dy, dz), d1 = DOTS(s, (LANES), dx, dy, dz);                         \
        const T d2 = DOTS(s, 2 * (LANES), dx, dy, dz), d3 = DOTS(s, 3 * (LANES), dx, dy, dz);           \
        const T d4 = DOTS(s, 4 * (LANES), dx, dy, dz);                                                  \
        const T d5 = s->count > 5 * (LANES) ? DOTS(s, 5 * (LANES), dx, dy, dz) : d0;                    \
        const T d6 = s->count > 6 * (LANES) ? DOTS(s, 6 * (LANES), dx, dy, dz) : d0;                    \
        const T d7 = s->count > 7 * (LANES) ? DOTS(s, 7 * (LANES), dx, dy, dz) : d0;                    \
        const T max4 = P##_max(P##_max(d0, d1), P##_max(d2, d3));                                       \
        const T max8 = P##_max(max4, P##_max(P##_max(d4, d5), P##_max(d6, d7)));                        \
        const T top = P##_from_v4(v4_splat_x(v4_hmax_splat(P##_fold_max(max8))));                       \
        const uint64_t lo = P##_eq_bits4(d0, d1, d2, d3, top), hi = P##_eq_bits4(d4, d5, d6, d7, top);  \
        const uint64_t bits = lo | hi << 4 * (LANES);                                                   \
        return (uint32_t)__builtin_ctzll(bits | (bits == 0));                                           \
    }

DEFINE_HULL_ARGMAX_FIXED(hull_argmax_fixed_narrow, vn, vn, MINK_N_LANES, hull_dots_narrow)
DEFINE_HULL_ARGMAX_LOOP(hull_argmax_loop, vw, vw, MINK_W_LANES, hull_dots)
#if MINK_N_LANES == MINK_W_LANES
DEFINE_HULL_ARGMAX_FIXED8(hull_argmax_fixed8, vw, vw, MINK_W_LANES, hull_dots)
#else
DEFINE_HULL_ARGMAX_FIXED(hull_argmax_fixed, vw, vw, MINK_W_LANES, hull_dots)
DEFINE_HULL_ARGMAX_LOOP(hull_argmax_loop_narrow, vn, vn, MINK_N_LANES, hull_dots_narrow)
#endif

/* The support vertex's index: the lowest index among the largest dot
 * products. A NaN d still names a point of the hull (each path says how).
 * Up to eight lane-widths in registers, then a loop. With AVX-512 (vn
 * narrower than vw) the wide lanes scan only where they measured faster:
 * 33 to 64 points (four lane-widths in registers: faster than eight
 * narrow ones) and more than MINK_NARROW_SCAN_POINTS. */
/* climb (a constant): big solids climb instead of the loop (below). */
MINK_ALWAYS_INLINE uint32_t hull_argmax_sized(const mink_shape *s, v4 d, int climb)
{
    if (s->count <= MINK_N_LANES) { /* one lane-width: lane = index; NaN dot products never win */
        const vn d0 = vn_max(hull_dots_narrow(s, 0, vn_splat(v4_x(d)), vn_splat(v4_y(d)), vn_splat(v4_z(d))),
                             vn_splat(-INFINITY));
        return (uint32_t)__builtin_ctz(vn_eq_bits(d0, vn_from_v4(v4_hmax_splat(vn_fold_max(d0)))));
    }
    if (s->count <= 4 * MINK_N_LANES) return hull_argmax_fixed_narrow(s, d);
#if MINK_N_LANES == MINK_W_LANES
    if (s->count <= 8 * MINK_W_LANES) return hull_argmax_fixed8(s, d);
#else
    if (s->count <= 4 * MINK_W_LANES) return hull_argmax_fixed(s, d);
    if (s->count <= MINK_NARROW_SCAN_POINTS) return hull_argmax_loop_narrow(s, d);
#endif
    if (climb && hull_climbs(s)) return mink_simd_hull_climb(s, d);
    return hull_argmax_loop(s, d);
}

MINK_ALWAYS_INLINE uint32_t hull_argmax_scan(const mink_shape *s, v4 d) { return hull_argmax_sized(s, d, 0); }

/* The support vertex's index: big solids climb (hull.h; within merge_tol
 * of the scan's maximum), the others scan. */
MINK_ALWAYS_INLINE uint32_t hull_argmax(const mink_shape *s, v4 d) { return hull_argmax_sized(s, d, 1); }

/* The largest dot product alone: no index to carry, one reduction. */
MINK_ALWAYS_INLINE float hull_support_dot(const mink_shape *s, v4 d)
{
    const vw dx = vw_splat(v4_x(d)), dy = vw_splat(v4_y(d)), dz = vw_splat(v4_z(d));
    const size_t end = hull_scan_end(s);
    vw best = hull_dots(s, 0, dx, dy, dz);
    size_t i = MINK_W_LANES;
    if (end > 4 * MINK_W_LANES) { /* two running maxima: half the latency chain on large hulls */
        vw best1 = hull_dots(s, i, dx, dy, dz);
        for (i = 2 * MINK_W_LANES; i + MINK_W_LANES < end; i += 2 * MINK_W_LANES) {
            best = vw_max(best, hull_dots(s, i, dx, dy, dz));
            best1 = vw_max(best1, hull_dots(s, i + MINK_W_LANES, dx, dy, dz));
        }
        best = vw_max(best, best1);
    }
    for (; i < end; i += MINK_W_LANES) best = vw_max(best, hull_dots(s, i, dx, dy, dz));
    return v4_x(v4_hmax_splat(vw_fold_max(best)));
}

/* max over the core's points of d.p (mink_simd_support_dot), inline: a
 * pair still apart costs two of these and little else. climb (a
 * constant): big solids climb (a call) instead of the loop. */
MINK_ALWAYS_INLINE float support_dot_sized(const mink_shape *s, v4 d, int climb)
{
    switch (s->type) {
    case MINK_SHAPE_HULL:
        if (climb && hull_climbs(s)) {
            const uint32_t k = mink_simd_hull_climb(s, d);
            return s->x[k] * v4_x(d) + s->y[k] * v4_y(d) + s->z[k] * v4_z(d);
        }
        return hull_support_dot(s, d);
    case MINK_SHAPE_BOX: {
        const v4 h = v4_xyz(v4_load(s->half)); /* the 4th lane reads the extent */
        return v4_dot(v4_max(d, v4_neg(d)), h);
    }
    case MINK_SHAPE_CAPSULE: return fabsf(v4_y(d)) * s->half[1];
    default: return 0.0f;
    }
}

MINK_ALWAYS_INLINE float support_dot(const mink_shape *s, v4 d) { return support_dot_sized(s, d, 1); }

/* A core whose support scan takes more than eight lane-widths (a loop, or
 * for big solids a climb). */
MINK_ALWAYS_INLINE int support_scan_long(const mink_shape *s)
{
    return s->type == MINK_SHAPE_HULL && s->count > 8 * MINK_W_LANES;
}

/* The support point and index of any core. */
MINK_ALWAYS_INLINE v4 support_local(const mink_shape *s, v4 d, uint32_t *index)
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

/* B's support point along d, in A's frame. */
MINK_ALWAYS_INLINE v4 support_b(const simd_pair *pair, v4 d, uint32_t *index)
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

/* The support of D along d, given d and -d (A's direction). */
MINK_ALWAYS_INLINE simd_vertex support_pair_dirs(simd_pair *pair, v4 d, v4 neg_d)
{
    simd_vertex v;
    uint32_t ia, ib;
    v.pa = support_local(pair->a, neg_d, &ia);
    v.pb = support_b(pair, d, &ib);
    simd_vertex_set_ids(&v, ia, ib);
    v.w = v4_sub(v.pb, v.pa);
    pair->support_calls++;
    return v;
}

MINK_ALWAYS_INLINE simd_vertex support_pair(simd_pair *pair, v4 d) { return support_pair_dirs(pair, d, v4_neg(d)); }

/* The support of D along -v (GJK's search direction), A's direction being
 * v itself: -(-v) (0 - x twice) differs from v only where v holds -0, as
 * +0, and a support depends only on comparisons, which ignore the sign of
 * a zero (a box's d >= 0 too): the same point either way, one negation less. */
MINK_ALWAYS_INLINE simd_vertex support_pair_against(simd_pair *pair, v4 v) { return support_pair_dirs(pair, v4_neg(v), v); }

#endif
