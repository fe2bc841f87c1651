/* Lane-parallel kernels of the batch queries: one pair per SIMD lane.
 *
 * batch.c sorts the primitive pairs by kind into small structure-of-arrays
 * staging buffers (lane_in, on its stack) and runs the kernels below on full
 * or partial buffers. A kernel validates each lane (mink_check_query's
 * rules), answers it in closed form or with a short certified refinement,
 * and flags the lanes it cannot answer exactly; batch.c sends those to the
 * per-pair queries.
 *
 * Kinds (the core of a sphere is a point, of a capsule a segment, of a box
 * a box; a capsule also counts as the box (0, h, 0) where that helps):
 *   LANE_ROUND     sphere/capsule vs sphere/capsule: segment-segment closest
 *                  points in closed form (a sphere is a segment of length 0).
 *   LANE_POINT_BOX sphere vs box: the sphere's center clamped into the box
 *                  (in the box's frame; batch.c stages the box as A and
 *                  swaps the answer back when the sphere was A).
 *   LANE_BOX       box or capsule vs box or capsule: separating axis test over
 *                  the 15 axes; overlapping cores get the exact depth from
 *                  the test and witnesses on the support features (checked);
 *                  separated cores a pair of closest points from the best
 *                  axis's features, refined by alternating projections and
 *                  certified by the support gap along their direction or by
 *                  the best axis.
 *
 * Frames: every kernel works in the local frame of the pair's staged A (the
 * box for LANE_POINT_BOX) and writes world-space results. Every loop is
 * capped; no allocation. */
#ifndef MINK_BATCH_LANES_H
#define MINK_BATCH_LANES_H

#include <stddef.h>

#include "mink/mink.h"
#include "simd.h"

/* Pairs per staging buffer: a few register groups, so a buffer is flushed
 * every LANE_CAP pairs of its kind. Rows of LANE_CAP floats stay aligned to
 * the register width (64 bytes with AVX-512: 16 lanes x 2 x 4 bytes). */
#define LANE_GROUPS 2
#define LANE_CAP (MINK_W_LANES * LANE_GROUPS)

typedef enum lane_kind {
    LANE_ROUND = 0,
    LANE_POINT_BOX = 1,
    LANE_BOX = 2,
    LANE_KIND_COUNT = 3
} lane_kind;

/* Input rows of a staging buffer (structure of arrays, one pair per column),
 * the fields of the pair as the caller wrote them: the kernels validate
 * them in lanes with mink_check_query's rules (and normalize the
 * quaternions the same way), so a staged pair may be invalid. */
enum lane_in_row {
    LI_PAX, LI_PAY, LI_PAZ, LI_QAX, LI_QAY, LI_QAZ, LI_QAW, /* pose of A            */
    LI_PBX, LI_PBY, LI_PBZ, LI_QBX, LI_QBY, LI_QBZ, LI_QBW, /* pose of B            */
    LI_HAX, LI_HAY, LI_HAZ,                                 /* mink_shape.half, A   */
    LI_HBX, LI_HBY, LI_HBZ,                                 /* mink_shape.half, B   */
    LI_RA, LI_RB,                                           /* radii                */
    LI_EA, LI_EB,                                           /* mink_shape.extent    */
    LI_TA, LI_TB,                                           /* mink_shape.type (1-3) */
    LI_ROWS
};

/* Output rows: world-space results, and a status per lane. */
enum lane_out_row {
    LO_DIST, LO_NX, LO_NY, LO_NZ,
    LO_AX, LO_AY, LO_AZ, LO_BX, LO_BY, LO_BZ,
    LO_STATE, /* LANE_ANSWERED, LANE_UNDECIDED or LANE_INVALID */
    LO_ROWS
};

/* Per-lane outcomes (as floats in LO_STATE and in lane_hits): */
#define LANE_ANSWERED 0.0f   /* penetration: the result rows hold the answer   */
#define LANE_UNDECIDED -1.0f /* no answer: the per-pair query must answer     */
#define LANE_INVALID -2.0f   /* the pair fails mink_check_query's validation  */

typedef struct lane_in {
    _Alignas(64) float f[LI_ROWS][LANE_CAP];
} lane_in;

typedef struct lane_out {
    _Alignas(64) float f[LO_ROWS][LANE_CAP];
} lane_out;

/* Intersect answers per lane: 1 overlap (touching counts), 0 separated,
 * LANE_UNDECIDED or LANE_INVALID. */
typedef struct lane_hits {
    _Alignas(64) float f[LANE_CAP];
} lane_hits;

/* Pads a staging buffer holding `count` (1..LANE_CAP) pairs up to a whole
 * register group with copies of column 0, so that every lane computes on
 * real data. Returns the number of lanes to run (a multiple of MINK_W_LANES). */
size_t mink_lane_pad(lane_in *in, size_t count);

/* Penetration (mink_penetration's conventions) of lanes [0, lanes), lanes a
 * multiple of MINK_W_LANES; out->f[LO_STATE] tells which lanes hold one. */
void mink_lane_round_penetration(const lane_in *in, size_t lanes, lane_out *out);
void mink_lane_point_box_penetration(const lane_in *in, size_t lanes, lane_out *out);
void mink_lane_box_penetration(const lane_in *in, size_t lanes, lane_out *out);

/* Intersect (mink_intersect's answer) of lanes [0, lanes). */
void mink_lane_round_intersect(const lane_in *in, size_t lanes, lane_hits *out);
void mink_lane_point_box_intersect(const lane_in *in, size_t lanes, lane_hits *out);
void mink_lane_box_intersect(const lane_in *in, size_t lanes, lane_hits *out);

#endif
