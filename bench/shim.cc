// mink-bench: registers one Google Benchmark per (query, group, implementation)
// and runs the timed loop; everything else is C (bench_queries.c, peers/).
//
//   mink-bench [--impl=ref,simd,peers|NAME,...] [--query=intersect,...]
//              [--tolerate-wrong] [--explain] [Google Benchmark flags]
//
// Cases: $MINK_BENCH_CASES, else the path compiled in (MINK_BENCH_CASES_DEFAULT).
// One iteration = one pass over every case of the group. Counters, per query:
//   tsc_cycles/query  TSC (reference) cycles, the primary number; on non-x86
//                     this is ns (the TSC frequency is then reported as 1 GHz)
//   ns/query          wall-clock ns
//   ok_frac           fraction of the group answered right (checked once,
//                     before timing)
//   iters/query, gjk_iters/query, supports/query   mink only: mean work
//   scalar_checked_frac  peers only: share of the group whose distance or depth
//                     was checked (the rest: kind only, e.g. libccd's
//                     penetration query on separated pairs)
// A mink implementation (ref, simd-*) with any wrong answer is skipped with an
// error (so a fast wrong path cannot win) unless --tolerate-wrong is given;
// peers are always timed and carry their ok_frac. --explain prints the first
// wrong answer of every benchmark that has one (stderr).
//
// Two more families, in the same binary and selected by the same flags:
//   coherence/<query>/<impl>-cold|warm   bench_coherence.h: the trajectories
//       of $MINK_BENCH_TRAJ (default tests/data/traj.cases), cold (NULL
//       cache) against warm (one mink_cache per trajectory); query intersect,
//       distance, penetration (every frame) or intersect-sep (the separated
//       frames only, each from its cache snapshot). Same counters as above,
//       per frame. --query=intersect also selects intersect-sep;
//       --query=coherence selects the whole family (and nothing else).
//   batch/<query>/<kind>/<impl>-<variant>   bench_batch.h (when built in):
//       mink_*_batch ("batch"), a loop of single queries ("loop") and the
//       two-thread mink_*_batch_mt ("batch-mt2") on $MINK_BENCH_BATCH_PAIRS
//       (default 4096) seeded primitive pairs per kind, cold; counters
//       pairs/s, ns/pair, tsc_cycles/pair, pen_frac, all from wall time.
//       They run on real time (the calling thread's CPU time misses the
//       _mt variant's second thread), so Google Benchmark names them
//       ".../<impl>-<variant>/real_time".
//       Every variant is checked against the single queries first.
//       --query=batch selects the whole family.
//   manifold/<group>/<impl>   bench_manifold.h: contact manifolds (margin
//       0.025) of the groups of $MINK_BENCH_MANIFOLD (default
//       tests/data/manifold.cases) and of the box and hull groups of the
//       main case file, cold; impls ref, simd-<backend> and the peers that
//       take every pair of the group (bullet, bullet-gjk: boxes and hulls).
//       Counters as the per-query benchmarks, plus points/query (mean
//       contact count).
//       The coherence family gains coherence/manifold and
//       coherence/manifold-held (bench_coherence.h). --query=manifold
//       selects both and nothing else.
//   cast/<group>/<impl>   bench_cast.h: continuous collision on the groups
//       of $MINK_BENCH_CAST (default tests/data/cast.cases): mink_cast where
//       the rotations are constant, else mink_toi; impls ref, simd-<backend>
//       and the peers' casts (bullet-gjkcast: btGjkConvexCast, translation
//       only; bullet-ccd: btContinuousConvexCollision). Counters as the
//       per-query benchmarks (per cast), plus hit_frac (share answered with
//       a hit) and, for mink, iters/query (advancement steps per cast).
//       --query=cast selects the family and nothing else.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "bench_cast.h"
#include "bench_coherence.h"
#include "bench_manifold.h"
#include "bench_queries.h"
#include "tsc.h"
#ifdef MINK_BENCH_HAVE_BATCH
#include "bench_batch.h"
#endif
// from mink/mink.h (not included here: under -Wshadow g++ warns that the
// function mink_manifold hides struct mink_manifold)
extern "C" const char *mink_simd_backend(void);

#ifndef MINK_BENCH_CASES_DEFAULT
#define MINK_BENCH_CASES_DEFAULT "tests/data/bench.cases"
#endif
#ifndef MINK_SIMD_NAME
#define MINK_SIMD_NAME "unknown"
#endif
#ifndef MINK_BENCH_TRAJ_DEFAULT
#define MINK_BENCH_TRAJ_DEFAULT "tests/data/traj.cases"
#endif
#ifndef MINK_BENCH_MANIFOLD_DEFAULT
#define MINK_BENCH_MANIFOLD_DEFAULT "tests/data/manifold.cases"
#endif
#ifndef MINK_BENCH_CAST_DEFAULT
#define MINK_BENCH_CAST_DEFAULT "tests/data/cast.cases"
#endif

namespace {

bool g_tolerate_wrong = false;
bool g_explain = false;

// The families' policy after the check: its counters, --explain (once per
// benchmark), and the refusal of a mink implementation with wrong answers
// (peers are timed anyway). Returns false when the benchmark must not run.
bool checked(benchmark::State &state, const void *bench, const std::string &name, const bq_stats *st,
             bool peer)
{
    if (g_explain && st->ok < st->n) {
        static std::vector<const void *> told;
        if (std::find(told.begin(), told.end(), bench) == told.end()) {
            told.push_back(bench);
            std::fprintf(stderr, "%s: %zu/%zu wrong, first %s\n", name.c_str(), st->n - st->ok, st->n,
                         st->first_fail);
        }
    }
    state.counters["ok_frac"] = st->ok_frac;
    if (st->has_iters) {
        state.counters["iters/query"] = st->iters;
        state.counters["gjk_iters/query"] = st->gjk_iters;
        state.counters["supports/query"] = st->supports;
    }
    if (st->has_points)
        state.counters["points/query"] = st->points;
    if (!peer && st->ok < st->n && !g_tolerate_wrong) {
        std::string msg = std::to_string(st->n - st->ok) + "/" + std::to_string(st->n) +
                          " wrong; first " + st->first_fail;
        state.SkipWithError(msg.c_str());
        return false;
    }
    return true;
}

// The timed loop: one pass per iteration, n queries per pass.
template <class Pass>
void time_passes(benchmark::State &state, size_t n, Pass pass)
{
    const uint64_t ns0 = mink_clock_ns();
    const uint64_t t0 = mink_tsc_now();
    for (auto _ : state) {
        double sum = pass();
        benchmark::DoNotOptimize(sum);
        benchmark::ClobberMemory();  // the passes store their results (and caches)
    }
    const uint64_t t1 = mink_tsc_now();
    const uint64_t ns1 = mink_clock_ns();

    const double queries = double(state.iterations()) * double(n);
    state.counters["tsc_cycles/query"] = double(t1 - t0) / queries;
    state.counters["ns/query"] = double(ns1 - ns0) / queries;
    state.counters["queries/pass"] = double(n);
    state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(n));
}

void run(benchmark::State &state, int query, size_t group, size_t impl)
{
    char err[256];
    // Built and checked on first use, outside the timed loop.
    bq_bench *b = bq_bench_get(query, group, impl, err, sizeof err);
    if (!b) {
        state.SkipWithError(err);
        return;
    }
    const bq_stats *st = bq_bench_stats(b);
    const bool peer = bq_impl_family(impl) == BQ_PEER;
    if (peer && st->n)
        state.counters["scalar_checked_frac"] = double(st->scalar_checked) / double(st->n);
    const std::string name = std::string(bq_query_name(query)) + "/" + bq_group_name(group) + "/" +
                             bq_impl_name(impl);
    if (checked(state, b, name, st, peer))
        time_passes(state, bq_bench_queries(b), [b] { return bq_bench_pass(b); });
}

// coherence/<query>/<impl>-<mode>: the main suite's policy and counters.
void run_coherence(benchmark::State &state, int query, int impl, int warm)
{
    char err[256];
    bc_bench *b = bc_bench_get(query, impl, warm, err, sizeof err);
    if (!b) {
        state.SkipWithError(err);
        return;
    }
    state.counters["trajectories"] = double(bc_trajectories());
    const std::string name = std::string("coherence/") + bc_query_name(query) + "/" + bc_impl_name(impl) +
                             (warm ? "-warm" : "-cold");
    if (checked(state, b, name, bc_bench_stats(b), false))
        time_passes(state, bc_bench_queries(b), [b] { return bc_bench_pass(b); });
}

// manifold/<group>/<impl>: the same policy and counters.
void run_manifold(benchmark::State &state, size_t group, size_t impl)
{
    char err[256];
    bm_bench *b = bm_bench_get(group, impl, err, sizeof err);
    if (!b) {
        state.SkipWithError(err);
        return;
    }
    const std::string name = std::string("manifold/") + bm_group_name(group) + "/" + bm_impl_name(impl);
    if (checked(state, b, name, bm_bench_stats(b), bm_impl_family(impl) == BQ_PEER))
        time_passes(state, bm_bench_queries(b), [b] { return bm_bench_pass(b); });
}

// cast/<group>/<impl>: the same policy and counters, per cast.
void run_cast(benchmark::State &state, size_t group, size_t impl)
{
    char err[256];
    bk_bench *b = bk_bench_get(group, impl, err, sizeof err);
    if (!b) {
        state.SkipWithError(err);
        return;
    }
    const std::string name = std::string("cast/") + bk_group_name(group) + "/" + bk_impl_name(impl);
    state.counters["hit_frac"] = bk_bench_hit_frac(b);
    if (bk_bench_iterations(b) >= 0.0)
        state.counters["iters/query"] = bk_bench_iterations(b);
    if (checked(state, b, name, bk_bench_stats(b), bk_impl_family(impl) == BQ_PEER))
        time_passes(state, bk_bench_queries(b), [b] { return bk_bench_pass(b); });
}

#ifdef MINK_BENCH_HAVE_BATCH
constexpr uint64_t kBatchSeed = 12345;

// Built on the first batch benchmark (a run that filters the family out
// pays nothing), checked once per kind.
bool batch_ready(char *err, size_t errlen)
{
    static int state = 0;  // 0 not built, 1 built, -1 failed
    if (state == 0) {
        size_t pairs = 4096;
        if (const char *e = std::getenv("MINK_BENCH_BATCH_PAIRS"))
            if (std::strtoul(e, nullptr, 10) > 0)
                pairs = std::strtoul(e, nullptr, 10);
        state = bench_batch_setup(pairs, kBatchSeed) == 0 ? 1 : -1;
    }
    if (state < 0)
        std::snprintf(err, errlen, "bench_batch_setup failed (out of memory)");
    return state > 0;
}

struct batch_check {
    int done = 0, ok = 0;
    double pen = 0.0;
    char why[320] = "";
};

void run_batch(benchmark::State &state, int query, int kind, int variant)
{
    char err[256];
    if (!batch_ready(err, sizeof err)) {
        state.SkipWithError(err);
        return;
    }
    static batch_check checks[BB_KIND_COUNT];
    batch_check &ck = checks[kind];
    if (!ck.done) {
        ck.ok = bench_batch_check(kind, &ck.pen, ck.why, sizeof ck.why);
        ck.done = 1;
        if (!ck.ok && g_explain)
            std::fprintf(stderr, "batch/%s: %s\n", bench_batch_kind_name(kind), ck.why);
    }
    state.counters["ok_frac"] = ck.ok ? 1.0 : 0.0;
    state.counters["pen_frac"] = ck.pen;
    if (!ck.ok && !g_tolerate_wrong) {
        std::string msg = std::string("wrong; first ") + ck.why;
        state.SkipWithError(msg.c_str());
        return;
    }

    const size_t n = bench_batch_pairs();
    const uint64_t ns0 = mink_clock_ns();
    const uint64_t t0 = mink_tsc_now();
    for (auto _ : state) {
        double t = bench_batch_run(kind, variant, query, 1);
        benchmark::DoNotOptimize(t);
    }
    const uint64_t t1 = mink_tsc_now();
    const uint64_t ns1 = mink_clock_ns();

    const double pairs = double(state.iterations()) * double(n);
    state.counters["tsc_cycles/pair"] = double(t1 - t0) / pairs;
    state.counters["ns/pair"] = double(ns1 - ns0) / pairs;
    state.counters["pairs/s"] = ns1 > ns0 ? pairs * 1e9 / double(ns1 - ns0) : 0.0;
    state.counters["pairs/pass"] = double(n);
    state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(n));
}
#endif

std::vector<std::string> split(const std::string &s)
{
    std::vector<std::string> out;
    size_t start = 0;
    while (start <= s.size()) {
        size_t end = s.find(',', start);
        if (end == std::string::npos)
            end = s.size();
        if (end > start)
            out.push_back(s.substr(start, end - start));
        start = end + 1;
    }
    return out;
}

// --impl accepts families (ref, simd: with simd-gjk, peers) and exact names (ccd-mpr, simd-avx2).
bool impl_selected_named(const std::vector<std::string> &want, const std::string &name, int family)
{
    if (want.empty())
        return true;
    for (const std::string &w : want) {
        if (w == name || (w == "ref" && family == BQ_REF) ||
            (w == "simd" && (family == BQ_SIMD || family == BQ_SIMD_GJK)) ||
            (w == "peers" && family == BQ_PEER))
            return true;
    }
    return false;
}

bool impl_selected(const std::vector<std::string> &want, size_t impl)
{
    return impl_selected_named(want, bq_impl_name(impl), bq_impl_family(impl));
}

// The families' queries: selected by their base query name, their own name
// (intersect-sep) or the family's name (coherence, batch).
bool family_query_selected(const std::vector<std::string> &want, const char *family,
                           const char *base, const char *own)
{
    if (want.empty())
        return true;
    for (const std::string &w : want)
        if (w == family || w == base || w == own)
            return true;
    return false;
}

bool query_selected(const std::vector<std::string> &want, const char *query)
{
    if (want.empty())
        return true;
    for (const std::string &w : want)
        if (w == query)
            return true;
    return false;
}

}  // namespace

int main(int argc, char **argv)
{
    // Take our own flags out before Google Benchmark sees the rest.
    std::vector<std::string> impls, queries;
    int kept = 1;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        if (std::strncmp(a, "--impl=", 7) == 0)
            impls = split(a + 7);
        else if (std::strncmp(a, "--query=", 8) == 0)
            queries = split(a + 8);
        else if (std::strcmp(a, "--tolerate-wrong") == 0)
            g_tolerate_wrong = true;
        else if (std::strcmp(a, "--explain") == 0)
            g_explain = true;
        else
            argv[kept++] = argv[i];
    }
    argc = kept;
    argv[argc] = nullptr;

    const char *path = std::getenv("MINK_BENCH_CASES");
    if (!path || !*path)
        path = MINK_BENCH_CASES_DEFAULT;
    char err[512];
    if (bq_load(path, err, sizeof err) != 0) {
        std::fprintf(stderr, "mink-bench: %s\n", err);
        return 1;
    }

    char hz[64];
    std::snprintf(hz, sizeof hz, "%.0f", mink_tsc_hz());
    // the backend the queries run on (MINK_SIMD=auto: the one picked at run time)
    benchmark::AddCustomContext("mink_simd", mink_simd_backend());
    benchmark::AddCustomContext("mink_cases", path);
    benchmark::AddCustomContext("tsc_hz", hz);
    benchmark::AddCustomContext("tsc_kind", MINK_TSC_IS_RDTSC ? "rdtsc" : "clock_monotonic_ns");
    // The case file's group order, for tables (JSON order follows the run order).
    std::string groups;
    for (size_t g = 0; g < bq_group_count(); ++g)
        groups += (g ? "," : "") + std::string(bq_group_name(g));
    benchmark::AddCustomContext("mink_groups", groups);

    for (int q = 0; q < BQ_QUERY_COUNT; ++q) {
        if (!query_selected(queries, bq_query_name(q)))
            continue;
        for (size_t g = 0; g < bq_group_count(); ++g) {
            for (size_t i = 0; i < bq_impl_count(); ++i) {
                if (!bq_impl_supports(i, q) || !impl_selected(impls, i))
                    continue;
                std::string name = std::string(bq_query_name(q)) + "/" + bq_group_name(g) + "/" +
                                   bq_impl_name(i);
                benchmark::RegisterBenchmark(name.c_str(), [q, g, i](benchmark::State &s) {
                    run(s, q, g, i);
                })->Unit(benchmark::kMicrosecond);
            }
        }
    }

    // The manifold family: its case file is read only when it is selected.
    if (query_selected(queries, "manifold")) {
        const char *mpath = std::getenv("MINK_BENCH_MANIFOLD");
        if (!mpath || !*mpath)
            mpath = MINK_BENCH_MANIFOLD_DEFAULT;
        if (bm_load(mpath, err, sizeof err) != 0) {
            std::fprintf(stderr, "mink-bench: manifold family skipped: %s\n", err);
        } else {
            std::string mgroups;
            for (size_t g = 0; g < bm_group_count(); ++g)
                mgroups += (g ? "," : "") + std::string(bm_group_name(g));
            benchmark::AddCustomContext("mink_manifold_cases", mpath);
            benchmark::AddCustomContext("mink_manifold_groups", mgroups);
            benchmark::AddCustomContext("mink_manifold_margin", std::to_string(BM_MARGIN));
            for (size_t g = 0; g < bm_group_count(); ++g) {
                for (size_t i = 0; i < bm_impl_count(); ++i) {
                    if (!bm_impl_supports(i, g) ||
                        !impl_selected_named(impls, bm_impl_name(i), bm_impl_family(i)))
                        continue;
                    std::string name = std::string("manifold/") + bm_group_name(g) + "/" + bm_impl_name(i);
                    benchmark::RegisterBenchmark(name.c_str(), [g, i](benchmark::State &s) {
                        run_manifold(s, g, i);
                    })->Unit(benchmark::kMicrosecond);
                }
            }
        }
    }

    // The cast family: its case file is read only when it is selected.
    if (query_selected(queries, "cast")) {
        const char *cpath = std::getenv("MINK_BENCH_CAST");
        if (!cpath || !*cpath)
            cpath = MINK_BENCH_CAST_DEFAULT;
        if (bk_load(cpath, err, sizeof err) != 0) {
            std::fprintf(stderr, "mink-bench: cast family skipped: %s\n", err);
        } else {
            std::string cgroups;
            for (size_t g = 0; g < bk_group_count(); ++g)
                cgroups += (g ? "," : "") + std::string(bk_group_name(g));
            benchmark::AddCustomContext("mink_cast_cases", cpath);
            benchmark::AddCustomContext("mink_cast_groups", cgroups);
            for (size_t g = 0; g < bk_group_count(); ++g) {
                for (size_t i = 0; i < bk_impl_count(); ++i) {
                    if (!impl_selected_named(impls, bk_impl_name(i), bk_impl_family(i)))
                        continue;
                    std::string name = std::string("cast/") + bk_group_name(g) + "/" + bk_impl_name(i);
                    benchmark::RegisterBenchmark(name.c_str(), [g, i](benchmark::State &s) {
                        run_cast(s, g, i);
                    })->Unit(benchmark::kMicrosecond);
                }
            }
        }
    }

    const char *traj = std::getenv("MINK_BENCH_TRAJ");
    bc_set_path(traj && *traj ? traj : MINK_BENCH_TRAJ_DEFAULT);
    benchmark::AddCustomContext("mink_traj", bc_path());
    for (int q = 0; q < BC_QUERY_COUNT; ++q) {
        if (!family_query_selected(queries, "coherence", bc_query_selector(q), bc_query_name(q)))
            continue;
        for (int i = 0; i < BC_IMPL_COUNT; ++i) {
            if (!impl_selected_named(impls, bc_impl_name(i), bc_impl_family(i)))
                continue;
            for (int warm = 0; warm < 2; ++warm) {
                std::string name = std::string("coherence/") + bc_query_name(q) + "/" +
                                   bc_impl_name(i) + (warm ? "-warm" : "-cold");
                benchmark::RegisterBenchmark(name.c_str(), [q, i, warm](benchmark::State &s) {
                    run_coherence(s, q, i, warm);
                })->Unit(benchmark::kMicrosecond);
            }
        }
    }

#ifdef MINK_BENCH_HAVE_BATCH
    // The batch entry points run the SIMD kernel: impl simd-<backend>.
    const std::string simd_impl = std::string("simd-") + MINK_SIMD_NAME;
    if (impl_selected_named(impls, simd_impl, BQ_SIMD)) {
        for (int q = 0; q < BB_QUERY_COUNT; ++q) {
            const char *qn = bench_batch_query_name(q);
            if (!family_query_selected(queries, "batch", qn, qn))
                continue;
            for (int k = 0; k < BB_KIND_COUNT; ++k) {
                for (int v = 0; v < BB_VARIANT_COUNT; ++v) {
                    std::string name = std::string("batch/") + qn + "/" +
                                       bench_batch_kind_name(k) + "/" + simd_impl + "-" +
                                       bench_batch_variant_name(v);
                    benchmark::RegisterBenchmark(name.c_str(), [q, k, v](benchmark::State &s) {
                        run_batch(s, q, k, v);
                    })->Unit(benchmark::kMicrosecond)->UseRealTime();
                }
            }
        }
    }
#endif

    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv))
        return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    bc_unload();
    bk_unload();
    bm_unload();  // its groups hold the main file's cases: before bq_unload
    bq_unload();
#ifdef MINK_BENCH_HAVE_BATCH
    bench_batch_teardown();
#endif
    return 0;
}
