/* Contact-manifold benchmarks in C, driven by the C++ shim (shim.cc).
 *
 * A benchmark is one (group, implementation) pair, named
 * "manifold/<group>/<impl>", e.g. "manifold/box-slab/simd-avx2". Groups: the
 * groups of the manifold case file (tests/data/manifold.cases), then the
 * groups of the main case file (bench_queries.h, tests/data/bench.cases)
 * whose pairs are all boxes and hulls. Implementations: "ref"
 * (mink_ref_manifold), "simd-<backend>" (mink_manifold), then the peers'
 * manifolds (peers.h, peer_manifold_api: "bullet" and "bullet-gjk") on the
 * groups whose every pair they take. One timed pass computes the manifold of
 * every case of the group once, in file order, cold (NULL cache), at margin
 * BM_MARGIN.
 *
 * Before any timing every answer is checked with case_check_manifold
 * (FORMAT.md, "Manifolds"), the peers' by the same rules. bench.cases has no
 * contact patches: there the count, normal, separations and surfaces are
 * checked, not the points' coverage.
 *
 * The pass and the check are shared with the coherence family
 * (bench_coherence.h: coherence/manifold and coherence/manifold-held). */
#ifndef MINK_BENCH_MANIFOLD_H
#define MINK_BENCH_MANIFOLD_H

#include <stddef.h>

#include "bench_queries.h"

#ifdef __cplusplus
extern "C" {
#endif

/* mink.h, cases.h; not included, so the C++ shim does not see mink.h */
struct mink_pair;
struct mink_cache;
struct mink_manifold;
struct mink_case;

/** The margin of every manifold benchmark: manifold.cases's speculative
 *  margin (FORMAT.md: the file is checked at 0 and at 0.025, above every gap
 *  of its speculative group), so speculative contacts are part of the work. */
#define BM_MARGIN 0.025f

/** Loads the manifold case file and lists the groups (its own, then the box
 *  and hull groups of bq_load's file: call after bq_load). Returns 0, or -1
 *  with a message in err. Call once. */
int bm_load(const char *path, char *err, size_t errlen);
/** Frees everything bm_load and the benchmarks built. */
void bm_unload(void);

size_t bm_group_count(void);
const char *bm_group_name(size_t group);

/** "ref", "simd-<backend>", then the peers found at configure time. */
size_t bm_impl_count(void);
const char *bm_impl_name(size_t impl);
int bm_impl_family(size_t impl);
/** 1 if the implementation answers every pair of the group (mink: always). */
int bm_impl_supports(size_t impl, size_t group);

typedef struct bm_bench bm_bench;

/** The benchmark (group, impl): built and checked on the first call (not
 *  timed), then cached. NULL with a message in err when the implementation
 *  could not prepare its inputs. */
bm_bench *bm_bench_get(size_t group, size_t impl, char *err, size_t errlen);
/** What the check found (has_points set: mean contact count). */
const bq_stats *bm_bench_stats(const bm_bench *b);
/** Manifolds per pass (the group's case count). */
size_t bm_bench_queries(const bm_bench *b);
/** Timed: one pass. No allocation by mink's bodies. Returns a sum of the
 *  answers, for DoNotOptimize. */
double bm_bench_pass(bm_bench *b);

/* ---- shared with bench_coherence.c */

/** Timed: the manifold of every pair at BM_MARGIN through mink_ref_manifold
 *  (family BQ_REF) or mink_manifold (BQ_SIMD), into out[i]. snaps NULL: each
 *  pair with its own cache pointer; else pair i from a copy of snaps[i].
 *  Returns a sum of the answers. */
double bm_pass(int family, const struct mink_pair *pairs, size_t n, const struct mink_cache *snaps,
               struct mink_manifold *out);
/** One manifold of case c at BM_MARGIN through the function the timed pass
 *  calls (cache may be NULL). */
void bm_answer(int family, const struct mink_case *c, struct mink_cache *cache, struct mink_manifold *m);
/** Checks m with case_check_manifold and counts it into s (n, ok,
 *  first_fail, and the contact count, which bm_stats_finish turns into the
 *  mean). */
void bm_tally(bq_stats *s, const struct mink_case *c, const struct mink_manifold *m);
/** ok_frac and the mean contact count (has_points). */
void bm_stats_finish(bq_stats *s);
/** 1 if both shapes of c are boxes or hulls. */
int bm_polyhedral_pair(const struct mink_case *c);

#ifdef __cplusplus
}
#endif

#endif /* MINK_BENCH_MANIFOLD_H */
