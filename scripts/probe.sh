#!/usr/bin/env bash
# Independent probes: random shape pairs from fixed seeds, with exact answers
# from scripts/probe_oracle.py (qhull on the Minkowski difference, double
# precision: no GJK, no EPA), checked through mink-cases for both kernels,
# every query, with and without a cache. Catches what the shared case files'
# distributions do not reach (flat, needle and lattice hulls, rounded hulls,
# sizes 1e-2 to 1e2, far offsets).
#
# Usage: scripts/probe.sh [--seeds "1 2 3"] [--count N] [--build DIR | --simd W]
#   --seeds  oracle seeds (default 1 2 3; fixed, so a run is reproducible)
#   --count  cases per seed (default 2000)
#   --build  a configured build tree holding bench/mink-cases (default
#            build/test, as scripts/test.sh leaves it; configured if absent)
#   --simd   the SIMD backend W (sse41, avx2, ...) in a tree of its own,
#            build/probe-W
# A failing seed's case file is kept in the build tree for reproduction.
# Exit status: 0 all pass, 1 a case failed, 2 the run itself failed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seeds="1 2 3"
count=2000
build="$root/build/test"
simd=""
while [ $# -gt 0 ]; do
  case "$1" in
    --seeds) seeds=${2:?}; shift ;;
    --count) count=${2:?}; shift ;;
    --build) build=${2:?}; shift ;;
    --simd) simd=${2:?}; build="$root/build/probe-$simd"; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "probe: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done

MINK_EXTRA_PACKAGES="python3-scipy" "$root/scripts/setup-deps.sh" || exit 2
py=/usr/bin/python3 # Debian's, where python3-scipy lives
"$py" -c 'import scipy.spatial' 2>/dev/null || { echo "probe: $py cannot import scipy" >&2; exit 2; }

if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMINK_BUILD_BENCH=OFF \
    ${simd:+-DMINK_SIMD="$simd"} >/dev/null || exit 2
fi
cmake --build "$build" --target mink-cases -j"$(nproc)" >/dev/null || exit 2
cases="$build/bench/mink-cases"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
for seed in $seeds; do
  file="$tmp/probe-$seed.cases"
  "$py" "$root/scripts/probe_oracle.py" "$seed" "$file" "$count" || exit 2
  for kernel in ref simd; do
    for query in distance penetration intersect; do
      for cache in "" --cache; do
        # check exits 1 on a failed case: the summary line says so below
        summary=$("$cases" check "$file" --kernel "$kernel" --query "$query" $cache | tail -n 1) || true
        printf 'probe: seed %s %-4s %-11s %-7s %s\n' "$seed" "$kernel" "$query" "${cache:-cold}" "$summary"
        case "$summary" in
          *" 0 failed") ;;
          *)
            failed=1
            cp "$file" "$build/probe-$seed.cases"
            { "$cases" check "$file" --kernel "$kernel" --query "$query" $cache --verbose || true; } |
              grep FAIL | head -n 5 | sed 's/^/  /' || true
            ;;
        esac
      done
    done
  done
done
if [ "$failed" = 1 ]; then
  echo "probe: FAILED; failing seeds' case files kept in $build/ (rerun: $cases check FILE --kernel K --query Q --verbose)" >&2
  exit 1
fi
echo "probe: all seeds pass ($seeds; $count cases each)"
