#!/usr/bin/env bash
# Independent probes: random shape pairs from fixed seeds, with exact answers
# from scripts/probe_oracle.py (qhull on the Minkowski difference, double
# precision: no GJK, no EPA), checked through mink-cases for both kernels,
# every query, with and without a cache, and through the batch API. Catches what the shared case files'
# distributions do not reach (flat, needle and lattice hulls, rounded hulls,
# sizes 1e-2 to 1e2, far offsets). Per seed also the scenes an engine sees
# (probe_oracle.py --scenes: small shapes resting on, near or slightly into
# ground slabs 20-1000 m across; planks and plates of aspect 50-1000; needles;
# size ratios to 1e4; pairs up to 5e4 from the origin), checked with FORMAT.md's
# local tolerance (mink-cases --tol local: tol from the smaller shape's size and
# the float resolution of the coordinates, not from the largest coordinate),
# their manifolds too (margins 0 and 0.05, under the same local rule).
# The pairs' contact manifolds too (margins 0 and 0.05: the deepest point, the
# normal, every point on both surfaces). Per seed also resting contacts with
# exact patches (probe_oracle.py --manifolds: boxes on slabs and on boxes, hull
# facets on faces, capsules on faces and on capsules, box edges and corners on
# faces, speculative gaps), their manifolds at margins 0 and 0.025 under all of
# FORMAT.md's manifold rules. Per seed also the inputs degenerate.cases holds,
# drawn afresh (probe_oracle.py --degenerate: duplicated, coplanar, collinear
# and single points, zero radii, tiny, elongated, far, identical, flush,
# parallel, deep, small gaps), every query as for the pairs. Per seed also
# coherent trajectories (probe_oracle.py --traj: B flying into A and out over
# 120 frames while both turn), every query cold and with one cache per
# trajectory, and their manifolds with that cache. And per seed linear casts (probe_oracle.py --casts: the first time within a
# target from bisection on the exact distance), mink_cast of both kernels, and
# rotating ones (probe_oracle.py --toi: conservative advancement on the exact
# distance; spinning shapes, turning planks and needles, starts within the
# target or overlapping), mink_toi of both kernels.
#
# Usage: scripts/probe.sh [--seeds "1 2 3"] [--count N] [--scene-count N] [--manifold-count N] [--cast-count N]
#                        [--toi-count N] [--degenerate-count N] [--traj-count N] [--build DIR | --simd W]
#   --seeds  oracle seeds (default 1 2 3; fixed, so a run is reproducible)
#   --count  cases per seed (default 2000)
#   --scene-count  scene cases per seed, spread evenly over the five scene
#            distributions (default 300; 0 skips them)
#   --manifold-count  manifold cases with patches per seed (default 400;
#            0 skips them)
#   --cast-count  linear casts per seed (default 200; 0 skips them)
#   --toi-count  rotating casts per seed (default 100; 0 skips them)
#   --degenerate-count  degenerate pairs per seed (default 260; 0 skips them)
#   --traj-count  trajectories of 120 frames per seed (default 10; 0 skips them)
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
scene_count=300
cast_count=200
manifold_count=400
toi_count=100
degenerate_count=260
traj_count=10
build="$root/build/test"
simd=""
# count_of OPTION VALUE: VALUE, when it is a count
count_of() {
  case "$2" in '' | *[!0-9]*) echo "probe: $1 wants a count, not '$2'" >&2; exit 2 ;; esac
  echo "$2"
}
while [ $# -gt 0 ]; do
  case "$1" in
    --seeds) seeds=${2:?}; shift ;;
    --count) count=${2:?}; shift ;;
    --scene-count) scene_count=$(count_of "$1" "${2:-}"); shift ;;
    --manifold-count) manifold_count=$(count_of "$1" "${2:-}"); shift ;;
    --traj-count) traj_count=$(count_of "$1" "${2:-}"); shift ;;
    --degenerate-count) degenerate_count=$(count_of "$1" "${2:-}"); shift ;;
    --toi-count) toi_count=$(count_of "$1" "${2:-}"); shift ;;
    --cast-count) cast_count=$(count_of "$1" "${2:-}"); shift ;;
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
# one SET FILE KEEP LABEL ARGS...: one mink-cases check; a failing file is kept
# in the build tree as KEEP
one() {
  local set=$1 file=$2 keep=$3 label=$4 summary
  shift 4
  # check exits 1 on a failed case: the summary line says so below
  summary=$("$cases" check "$file" "$@" | tail -n 1) || true
  printf 'probe: %s %s %s %s\n' "$set" "$seed" "$label" "$summary"
  case "$summary" in
    *" 0 failed") ;;
    *)
      failed=1
      cp "$file" "$build/$keep"
      { "$cases" check "$file" "$@" --verbose || true; } | grep FAIL | head -n 5 | sed 's/^/  /' || true
      ;;
  esac
}
# check SET FILE KEEP [--tol local]: every kernel, query and cache mode, and
# the batch API (penetration, intersect; cold and with caches)
check() {
  local set=$1 file=$2 keep=$3 kernel query cache
  shift 3
  for kernel in ref simd; do
    for query in distance penetration intersect; do
      for cache in "" --cache; do
        one "$set" "$file" "$keep" "$(printf '%-4s %-11s %-7s' "$kernel" "$query" "${cache:-cold}")" \
          --kernel "$kernel" --query "$query" $cache "$@"
      done
    done
  done
  for query in penetration intersect; do
    for cache in "" --cache; do
      one "$set" "$file" "$keep" "$(printf '%-4s %-11s %-7s' batch "$query" "${cache:-cold}")" \
        --batch --query "$query" $cache "$@"
    done
  done
}
# manifolds SET FILE KEEP MARGIN ARGS...: both kernels' manifolds at margin 0
# and MARGIN
manifolds() {
  local set=$1 file=$2 keep=$3 margin=$4 kernel m
  shift 4
  for kernel in ref simd; do
    for m in 0 "$margin"; do
      one "$set" "$file" "$keep" "$(printf '%-4s %-11s %-7s' "$kernel" manifold "m$m")" \
        --kernel "$kernel" --query manifold --margin "$m" "$@"
    done
  done
}
# casts SET FILE KEEP LABEL: both kernels' casts (mink_cast or mink_toi)
casts() {
  local kernel
  for kernel in ref simd; do
    one "$1" "$2" "$3" "$(printf '%-4s %-11s %-7s' "$kernel" cast "$4")" --kernel "$kernel" --query cast
  done
}
# generate OPTION COUNT NAME: probe_oracle.py's OPTION cases into $tmp/NAME-$seed.cases
generate() {
  file="$tmp/$3-$seed.cases"
  "$py" "$root/scripts/probe_oracle.py" $1 "$seed" "$file" "$2" || exit 2
}
for seed in $seeds; do
  generate "" "$count" probe
  check seed "$file" "probe-$seed.cases"
  # contact manifolds of the same pairs: the deepest point, the normal and
  # every point on both surfaces (FORMAT.md's rules without a patch)
  manifolds seed "$file" "probe-$seed.cases" 0.05
  if [ "$scene_count" -gt 0 ]; then
    generate --scenes "$scene_count" scenes
    check scenes "$file" "probe-scenes-$seed.cases" --tol local
    manifolds scenes "$file" "probe-scenes-$seed.cases" 0.05 --tol local
  fi
  if [ "$degenerate_count" -gt 0 ]; then
    generate --degenerate "$degenerate_count" degenerate
    check degenerate "$file" "probe-degenerate-$seed.cases"
  fi
  if [ "$traj_count" -gt 0 ]; then
    generate --traj "$traj_count" traj
    check traj "$file" "probe-traj-$seed.cases"
    manifolds traj "$file" "probe-traj-$seed.cases" 0.05 --cache
  fi
  if [ "$manifold_count" -gt 0 ]; then
    generate --manifolds "$manifold_count" manifolds
    manifolds manifolds "$file" "probe-manifolds-$seed.cases" 0.025
  fi
  if [ "$cast_count" -gt 0 ]; then
    generate --casts "$cast_count" casts
    casts casts "$file" "probe-casts-$seed.cases" cold
  fi
  if [ "$toi_count" -gt 0 ]; then
    generate --toi "$toi_count" toi
    casts toi "$file" "probe-toi-$seed.cases" turning
  fi
done
if [ "$failed" = 1 ]; then
  echo "probe: FAILED; failing seeds' case files kept in $build/ (rerun: $cases check FILE --kernel K --query Q [--batch] --verbose;" \
    "add --tol local for probe-scenes-*.cases)" >&2
  exit 1
fi
echo "probe: all seeds pass ($seeds; $count cases, $scene_count scene cases, $manifold_count manifold cases, $degenerate_count degenerate pairs, $traj_count trajectories, $cast_count casts and $toi_count rotating casts each)"
