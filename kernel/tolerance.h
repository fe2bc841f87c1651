/* Tolerances shared by the reference and the SIMD kernel. Every one is
 * relative to the query's scale S = |core extent of A| + |core extent of B| +
 * |distance between their origins| (the largest |point| of the Minkowski
 * difference), because float rounding errors grow with S, not with the answer. */
#ifndef MINK_TOLERANCE_H
#define MINK_TOLERANCE_H

/* GJK stops when the gap between the upper bound |v| and the lower bound
 * v.w/|v| on the distance is below this times S. float carries ~1.2e-7
 * relative; a few roundings per dot product leave 1e-6 attainable. */
#define MINK_GJK_GAP_REL 1e-6f

/* ... but on pairs of very different sizes 1e-6 S is large against the
 * smaller shape (l: its extent plus radius), whose closest feature then
 * goes unresolved: a 1 cm box 3.4 m from a 54 m capsule's core stopped at
 * a corner, its normal 2.8 mrad off. There the gap is 3e-5 l, down to
 * MINK_GJK_GAP_FLOOR_REL S (about two float ulps of S: below it the
 * repeated support point stops GJK). Pairs within a size ratio of about
 * 30 keep 1e-6 S. (It was 1e-4 l, the local tolerance itself: a 13 cm
 * box 0.12 from a 21 m rounded hull ended 1.1e-5 long, its witness 1.1x the
 * tolerance off B's support plane. Casts of thin shapes cost 1-3 % more.) */
#define MINK_GJK_GAP_SMALL_REL 3e-5f
#define MINK_GJK_GAP_FLOOR_REL 2e-7f
static inline float mink_gjk_gap_tol(float small, float scale)
{
    float t = MINK_GJK_GAP_SMALL_REL * small;
    if (t < MINK_GJK_GAP_FLOOR_REL * scale) t = MINK_GJK_GAP_FLOOR_REL * scale;
    return t < MINK_GJK_GAP_REL * scale ? t : MINK_GJK_GAP_REL * scale;
}

/* The cores touch (GJK reports overlap) when |v| is below this times S:
 * the origin lies on the simplex up to rounding. This is the touching band:
 * inside it the sign of a distance is not meaningful. About 8 float ulps of
 * S: a 5 cm box on a 500 m slab (S ~ 700 m) has a band of 0.35 mm, where
 * 2e-6 (1.4 mm) called cores 1.1 mm apart touching (scenes.cases, local
 * rule: 45 failures of 4800 answers at 2e-6, 16 at 5e-7; every other case
 * file, the probes and the fuzz regressions pass at both). */
#define MINK_TOUCH_REL 5e-7f

/* GJK stalled in float (a repeated point, no progress) with a lower bound
 * v.w/|v| <= 0 and |v| below this times S: the distance is in [.., |v|],
 * too little to tell touching from overlapping across a thin direction the
 * float simplex cannot resolve; the cores are taken to overlap and EPA
 * measures the depth (reporting 0 for a true gap under this bound is well
 * within the 1e-4 S query tolerance). */
#define MINK_GJK_STALL_REL 2e-5f

/* EPA stops when the support point along the closest face's normal gains
 * less than this times S over the face: depth is then exact to that bound. */
#define MINK_EPA_GAIN_REL 1e-6f

/* ... which, for a shape ten times smaller than S, is no longer a tenth of
 * the local tolerance (1e-4 of the smaller shape): past this times the
 * smaller shape's size the depth finishes in double (a 6 cm hull 4.4 mm
 * into a 6 m plank, depth 1.03e-3 S, just outside MINK_DOUBLE_NEAR_REL,
 * came out 6.9e-6 short against a tolerance of 5.9e-6). Pairs of like
 * sizes (bench.cases) keep the float depth. */
#define MINK_EPA_SMALL_REL 1e-5f

/* EPA expands past a drop of the closest face distance only when the drop
 * is within this many EPA gain tolerances and the face before it was
 * further than that from converged (rounding around d = 0); any other drop
 * means rounding broke convexity, and EPA answers with the face before. */
#define MINK_EPA_SETTLED_GAINS 16.0f

/* A tetrahedron whose volume is below this times S^3 is treated as flat. */
#define MINK_FLAT_VOLUME_REL 1e-9f

/* GJK's closest point recomputed from its feature's normal (cross products
 * of edges) replaces the weighted sum v only within this times S of it: the
 * two differ by v's rounding, a few eps S, when the normal is sound. A
 * feature whose edges are themselves rounding (shapes 1e-7 across, 2 apart:
 * points quantized to 2.4e-7) has a normal that may point anywhere: with
 * only the relative 10 % window (gjk.c) it shortened a distance of 2 by
 * 3e-3. */
#define MINK_GJK_REFINE_REL 1e-5f

/* ... nor longer than v by more than v's own rounding, this many float
 * epsilons of the simplex's farthest point (measured as (|r|^2 - |v|^2) /
 * 2|r|, no root in the SIMD kernel: |r| - |v| when they are close): |v|
 * bounds the distance from above, and a longer r is a sliver's normal
 * tilted by rounding (a triangle of a 1 m box edge and a 2 mm hull edge
 * added 2.6e-6 to a distance of 0.0054, where v was within 7e-8). v's
 * weighted sum rounds by a few epsilons of that point; at 16 a triangle of
 * a 3 cm hull and a 5.5 m segment added 4.6e-6 to a distance of 0.0128
 * (v within 4e-8; the local tolerance 3.2e-6). */
#define MINK_GJK_REFINE_CEIL_EPS 4.0f

/* Contact manifolds prefer a face to an edge pair (and A's face to B's)
 * whose separation is larger by less than this times the smaller shape's
 * size (plus float rounding at the pair's scale): resting boxes keep face
 * contacts instead of flickering to an edge pair. Well inside the query
 * tolerance (a near tie of the depth, 1e-4 of the size). */
#define MINK_MANIFOLD_PREFER_REL 1e-5f

/* A manifold's points are the touching features' patch: the clipped
 * points within the margin that lie within this times the smaller shape's
 * size of the deepest one, or that rise from it by at most
 * MINK_MANIFOLD_TILT per unit of distance along the face. Faces tilted by
 * less than that angle (radians) give all their corners within the margin:
 * a box settling on the ground, or on a stack of boxes, keeps its four
 * points while it wobbles (with fewer it rocks, and stacks fall). More
 * tilted ones touch with their lowest feature only. A rounded face tilted
 * by t puts its points within radius x t^2 / 2 of the surface (5e-5 of the
 * radius): well inside the query tolerance. */
#ifndef MINK_MANIFOLD_TOUCH_REL
#define MINK_MANIFOLD_TOUCH_REL 1e-3f
#endif
#ifndef MINK_MANIFOLD_TILT
#define MINK_MANIFOLD_TILT 1e-2f
#endif

/* Separated cores over a face: the face's normal is theirs when the
 * incident feature's lowest point survived the clip (it lies over the
 * face), or when the feature is within this angle (radians) of parallel to
 * the face. Else the lowest point was cut off at a side of the face, and
 * the closest features may be that side's edge and a corner beyond it, at
 * an angle to the face's normal that the separations cannot show (they
 * differ by the corner's distance beyond the side times the tilt, below
 * float rounding far from the origin): GJK decides. Half the tests' normal
 * limit for separated pairs (2e-3 rad). */
#define MINK_MANIFOLD_SURE_TILT 1e-3f
/* ... for cores apart by more than this times the smaller shape's size
 * (nearer, a contact is touching: its normal is the face's, as the tests'
 * near-touching band leaves it free, and resting boxes keep their faces
 * without a GJK query a frame) */
#define MINK_MANIFOLD_APART_REL 1e-3f

/* A face or segment tilted by more than MINK_MANIFOLD_TILT touches with its
 * lowest edge or corner: of its clipped points, only those within this
 * times the smaller shape's size beside that edge (horizontally) are kept
 * with it. The touching band alone (rising at most MINK_MANIFOLD_TOUCH_REL)
 * kept a point 2.6e-4 beside a box edge tilted by 0.46 rad, outside the
 * contact patch by more than the query tolerance. */
#define MINK_MANIFOLD_BESIDE_REL 5e-5f

/* A point of a rounded incident core is moved out by the radius along the
 * normal; on a face tilted by t from the contact plane that lands up to
 * r (1 - cos t) inside the rounded surface. Where that exceeds this times
 * the smaller shape's size, only the points level with the deepest one are
 * kept: a rounded hull 3.4 deep in another with a face tilted by 0.08 rad
 * had a point kept by the touching band 0.011 inside its surface, and a
 * rounded needle's long face tilted sideways one 4.8e-4. */
#define MINK_MANIFOLD_ROUND_REL 5e-5f

/* Iteration caps: GJK adds one support point per iteration and converges in
 * about 10-20 even on 1024-point hulls; 64 means something is cycling. */
#define MINK_GJK_MAX_ITERATIONS 64
/* The boolean search (gjk.c) follows GJK's path, three or four steps on
 * most pairs; past this many it leaves the pair to GJK. */
#define MINK_GJK_BOOL_MAX_ITERATIONS 32

/* Four float points hold the origin without the double-precision check
 * when, for each face (a, b, c) with n = (b - a) x (c - a), the origin and
 * the face's opposite point x lie on the same side of its plane with
 * |n.(x - a)| at least this times S |b - a| |c - a|. Float rounding moves
 * n.(x - a) by at most about 15 eps S |b - a| |c - a| (1.8e-6 of that
 * scale; at most 1.2 eps measured over random and sliver tetrahedra), so
 * the sign is certain and double precision cannot disagree. (The bound it
 * replaced, 1e-3 S on plane distances with slivers refused, sent 12 % of
 * bench.cases' containing tetrahedra to the double check; this one 0.3 %.) */
#define MINK_GJK_INSIDE_REL 3e-5f
/* Below this, the bound's squares near the denormals are not trusted: the
 * double check decides (shapes under about 1e-5 across). */
#define MINK_GJK_INSIDE_MIN 0x1p-120f

/* A distance or penetration query finishes in double (gjk_double.h) when
 * its float answer lies within this times S of contact: there a float
 * point's rounding, a few eps S, tilts the normal by eps S / distance
 * (above 1e-3 rad from about 1e-4 S; the case files' limit is 2e-3), and
 * decides the sign of a touching pair. Bench.cases' groups keep their
 * gaps well above it. */
#define MINK_DOUBLE_NEAR_REL 1e-3f

/* GJK's edge pair (an edge of A and one of B whose parallelogram in D holds
 * the closest point) is taken down to this squared sine between the edges
 * (1e-5 rad): its parameters, from cross products, round by about eps over
 * the angle (the sliver's normal, where its cross product is noise, then
 * comes from double: refined_in_double). */
#define MINK_GJK_EDGE_PARALLEL_SIN2 1e-10f

/* ... and when rounded shapes (cores apart by about rA + rB) touch within
 * this times S: thirty GJK gap tolerances, which decide the sign there and,
 * by where GJK stopped short of the exact feature, tilt the normal by up
 * to sqrt(2 gap / distance) (3 mrad for a 0.3 mm box 4.6e-5 from a box
 * rounded by 0.12). */
#define MINK_DOUBLE_TOUCH_REL 3e-5f

/* GJK's bounds meeting within the gap fix the distance, not the normal:
 * a point of D within gap g = |v| - v.w / |v| of the bound may turn the
 * closest point by up to sqrt(2 g / |v|) (the closest point u of a convex
 * set and any point v of it: |v - u|^2 <= |v|^2 - |u|^2). Where that
 * exceeds MINK_GJK_TIE_ANGLE, the support point is new and its gap more
 * than rounding (|v|^2 - v.w above MINK_GJK_TIE_ROUNDING eps |v| |w|: a
 * needle's neighbouring edge, nearly tied, not a corner of the face that
 * holds v), GJK takes the point after all, up to MINK_GJK_TIE_STEPS
 * times. (Two needle pairs of the probe scenes ended 2.6 and 4.1 mrad
 * off, gaps of 357 and 62 eps |v| |w|; among bench.cases' converged
 * distances with a new point the largest is 73, the 99th percentile 25.
 * A finer estimate of v.w's rounding, eps times the sum of |v_i w_i|, let
 * faces' corners through on axis-aligned contacts: manifolds up to 12 %
 * slower, for one more needle.) A new point tied within that rounding
 * while v lies on a vertex or an edge of D (a simplex of one or two
 * points) sends the answer to double instead: a 6-point needle's end
 * 0.01 from a capsule, nearly parallel, stopped at its corner 4.7 mrad off
 * (scene probe seed 942; 5 of the case files' 8000 distance answers). */
#define MINK_GJK_TIE_ANGLE 5e-4f
#define MINK_GJK_TIE_ROUNDING 32.0f
#define MINK_GJK_TIE_STEPS 2

/* Below that rounding, GJK cannot see a tie: a corner of a face narrower
 * than MINK_GJK_TIE_ROUNDING eps S over this angle, next to the simplex,
 * within the rounding of the support, may hold the closest point and turn
 * the normal by up to this much or more; the answer then finishes in double
 * (gjk_double.h's mink_sliver_doubt). Half the case files' normal limit;
 * wider faces are skipped by their width alone (traj.cases: 32 of 2400
 * distance answers look at corners, none goes to double). */
#define MINK_SLIVER_ANGLE 1e-3f

/* The reference looks at faces up to twice that width: its GJK (the
 * general Johnson step, scalar) can end farther from a hidden corner than
 * the SIMD kernel's, and did once in the probes (seed 446's plank: 4.7
 * mrad, caught at 1.25 times the width). Its speed is no target; the SIMD
 * kernel keeps the narrower test (twice the width cost it 4-12 %). */
#define MINK_REF_SLIVER_REACH 2.0f

/* A penetration answer is checked against the supports along its normal
 * (mink_penetration_checked) when one shape is more than this many times
 * the other's size. */
#define MINK_CHECKED_RATIO 8.0f

/* How often one GJK query may fall back to the double-precision simplex
 * solver (closest_double.h) when the float solver is in doubt. */
#define MINK_GJK_MAX_RESOLVES 4

/* EPA polytope capacity (fixed, no allocation). Each iteration adds one vertex
 * and two faces net; polytope cores converge in far fewer. */
#define MINK_EPA_MAX_VERTICES 128
#define MINK_EPA_MAX_FACES 256

/* Casts and times of impact stop when the distance is within this times
 * the smaller shape's size of the target (0.2 um for a 5 cm pebble cast at
 * a 500 m slab), or within half a unit in the last place of the
 * coordinates in play (cast.c: 30 um at 500 m from the origin), whichever
 * is larger: a step that lands on the target is recognised, and the t
 * reported is then early by at most that band over the approach speed. */
#define MINK_CAST_TOL_REL 4e-6f

/* Conservative advancement converges in a few steps on translations (it is
 * Newton's method on a convex function) and in a few more on rotations
 * (cast.c's second-order bounds; the first-order one alone closes only a
 * fixed fraction of the gap per step, and needs hundreds past a turning
 * corner that grazes); past this many the last safe t is the answer, with
 * MINK_MAX_ITERATIONS. */
#define MINK_CAST_MAX_ITERATIONS 128

/* Boxes (a capsule's core the box (0, h, 0), a sphere's the point) by the
 * box test: the penetration of overlapping cores (box_depth.h) and the
 * batch lanes' answers (batch_lanes.c). All times S. */

/* A box axis whose projected half extent |n . axis| h is below this times
 * S (the batch lanes) or the smaller core's extent (the single query:
 * box_free, box_depth.h) counts as perpendicular to n: the support feature
 * is an edge or a face along it, and the witness picks the point of that
 * feature nearest the other shape's centre instead of a corner. The
 * support value moves by at most twice this much. */
#define BOX_FREE_REL 1e-6f

/* A witness point counts as inside its box when every local coordinate is
 * within this times S of the half extent. Witnesses are rebuilt from a
 * handful of products of S-sized numbers (~1e-7 S each); 4e-6 S leaves room
 * and stays well inside the tests' witness tolerance (1e-5 L). It bounds
 * how far two edges' witnesses may miss each other and how far the other
 * core's point may lie beside a face (its foot is then clamped onto the
 * face); a witness answered as it is must lie on its box within
 * BOX_WITNESS_REL S. */
#define BOX_INSIDE_REL 4e-6f

/* The rounding of a box test's witness (8 eps S): an overlap's witnesses
 * off their boxes by more go to GJK and EPA, and a point beside a face by
 * more turns the normal to the face's edge. The scene probes' local
 * tolerance (16 eps of the world coordinates for a small shape) is finer
 * than BOX_INSIDE_REL S when the pair's scale is large. */
#define BOX_WITNESS_REL 9.5367431640625e-7f /* 2^-20 */

/* ... and, for cores apart along a face axis, the other's point counts as
 * over the face only within this tilt of the normal it would give (the
 * distance a point beside the face by t over the separation): FORMAT.md
 * holds normals to 2e-3. */
#define BOX_OVER_TILT 5e-4f

/* An edge-edge axis must beat the best face axis by this times S to be
 * chosen: face axes give simpler, better-conditioned witnesses, and the
 * depth changes by at most this much. */
#define BOX_EDGE_BIAS_REL 1e-6f

/* Edge-edge axes e_i x b_j with |e_i x b_j|^2 below this are skipped (the
 * edges are parallel to 1e-6 rad: the face axes cover the pair; skipping
 * changes the depth by at most ~1e-6 of the edge length). */
#define BOX_EDGE_MIN_LEN2 1e-12f

/* Queries accept a quaternion whose norm is within this of 1. */
#define MINK_QUAT_UNIT_TOL 1e-3f

/* Hull point count limit: keeps mink_hull_bytes free of overflow. */
#define MINK_HULL_MAX_POINTS (1u << 24)

#endif
