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
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "bench_queries.h"
#include "tsc.h"

#ifndef MINK_BENCH_CASES_DEFAULT
#define MINK_BENCH_CASES_DEFAULT "tests/data/bench.cases"
#endif
#ifndef MINK_SIMD_NAME
#define MINK_SIMD_NAME "unknown"
#endif

namespace {

bool g_tolerate_wrong = false;
bool g_explain = false;

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
    if (g_explain && st->ok < st->n) {
        // Once per benchmark, not per run of it.
        static std::vector<const bq_bench *> told;
        if (std::find(told.begin(), told.end(), b) == told.end()) {
            told.push_back(b);
            std::fprintf(stderr, "%s/%s/%s: %zu/%zu wrong, first %s\n", bq_query_name(query),
                         bq_group_name(group), bq_impl_name(impl), st->n - st->ok, st->n,
                         st->first_fail);
        }
    }
    state.counters["ok_frac"] = st->ok_frac;
    if (bq_impl_family(impl) == BQ_PEER && st->n)
        state.counters["scalar_checked_frac"] = double(st->scalar_checked) / double(st->n);
    if (st->has_iters) {
        state.counters["iters/query"] = st->iters;
        state.counters["gjk_iters/query"] = st->gjk_iters;
        state.counters["supports/query"] = st->supports;
    }
    if (bq_impl_family(impl) != BQ_PEER && st->ok < st->n && !g_tolerate_wrong) {
        std::string msg = std::to_string(st->n - st->ok) + "/" + std::to_string(st->n) +
                          " wrong; first " + st->first_fail;
        state.SkipWithError(msg.c_str());
        return;
    }

    const size_t n = bq_bench_queries(b);
    const uint64_t ns0 = mink_clock_ns();
    const uint64_t t0 = mink_tsc_now();
    for (auto _ : state) {
        double sum = bq_bench_pass(b);
        benchmark::DoNotOptimize(sum);
        benchmark::ClobberMemory();  // the passes store their results
    }
    const uint64_t t1 = mink_tsc_now();
    const uint64_t ns1 = mink_clock_ns();

    const double queries = double(state.iterations()) * double(n);
    state.counters["tsc_cycles/query"] = double(t1 - t0) / queries;
    state.counters["ns/query"] = double(ns1 - ns0) / queries;
    state.counters["queries/pass"] = double(n);
    state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(n));
}

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

// --impl accepts families (ref, simd, peers) and exact names (ccd-mpr, simd-avx2).
bool impl_selected(const std::vector<std::string> &want, size_t impl)
{
    if (want.empty())
        return true;
    const std::string name = bq_impl_name(impl);
    const int family = bq_impl_family(impl);
    for (const std::string &w : want) {
        if (w == name || (w == "ref" && family == BQ_REF) || (w == "simd" && family == BQ_SIMD) ||
            (w == "peers" && family == BQ_PEER))
            return true;
    }
    return false;
}

bool query_selected(const std::vector<std::string> &want, int query)
{
    if (want.empty())
        return true;
    for (const std::string &w : want)
        if (w == bq_query_name(query))
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
    benchmark::AddCustomContext("mink_simd", MINK_SIMD_NAME);
    benchmark::AddCustomContext("mink_cases", path);
    benchmark::AddCustomContext("tsc_hz", hz);
    benchmark::AddCustomContext("tsc_kind", MINK_TSC_IS_RDTSC ? "rdtsc" : "clock_monotonic_ns");
    // The case file's group order, for tables (JSON order follows the run order).
    std::string groups;
    for (size_t g = 0; g < bq_group_count(); ++g)
        groups += (g ? "," : "") + std::string(bq_group_name(g));
    benchmark::AddCustomContext("mink_groups", groups);

    for (int q = 0; q < BQ_QUERY_COUNT; ++q) {
        if (!query_selected(queries, q))
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

    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv))
        return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    bq_unload();
    return 0;
}
