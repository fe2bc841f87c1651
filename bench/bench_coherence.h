/* Frame-coherence benchmarks in C, driven by the C++ shim (shim.cc).
 *
 * Inputs: the trajectories of tests/data/traj.cases (ids "trajNN/fMMM":
 * consecutive frames of one moving pair). A benchmark is one (query, impl,
 * mode) triple, named "coherence/<query>/<impl>-<mode>", mode "cold" (NULL
 * cache) or "warm" (one mink_cache per trajectory):
 *
 *   intersect, distance, penetration
 *       one timed pass walks every frame of every trajectory in file order;
 *       warm: each trajectory's cache is emptied at the start of the pass
 *       and then carried from frame to frame, as a simulation would.
 *   intersect-sep
 *       only the frames whose expectation is "sep". For each of them a
 *       snapshot of the cache as it stands after the previous frame's
 *       intersect query (every frame of the trajectory queried warm, in
 *       order; an empty cache for a trajectory's first frame) is taken once,
 *       outside timing; the timed pass copies the frame's snapshot (64 bytes)
 *       and runs the query on that frame alone. Cold and warm time exactly
 *       the same frames.
 *   manifold
 *       mink_manifold (ref: mink_ref_manifold) at BM_MARGIN
 *       (bench_manifold.h), every frame as above.
 *   manifold-held
 *       the frames where the previous frame's deciding feature most likely
 *       still decides (bench_coherence.c, held_frames: there is no public
 *       flag for it), each from its snapshot of the cache as intersect-sep
 *       does; cold and warm time the same frames.
 *
 * Before any timing every answer is checked with case_check (manifolds:
 * case_check_manifold), walking the frames exactly as the timed pass does
 * (the warm answers with their caches), and the work counters
 * (mink_result.iterations, gjk_iterations, support_calls; intersect through
 * the _ex variant; manifolds: the mean contact count) are averaged over the
 * timed frames. */
#ifndef MINK_BENCH_COHERENCE_H
#define MINK_BENCH_COHERENCE_H

#include <stddef.h>

#include "bench_queries.h"

#ifdef __cplusplus
extern "C" {
#endif

enum bc_query { BC_INTERSECT = 0, BC_DISTANCE = 1, BC_PENETRATION = 2, BC_INTERSECT_SEP = 3,
                BC_MANIFOLD = 4, BC_MANIFOLD_HELD = 5, BC_QUERY_COUNT = 6 };
/** "intersect", "distance", "penetration", "intersect-sep", "manifold",
 *  "manifold-held". */
const char *bc_query_name(int query);
/** The query a coherence query runs, as bench_queries.h numbers them
 *  (intersect-sep runs intersect); -1 for the manifold queries. */
int bc_query_base(int query);
/** The --query name that selects it besides its own: "intersect",
 *  "distance", "penetration" or "manifold". */
const char *bc_query_selector(int query);

/** Implementations: 0 = "ref" (mink_ref_*), 1 = "simd-<backend>" (mink_*). */
#define BC_IMPL_COUNT 2
const char *bc_impl_name(int impl);
/** BQ_REF or BQ_SIMD. */
int bc_impl_family(int impl);

/** The trajectory file, read on the first bc_bench_get (not before, so a run
 *  that filters the family out never reads it). Default: the path compiled
 *  in (MINK_BENCH_TRAJ_DEFAULT). The string must outlive the benchmarks. */
void bc_set_path(const char *path);
const char *bc_path(void);
/** Frees the trajectories and every benchmark built. */
void bc_unload(void);

typedef struct bc_bench bc_bench;

/** The benchmark (query, impl, warm 0/1): built and checked on the first
 *  call (not timed), then cached. NULL with a message in err when the file
 *  could not be read or memory ran out. */
bc_bench *bc_bench_get(int query, int impl, int warm, char *err, size_t errlen);
/** What the check found (ok, ok_frac, first_fail; has_iters is set, or for
 *  manifolds has_points, and the means are per timed frame). */
const bq_stats *bc_bench_stats(const bc_bench *b);
/** Queries per pass: every frame, or the subset (intersect-sep,
 *  manifold-held). */
size_t bc_bench_queries(const bc_bench *b);
/** Trajectories in the file (after a successful bc_bench_get). */
size_t bc_trajectories(void);
/** Timed: one pass. No allocation. Returns a sum of the answers, for
 *  DoNotOptimize. */
double bc_bench_pass(bc_bench *b);

#ifdef __cplusplus
}
#endif

#endif /* MINK_BENCH_COHERENCE_H */
