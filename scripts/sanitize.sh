#!/usr/bin/env bash
# The test suite under the sanitizers, then under valgrind memcheck.
#
# Usage: scripts/sanitize.sh [--no-valgrind]
#
# 1. build/sanitize: clang (or gcc), Debug, -DMINK_SANITIZE=ON (ASan+UBSan,
#    -fno-sanitize-recover=all: the first report fails the test); ctest,
#    without the default build's re-runs on narrower backends (below).
# 2. build/memcheck (unless --no-valgrind): RelWithDebInfo with
#    MINK_SIMD=avx2 when the CPU has AVX2, else sse41 (valgrind cannot run
#    AVX-512 code); ctest with every test wrapped in
#    valgrind --error-exitcode=1 --leak-check=full.
#    Bounded, a subset: the full suite took 5-7 min under valgrind on 2
#    cores, so
#    - test_differential is left out (150 s alone: it replays every case
#      file through both kernels, the code paths test_cases, test_simd and
#      test_batch already run under valgrind); MINK_MEMCHECK_EXCLUDE (a
#      ctest -E regex, default '^test_differential$'; empty: run all);
#    - MINK_TEST_STRIDE=8 makes test_threads and test_determinism use every
#      8th case (the other tests ignore it);
#    - each test gets at most MINK_MEMCHECK_TIMEOUT seconds (default 600).
#    About 4 min in all.
# Runs both stages; exits non-zero if any test failed in either.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
valgrind=1
for arg in "$@"; do
  case "$arg" in
    --no-valgrind) valgrind=0 ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) echo "usage: $0 [--no-valgrind]" >&2; exit 2 ;;
  esac
done
jobs=$(nproc)

if command -v clang >/dev/null 2>&1; then cc=clang; else cc=gcc; fi

# --- 1. ASan + UBSan -------------------------------------------------------
san="$root/build/sanitize"
echo "sanitize.sh: ASan+UBSan build with $cc in $san"
cmake -S "$root" -B "$san" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=Debug \
  -DMINK_SANITIZE=ON -DMINK_BUILD_TESTS=ON -DMINK_BUILD_BENCH=OFF >/dev/null
cmake --build "$san" -j"$jobs"
# detect_leaks: LeakSanitizer too; abort_on_error gives a core-like stop.
# The default build dispatches at run time: its tests run on the CPU's widest
# backend, test_simd-<backend> on every backend it runs; the re-runs of the
# whole suite on the narrower backends (label backend-rerun, about 2 more
# minutes here) are left to scripts/test.sh (MINK_SANITIZE_RERUNS=1 keeps them).
rerun_filter=(-LE backend-rerun)
[ "${MINK_SANITIZE_RERUNS:-0}" = 1 ] && rerun_filter=()
failed=()
if ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1} \
   UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
   ctest --test-dir "$san" --output-on-failure -j"$jobs" "${rerun_filter[@]}"; then
  echo "sanitize.sh: ASan+UBSan: all tests passed"
else
  failed+=("ASan+UBSan")
fi

finish() {
  if [ ${#failed[@]} -eq 0 ]; then
    echo "sanitize.sh: OK"
    exit 0
  fi
  echo "sanitize.sh: FAILED: ${failed[*]} (see the ctest output above)"
  exit 1
}
[ "$valgrind" = 1 ] || finish

# --- 2. valgrind memcheck ----------------------------------------------------
if ! command -v valgrind >/dev/null 2>&1; then
  echo "sanitize.sh: valgrind is missing (apt-get install valgrind), or pass --no-valgrind" >&2
  exit 1
fi
if grep -qw avx2 /proc/cpuinfo 2>/dev/null; then simd=avx2; else simd=sse41; fi
mem="$root/build/memcheck"
vg="$(command -v valgrind);--error-exitcode=1;--leak-check=full;--errors-for-leak-kinds=definite,indirect;--track-origins=yes;--quiet"
echo "sanitize.sh: valgrind memcheck build (MINK_SIMD=$simd) in $mem"
# The emulator prefixes every add_test() command: ctest then runs the tests
# under valgrind.
# gcc where present, and DWARF 4: valgrind 3.19 cannot read clang 14's DWARF 5.
if command -v gcc >/dev/null 2>&1; then mcc=gcc; else mcc=$cc; fi
cmake -S "$root" -B "$mem" -DCMAKE_C_COMPILER="$mcc" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_FLAGS=-gdwarf-4 \
  -DMINK_SIMD="$simd" -DMINK_SANITIZE=OFF -DMINK_BUILD_TESTS=ON -DMINK_BUILD_BENCH=OFF \
  "-DCMAKE_CROSSCOMPILING_EMULATOR=$vg" >/dev/null
cmake --build "$mem" -j"$jobs"
timeout=${MINK_MEMCHECK_TIMEOUT:-600}
export MINK_TEST_STRIDE=${MINK_TEST_STRIDE:-8}
skip=${MINK_MEMCHECK_EXCLUDE-^test_differential\$}
[ -n "$skip" ] && echo "sanitize.sh: memcheck leaves out: $skip"
if grep -q valgrind "$mem/tests/CTestTestfile.cmake"; then
  exclude=(); [ -n "$skip" ] && exclude=(-E "$skip")
  ctest --test-dir "$mem" --output-on-failure -j"$jobs" --timeout "$timeout" "${exclude[@]}" \
    || failed+=("valgrind memcheck")
else
  # A CMake that ignores the emulator for native builds: wrap by hand.
  echo "sanitize.sh: ctest does not wrap the tests; running them under valgrind directly"
  IFS=';' read -r -a vgcmd <<<"$vg"
  fail=0
  for t in "$mem"/tests/test_*; do
    [ -x "$t" ] || continue
    if [ -n "$skip" ] && [[ "$(basename "$t")" =~ $skip ]]; then continue; fi
    echo "sanitize.sh: valgrind $(basename "$t")"
    (cd "$mem/tests" && timeout "$timeout" "${vgcmd[@]}" "$t" >/dev/null) || { echo "  FAILED"; fail=1; }
  done
  [ $fail = 0 ] || failed+=("valgrind memcheck")
fi
finish
