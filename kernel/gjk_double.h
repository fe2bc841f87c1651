/* GJK in double precision, near contact: shared by both kernels.
 *
 * A float kernel places B in A's frame, and every point it holds is rounded
 * to about eps times the coordinates in play: a 5 cm pebble on a 500 m slab
 * sees its closest points to 3e-5 m, and a normal from two points 5e-5
 * apart may then be 10 mrad off. When a float answer lies that close to
 * contact (the cores' distance below MINK_DOUBLE_NEAR_REL of the pair's
 * scale, or an overlap that only the touching band or a stall decided),
 * the query finishes here: the same GJK from the float simplex's features,
 * every point computed from the shapes' own coordinates and the poses in
 * double, so the answer is exact to the float inputs (hull vertices are
 * picked by the kernel's float scan, which may take one within a float
 * rounding of the best). It runs a few iterations: the float simplex is
 * the closest feature, or next to it. */
#ifndef MINK_GJK_DOUBLE_H
#define MINK_GJK_DOUBLE_H

#include "hull.h"
#include "mink/mink.h"
#include "tolerance.h"

#include <float.h>

#include <stdint.h>

typedef struct mink_double_closest {
    int overlap;        /* the cores overlap or touch (in double)            */
    unsigned bits;      /* the final simplex's slots                         */
    uint32_t ia[4], ib[4];
    double lambda[4];   /* weights of the closest point (0 outside bits)     */
    double distance;    /* between the cores: 0 when they overlap (GJK), minus
                           the depth (a face's)                              */
    double normal[3];   /* unit, from A's core to B's (world); not on overlap */
    double pa[3], pb[3]; /* core witnesses (world): a common point on overlap */
    unsigned iterations;
} mink_double_closest;

/* Whether a float answer with core distance dc (0 for an overlap) at the
 * pair's scale is close enough to contact for float to be in doubt. */
static inline int mink_double_near(float dc, float scale) { return dc < MINK_DOUBLE_NEAR_REL * scale; }

/* Whether EPA's float depth is too coarse for the smaller shape: its gain
 * tolerance (MINK_EPA_GAIN_REL S) above MINK_EPA_SMALL_REL of the smaller
 * shape's size (extent plus radius), a tenth of the local tolerance. */
static inline int mink_epa_coarse(const mink_shape *a, const mink_shape *b, float scale)
{
    const float ea = a->extent + a->radius, eb = b->extent + b->radius;
    return MINK_EPA_GAIN_REL * scale > MINK_EPA_SMALL_REL * (ea < eb ? ea : eb);
}

/* Whether a float answer with core distance dc is in doubt: cores near
 * contact, or rounded shapes (radii summing to margin) touching. */
static inline int mink_double_doubt(float dc, float margin, float scale)
{
    const float touch = MINK_DOUBLE_TOUCH_REL * scale;
    return mink_double_near(dc, scale) || (dc - margin < touch && margin - dc < touch);
}

/* The sliver check's width: mink_sliver_doubt looks only at shapes with a
 * face narrower than this (S: the pair's scale; the reference passes
 * MINK_REF_SLIVER_REACH times it). */
static inline float mink_sliver_width(float scale)
{
    return MINK_GJK_TIE_ROUNDING * FLT_EPSILON * scale / MINK_SLIVER_ANGLE;
}

/* A core's narrowest face: a box's smallest side, a hull's (hull.h);
 * FLT_MAX for cores without faces. */
static inline float mink_core_thin(const mink_shape *s)
{
    if (s->type == MINK_SHAPE_BOX) {
        const float h = s->half[0] < s->half[1] ? s->half[0] : s->half[1];
        return 2.0f * (h < s->half[2] ? h : s->half[2]);
    }
    return s->type == MINK_SHAPE_HULL && s->topology ? s->topology->thin : FLT_MAX;
}

/* How many distinct ids ids[0..n-1] (n <= 4) hold (counted, not gathered:
 * this runs inline on every separated answer of a pair with a narrow face). */
static inline unsigned mink_distinct_ids(const uint32_t ids[], unsigned n)
{
    unsigned count = 0;
    for (unsigned i = 0; i < n; ++i) {
        unsigned j = 0;
        while (j < i && ids[j] != ids[i]) ++j;
        count += j == i;
    }
    return count;
}

/* Whether one of the points ids[0..n-1] of a core (a box or a hull) lies
 * on a face narrower than width. */
static inline int mink_sliver_side(const mink_shape *s, const uint32_t ids[], unsigned n, float width)
{
    if (!(mink_core_thin(s) < width)) return 0;
    const int box = s->type == MINK_SHAPE_BOX;
    const float *point_thin = box ? NULL : hull_point_thin(s->topology);
    int narrow = box;
    for (unsigned i = 0; i < n; ++i) {
        if (ids[i] >= (box ? 8u : s->count)) return 0; /* never a valid simplex's */
        narrow |= !box && point_thin[ids[i]] < width;
    }
    return narrow;
}

/* mink_sliver_doubt's test of the features alone, before any geometry
 * (inline: most answers stop here): a vertex or an edge of D, or a
 * triangle mixing more features than a face of D has (a vertex and a face,
 * or two edges: five or more distinct points), with a point on a narrow
 * face of its core. */
static inline int mink_sliver_features(const mink_shape *a, const uint32_t ia[], const mink_shape *b,
                                       const uint32_t ib[], unsigned n, float width)
{
    if (n == 0 || n > 3) return 0;
    if (n == 3 && mink_distinct_ids(ia, 3) + mink_distinct_ids(ib, 3) < 5) return 0;
    return mink_sliver_side(a, ia, n, width) || mink_sliver_side(b, ib, n, width);
}

/* Whether a separated float answer may lie beside a sliver: GJK ended on
 * a vertex or an edge of D, or on a triangle mixing more features than a
 * face of D has (n simplex points, their features ia[i] of A and ib[i] of
 * B), and a core point next to A's or B's feature (on a face around it)
 * lies within MINK_GJK_TIE_ROUNDING eps S of the support along da (A's
 * frame, unit, towards B) or db (B's frame, unit, towards A), and within
 * width (mink_sliver_width) of the feature. Float rounding hides such a
 * point from GJK, and a face through it that holds the closest point turns
 * the normal by up to the band over its width (needles' and planks' faces
 * 0.1 mm wide: 2-10 mrad). Called where mink_sliver_features holds (the
 * kernels test that first, before the directions are made). */
int mink_sliver_doubt(const mink_shape *a, const float da[3], const uint32_t ia[], const mink_shape *b,
                      const float db[3], const uint32_t ib[], unsigned n, float scale, float width);

/* A kernel's hull scan: the index of the hull's support point along d
 * (the hull's frame). */
typedef uint32_t (*mink_hull_support_fn)(const mink_shape *hull, const float d[3]);

/* GJK on the cores in double, world frame, from the features (ia[i], ib[i])
 * of a float simplex (n of them, 0 to 4; none: starts towards B). */
void mink_gjk_double(const mink_shape *a, const mink_pose *pa, const mink_shape *b, const mink_pose *pb,
                     const uint32_t ia[], const uint32_t ib[], unsigned n, mink_hull_support_fn hull_support,
                     mink_double_closest *out);

/* EPA's closest face (the features of its three points) in double: when
 * its plane bounds D = B - A, its distance is the depth. Fills out with
 * distance = -depth, the normal (moving B along it by the depth parts the
 * cores) and the witnesses; 0 when the plane does not bound D (EPA's
 * answer stands). */
int mink_face_double(const mink_shape *a, const mink_pose *pa, const mink_shape *b, const mink_pose *pb,
                     const uint32_t ia[3], const uint32_t ib[3], mink_hull_support_fn hull_support,
                     mink_double_closest *out);

/* EPA in double from four features around the origin (a float simplex's
 * tetrahedron), when EPA's float face does not bound D: 0 when they do not
 * hold the origin in double or the polytope runs out of room. */
int mink_epa_double(const mink_shape *a, const mink_pose *pa, const mink_shape *b, const mink_pose *pb,
                    const uint32_t ia[4], const uint32_t ib[4], mink_hull_support_fn hull_support,
                    mink_double_closest *out);

/* A shallow depth in double, either kernel: EPA's closest face (face_ia,
 * face_ib; NULL when EPA has none) if its plane bounds D, else EPA again
 * from the tetrahedron EPA started from (start_bits 15: all four points
 * there, also when float EPA found it flat), else GJK in double from the
 * start's points: its distance when the cores are apart in double, or EPA
 * from its tetrahedron. 0: none answers. */
int mink_depth_double(const mink_shape *a, const mink_pose *pa, const mink_shape *b, const mink_pose *pb,
                      const uint32_t *face_ia, const uint32_t *face_ib, unsigned start_bits,
                      const uint32_t start_ia[4], const uint32_t start_ib[4], mink_hull_support_fn hull_support,
                      mink_double_closest *out);

/* A kernel's penetration query (mink_penetration, mink_ref_penetration). */
typedef mink_status (*mink_penetration_fn)(const mink_shape *a, const mink_pose *pa, const mink_shape *b,
                                           const mink_pose *pb, mink_cache *cache, mink_result *out);

/* Shapes more than MINK_CHECKED_RATIO apart in size: float's answers of
 * the smaller one round with the larger one's coordinates. */
static inline int mink_sizes_apart(const mink_shape *a, const mink_shape *b)
{
    const float la = a->extent + a->radius, lb = b->extent + b->radius;
    return la * MINK_CHECKED_RATIO < lb || lb * MINK_CHECKED_RATIO < la;
}

/* A penetration answer of a shape against one many times its size, checked
 * against the supports along its own normal (in double, world frame): EPA
 * on the thin Minkowski difference of a small hull and a long core (a
 * speck pierced by a capsule's segment) could stop on a face whose depth
 * falls short of the overlap along its normal, in one order of the
 * shapes. When out claims less than that overlap by more than rounding,
 * the pair is solved again swapped (no cache), and out becomes the
 * better-supported answer. Returns the status of the answer kept. Called
 * where mink_penetration_needs_check: overlapping pairs (or a depth of 0
 * at the iteration cap) of sizes more than MINK_CHECKED_RATIO apart. */
static inline int mink_penetration_needs_check(const mink_shape *a, const mink_shape *b, mink_status status,
                                               const mink_result *out)
{
    /* a depth; or 0 at a cap, EPA's stand-in for a depth it could not find
     * (not bad input, where a or b may be NULL; not apart or touching) */
    const int depth = out->distance < 0.0f, capped = out->distance == 0.0f && status == MINK_MAX_ITERATIONS;
    return status >= 0 && (depth || capped) && mink_sizes_apart(a, b);
}
mink_status mink_penetration_checked(const mink_shape *a, const mink_pose *pa, const mink_shape *b,
                                     const mink_pose *pb, mink_status status, mink_penetration_fn solver,
                                     mink_hull_support_fn hull_support, mink_result *out);

/* An answer's distance, normal and witnesses (world, rounded once) from
 * the cores' (signed) distance, for shapes of radii ra and rb; overlaps of
 * the rounded shapes get a negative distance (penetration) or, with
 * common_point and cores apart, distance 0 and a common point mid-overlap
 * (the distance query). */
void mink_double_answer(const mink_double_closest *c, float ra, float rb, int common_point, mink_result *out);

#endif
