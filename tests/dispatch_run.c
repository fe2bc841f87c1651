/* mink-dispatch-run: runs a test executable on one backend of the dispatch
 * build (MINK_SIMD=auto on x86-64), so ctest covers every backend this CPU
 * runs (tests/CMakeLists.txt).
 *
 *   mink-dispatch-run [--skip-default] <backend> <test> [args...]
 *
 * Exits 77 (ctest: skipped) when the CPU cannot run <backend>, or, with
 * --skip-default, when <backend> is the one a plain run already uses. Else
 * sets MINK_SIMD_BACKEND=<backend>, checks that the library then picks it
 * (mink_simd_backend()), and executes <test> in its place. */
#define _POSIX_C_SOURCE 200809L /* setenv, execv */
#include "dispatch_cpu.h"
#include "mink/mink.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int arg = 1, skip_default = 0;
    if (arg < argc && strcmp(argv[arg], "--skip-default") == 0) {
        skip_default = 1;
        ++arg;
    }
    if (argc - arg < 2) {
        fprintf(stderr, "usage: mink-dispatch-run [--skip-default] <backend> <test> [args...]\n");
        return 2;
    }
    const char *backend = argv[arg];
    if (!dispatch_cpu_runs(backend)) {
        printf("skipped: this CPU cannot run the %s backend\n", backend);
        return 77;
    }
    if (skip_default && strcmp(backend, dispatch_cpu_best()) == 0 &&
        !(getenv("MINK_SIMD_BACKEND") && *getenv("MINK_SIMD_BACKEND"))) {
        printf("skipped: %s is this CPU's default backend, which the plain run tests\n", backend);
        return 77;
    }
    if (setenv("MINK_SIMD_BACKEND", backend, 1) != 0) {
        perror("mink-dispatch-run: setenv");
        return 1;
    }
    const char *used = mink_simd_backend();
    if (strcmp(used, backend) != 0) {
        fprintf(stderr, "mink-dispatch-run: MINK_SIMD_BACKEND=%s, but the library runs %s\n", backend, used);
        return 1;
    }
    printf("mink-dispatch-run: %s on the %s backend\n", argv[arg + 1], backend);
    fflush(stdout);
    execv(argv[arg + 1], argv + arg + 1);
    perror("mink-dispatch-run: execv");
    return 1;
}
