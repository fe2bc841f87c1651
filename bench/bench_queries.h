/* Benchmark bodies in C, driven by the C++ shim (shim.cc).
 *
 * A benchmark is one (query, group, implementation) triple, named
 * "<query>/<group>/<impl>", e.g. "distance/hull32-sep/simd-avx2". Its inputs
 * are the cases of one group of a case file (tests/data/bench.cases); one
 * timed pass runs the query once on every case of the group, in file order,
 * with a cold (NULL) cache.
 *
 * Before any timing a benchmark answers every case once and checks the
 * answers: mink's implementations with case_check (FORMAT.md's tolerances and
 * the witness rules), peers with a lighter check (bench_queries.c, "peer
 * check") since peers do not all report witnesses or scalars. */
#ifndef MINK_BENCH_QUERIES_H
#define MINK_BENCH_QUERIES_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* cases.h; not included, so the C++ shim does not see mink.h */
struct case_set;
struct mink_case;

/** Queries, numbered as cases.h's enum case_query. */
#define BQ_QUERY_COUNT 3
/** "intersect", "distance", "penetration". */
const char *bq_query_name(int query);

/** Which kind of implementation: decides the error policy. */
enum bq_family {
    BQ_REF = 0,
    BQ_SIMD = 1,
    BQ_PEER = 2,
    BQ_SIMD_GJK = 3 /* the SIMD kernel by GJK alone: intersect (mink_intersect_gjk_ex), penetration
                       (mink_penetration_gjk) */
};

/** A case set split into groups by case_group(id), in order of first
 *  appearance; each group holds copies of its cases (hull memory stays in
 *  the set, which must outlive the split). */
typedef struct bq_groups bq_groups;
/** NULL when out of memory. */
bq_groups *bq_groups_split(const struct case_set *set);
void bq_groups_free(bq_groups *gs);
size_t bq_groups_count(const bq_groups *gs);
const char *bq_groups_name(const bq_groups *gs, size_t group);
const struct mink_case *bq_groups_cases(const bq_groups *gs, size_t group, size_t *count);
/** The groups of the file bq_load read (NULL before it). */
const bq_groups *bq_main_groups(void);

/** Loads a case file and splits it into groups (in order of first
 *  appearance). Returns 0, or -1 with a message in err. Call once. */
int bq_load(const char *path, char *err, size_t errlen);
/** Frees everything bq_load and the benchmarks built. */
void bq_unload(void);

size_t bq_group_count(void);
const char *bq_group_name(size_t group);
size_t bq_group_size(size_t group);

/** Implementations in this build: "ref", "simd-<backend>", then the peers
 *  that were found at configure time. */
size_t bq_impl_count(void);
const char *bq_impl_name(size_t impl);
int bq_impl_family(size_t impl);
int bq_impl_supports(size_t impl, int query);

/** What the correctness pass found. */
typedef struct bq_stats {
    size_t n;             /* cases checked                                   */
    size_t ok;            /* cases answered right                            */
    double ok_frac;       /* ok / n                                          */
    size_t scalar_checked; /* peers: cases whose scalar was checked (the rest
                              on the kind only: see the peer check)          */
    int    has_iters;     /* mink implementations: the three means below     */
    double iters;         /* mean mink_result.iterations (GJK + EPA)         */
    double gjk_iters;     /* mean mink_result.gjk_iterations                 */
    double supports;      /* mean mink_result.support_calls                  */
    int    has_points;    /* manifolds: the mean below                       */
    double points;        /* mean contact count of the answers               */
    char   first_fail[320]; /* "<id>: <why>" of the first wrong case, or ""  */
} bq_stats;

typedef struct bq_bench bq_bench;

/** The benchmark for (query, group, impl): built and checked on the first
 *  call (not timed), then cached. NULL (with a message in err) when the
 *  implementation could not prepare its inputs. */
bq_bench *bq_bench_get(int query, size_t group, size_t impl, char *err, size_t errlen);
const bq_stats *bq_bench_stats(const bq_bench *b);
/** Queries per pass (the group's case count). */
size_t bq_bench_queries(const bq_bench *b);
/** Timed: one pass, every case of the group once. No allocation by mink's
 *  bodies (peers' libraries may allocate inside their own calls). Returns a
 *  sum of the answers, for DoNotOptimize. */
double bq_bench_pass(bq_bench *b);

#ifdef __cplusplus
}
#endif

#endif /* MINK_BENCH_QUERIES_H */
