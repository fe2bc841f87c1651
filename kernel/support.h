/* Support mapping of the SIMD kernel. Work happens in A's local frame; B is
 * placed there once per query. Hull scans run MINK_W_LANES dot products per
 * step over the structure-of-arrays vertices. */
#ifndef MINK_SUPPORT_H
#define MINK_SUPPORT_H

#include "hull.h"
#include "mink/mink.h"
#include "simd.h"

#include <math.h>

/* Hulls of B whose scan keeps its dot products in registers (up to four
 * lane-widths) are rotated into A's frame once per query: each support then
 * scans along d itself, with no rotation of d before the scan nor of the
 * point after it on GJK's serial chain. Longer scans cost more to move than
 * the rotations save. */
#define SIMD_MOVED_POINTS (4 * MINK_W_LANES)

/* The pair in A's frame. */
typedef struct simd_pair {
    /* B's hull points rotated into A's frame (R p, no offset), when moved */
    _Alignas(64) float bx[SIMD_MOVED_POINTS];
    _Alignas(64) float by[SIMD_MOVED_POINTS];
    _Alignas(64) float bz[SIMD_MOVED_POINTS];
    mink_shape b_moved; /* B over bx, by, bz, or type MINK_SHAPE_INVALID */
    const mink_shape *a, *b;
    v4 row[3];      /* rows of R: B local -> A local                 */
    v4 col[3];      /* columns of R (rows of R^T): A local -> B local */
    v4 pos_b;       /* B's origin in A's frame, pad 0                 */
    float scale;    /* S of tolerance.h                              */
    unsigned support_calls;
} simd_pair;

/* A point of D = B - A with its two core support points (A frame) and the
 * feature indices (hull vertex, box corner bits zyx, capsule end). */
typedef struct simd_vertex {
    v4 w, pa, pb;
    union {
        struct { uint32_t ia, ib; };
        /* ia, ib, 0, 0, set in one store by simd_vertex_set_ids: vertices
         * are copied in 16-byte pieces soon after they are made, and such
         * a load over two pending 4-byte stores stalls store forwarding */
        uint32_t ids[4];
    };
} simd_vertex;

MINK_INLINE void simd_vertex_set_ids(simd_vertex *v, uint32_t ia, uint32_t ib) { u32x2_store_zero_hi(v->ids, ia, ib); }

/* Poses as given (checked), with |q|^2 of each: the rotations are built
 * from the quaternions scaled, never normalized. */
void mink_simd_pair_init(simd_pair *pair, const mink_shape *a, const mink_pose *pa, float qa_norm2,
                         const mink_shape *b, const mink_pose *pb, float qb_norm2, v4 *rot_a_rows);

/* 1 if s is a hull that supports by hill climbing (hull.h). */
MINK_INLINE int hull_climbs(const mink_shape *s)
{
    return s->count >= HULL_CLIMB_MIN_POINTS && s->topology && s->topology->seed_count == HULL_CLIMB_SEEDS;
}

/* The index of a climbing hull's support along d (its local frame), out of
 * line: the scans that inline it stay as they were for every other hull. */
uint32_t mink_simd_hull_climb(const mink_shape *s, v4 d);

/* Support of a core in its local frame along d (pad 0). */
v4 mink_simd_support_local(const mink_shape *s, v4 d, uint32_t *index);

/* max over the core's points p (local frame) of d.p: the support's dot
 * product without the point. */
float mink_simd_support_dot(const mink_shape *s, v4 d);

/* Support of D along d: a called copy of support_scan.h's inline
 * support_pair, for the cold paths. */
simd_vertex mink_simd_support_pair(simd_pair *pair, v4 d);

/* The core point of a feature index, in the shape's local frame. Inline:
 * a warm start evaluates up to eight per query. */
MINK_INLINE v4 mink_simd_core_point(const mink_shape *s, uint32_t index)
{
    switch (s->type) {
    case MINK_SHAPE_CAPSULE:
        return v4_set(0, (index & 1u) ? s->half[1] : -s->half[1], 0, 0);
    case MINK_SHAPE_BOX:
        return v4_set((index & 1u) ? s->half[0] : -s->half[0], (index & 2u) ? s->half[1] : -s->half[1],
                      (index & 4u) ? s->half[2] : -s->half[2], 0);
    case MINK_SHAPE_HULL:
        if (index >= s->count) index = 0;
        return v4_set(s->x[index], s->y[index], s->z[index], 0);
    default:
        return v4_zero();
    }
}

/* A box's or capsule's half extents (a sphere's are 0), pad 0: one load
 * (the extent follows them in mink_shape). */
MINK_INLINE v4 mink_simd_core_half(const mink_shape *s) { return v4_xyz(v4_load(s->half)); }

/* R * v from rows. */
MINK_INLINE v4 rot_apply(const v4 *rows3, v4 v)
{
    return v4_hsum4(v4_mul(rows3[0], v), v4_mul(rows3[1], v), v4_mul(rows3[2], v), v4_zero());
}

/* R^T v from R's rows: (v.x row0 + v.y row1) + v.z row2 (a direction of
 * R's target frame in its source frame). */
MINK_INLINE v4 rot_apply_t(const v4 *rows3, v4 v)
{
    return v4_madd(v4_splat_z(v), rows3[2], v4_madd(v4_splat_y(v), rows3[1], v4_mul(v4_splat_x(v), rows3[0])));
}

/* B's core point of a feature index, in A's frame. */
MINK_INLINE v4 mink_simd_b_point(const simd_pair *pair, uint32_t index)
{
    if (pair->b_moved.type == MINK_SHAPE_HULL) return v4_add(mink_simd_core_point(&pair->b_moved, index), pair->pos_b);
    return v4_add(rot_apply(pair->row, mink_simd_core_point(pair->b, index)), pair->pos_b);
}

/* v from float[3]. */
MINK_INLINE v4 v4_from_vec3(mink_vec3 p) { return v4_set(p.x, p.y, p.z, 0.0f); }
MINK_INLINE mink_vec3 v4_to_vec3(v4 a)
{
    float t[4];
    v4_store(t, a);
    mink_vec3 r = {t[0], t[1], t[2]};
    return r;
}

/* Rows of the rotation matrix of a quaternion q (lanes x, y, z, w) with
 * s = 2 / |q|^2: the rotation of q / |q|, without normalizing q (no square
 * root). Each entry is the textbook expression, three at a time in lanes:
 *   diagonal    1 - s (yy + zz),  1 - s (xx + zz),  1 - s (xx + yy)
 *   plus        s (xy + wz),      s (xz + wy),      s (yz + wx)
 *   minus       s (xy - wz),      s (xz - wy),      s (yz - wx) */
MINK_INLINE void v4_quat_rows(v4 q, float s, v4 rows[3])
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
MINK_INLINE v4 v4_quat_conj_mul(v4 a, v4 b)
{
    const v4 t0 = v4_mul(v4_shuffle(a, a, 3, 3, 3, 3), b);
    const v4 t1 = v4_mul(v4_splat_x(a), v4_mul(v4_shuffle(b, b, 3, 2, 1, 0), v4_set(-1, 1, -1, 1)));
    const v4 t2 = v4_mul(v4_splat_y(a), v4_mul(v4_shuffle(b, b, 2, 3, 0, 1), v4_set(-1, -1, 1, 1)));
    const v4 t3 = v4_mul(v4_splat_z(a), v4_mul(v4_shuffle(b, b, 1, 0, 3, 2), v4_set(1, -1, -1, 1)));
    return v4_add(v4_add(v4_add(t0, t1), t2), t3);
}

/* The pair's frame from its poses (checked, |q|^2 of each): A's rotation
 * (rows: A local -> world), B's rotation into A's frame (rows: B local ->
 * A local) and B's origin in A's frame (pad 0). */
MINK_INLINE void mink_simd_pair_frame(const mink_pose *pa, float qa_norm2, const mink_pose *pb, float qb_norm2,
                                      v4 rot_a[3], v4 row[3], v4 *pos_b)
{
    const v4 qa = v4_load(&pa->q.x), qb = v4_load(&pb->q.x);
    v4_quat_rows(qa, 2.0f / qa_norm2, rot_a);
    /* |conj(qa) qb|^2 = |qa|^2 |qb|^2 */
    v4_quat_rows(v4_quat_conj_mul(qa, qb), 2.0f / (qa_norm2 * qb_norm2), row);
    /* R_a^T d = d.x row0 + d.y row1 + d.z row2 (rows of R_a) */
    const v4 d = v4_xyz(v4_sub(v4_load(&pb->p.x), v4_load(&pa->p.x))); /* the 4th lanes read q.x */
    *pos_b = rot_apply_t(rot_a, d);
}

/* S of tolerance.h for the pair: the cores' extents and the distance
 * between their origins (offset: B's origin from A's, in any frame). */
MINK_INLINE float mink_simd_pair_scale(const mink_shape *a, const mink_shape *b, v4 offset)
{
    const float scale = a->extent + b->extent + sqrtf(v4_len2(offset));
    return scale > 1e-30f ? scale : 1e-30f;
}

#endif
