#!/usr/bin/env bash
# The benchmark command: builds mink-bench for every SIMD width this CPU runs,
# times mink's scalar reference, its SIMD kernel and the peer libraries on
# tests/data/bench.cases (contact manifolds on tests/data/manifold.cases, shape
# casts on tests/data/cast.cases), and prints one table (saved with the merged
# JSON and a chart under bench/results/<machine>/).
#
# Usage: scripts/bench.sh [--quick] [--filter REGEX] [--peers-only | --no-peers]
#                         [--tolerate-wrong] [--widths "sse41 avx2"] [--out DIR]
#                         [--scenes | --no-scenes]
#   --quick           1 repetition instead of 5 (a first look: ~1-2 minutes)
#   --filter REGEX    only benchmarks whose name matches, e.g. 'distance/hull32'
#                     (names are <query>/<group>/<impl>: distance/hull32-sep/ref;
#                     'manifold' selects the manifold family and its coherence,
#                     'cast' the cast family)
#   --peers-only      time only the peer libraries; --no-peers: only mink
#   --tolerate-wrong  time mink's implementations even when some answers are
#                     wrong (default: a wrong answer turns the benchmark into
#                     an error, so a fast wrong path cannot win)
#   --widths LIST     SIMD builds to use (default: all the CPU supports)
#   --out DIR         results directory (default bench/results/<machine>)
# Contact manifolds (a fourth chunk, --query=manifold, run by default):
#   manifold/<group>/<impl>   mink_manifold at margin 0.025, cold, on the
#                     groups of tests/data/manifold.cases and the box and hull
#                     groups of bench.cases; ref, every width, and Bullet
#                     (btBoxBoxDetector, btPolyhedralContactClipping: bullet
#                     with its separating-axis test, bullet-gjk with GJK/EPA's
#                     normal) on the groups of boxes and hulls, with its ok
#                     fraction
#   coherence/manifold/<impl>-cold|warm, coherence/manifold-held/...
#                     the same on traj.cases: every frame, and the frames
#                     whose deciding feature held
# Shape casts (a fifth chunk, --query=cast, run by default):
#   cast/<group>/<impl>   mink_cast (constant rotations) or mink_toi on the
#                     groups of tests/data/cast.cases, cold; ref, every width,
#                     and Bullet's btGjkConvexCast (bullet-gjkcast, translation
#                     only) and btContinuousConvexCollision (bullet-ccd), with
#                     their ok fractions; the table's cast section compares
#                     the best width with the fastest peer right on >= 99 %
# Besides the per-query tables, the same binaries run two families (in the
# chunk of their query; --filter 'coherence|batch' runs only them):
#   coherence/<query>/<impl>-cold|warm   cold vs warm caches on the
#                     trajectories of tests/data/traj.cases
#   batch/<query>/<kind>/<impl>-<variant>   mink_*_batch vs a loop of single
#                     queries vs the 2-thread _mt variant
# Environment: MINK_MACHINE names the results directory (default: hostname);
# MINK_BENCH_MIN_TIME (seconds per repetition, default 0.05);
# MINK_BENCH_CASES (another case file); MINK_BENCH_TRAJ (another trajectory
# file); MINK_BENCH_BATCH_PAIRS (pairs per kind of the batch family, 4096);
# MINK_BENCH_MANIFOLD (another manifold case file); MINK_BENCH_CAST (another
# cast case file).
# Bullet scenes (when Bullet is installed; --no-scenes skips them, --scenes
# runs only them): integrations/bullet's mink-bullet-scenes on the widest
# build, each scene with Bullet's narrowphase and with mink's, and with mink
# reusing answers (narrowphase and step ms per step, each run three times in
# turn; contacts, drift, bodies lost); the table gains their rows and
# <out>/scenes/ their pictures.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

quick=0
filter=""
impls="ref,simd,peers"
tolerate=()
widths=""
out=""
scenes=yes
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1 ;;
    --filter) filter=${2:?--filter needs a regex}; shift ;;
    --filter=*) filter=${1#--filter=} ;;
    --peers-only) impls="peers" ;;
    --no-peers) impls="ref,simd" ;;
    --tolerate-wrong) tolerate=(--tolerate-wrong) ;;
    --widths) widths=${2:?--widths needs a list}; shift ;;
    --widths=*) widths=${1#--widths=} ;;
    --scenes) scenes=only ;;
    --no-scenes) scenes=no ;;
    --out) out=${2:?--out needs a directory}; shift ;;
    --out=*) out=${1#--out=} ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done

say() { printf 'bench: %s\n' "$*" >&2; }

# Packages: the peers, gnuplot and compare.py are optional, so a non-root
# user with missing packages gets the hint and a run with what is there.
if [ -x "$root/scripts/setup-deps.sh" ]; then
  MINK_SETUP_BENCH=1 "$root/scripts/setup-deps.sh" ||
    say "setup-deps reported missing packages (above); continuing with what is installed"
fi

# SIMD widths this CPU can run: the kernel's backends, narrowest first.
if [ -z "$widths" ]; then
  case "$(uname -m)" in
    x86_64|i?86)
      flags=" $(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null | cut -d: -f2) "
      has() { for f in "$@"; do case "$flags" in *" $f "*) ;; *) return 1 ;; esac; done; }
      widths="sse41"
      has avx2 fma && widths="$widths avx2"
      has avx512f avx512dq avx512vl && widths="$widths avx512"
      ;;
    aarch64|arm64) widths="neon" ;;
    *) widths="portable" ;;
  esac
fi

# a filtered run is a narrow look: the scenes only when asked for
[ -n "$filter" ] && [ "$scenes" = yes ] && scenes=no
jobs=$(nproc 2>/dev/null || echo 2)
bins=()
built=()
for w in $widths; do
  build="$root/build/bench-$w"
  say "building mink-bench ($w) in ${build#"$root"/}"
  mkdir -p "$build"
  if cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DMINK_SIMD="$w" \
       -DMINK_BUILD_TESTS=OFF -DMINK_BUILD_BENCH=ON >"$build/configure.log" 2>&1 &&
     cmake --build "$build" -j"$jobs" --target mink-bench >"$build/build.log" 2>&1; then
    bins+=("$build/bench/mink-bench")
    built+=("$w")
  else
    say "build for $w failed; skipping it (logs in ${build#"$root"/}/):"
    tail -n 15 "$build/build.log" 2>/dev/null >&2 || tail -n 15 "$build/configure.log" >&2
  fi
done
[ ${#bins[@]} -gt 0 ] || { say "no mink-bench could be built"; exit 1; }

machine=${MINK_MACHINE:-$(hostname -s 2>/dev/null || uname -n)}
out=${out:-$root/bench/results/$machine}
reps=5
[ "$quick" = 1 ] && reps=1
# Full unfiltered runs are the committed results; anything narrower is "partial".
name=bench
{ [ "$quick" = 1 ] || [ -n "$filter" ] || [ "$impls" != "ref,simd,peers" ]; } && name=partial
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

common=(--benchmark_min_time="${MINK_BENCH_MIN_TIME:-0.05}"
        --benchmark_repetitions=1
        --benchmark_enable_random_interleaving=true
        --benchmark_out_format=json "${tolerate[@]}")
[ -n "$filter" ] && common+=(--benchmark_filter="$filter")

# Interleaved: for each query, each repetition runs every build in turn.
# Reference and peers come from the first build only (they do not depend on
# the SIMD width); each build adds its own simd-<width>. Each repetition
# runs a fresh copy of the binary: on the VMs here a copy's timings differ
# from another's by up to 35 % on some groups, steadily from run to run (the
# code lands on other physical pages), so the table's median is over copies,
# not over one placement. A crash loses one chunk, not the run.
start=$(date +%s)
failed=0
queries="intersect distance penetration manifold cast"
[ "$scenes" = only ] && queries=""
for q in $queries; do
  say "$q: $reps repetition(s) of ${built[*]}"
  for rep in $(seq "$reps"); do
    for k in "${!bins[@]}"; do
      w=${built[$k]}
      if [ "$k" -eq 0 ]; then sel=$impls; else sel=simd; fi
      if [ "$k" -gt 0 ] && [ "$impls" = "peers" ]; then continue; fi
      json="$tmp/$q-$w-$rep.json"
      log="$tmp/$q-$w-$rep.log"
      copy="$tmp/mink-bench-$w"
      cp "${bins[$k]}" "$copy"
      if ! "$copy" --impl="$sel" --query="$q" "${common[@]}" --benchmark_out="$json" >"$log" 2>&1; then
        say "mink-bench ($w, $q, repetition $rep) exited with an error; last lines:"
        tail -n 5 "$log" >&2
        failed=1
      fi
      rm -f "$copy"
      [ -s "$json" ] || rm -f "$json"   # the filter matched nothing in this chunk
      # each repetition finds the same wrong answers: report them once
      [ "$rep" -eq 1 ] && { grep -h 'ERROR OCCURRED' "$log" | sed 's/ *ERROR OCCURRED: / /' | sort -u | sed 's/^/  error: /' >&2 || true; }
    done
  done
done
say "timed in $(( $(date +%s) - start )) s"

git_rev=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
git -C "$root" diff --quiet HEAD -- kernel include 2>/dev/null || git_rev="$git_rev+dirty"
cpu=$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2 | sed 's/^ *//' || true)
py=/usr/bin/python3
[ -x "$py" ] || py=python3
run="scripts/bench.sh"
[ "$quick" = 1 ] && run="$run --quick"
[ -n "$filter" ] && run="$run --filter '$filter'"
[ "$impls" != "ref,simd,peers" ] && run="$run (impls: $impls)"
notes=(--note "machine: $machine; CPU: ${cpu:-unknown} ($jobs cores); mink $git_rev; builds: ${built[*]}"
       --note "run: $run; min_time ${MINK_BENCH_MIN_TIME:-0.05} s per repetition; cold caches (coherence: cold and warm)")
shopt -s nullglob
runs=("$tmp"/*.json)
if [ "$scenes" != only ]; then
  [ ${#runs[@]} -gt 0 ] || { say "no results"; exit 1; }
  "$py" "$root/scripts/bench_table.py" --out-dir "$out" --name "$name" "${notes[@]}" "${runs[@]}"
  saved="$out/$name.txt, $out/$name.json"
  [ -f "$out/$name.png" ] && saved="$saved, $out/$name.png"
  say "results: $saved"
fi

# Bullet scenes: Bullet's narrowphase against mink's inside Bullet itself
if [ "$scenes" != no ]; then
  build="$root/build/bench-${built[${#built[@]}-1]}"
  if cmake --build "$build" -j"$jobs" --target mink-bullet-scenes >"$build/scenes-build.log" 2>&1 &&
     [ -x "$build/integrations/bullet/mink-bullet-scenes" ]; then
    mkdir -p "$out/scenes"
    say "Bullet scenes (${built[${#built[@]}-1]} build): pyramid, pile, stack (Bullet, mink, mink reusing answers) and ccd (three runs); 600 steps, each run three times in turn"
    if "$build/integrations/bullet/mink-bullet-scenes" --out "$out/scenes" | tee "$out/scenes/scenes.txt"; then
      if [ "$scenes" != only ] && [ -f "$out/$name.txt" ]; then
        { echo; echo "Bullet scenes (integrations/bullet, 60 Hz, 600 steps; medians over steps):"; cat "$out/scenes/scenes.txt"; } >>"$out/$name.txt"
      fi
      bash "$root/integrations/bullet/plot-scenes.sh" "$out/scenes" || say "scene pictures skipped (gnuplot?)"
    else
      say "mink-bullet-scenes failed"
      failed=1
    fi
  else
    say "Bullet scenes skipped: Bullet not found (MINK_SETUP_BENCH=1 scripts/setup-deps.sh installs it)"
  fi
fi
exit $failed
