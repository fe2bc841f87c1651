/* The features of a shape's core as contact manifolds read them: faces
 * (planes and counter-clockwise loops of point ids), the faces around a
 * point, Gauss-map arcs (edges with their two faces' normals), and the
 * points themselves. Boxes have theirs analytically; hulls read the
 * topology mink_hull_init built (hull.h); capsules are segments (ids 0, 1:
 * the ends at -h, +h), spheres points (id 0). Shared by both kernels; plain
 * C, local frames. */
#ifndef MINK_CORE_FEATURES_H
#define MINK_CORE_FEATURES_H

#include "hull.h"
#include "mink/mink.h"
#include "ref/ref_math.h"

#include <stdint.h>

typedef enum core_kind {
    CORE_POINT = 0,   /* sphere, or a hull of coincident points     */
    CORE_SEGMENT = 1, /* capsule, or a hull of collinear points     */
    CORE_POLY = 2     /* box, or a hull with faces (solid or flat)  */
} core_kind;

typedef struct core_view {
    const mink_shape *s;
    const hull_topology *t; /* hulls; NULL for primitives               */
    uint32_t kind;          /* core_kind                                */
    uint32_t ends[2];       /* CORE_SEGMENT / CORE_POINT: the end ids   */
} core_view;

/* The view of a valid shape; 0 when it is a hull without its topology. */
int mink_core_view_init(core_view *v, const mink_shape *s);

/* Faces and corners of a box: loops counter-clockwise about the outward
 * normal; each edge once, v0 -> v1 counter-clockwise in face f0. */
static const uint8_t core_box_loop[6][4] = {
    {0, 4, 6, 2}, {1, 3, 7, 5}, /* -x, +x */
    {0, 1, 5, 4}, {2, 6, 7, 3}, /* -y, +y */
    {0, 2, 3, 1}, {4, 5, 7, 6}, /* -z, +z */
};

/* Each edge once: its ends (v0 -> v1 runs counter-clockwise in face f0)
 * and its two faces; then e = n0 x n1 points from v0 to v1. */
static const uint8_t core_box_edge[12][4] = {
    {0, 1, 2, 4}, {0, 2, 4, 0}, {0, 4, 0, 2}, {1, 3, 1, 4}, {1, 5, 2, 1}, {2, 3, 4, 3},
    {2, 6, 3, 0}, {3, 7, 1, 3}, {4, 5, 5, 2}, {4, 6, 0, 5}, {5, 7, 5, 1}, {6, 7, 3, 5},
};

static inline v3 core_box_normal(uint32_t face)
{
    float n[3] = {0, 0, 0};
    n[face >> 1] = (face & 1u) ? 1.0f : -1.0f;
    return v3_make(n[0], n[1], n[2]);
}

static inline v3 core_box_corner(const mink_shape *s, uint32_t id)
{
    return v3_make((id & 1u) ? s->half[0] : -s->half[0], (id & 2u) ? s->half[1] : -s->half[1],
                   (id & 4u) ? s->half[2] : -s->half[2]);
}

/* The core point of an id, local frame (hull: index; box: corner bits
 * zyx; capsule: end 0 at -h, 1 at +h; sphere: 0). */
static inline v3 core_point(const core_view *v, uint32_t id)
{
    const mink_shape *s = v->s;
    switch (s->type) {
    case MINK_SHAPE_BOX: return core_box_corner(s, id);
    case MINK_SHAPE_CAPSULE: return v3_make(0.0f, id ? s->half[1] : -s->half[1], 0.0f);
    case MINK_SHAPE_HULL: return id < s->count ? v3_make(s->x[id], s->y[id], s->z[id]) : v3_make(0, 0, 0);
    default: return v3_make(0, 0, 0);
    }
}

/* Faces: unit outward normal and offset (every core point p has
 * n.p <= d), and the loop of point ids, counter-clockwise about n. */
static inline uint32_t core_face_count(const core_view *v)
{
    if (v->kind != CORE_POLY) return 0;
    return v->t ? v->t->face_count : 6;
}

static inline v3 core_face_normal(const core_view *v, uint32_t face)
{
    if (!v->t) return core_box_normal(face);
    return v3_make(hull_plane(v->t, 0)[face], hull_plane(v->t, 1)[face], hull_plane(v->t, 2)[face]);
}

static inline float core_face_offset(const core_view *v, uint32_t face)
{
    if (!v->t) return v->s->half[face >> 1];
    return hull_plane(v->t, 3)[face];
}

static inline uint32_t core_face_size(const core_view *v, uint32_t face)
{
    if (!v->t) return 4;
    const uint32_t *first = hull_face_first(v->t);
    return first[face + 1] - first[face];
}

static inline uint32_t core_face_point(const core_view *v, uint32_t face, uint32_t k)
{
    if (!v->t) return core_box_loop[face][k];
    return hull_face_vertex(v->t)[hull_face_first(v->t)[face] + k];
}

/* The faces around a point: up to `cap` into faces; returns how many. */
uint32_t mink_core_point_faces(const core_view *v, uint32_t id, uint32_t *faces, uint32_t cap);

/* Gauss-map arcs (edges between two faces), as hull.h describes them. */
uint32_t mink_core_arc_count(const core_view *v);
/* n0, n1, e = unit(n0 x n1), the edge's first point o; its end ids. */
void mink_core_arc(const core_view *v, uint32_t arc, v3 *n0, v3 *n1, v3 *e, v3 *o, uint32_t ids[2]);

/* A box's arc along `axis` from corner v0 (its axis bit clear). */
uint32_t mink_core_box_arc(uint32_t axis, uint32_t v0);

/* Structure-of-arrays copies for the separating-axis scans: points, face
 * planes and arcs, each array padded to a multiple of MINK_HULL_PAD (the
 * padding never wins: points and planes repeat entry 0, arcs are zeros). */
typedef struct soa_points { const float *x, *y, *z; uint32_t count, padded; } soa_points;
typedef struct soa_planes { const float *nx, *ny, *nz, *d; uint32_t count, padded; } soa_planes;
typedef struct soa_arcs { const float *f[12]; uint32_t count, padded; } soa_arcs; /* hull.h's 12 arrays */

/* The capacities a box's arrays need (8 points, 6 planes, 12 arcs), padded. */
enum { BOX_SOA_FLOATS = 3 * MINK_HULL_PAD + 4 * MINK_HULL_PAD + 12 * MINK_HULL_PAD };

/* A poly core's arrays in its own frame: a hull's point in place, a box's
 * written into `box_store` (BOX_SOA_FLOATS floats, 64-byte aligned). */
void mink_core_soa(const core_view *v, float *box_store, soa_points *points, soa_planes *planes, soa_arcs *arcs);

/* Another core's arrays moved into this frame: q = R p + t for points,
 * R n and d + (R n).t for planes, R for the arcs' normals and directions
 * (rows of R given). Writes into `store` (64-byte aligned, at least
 * 3 pp + 4 pf + 12 pa floats with pp, pf, pa the padded counts). */
void mink_core_soa_moved(const soa_points *p, const soa_planes *f, const soa_arcs *a, const v3 rows[3], v3 t,
                         float *store, soa_points *po, soa_planes *fo, soa_arcs *ao);

#endif
