/* Hull topology: what contact manifolds need to know about a hull beyond
 * its points. Built once by mink_hull_init (hull_build.c, double precision),
 * stored in the caller's memory after the vertex arrays, read by both
 * kernels. Not the hot path of any query but the manifold's.
 *
 * Layout: a header (struct mink_hull_topology) on a 64-byte boundary right
 * after the shape's x, y, z arrays, then its arrays, each on a 64-byte
 * boundary, found through byte offsets from the header (the block holds no
 * pointers). Indices of points are indices into the shape's x, y, z arrays,
 * i.e. into the caller's input order; repeated and interior points are in
 * no face. */
#ifndef MINK_HULL_H
#define MINK_HULL_H

#include "mink/mink.h"

#include <stddef.h>
#include <stdint.h>

typedef enum hull_kind {
    HULL_SOLID = 0,   /* a polytope with volume                                      */
    HULL_FLAT = 1,    /* coplanar points: face 0 (normal n) and face 1 (-n), the same
                         polygon in opposite orders                                  */
    HULL_SEGMENT = 2, /* collinear points: ends[0], ends[1]; no faces, no arcs       */
    HULL_POINT = 3    /* coincident points: ends[0] (= ends[1]); no faces, no arcs   */
} hull_kind;

struct mink_hull_topology {
    uint32_t kind;          /* hull_kind                                             */
    uint32_t point_count;   /* the shape's count (input points)                      */
    uint32_t vertex_count;  /* points that are in some face's loop                   */
    uint32_t face_count;
    uint32_t face_padded;   /* face arrays' length: face_count rounded up to
                               MINK_HULL_PAD; the padding repeats face 0            */
    uint32_t arc_count;     /* Gauss-map arcs: one per edge between two faces
                               (HULL_FLAT: two per polygon edge, n -> m -> -n with
                               m the edge's outward direction in the plane)          */
    uint32_t arc_padded;    /* arc arrays' length: arc_count rounded up to
                               MINK_HULL_PAD; the padding is all zeros (every Gauss
                               test, a strict sign test, fails on it)                */
    uint32_t loop_count;    /* entries of face_vertex (and of vertex_face)           */
    uint32_t ends[2];       /* HULL_SEGMENT / HULL_POINT: the extreme points         */
    float size;             /* the points' bounding-box diagonal                     */
    float merge_tol;        /* distance within which points were taken as coplanar  */
    float thin;             /* the narrowest face's width (off_face_thin's least;
                               FLT_MAX without faces)                                */
    float centre[4];        /* the points' mean (pad 0): a point of the hull, where
                               the intersect's boolean search starts                 */
    /* byte offsets from this header */
    uint32_t off_plane;        /* float nx[face_padded], ny[], nz[], d[]: unit outward
                                  normal and offset, every point p has n.p <= d and
                                  the face's corners lie within merge_tol of it     */
    uint32_t off_face_first;   /* uint32 [face_count + 1]: face f's loop is
                                  face_vertex[face_first[f] .. face_first[f + 1])   */
    uint32_t off_face_vertex;  /* uint32 [loop_count]: point indices, counter-
                                  clockwise seen from outside (right hand about n)  */
    uint32_t off_point_first;  /* uint32 [point_count + 1]: point i's faces are
                                  point_face[point_first[i] .. point_first[i + 1])  */
    uint32_t off_point_face;   /* uint32 [loop_count]                                */
    uint32_t off_arc;          /* float, 12 arrays of arc_padded: n0x n0y n0z (the
                                  arc's first face normal), n1x n1y n1z (second),
                                  ex ey ez = unit (n0 x n1) (the arc's plane normal,
                                  parallel to the edge), ox oy oz (the edge's first
                                  point)                                             */
    uint32_t off_arc_point;    /* uint32 v0[arc_padded], v1[arc_padded]: the edge's
                                  end points                                          */
    /* Hill climbing, the support of big solids (seed_count 0: none): */
    uint32_t seed_count;       /* HULL_CLIMB_SEEDS, or 0                             */
    uint32_t off_climb;        /* hull_climb_block []: block c holds corner c's
                                  neighbours along edges (corners numbered in
                                  point order)                                        */
    uint32_t off_corner_point; /* uint32 [vertex_count]: corner c's point index      */
    uint32_t off_seed;         /* float x[HULL_CLIMB_SEEDS], y[], z[], then uint32
                                  corner[HULL_CLIMB_SEEDS]: the corners furthest
                                  along fixed directions spread over the sphere,
                                  where a climb starts                               */
    uint32_t off_face_thin;    /* float [face_count]: each face's width, the least
                                  over its sides of its corners' largest distance
                                  from the side's line (gjk_double.h's slivers)     */
    uint32_t off_point_thin;   /* float [point_count]: the narrowest face around each
                                  point (FLT_MAX in no face)                         */
    uint32_t bytes;            /* bytes used from the header on                      */
};
typedef struct mink_hull_topology hull_topology;

/* What the builder (hull_build.c) guarantees beyond the fields above:
 * - Loops are simple (no point twice) and convex within merge_tol about
 *   their normal; a corner only two faces share (a straight-on point along
 *   their edge) is dropped from both, so HULL_SOLID corners are in >= 3
 *   faces and V - loop_count / 2 + F = 2.
 * - Points within 0.2 merge_tol of a corner are welded to it like repeats:
 *   in no loop (their range in point_first is empty), no micro-edges.
 * - d is the smallest float >= the exact max of n.p over all points (the
 *   products of float n and p are exact in double; so is the comparison).
 *   Corners are within merge_tol below d (a corner of a merged face may be
 *   up to 0.4 merge_tol off its seed triangle's plane, plus a welded point
 *   and d's rounding).
 * - HULL_SOLID arcs: arc_count == loop_count / 2, one per loop edge, in
 *   face order (the face with the lower index holds the edge as v0 -> v1).
 *   When two neighbouring faces round to the same float normal, e is the
 *   edge's direction instead of unit(n0 x n1).
 * - HULL_FLAT: all points within 0.6 merge_tol of the plane; the polygon
 *   drops corners within 1e-3 merge_tol of their neighbours' chord.
 * - Face planes of faces only a few merge_tol wide (needles, slabs a few
 *   merge_tol thick) are only as good as merge_tol over that width, and so
 *   are their arcs' e. */

/* Hill climbing: the support of a solid along d is a corner none of whose
 * neighbours along edges lies further along d (on a convex polytope a
 * local maximum is the maximum). Solids of at least HULL_CLIMB_MIN_POINTS
 * points get blocks of neighbours per corner and HULL_CLIMB_SEEDS starting
 * corners: a climb starts from the seed furthest along d and reads one
 * block (two cache lines holding the neighbours' coordinates) per step,
 * where a scan reads every point. Points in no loop (welded within 0.2
 * merge_tol of a corner, or within merge_tol of a face) are never reached:
 * the climb's maximum is within merge_tol of the points' maximum. */
#define HULL_CLIMB_SEEDS 64
#define HULL_CLIMB_LANES 8
#define HULL_CLIMB_MIN_POINTS 512
/* corner[HULL_CLIMB_LANES - 1] with this bit: the corner has more
 * neighbours, in the block numbered by the other bits */
#define HULL_CLIMB_MORE 0x80000000u

/* Neighbours of a corner: coordinates and corner numbers. Block c is corner
 * c's first; one with more than HULL_CLIMB_LANES neighbours continues in
 * blocks past the corners' (HULL_CLIMB_MORE). Lanes past the neighbours,
 * and the lane that links, repeat the corner itself (never further along d
 * than itself). */
typedef struct hull_climb_block {
    float x[HULL_CLIMB_LANES], y[HULL_CLIMB_LANES], z[HULL_CLIMB_LANES];
    uint32_t corner[HULL_CLIMB_LANES];
} hull_climb_block;

/* Blocks for n points. A corner in d faces takes 1 + ceil((d - 8) / 7)
 * blocks when d > 8, at most 1 + (d - 2) / 7 any d >= 3; the d sum to 2 E
 * <= 6 V - 12 (Euler), so V corners take at most V + (4 V - 12) / 7. */
static inline uint64_t hull_climb_blocks(uint64_t n) { return n + 4 * n / 7 + 1; }

/* Bytes the topology of n points needs after the vertex arrays, the
 * builder's scratch space included (an upper bound; 0 when n is 0 or over
 * MINK_HULL_MAX_POINTS). */
size_t mink_hull_topology_bytes(uint32_t n);

/* Builds the topology of the shape's points (x, y, z, count) into mem
 * (64-byte aligned, at least mink_hull_topology_bytes(count) bytes). No
 * allocation. Returns the header, or NULL when the points are not finite. */
const hull_topology *mink_hull_topology_build(const float *x, const float *y, const float *z, uint32_t count,
                                              void *mem, size_t mem_bytes);

/* Views of the arrays. */
static inline const float *hull_plane(const hull_topology *t, unsigned k) /* k: 0 nx, 1 ny, 2 nz, 3 d */
{
    return (const float *)((const char *)t + t->off_plane) + (size_t)k * t->face_padded;
}
static inline const uint32_t *hull_face_first(const hull_topology *t)
{
    return (const uint32_t *)((const char *)t + t->off_face_first);
}
static inline const uint32_t *hull_face_vertex(const hull_topology *t)
{
    return (const uint32_t *)((const char *)t + t->off_face_vertex);
}
static inline const uint32_t *hull_point_first(const hull_topology *t)
{
    return (const uint32_t *)((const char *)t + t->off_point_first);
}
static inline const uint32_t *hull_point_face(const hull_topology *t)
{
    return (const uint32_t *)((const char *)t + t->off_point_face);
}
static inline const float *hull_arc(const hull_topology *t, unsigned k) /* k: 0..11 as above */
{
    return (const float *)((const char *)t + t->off_arc) + (size_t)k * t->arc_padded;
}
static inline const uint32_t *hull_arc_point(const hull_topology *t, unsigned k) /* k: 0 v0, 1 v1 */
{
    return (const uint32_t *)((const char *)t + t->off_arc_point) + (size_t)k * t->arc_padded;
}

static inline const hull_climb_block *hull_climb(const hull_topology *t)
{
    return (const hull_climb_block *)((const char *)t + t->off_climb);
}
static inline const uint32_t *hull_corner_point(const hull_topology *t)
{
    return (const uint32_t *)((const char *)t + t->off_corner_point);
}
static inline const float *hull_seed(const hull_topology *t, unsigned k) /* k: 0 x, 1 y, 2 z */
{
    return (const float *)((const char *)t + t->off_seed) + (size_t)k * HULL_CLIMB_SEEDS;
}

static inline const float *hull_face_thin(const hull_topology *t)
{
    return (const float *)((const char *)t + t->off_face_thin);
}

static inline const float *hull_point_thin(const hull_topology *t)
{
    return (const float *)((const char *)t + t->off_point_thin);
}

static inline const uint32_t *hull_seed_corner(const hull_topology *t)
{
    return (const uint32_t *)((const char *)t + t->off_seed) + (size_t)3 * HULL_CLIMB_SEEDS;
}

enum { HULL_ARC_N0 = 0, HULL_ARC_N1 = 3, HULL_ARC_E = 6, HULL_ARC_O = 9 };

#endif
