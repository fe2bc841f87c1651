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
} clip_point;

/* A 32-bit mix of up to four words: feature keys. */
uint32_t clip_key(uint32_t kind, uint32_t a, uint32_t b, uint32_t c);
/* The key of an edge between two point keys (either order). */
uint32_t clip_edge_key(uint32_t kind, uint32_t u, uint32_t v);

/* Clips poly (n points, convex, counter-clockwise or not) against the side
 * planes of the reference polygon ref (nref points counter-clockwise about
 * `normal`, with their ids for the edges' keys): keeps the part whose
 * projection along the normal lies in the reference polygon. A point made
 * by a crossing gets the key of the crossing edges. Returns the new count;
 * poly must hold CLIP_MAX_POINTS, scratch as many. */
uint32_t clip_polygon(clip_point *poly, uint32_t n, const v3 *ref, const uint32_t *ref_ids, uint32_t nref,
                      v3 normal, clip_point *scratch);

/* clip_polygon for a face of a box, in the box's frame: the face normal
 * to `axis` with its corner ids (bits zyx: + on that axis) counter-
 * clockwise in ref_ids; its sides are the planes +-x_k = half[k], so no
 * plane is computed. The same sides in the same order and with the same
 * keys as clip_polygon on the face's corners. */
uint32_t clip_box_face(clip_point *poly, uint32_t n, const float *half, uint32_t axis, const uint8_t *ref_ids,
                       clip_point *scratch);

/* Chooses up to four of n points (separations sep, projected along
 * `normal`): the deepest, the farthest from it, then the two that add the
 * most area. Writes their indices into pick; returns how many. */
uint32_t reduce_points(const clip_point *pts, const float *sep, uint32_t n, v3 normal, uint32_t pick[4]);

#endif
