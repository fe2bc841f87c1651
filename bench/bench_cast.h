/* Continuous-collision benchmarks in C, driven by the C++ shim (shim.cc).
 *
 * A benchmark is one (group, implementation) pair, named
 * "cast/<group>/<impl>", e.g. "cast/rot-thin/simd-avx2". Groups: those of the
 * cast case file (tests/data/cast.cases, FORMAT.md "Casts"), in file order.
 * Implementations: "ref" (mink_ref_cast / mink_ref_toi), "simd-<backend>"
 * (mink_cast / mink_toi), then the peers' casts (peers/cast_peers.h:
 * "bullet-gjkcast", "bullet-ccd"). One timed pass casts every case of the
 * group once, in file order: mink_cast where both rotations are constant
 * (da = pA1 - pA0, db = pB1 - pB0), else mink_toi with the shapes turning
 * about their local origins, as case_run_cast does.
 *
 * Before any timing the answers of one untimed pass (the timed function
 * itself) are checked: mink's with case_check_cast (every rule of
 * FORMAT.md, witnesses included); the peers', which report no witnesses,
 * with case_check_cast_time (hit/miss, |t - t_expected| V <= 1e-4 L, the
 * grazes' either answer) and, where they report one, the normal (within
 * 1e-2 rad of the expected one when t is the expected t, or of the exact
 * normal at their t; not where the cores touch then). */
#ifndef MINK_BENCH_CAST_H
#define MINK_BENCH_CAST_H

#include <stddef.h>

#include "bench_queries.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Loads the cast case file and splits it into groups. Returns 0, or -1
 *  with a message in err. Call once. */
int bk_load(const char *path, char *err, size_t errlen);
/** Frees everything bk_load and the benchmarks built. */
void bk_unload(void);

size_t bk_group_count(void);
const char *bk_group_name(size_t group);

/** "ref", "simd-<backend>", then the peers found at configure time. */
size_t bk_impl_count(void);
const char *bk_impl_name(size_t impl);
int bk_impl_family(size_t impl);

typedef struct bk_bench bk_bench;

/** The benchmark (group, impl): built and checked on the first call (not
 *  timed), then cached. NULL with a message in err when the implementation
 *  could not prepare its inputs. */
bk_bench *bk_bench_get(size_t group, size_t impl, char *err, size_t errlen);
/** What the check found (n, ok, ok_frac, first_fail; has_iters stays 0:
 *  a cast reports one iteration count, bk_bench_iterations). */
const bq_stats *bk_bench_stats(const bk_bench *b);
/** Mean mink_cast_result.iterations (conservative-advancement steps) per
 *  cast, or -1 for a peer (they report none). */
double bk_bench_iterations(const bk_bench *b);
/** Share of the group the implementation answered with a hit. */
double bk_bench_hit_frac(const bk_bench *b);
/** Casts per pass (the group's case count). */
size_t bk_bench_queries(const bk_bench *b);
/** Timed: one pass. No allocation by mink's bodies. Returns a sum of the
 *  answers, for DoNotOptimize. */
double bk_bench_pass(bk_bench *b);

#ifdef __cplusplus
}
#endif

#endif /* MINK_BENCH_CAST_H */
