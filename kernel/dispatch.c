/* mink_simd_backend(), and in the run-time dispatch build (MINK_SIMD=auto on
 * x86-64, MINK_DISPATCH defined) the public entry points of the SIMD kernel.
 *
 * Dispatch build: the kernel's width-dependent sources are compiled once per
 * backend (portable, sse41, avx2 + fma, avx512 f/dq/vl), each copy under its
 * own names (backend_names.h) with its table (backend.c, dispatch.h). This
 * file, like the shared stages and the scalar reference, is compiled for the
 * x86-64 baseline, so the library loads and answers on any x86-64. The
 * first call picks a table, once: the widest backend the CPU (and the OS,
 * which must save the wide registers: __builtin_cpu_supports checks that)
 * runs, or the one MINK_SIMD_BACKEND names when the CPU runs it. The choice
 * is published with one atomic compare-exchange: threads racing on the first
 * call compute the same answer and all use the first one stored. Every
 * later call costs an atomic (plain on x86) load and an indirect call.
 *
 * Single-width build: the kernel defines the entry points itself and this
 * file only names the backend. */
#include "mink/mink.h"
#include "simd.h"

#if defined(MINK_DISPATCH)

#include "dispatch.h"
#include "support.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#if !(defined(__x86_64__) || defined(__i386__)) || !(defined(__GNUC__) || defined(__clang__))
#error "the run-time dispatch build is for x86 with GCC or Clang (cmake/simd.cmake)"
#endif

static int cpu_runs(const mink_backend *b)
{
    __builtin_cpu_init(); /* idempotent; needed only before constructors run */
    if (b == &mink_backend_portable)
        return 1;
    if (b == &mink_backend_sse41)
        return __builtin_cpu_supports("sse4.1");
    if (b == &mink_backend_avx2)
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    if (b == &mink_backend_avx512)
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
               __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx2") &&
               __builtin_cpu_supports("fma");
    return 0;
}

/* The backend to use: MINK_SIMD_BACKEND's when the CPU runs it, else the
 * widest the CPU runs (portable always does). */
static const mink_backend *pick(void)
{
    static const mink_backend *const widest_first[] = {&mink_backend_avx512, &mink_backend_avx2,
                                                       &mink_backend_sse41, &mink_backend_portable};
    const size_t n = sizeof widest_first / sizeof widest_first[0];
    const char *want = getenv("MINK_SIMD_BACKEND");
    if (want && *want)
        for (size_t i = 0; i < n; ++i)
            if (strcmp(want, widest_first[i]->name) == 0 && cpu_runs(widest_first[i]))
                return widest_first[i];
    for (size_t i = 0; i < n; ++i)
        if (cpu_runs(widest_first[i]))
            return widest_first[i];
    return &mink_backend_portable;
}

static _Atomic(const mink_backend *) chosen; /* NULL until the first call */

static const mink_backend *choose(void)
{
    const mink_backend *b = pick(), *first = NULL;
    if (!atomic_compare_exchange_strong_explicit(&chosen, &first, b, memory_order_acq_rel, memory_order_acquire))
        b = first; /* another thread stored its (equal) choice first */
    return b;
}

static inline const mink_backend *backend(void)
{
    const mink_backend *b = atomic_load_explicit(&chosen, memory_order_acquire);
    return __builtin_expect(b != NULL, 1) ? b : choose();
}

const char *mink_simd_backend(void) { return backend()->name; }

int mink_intersect(const mink_shape *a, const mink_pose *pa, const mink_shape *b, const mink_pose *pb,
                   mink_cache *cache)
{
    return backend()->intersect(a, pa, b, pb, cache);
}

int mink_intersect_ex(const mink_shape *a, const mink_pose *pa, const mink_shape *b, const mink_pose *pb,
                      mink_cache *cache, mink_result *info)
{
    return backend()->intersect_ex(a, pa, b, pb, cache, info);
}

int mink_intersect_gjk_ex(const mink_shape *a, const mink_pose *pa, const mink_shape *b, const mink_pose *pb,
                          mink_cache *cache, mink_result *info)
{
    return backend()->intersect_gjk_ex(a, pa, b, pb, cache, info);
}

mink_status mink_distance(const mink_shape *a, const mink_pose *pa, const mink_shape *b, const mink_pose *pb,
                          mink_cache *cache, mink_result *out)
{
    return backend()->distance(a, pa, b, pb, cache, out);
}

mink_status mink_penetration(const mink_shape *a, const mink_pose *pa, const mink_shape *b, const mink_pose *pb,
                             mink_cache *cache, mink_result *out)
{
    return backend()->penetration(a, pa, b, pb, cache, out);
}

mink_status mink_penetration_gjk(const mink_shape *a, const mink_pose *pa, const mink_shape *b, const mink_pose *pb,
                                 mink_cache *cache, mink_result *out)
{
    return backend()->penetration_gjk(a, pa, b, pb, cache, out);
}

mink_status mink_manifold(const mink_shape *a, const mink_pose *pa, const mink_shape *b, const mink_pose *pb,
                          float margin, mink_cache *cache, struct mink_manifold *out)
{
    return backend()->manifold(a, pa, b, pb, margin, cache, out);
}

void mink_penetration_batch(const mink_pair *pairs, size_t n, mink_result *out)
{
    backend()->penetration_batch(pairs, n, out);
}

void mink_intersect_batch(const mink_pair *pairs, size_t n, int *out) { backend()->intersect_batch(pairs, n, out); }

void mink_penetration_batch_mt(const mink_pair *pairs, size_t n, mink_result *out, unsigned threads)
{
    backend()->penetration_batch_mt(pairs, n, out, threads);
}

void mink_intersect_batch_mt(const mink_pair *pairs, size_t n, int *out, unsigned threads)
{
    backend()->intersect_batch_mt(pairs, n, out, threads);
}

void mink_manifold_batch(const mink_pair *pairs, size_t n, float margin, struct mink_manifold *out)
{
    backend()->manifold_batch(pairs, n, margin, out);
}

void mink_manifold_batch_mt(const mink_pair *pairs, size_t n, float margin, struct mink_manifold *out,
                            unsigned threads)
{
    backend()->manifold_batch_mt(pairs, n, margin, out, threads);
}

/* For the shared stages that ask the SIMD kernel's support (cast.c). */
float mink_simd_support_dot(const mink_shape *s, v4 d) { return backend()->support_dot(s, v4_x(d), v4_y(d), v4_z(d)); }

#else /* one backend, chosen at configure time */

const char *mink_simd_backend(void) { return MINK_SIMD_NAME; }

#endif
