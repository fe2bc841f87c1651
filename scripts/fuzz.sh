#!/usr/bin/env bash
# A short coverage-guided fuzz run of every libFuzzer target (tests/fuzz/).
#
# Usage: scripts/fuzz.sh [SECONDS]     (default 60 seconds per target)
#
# Builds in build/fuzz with clang, the whole project instrumented:
#   CC=clang -DMINK_BUILD_FUZZ=ON -DMINK_SANITIZE=ON (ASan+UBSan everywhere)
#   CMAKE_C_FLAGS=-fsanitize=fuzzer-no-link (coverage for libFuzzer, without its main)
# then runs each target for SECONDS from a scratch copy of its seed corpus
# (build/fuzz/work/<target>: new inputs never land in the repository).
# Prints the executions per target (libFuzzer's final stats) and exits
# non-zero on any crash or property violation, naming the crash file
# (build/fuzz/artifacts/<target>/crash-*); replay one with
#   build/fuzz/tests/fuzz/<target>_replay <file>
#
# Environment: MINK_FUZZ_SEED fixes libFuzzer's seed (-seed; default: a new
# one each run). Runs from one seed start alike but do not stay alike: the
# coverage a run sees is not quite the same from run to run (two runs of
# fuzz_cases from seed 1 parted within 20000 inputs), and the mutations
# follow it; a finding replays from its crash file, not from the seed. MINK_FUZZ_CFLAGS adds C flags to the build, e.g.
#   MINK_FUZZ_CFLAGS=-DMINK_FUZZ_MAX_MAGNITUDE=1e5 (inputs clamped to a
#   magnitude, to look past a known finding about huge coordinates).
# As root, installs clang and libFuzzer (libclang-rt-<N>-dev) when missing.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
duration=${1:-60}
case "$duration" in
  ''|*[!0-9]*) echo "usage: $0 [SECONDS]" >&2; exit 2 ;;
esac
build="$root/build/fuzz"
targets=(fuzz_cases fuzz_queries)

# --- toolchain: clang with the libFuzzer runtime -------------------------
probe_libfuzzer() {
  local tmp
  tmp=$(mktemp -d) || return 1
  printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' >"$tmp/p.c"
  clang -fsanitize=fuzzer,address,undefined "$tmp/p.c" -o "$tmp/p" >/dev/null 2>&1
  local rc=$?
  rm -rf "$tmp"
  return $rc
}

if ! command -v clang >/dev/null 2>&1 || ! probe_libfuzzer; then
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "fuzz.sh: clang with libFuzzer is missing. On Debian 12 run:" >&2
    echo "  sudo apt-get install -y clang libclang-rt-14-dev" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  pkgs=(clang)
  # libFuzzer ships in libclang-rt-<major>-dev (Debian 12: 14); pick the one
  # matching the clang that will be installed.
  major=$(apt-cache policy clang 2>/dev/null | sed -n 's/.*Candidate: *1:\([0-9]*\).*/\1/p' | head -n1)
  if [ -n "$major" ] && apt-cache show "libclang-rt-$major-dev" >/dev/null 2>&1; then
    pkgs+=("libclang-rt-$major-dev")
  elif apt-cache show libclang-rt-dev >/dev/null 2>&1; then
    pkgs+=(libclang-rt-dev)
  fi
  echo "fuzz.sh: installing ${pkgs[*]}"
  apt-get install -y -qq --no-install-recommends "${pkgs[@]}" || exit 1
  probe_libfuzzer || { echo "fuzz.sh: clang still cannot link -fsanitize=fuzzer" >&2; exit 1; }
fi

# --- build ---------------------------------------------------------------
"$root/scripts/setup-deps.sh" # SIMDe (and the rest) when missing
mkdir -p "$build"
echo "fuzz.sh: building in $build"
cmake -S "$root" -B "$build" \
  -DCMAKE_C_COMPILER=clang \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DMINK_BUILD_FUZZ=ON -DMINK_SANITIZE=ON \
  -DMINK_BUILD_TESTS=OFF -DMINK_BUILD_BENCH=OFF \
  "-DCMAKE_C_FLAGS=-fsanitize=fuzzer-no-link ${MINK_FUZZ_CFLAGS:-}" >"$build.configure.log" 2>&1 \
  || { cat "$build.configure.log" >&2; exit 1; }
build_targets=()
for t in "${targets[@]}"; do build_targets+=("$t" "${t}_replay"); done
cmake --build "$build" -j"$(nproc)" --target "${build_targets[@]}" || exit 1

# --- run -----------------------------------------------------------------
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
failed=0
summary=()
for t in "${targets[@]}"; do
  work="$build/work/$t"
  art="$build/artifacts/$t"
  log="$build/logs/$t.log"
  rm -rf "$work" "$art"
  mkdir -p "$work" "$art" "$(dirname "$log")"
  cp "$root/tests/fuzz/corpus/$t/"* "$work/"
  extra=()
  [ -n "${MINK_FUZZ_SEED:-}" ] && extra+=("-seed=$MINK_FUZZ_SEED")
  if [ "$t" = fuzz_cases ]; then
    # case lines with hulls are long; the dictionary holds the format's words
    extra+=(-max_len=16384 "-dict=$root/tests/fuzz/corpus/fuzz_cases.dict")
  fi
  echo "fuzz.sh: $t for ${duration}s (log: $log)"
  "$build/tests/fuzz/$t" -max_total_time="$duration" -rss_limit_mb=2048 -timeout=10 \
    -print_final_stats=1 -artifact_prefix="$art/" "${extra[@]}" "$work" >"$log" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n1)
  crash=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n1)
  if [ $rc -ne 0 ] || [ -n "$crash" ]; then
    failed=1
    echo "fuzz.sh: $t FAILED (exit $rc) after ${execs:-?} executions"
    grep -E 'PROPERTY VIOLATED|ERROR: (AddressSanitizer|libFuzzer|UndefinedBehaviorSanitizer)|runtime error|^SUMMARY' "$log" | head -n 8 | cut -c1-400
    [ -n "$crash" ] && echo "fuzz.sh: crash file: $crash"
    [ -n "$crash" ] && echo "fuzz.sh: replay: $build/tests/fuzz/${t}_replay $crash"
    summary+=("$t: ${execs:-?} executions (${rate:-?}/s), FAILED, crash file ${crash:-none}")
  else
    summary+=("$t: ${execs:-?} executions (${rate:-?}/s), no findings")
  fi
done

echo "fuzz.sh: summary"
for s in "${summary[@]}"; do echo "  $s"; done
exit $failed
