/* Batch benchmarks in C (the Google Benchmark shim registers and times them;
 * no benchmark headers here).
 *
 * A benchmark is (kind, variant, query): kind = the primitive pair
 * (box-box, sphere-box, capsule-capsule), variant = how the pairs are
 * answered (mink_*_batch, a loop of the single query, mink_*_batch_mt with
 * two threads), query = penetration or intersect. Its input is one seeded
 * array of pairs of that kind, about half separated and half penetrating
 * (sizes like tests/data/bench.cases), built once by bench_batch_setup
 * outside any timing. One pass answers every pair of the array once, cold
 * (no caches). Before timing, bench_batch_check compares every variant's
 * answers with the single queries', so a fast wrong path cannot win. */
#ifndef MINK_BENCH_BATCH_H
#define MINK_BENCH_BATCH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum bb_kind { BB_BOX_BOX = 0, BB_SPHERE_BOX = 1, BB_CAPSULE_CAPSULE = 2, BB_KIND_COUNT = 3 };
enum bb_variant { BB_BATCH = 0, BB_LOOP = 1, BB_BATCH_MT2 = 2, BB_VARIANT_COUNT = 3 };
enum bb_query { BB_PENETRATION = 0, BB_INTERSECT = 1, BB_QUERY_COUNT = 2 };

/** "box-box", "sphere-box", "capsule-capsule". */
const char *bench_batch_kind_name(int kind);
/** "batch", "loop", "batch-mt2". */
const char *bench_batch_variant_name(int variant);
/** "penetration", "intersect". */
const char *bench_batch_query_name(int query);

/** Builds `pairs` pairs of every kind from `seed` (half separated, half
 *  penetrating, in random order) and the output arrays. Returns 0, or -1
 *  when out of memory. Calling it again rebuilds everything. */
int bench_batch_setup(size_t pairs, uint64_t seed);
/** Frees what bench_batch_setup built. */
void bench_batch_teardown(void);
/** Pairs per kind (what one pass answers). */
size_t bench_batch_pairs(void);

/** Runs `iters` passes of (kind, variant, query) and returns the elapsed
 *  wall time in ns (CLOCK_MONOTONIC); -1 on bad arguments or no setup. */
double bench_batch_run(int kind, int variant, int query, size_t iters);

/** Answers every pair of `kind` with every variant and both queries and
 *  checks them against the single queries: distances within 1e-4 * L,
 *  intersect answers equal outside the touching band, the _mt answers equal
 *  to the batch's bit for bit. Returns 1 if all pass; otherwise 0 with a
 *  reason in why. Also reports the fraction of penetrating pairs. */
int bench_batch_check(int kind, double *pen_fraction, char *why, size_t whylen);

#ifdef __cplusplus
}
#endif

#endif
