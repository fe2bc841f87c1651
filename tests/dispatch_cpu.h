/* What the dispatch build (MINK_SIMD=auto on x86-64) should pick, computed
 * here independently of kernel/dispatch.c, for the tests that check it
 * (test_dispatch.c, dispatch_run.c). x86 with GCC or Clang only. */
#ifndef MINK_DISPATCH_CPU_H
#define MINK_DISPATCH_CPU_H

#include <string.h>

/* 1 if this CPU (and OS) runs the named backend; 0 for an unknown name. */
static inline int dispatch_cpu_runs(const char *name)
{
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
    __builtin_cpu_init();
    if (strcmp(name, "portable") == 0) return 1;
    if (strcmp(name, "sse41") == 0) return __builtin_cpu_supports("sse4.1") != 0;
    const int avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    if (strcmp(name, "avx2") == 0) return avx2;
    if (strcmp(name, "avx512") == 0)
        return avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
               __builtin_cpu_supports("avx512vl");
#else
    (void)name;
#endif
    return 0;
}

/* The widest backend this CPU runs: the dispatch build's default. */
static inline const char *dispatch_cpu_best(void)
{
    static const char *const widest_first[] = {"avx512", "avx2", "sse41"};
    for (size_t i = 0; i < sizeof widest_first / sizeof widest_first[0]; ++i)
        if (dispatch_cpu_runs(widest_first[i])) return widest_first[i];
    return "portable";
}

#endif /* MINK_DISPATCH_CPU_H */
