/* Per-backend names for the run-time dispatch build (MINK_SIMD=auto on
 * x86-64). The width-dependent sources of the SIMD kernel (kernel/CMakeLists.txt:
 * MINK_BACKEND_SOURCES) are compiled once per backend with
 * -DMINK_BACKEND=<name> and `-include backend_names.h`, so every external
 * symbol they define or call among themselves gets the backend's suffix
 * (mink_distance -> mink_distance_avx2) and each backend's copy calls only
 * its own functions. kernel/dispatch.c defines the public entry points and
 * forwards through the table of the backend picked at first use
 * (kernel/dispatch.h); backend.c builds each backend's table.
 *
 * A new external function in one of those sources must be added here
 * (tests/dispatch_symbols.cmake fails the build's tests otherwise: the
 * per-backend objects would define it once per backend). Single-width
 * builds never include this file. */
#ifndef MINK_BACKEND_NAMES_H
#define MINK_BACKEND_NAMES_H

#ifndef MINK_BACKEND
#error "backend_names.h needs -DMINK_BACKEND=<portable|sse41|avx2|avx512>"
#endif

#define MINK_BACKEND_PASTE_(name, backend) name##_##backend
#define MINK_BACKEND_PASTE(name, backend) MINK_BACKEND_PASTE_(name, backend)
/* name_<backend>, e.g. MINK_BACKEND_NAME(mink_manifold) -> mink_manifold_avx2 */
#define MINK_BACKEND_NAME(name) MINK_BACKEND_PASTE(name, MINK_BACKEND)

/* The public entry points are defined by dispatch.c: the copies here are
 * hidden like every internal function. */
#define MINK_API

/* public queries (query.c, sat.c, batch.c) */
#define mink_intersect MINK_BACKEND_NAME(mink_intersect)
#define mink_intersect_ex MINK_BACKEND_NAME(mink_intersect_ex)
#define mink_intersect_gjk_ex MINK_BACKEND_NAME(mink_intersect_gjk_ex)
#define mink_distance MINK_BACKEND_NAME(mink_distance)
#define mink_penetration MINK_BACKEND_NAME(mink_penetration)
#define mink_penetration_gjk MINK_BACKEND_NAME(mink_penetration_gjk)
/* function-like: `struct mink_manifold` (the result type) keeps its tag */
#define mink_manifold(...) MINK_BACKEND_NAME(mink_manifold)(__VA_ARGS__)
#define mink_penetration_batch MINK_BACKEND_NAME(mink_penetration_batch)
#define mink_penetration_batch_mt MINK_BACKEND_NAME(mink_penetration_batch_mt)
#define mink_intersect_batch MINK_BACKEND_NAME(mink_intersect_batch)
#define mink_intersect_batch_mt MINK_BACKEND_NAME(mink_intersect_batch_mt)
#define mink_manifold_batch MINK_BACKEND_NAME(mink_manifold_batch)
#define mink_manifold_batch_mt MINK_BACKEND_NAME(mink_manifold_batch_mt)

/* internal (batch_lanes.c, epa.c, gjk.c, johnson.c, support.c) */
#define mink_lane_pad MINK_BACKEND_NAME(mink_lane_pad)
#define mink_lane_box_intersect MINK_BACKEND_NAME(mink_lane_box_intersect)
#define mink_lane_box_penetration MINK_BACKEND_NAME(mink_lane_box_penetration)
#define mink_lane_point_box_intersect MINK_BACKEND_NAME(mink_lane_point_box_intersect)
#define mink_lane_point_box_penetration MINK_BACKEND_NAME(mink_lane_point_box_penetration)
#define mink_lane_round_intersect MINK_BACKEND_NAME(mink_lane_round_intersect)
#define mink_lane_round_penetration MINK_BACKEND_NAME(mink_lane_round_penetration)
#define mink_simd_box_sat MINK_BACKEND_NAME(mink_simd_box_sat)
#define mink_simd_epa MINK_BACKEND_NAME(mink_simd_epa)
#define mink_simd_gjk MINK_BACKEND_NAME(mink_simd_gjk)
#define mink_simd_gjk_boolean MINK_BACKEND_NAME(mink_simd_gjk_boolean)
#define mink_simd_gjk_boolean_inner MINK_BACKEND_NAME(mink_simd_gjk_boolean_inner)
#define mink_simd_tetra_holds_origin MINK_BACKEND_NAME(mink_simd_tetra_holds_origin)
#define mink_simd_johnson_seed MINK_BACKEND_NAME(mink_simd_johnson_seed)
#define mink_simd_simplex_init MINK_BACKEND_NAME(mink_simd_simplex_init)
#define mink_simd_pair_init MINK_BACKEND_NAME(mink_simd_pair_init)
#define mink_simd_hull_climb MINK_BACKEND_NAME(mink_simd_hull_climb)
#define mink_simd_support_dot MINK_BACKEND_NAME(mink_simd_support_dot)
#define mink_simd_support_local MINK_BACKEND_NAME(mink_simd_support_local)
#define mink_simd_support_pair MINK_BACKEND_NAME(mink_simd_support_pair)


#endif /* MINK_BACKEND_NAMES_H */
