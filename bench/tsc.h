/* Time stamp counter for the benchmarks: reference cycles, not core cycles.
 *
 * On x86 the TSC ticks at a constant rate (constant_tsc/nonstop_tsc) whatever
 * the core clock does, so "TSC cycles" are reference cycles: stable across
 * turbo and power states, comparable between runs on one machine, and equal to
 * ns x the TSC frequency. Elsewhere the counter is CLOCK_MONOTONIC in ns and
 * the reported frequency is 1 GHz, so the same counters stay meaningful. */
#ifndef MINK_BENCH_TSC_H
#define MINK_BENCH_TSC_H

/* C files including this need _POSIX_C_SOURCE >= 199309L (clock_gettime)
 * defined before their first include; C++ (g++ defines _GNU_SOURCE) does not. */
#include <stdint.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define MINK_TSC_IS_RDTSC 1
#else
#define MINK_TSC_IS_RDTSC 0
#endif

/** Monotonic wall clock in ns. */
static inline uint64_t mink_clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/** The counter: TSC ticks on x86, ns elsewhere. Not serializing: the timed
 *  regions are whole passes of thousands of cycles, so a few cycles of
 *  reordering at the edges do not matter. */
static inline uint64_t mink_tsc_now(void)
{
#if MINK_TSC_IS_RDTSC
    return (uint64_t)__rdtsc();
#else
    return mink_clock_ns();
#endif
}

/** Ticks of mink_tsc_now per second, measured once against CLOCK_MONOTONIC
 *  over ~50 ms (the best of three windows, so a preemption in one does not
 *  skew it). Later calls return the cached value. Not thread safe on the first
 *  call: call it once from main before starting threads. */
static inline double mink_tsc_hz(void)
{
    static double hz;
    if (hz > 0.0)
        return hz;
#if MINK_TSC_IS_RDTSC
    double best = 0.0;
    double best_span = 1e300;
    for (int k = 0; k < 3; ++k) {
        /* Bracket each clock read with TSC reads; the narrowest bracket is the
         * least disturbed sample. */
        uint64_t a0 = mink_tsc_now(), n0 = mink_clock_ns(), a1 = mink_tsc_now();
        while (mink_clock_ns() - n0 < 16000000u) { }
        uint64_t b0 = mink_tsc_now(), n1 = mink_clock_ns(), b1 = mink_tsc_now();
        double span = (double)(a1 - a0) + (double)(b1 - b0);
        double est = (0.5 * (double)(b0 + b1) - 0.5 * (double)(a0 + a1)) * 1e9
                   / (double)(n1 - n0);
        if (span < best_span) {
            best_span = span;
            best = est;
        }
    }
    hz = best;
#else
    hz = 1e9;
#endif
    return hz;
}

#endif /* MINK_BENCH_TSC_H */
