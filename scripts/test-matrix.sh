#!/usr/bin/env bash
# The local build matrix: gcc and clang x every SIMD backend this machine can
# build, each with warnings as errors, each tested with ctest. One build dir
# per configuration (build/matrix-<compiler>-<backend>), reused between runs
# so a second run only rebuilds what changed. The kernel's tests only: the
# Bullet integration (C++, one build) is tested by scripts/test.sh.
#
#   auto      (x86-64) the default build: every x86-64 backend in one library,
#             picked at run time; its ctest runs the tests on each backend the
#             CPU runs (MINK_SIMD_BACKEND)
#   sse41     always
#   avx2      when the CPU has avx2 and fma (else skipped: it could not run)
#   portable  SIMDe's plain C (SIMDE_NO_NATIVE)
#   avx512    always built; tested only when /proc/cpuinfo has avx512f
#   neon      with --aarch64: gcc cross build run under qemu (test-aarch64.sh)
#
# Usage: scripts/test-matrix.sh [--quick] [--aarch64] [-- extra cmake args]
#   --quick    gcc and clang on the default build (auto on x86-64, neon on
#              aarch64), portable, avx2 when the CPU runs it, and (on x86)
#              avx512, built and, where the CPU runs it, tested
#   --aarch64  add the aarch64 NEON cross build (installs its packages as root)
# Prints a pass/fail table; exits non-zero if any configuration failed.
# Env: MINK_MATRIX_DIR, where the build dirs go (default build/)
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

quick=0
aarch64=0
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1 ;;
    --aarch64) aarch64=1 ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d'; exit 0 ;;
    *) echo "test-matrix: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

"$root/scripts/setup-deps.sh" || exit 1

jobs=$(nproc 2>/dev/null || echo 2)
cpu_has() { grep -qw "$1" /proc/cpuinfo 2>/dev/null; }

# The default build (MINK_SIMD=auto): on aarch64 it is neon (named so, so
# --quick and the full matrix share build dirs); on x86-64 the run-time
# dispatch build.
case "$(uname -m)" in
  aarch64|arm64) default=neon ;;
  *) default=auto ;;
esac

if [ $quick = 1 ]; then
  backends=("$default" portable)
  # the widest backend this CPU runs too: the benchmarks' fastest build
  [ "$default" = auto ] && cpu_has avx2 && cpu_has fma && backends+=(avx2)
  # its own code paths in simd.h compile with -Werror even where they cannot run
  [ "$default" = auto ] && backends+=(avx512)
elif [ "$default" = neon ]; then
  backends=(neon portable)
else
  backends=(auto sse41 avx2 portable avx512)
fi

rows=()
failed=0

# run_config <compiler> <backend>: configure, build, test; appends a row.
run_config() {
  local cc=$1 simd=$2
  local name="$cc-$simd" dir="${MINK_MATRIX_DIR:-$root/build}/matrix-$cc-$simd"
  local log="$dir.log" build=FAIL test="-" t0=$SECONDS
  local run_tests=1 note=""
  mkdir -p "${MINK_MATRIX_DIR:-$root/build}"
  case "$simd" in
    avx2)
      if ! { cpu_has avx2 && cpu_has fma; }; then
        rows+=("$(printf '%-18s %-6s %-10s %5s  %s' "$name" skip skip - "CPU lacks avx2/fma: could not run")")
        return
      fi ;;
    avx512) cpu_has avx512f || { run_tests=0; note="build only: CPU lacks avx512f"; } ;;
  esac
  echo "== $name"
  {
    cmake -S "$root" -B "$dir" -DCMAKE_C_COMPILER="$cc" -DMINK_SIMD="$simd" \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_FLAGS=-Werror -DMINK_BUILD_BENCH=OFF \
      -DMINK_BUILD_INTEGRATIONS=OFF "${extra[@]}" &&
      cmake --build "$dir" -j"$jobs"
  } >"$log" 2>&1 && build=ok
  if [ "$build" = ok ] && [ $run_tests = 1 ]; then
    test=FAIL
    ctest --test-dir "$dir" --output-on-failure -j"$jobs" --timeout 600 >>"$log" 2>&1 && test=ok
    # ctest's own count, e.g. "100% tests passed, 0 tests failed out of 7"
    note=$(grep -E 'tests passed|No tests were found' "$log" | tail -1)
  elif [ "$build" = ok ]; then
    test="not run"
  fi
  if [ "$build" != ok ] || [ "$test" = FAIL ]; then
    failed=1
    echo "-- $name failed; last lines of $log:"
    tail -25 "$log"
  fi
  rows+=("$(printf '%-18s %-6s %-10s %4ss  %s' "$name" "$build" "$test" $((SECONDS - t0)) "$note")")
}

for simd in "${backends[@]}"; do
  for cc in gcc clang; do
    if ! command -v "$cc" >/dev/null 2>&1; then
      rows+=("$(printf '%-18s %-6s %-10s %5s  %s' "$cc-$simd" FAIL - - "$cc not found")")
      failed=1
      continue
    fi
    run_config "$cc" "$simd"
  done
done

if [ $aarch64 = 1 ]; then
  echo "== gcc-aarch64-neon"
  t0=$SECONDS
  log="$root/build/matrix-aarch64-neon.log"
  status=FAIL
  MINK_BUILD_DIR="$root/build/matrix-aarch64-neon" \
    "$root/scripts/test-aarch64.sh" -DCMAKE_C_FLAGS=-Werror "${extra[@]}" >"$log" 2>&1 && status=ok
  [ $status = ok ] || { failed=1; echo "-- gcc-aarch64-neon failed; last lines of $log:"; tail -25 "$log"; }
  rows+=("$(printf '%-18s %-6s %-10s %4ss  %s' gcc-aarch64-neon "$status" "$status" $((SECONDS - t0)) \
    "$(grep -E 'tests passed' "$log" | tail -1) (qemu; build+test in one step)")")
fi

echo
printf '%-18s %-6s %-10s %5s  %s\n' configuration build tests time notes
printf '%s\n' "${rows[@]}"
if [ $failed = 0 ]; then
  echo "matrix: all configurations passed"
else
  echo "matrix: FAILED (logs: ${MINK_MATRIX_DIR:-build}/matrix-*.log)"
fi
exit $failed
