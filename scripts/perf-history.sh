#!/usr/bin/env bash
# Performance over time: the instruction-count gate (scripts/perf-regress.sh)
# run on every commit of a range, kept as a JSON-lines history, with a chart
# and a report that name the commit behind every step.
#
# Usage:
#   scripts/perf-history.sh [--last N | --range A..B] [--full|--reduced] [--out DIR]
#                           [--threshold PCT] [--window N] [--jobs N] [--retry-failed]
#                           [--no-chart] [--strict]
#   scripts/perf-history.sh --wall FILE.json [--commit REV] [--machine NAME] [--out DIR]
#
#   --last N      the last N commits of HEAD's first-parent line (default 1)
#   --range A..B  the first-parent commits of A..B
#   --reduced     perf-regress.sh's CI set (default: the set DIR's history holds,
#                 else reduced); about 17 s per commit on 2 cores
#   --full        its full set, three repetitions; 12-26 s per commit (the
#                 commits with manifold entries take the longest)
#   --out DIR     default bench/results/history: history.jsonl (appended),
#                 history.png (the chart), report.txt (the report)
#   --threshold   the report lists entries now more than PCT percent above
#                 their best ever, and commits that moved one by more (default 2)
#   --window N    report and chart only the last N commits of the history
#                 (default: all; the file keeps everything)
#   --jobs N      callgrind runs at a time, passed on to perf-regress.sh (default nproc)
#   --retry-failed  measure again the commits recorded as failed
#   --no-chart    the report only
#   --backend B   measure another backend's build (default avx2; its own history)
#   --strict      exit 1 when a commit measured in this run did not measure
#                 (CI: the script and each commit's perf-regress.sh still fit)
#   --wall FILE   advisory wall time: a Google Benchmark JSON (scripts/bench.sh's
#                 bench.json) tags commit REV (default HEAD) with its medians
#                 (ns/query) and MACHINE (default: the directory name under
#                 bench/results, else the JSON's host name); the chart draws
#                 them as open circles. Without --last/--range nothing is measured.
#
# Each commit, oldest first: a clean worktree (git worktree add, removed after,
# even on failure), that commit's own scripts/perf-regress.sh --backend avx2
# --<set> (its driver, its case files, its CMake build), and the entries of
# its --out JSON appended to DIR/history.jsonl as one line: hash, date,
# subject, build flags, entries (instructions per query). A commit already in
# the file (same set and backend) is skipped, so a CI job can keep the file
# between runs and add its commit each time. A commit that does not build is
# recorded as "build-failed" (one whose driver fails its answer checks as
# "run-failed", one without perf-regress.sh as "unmeasurable") and is left out
# of the chart's lines. Then DIR/report.txt and DIR/history.png are rewritten
# from the whole file.
#
# AVX2: valgrind 3.19 cannot run AVX-512, and counts of another backend do not
# compare with the history's. On a CPU without AVX2 and FMA nothing is
# measured: the script says so, still writes the report, and exits 0 (a CI
# runner without AVX2 is not a failure of the commit).
#
# Exit status: 0 done (also when commits failed to build: they are recorded),
# 1 with --strict when one did not measure, 2 usage error or missing tools.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
py=/usr/bin/python3 # Debian's, stdlib only
pyh="$root/scripts/perf_history.py"

die() { echo "perf-history: $*" >&2; exit 2; }
say() { echo "perf-history: $*" >&2; }
is_root() { [ "$(id -u)" -eq 0 ]; }
apt_install() {
  say "installing $*"
  DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >&2
}

# ------------------------------------------------------------ arguments
last=""
range=""
set_name=""
out="$root/bench/results/history"
threshold=2
window=0
jobs=$(nproc 2>/dev/null || echo 2)
retry=()
chart=1
strict=0
not_ok=0
wall=""
wall_rev=HEAD
machine=""
backend=avx2
while [ $# -gt 0 ]; do
  case $1 in
    --last) [ $# -ge 2 ] || die "--last needs a number"; last=$2; shift ;;
    --range) [ $# -ge 2 ] || die "--range needs A..B"; range=$2; shift ;;
    --reduced) set_name=reduced ;;
    --full) set_name=full ;;
    --out) [ $# -ge 2 ] || die "--out needs a directory"; out=$2; shift ;;
    --threshold) [ $# -ge 2 ] || die "--threshold needs a value"; threshold=$2; shift ;;
    --jobs) [ $# -ge 2 ] || die "--jobs needs a value"; jobs=$2; shift ;;
    --window) [ $# -ge 2 ] || die "--window needs a number"; window=$2; shift ;;
    --retry-failed) retry=(--retry-failed) ;;
    --no-chart) chart=0 ;;
    --strict) strict=1 ;;
    --wall) [ $# -ge 2 ] || die "--wall needs a Google Benchmark JSON file"; wall=$2; shift ;;
    --commit) [ $# -ge 2 ] || die "--commit needs a revision"; wall_rev=$2; shift ;;
    --machine) [ $# -ge 2 ] || die "--machine needs a name"; machine=$2; shift ;;
    --backend) [ $# -ge 2 ] || die "--backend needs a value"; backend=$2; shift ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) die "unknown argument $1 (see --help)" ;;
  esac
  shift
done
[ -z "$last" ] || [ -z "$range" ] || die "--last and --range exclude each other"
[ -n "$last" ] || [ -n "$range" ] || [ -n "$wall" ] || last=1
[ -z "$last" ] || [[ $last =~ ^[1-9][0-9]*$ ]] || die "bad --last $last"
[ -z "$range" ] || [[ $range == *..* ]] || die "bad --range $range (A..B)"
[[ $threshold =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "bad --threshold $threshold"
[[ $jobs =~ ^[1-9][0-9]*$ ]] || die "bad --jobs $jobs"
[[ $window =~ ^[0-9]+$ ]] || die "bad --window $window"
[ -x "$py" ] || die "$py not found (Debian's python3)"
git -C "$root" rev-parse --git-dir >/dev/null 2>&1 || die "$root is not a git checkout"

mkdir -p "$out"
out=$(cd "$out" && pwd)
history="$out/history.jsonl"
# The set: as asked, else the one the history already holds, else reduced.
if [ -z "$set_name" ]; then
  set_name=$("$py" -c '
import sys; sys.path.insert(0, sys.argv[1]); import perf_history as h
s, _ = h.default_set(h.load(sys.argv[2])); print(s or "reduced")' "$root/scripts" "$history")
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mink-perf-history.XXXXXX")
wt="$tmp/src"
cleanup() {
  if [ -d "$wt" ]; then git -C "$root" worktree remove --force "$wt" >/dev/null 2>&1 || true; fi
  rm -rf "$tmp"
  git -C "$root" worktree prune 2>/dev/null || true
}
# The measuring run is a background job in its own process group: `wait`
# returns as soon as a signal comes (a foreground job would first finish, and
# an interrupted build would be recorded as a failed one), and the trap stops
# the whole run (make, valgrind) before the worktree goes.
child=""
on_signal() {
  trap - INT TERM
  if [ -n "$child" ]; then kill -TERM -- "-$child" 2>/dev/null || true; wait "$child" 2>/dev/null || true; fi
  say "interrupted: the commit being measured is not recorded"
  exit 130
}
trap cleanup EXIT
trap on_signal INT TERM

# The order the report and chart use: git's, oldest first.
{ git -C "$root" rev-list --topo-order --reverse HEAD; git -C "$root" rev-list --topo-order --reverse --all; } \
  >"$tmp/order" 2>/dev/null || true

commit_fields() { # rev -> hash, short, date, subject (one per line)
  git -C "$root" log -1 --format='%H%n%h%n%cI%n%s' "$1"
}

# ------------------------------------------------------------ the commits
commits=()
if [ -n "$last" ] || [ -n "$range" ]; then
  if [ -n "$range" ]; then
    list=$(git -C "$root" rev-list --first-parent --reverse "$range") || die "bad range $range"
  else
    list=$(git -C "$root" rev-list --first-parent --reverse -n "$last" HEAD) || die "no HEAD commit"
  fi
  [ -z "$list" ] || mapfile -t commits <<<"$list"
  [ ${#commits[@]} -gt 0 ] || say "no commits in ${range:-the last $last}"
  if [ "$backend" = avx2 ] && ! { grep -qw avx2 /proc/cpuinfo && grep -qw fma /proc/cpuinfo; } 2>/dev/null; then
    say "this CPU lacks AVX2/FMA: the history holds AVX2 builds (valgrind 3.19 cannot run AVX-512," \
      "and another backend's counts do not compare); nothing measured"
    commits=()
  fi
  if [ ${#commits[@]} -gt 0 ] && ! command -v valgrind >/dev/null; then
    if is_root && command -v apt-get >/dev/null; then apt_install valgrind
    else die "valgrind missing; run: sudo apt-get install -y valgrind"; fi
  fi
fi

measure() { # hash short date subject
  local hash=$1 short=$2 date=$3 subject=$4 t0=$SECONDS rc=0 status run_s="" flagfile cflags
  local flags=()
  rm -rf "$wt" "$tmp/build" "$tmp/entries.json" "$tmp/log"
  git -C "$root" worktree prune
  git -C "$root" worktree add --detach --quiet "$wt" "$hash" || die "git worktree add failed for $short"
  if [ ! -f "$wt/scripts/perf-regress.sh" ]; then
    echo "no scripts/perf-regress.sh at this commit" >"$tmp/log"
    status=unmeasurable
  else
    MINK_PERF_BUILD_DIR="$tmp/build" setsid bash "$wt/scripts/perf-regress.sh" "--$set_name" \
      --backend "$backend" --baseline "$tmp/no-baseline.json" --out "$tmp/entries.json" \
      --jobs "$jobs" >"$tmp/log" 2>&1 </dev/null &
    child=$!
    wait "$child" || rc=$?
    child=""
    if [ "$rc" -le 1 ] && [ -s "$tmp/entries.json" ]; then status=ok
    elif grep -qE 'perf-regress: (configure failed|build failed|no .*mink-perf-driver)' "$tmp/log"; then status=build-failed
    elif grep -q 'perf-regress: unknown argument' "$tmp/log"; then status=unmeasurable
    else status=run-failed; fi
    run_s=$(sed -n 's/^perf-regress: callgrind runs took \([0-9]*\)s$/\1/p' "$tmp/log" | tail -n1)
  fi
  # the flags the kernel (library target mink) and the driver were built with
  flags=(--flag "build_type=Release" --flag "simd=$backend")
  for flagfile in "$tmp/build/CMakeFiles/mink.dir/flags.make" \
                  "$tmp/build/bench/CMakeFiles/mink-perf-driver.dir/flags.make"; do
    [ -f "$flagfile" ] || continue
    cflags=$(sed -n 's/^C_FLAGS = //p' "$flagfile" | head -n1)
    case $flagfile in
      */mink.dir/*) flags+=(--flag "c_flags=$cflags") ;;
      *) flags+=(--flag "driver_c_flags=$cflags") ;;
    esac
  done
  git -C "$root" worktree remove --force "$wt" >/dev/null 2>&1 || rm -rf "$wt"
  git -C "$root" worktree prune
  local args=(add-count --history "$history" --set "$set_name" --backend "$backend"
    --hash "$hash" --short "$short" --date "$date" --subject "$subject" --status "$status"
    --seconds $((SECONDS - t0)) --log "$tmp/log" "${flags[@]}")
  [ "$status" != ok ] || args+=(--entries "$tmp/entries.json")
  [ -z "$run_s" ] || args+=(--run-seconds "$run_s")
  "$py" "$pyh" "${args[@]}" || die "could not record $short"
  if [ "$status" = ok ]; then
    say "$short measured in $((SECONDS - t0)) s (callgrind ${run_s:-?} s)"
  else
    not_ok=$((not_ok + 1))
    say "$short: $status, recorded ($((SECONDS - t0)) s); its log's last lines:"
    grep -v '^==' "$tmp/log" | tail -n 5 >&2 || true
  fi
}

n=${#commits[@]}
done_n=0
if [ "$n" -gt 0 ]; then
  say "${n} commits, $set_name set, $backend build, history $history"
fi
for i in "${!commits[@]}"; do
  mapfile -t f < <(commit_fields "${commits[$i]}")
  if "$py" "$pyh" has --history "$history" --set "$set_name" --backend "$backend" \
      --hash "${f[0]}" "${retry[@]}"; then
    say "[$((i + 1))/$n] ${f[1]} already in the history, skipped"
    continue
  fi
  say "[$((i + 1))/$n] ${f[1]} ${f[3]:0:70}"
  measure "${f[0]}" "${f[1]}" "${f[2]}" "${f[3]}"
  done_n=$((done_n + 1))
done

# ------------------------------------------------------------ wall time (advisory)
if [ -n "$wall" ]; then
  [ -f "$wall" ] || die "no such file: $wall"
  if [ -z "$machine" ]; then
    wall_dir=$(cd "$(dirname "$wall")" && pwd)
    case $wall_dir in */bench/results/*) machine=$(basename "$wall_dir") ;; esac
  fi
  mapfile -t f < <(commit_fields "$wall_rev") || die "bad --commit $wall_rev"
  [ ${#f[@]} -ge 4 ] || die "bad --commit $wall_rev"
  m_args=()
  [ -z "$machine" ] || m_args=(--machine "$machine")
  "$py" "$pyh" add-wall --history "$history" --backend "$backend" --hash "${f[0]}" \
    --short "${f[1]}" --date "${f[2]}" --subject "${f[3]}" --json "$wall" "${m_args[@]}"
fi

# ------------------------------------------------------------ report and chart
[ -f "$history" ] || { say "no history yet in $out"; exit 0; }
"$py" "$pyh" report --history "$history" --set "$set_name" --backend "$backend" \
  --order "$tmp/order" --threshold "$threshold" --window "$window" --out "$out/report.txt"
if [ "$chart" = 1 ]; then
  if ! command -v gnuplot >/dev/null; then
    if is_root && command -v apt-get >/dev/null; then apt_install gnuplot-nox || true
    else say "gnuplot missing, no chart; run: sudo apt-get install -y gnuplot-nox"; fi
  fi
  if command -v gnuplot >/dev/null; then
    "$py" "$pyh" chart --history "$history" --set "$set_name" --backend "$backend" \
      --order "$tmp/order" --threshold "$threshold" --window "$window" --png "$out/history.png" || say "chart failed (the report stands)"
  fi
fi
say "$done_n commits measured; history $history, report $out/report.txt"
if [ "$strict" = 1 ] && [ "$not_ok" -gt 0 ]; then
  say "FAIL (--strict): $not_ok of the $done_n commits measured in this run did not measure"
  exit 1
fi
