/* Clipping an incident polygon against a reference face's side planes, and
 * reducing the points to four: the contact patch of two touching faces.
 * Shared by both kernels; plain C, A's frame. */
#ifndef MINK_CLIP_H
#define MINK_CLIP_H

#include "ref/ref_math.h"

#include <stdint.h>

/* Polygons larger than this are subsampled before clipping (a face of a
 * 1000-point disc: the points then lie on the face, in a polygon that
 * keeps nearly all of its area). */
#define CLIP_MAX_POLYGON 64
/* A convex polygon clipped by k half-planes gains at most k points. */
#define CLIP_MAX_POINTS (2 * CLIP_MAX_POLYGON)

/* A point of the polygon being clipped, with its feature key and the key of
 * the polygon edge that leaves it (towards the next point). */
typedef struct clip_point {
    v3 p;
    uint32_t key;
    uint32_t edge;
    uint32_t crossing; /* made by the clip (not a point of the polygon) */
} clip_point;

/* A 32-bit mix of up to four words: feature keys. Each word times its
 * own odd constant, then one multiply-xorshift round: distinct small
 * inputs give distinct keys in practice, and the manifold makes the few
 * it returns distinct anyway. (Inline: a manifold hashes a dozen.) */
static inline uint32_t clip_key(uint32_t kind, uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t h = kind * 0x9e3779b1u ^ a * 0x85ebca77u ^ (b * 0xc2b2ae3du + c * 0x27d4eb2fu);
    h ^= h >> 15;
    h *= 0x2c1b3c6du;
    return h ^ (h >> 13);
}

/* The key of an edge between two point keys (either order). */
static inline uint32_t clip_edge_key(uint32_t kind, uint32_t u, uint32_t v)
{
    return u < v ? clip_key(kind, u, v, 0) : clip_key(kind, v, u, 0);
}

/* Clips poly (n points, convex, counter-clockwise or not) against the side
 * planes of the reference polygon ref (nref points counter-clockwise about
 * `normal`, with their ids for the edges' keys): keeps the part whose
 * projection along the normal lies in the reference polygon. A point made
 * by a crossing gets the key of the crossing edges. Returns the new count;
 * poly must hold CLIP_MAX_POINTS, scratch as many. */
uint32_t mink_clip_polygon(clip_point *poly, uint32_t n, const v3 *ref, const uint32_t *ref_ids, uint32_t nref,
                           v3 normal, clip_point *scratch);

/* A point of a box's incident face being clipped by another box's face
 * (mink_clip_box_quad): where it came from, so that only the points kept get
 * their keys hashed. */
typedef struct quad_point {
    v3 p;
    uint8_t from; /* a corner of the quad (0-3), or QUAD_CROSSING | edge << 2 | side */
    uint8_t edge; /* the edge leaving it: the quad's 0-3, the face's sides 4-7 */
} quad_point;
#define QUAD_CROSSING 0x40u
/* four corners clipped by four sides: at most eight points (rounding may
 * add a few; the clip stops at this many) */
#define QUAD_MAX_POINTS 16

/* Clips a quad (with its points' origins) against the sides of a box's
 * face, in the box's frame about `anchor` (the quad's points are relative
 * to it): the face normal to `axis` with its corner ids (bits zyx: + on
 * that axis) counter-clockwise in ref_ids; its sides are the planes
 * +-x_k = half[k], so no plane is computed. Returns the new count; poly
 * and scratch hold QUAD_MAX_POINTS. */
uint32_t mink_clip_box_quad(quad_point *poly, uint32_t n, const float *half, uint32_t axis, const uint8_t *ref_ids,
                            v3 anchor, quad_point *scratch);

/* Chooses up to four of n points (separations sep, projected along
 * `normal`): the deepest, the farthest from it, then the two that add the
 * most area. Writes their indices into pick; returns how many. */
uint32_t mink_reduce_points(const clip_point *pts, const float *sep, uint32_t n, v3 normal, uint32_t pick[4]);

/* mink_reduce_points on points given by their coordinates (u[i], v[i]) in the
 * contact plane (read only when n > 4). */
uint32_t mink_reduce_plane(const float *u, const float *v, const float *sep, uint32_t n, uint32_t pick[4]);

#endif
