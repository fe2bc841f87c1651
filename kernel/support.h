/* Support mapping of the SIMD kernel. Work happens in A's local frame; B is
 * placed there once per query. Hull scans run MINK_W_LANES dot products per
 * step over the structure-of-arrays vertices. */
#ifndef MINK_SUPPORT_H
#define MINK_SUPPORT_H

#include "hull.h"
#include "mink/mink.h"
#include "simd.h"

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

/* R * v from rows. */
MINK_INLINE v4 rot_apply(const v4 *rows3, v4 v)
{
    return v4_hsum4(v4_mul(rows3[0], v), v4_mul(rows3[1], v), v4_mul(rows3[2], v), v4_zero());
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

#endif
