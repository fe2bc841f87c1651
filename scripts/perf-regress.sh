#!/usr/bin/env bash
# The performance regression gate: instructions per query under callgrind,
# compared with the committed baseline bench/baseline/<backend>.json.
#
# Wall time on shared CI machines is noise; callgrind's instruction counts
# (Ir) are deterministic for a given binary, so a 2 % rise is a real change.
# bench/perf_driver.c delimits each (group, query, kernel) with client
# requests; this script builds it, runs it under callgrind, turns every dump
# into instructions per query and compares.
#
# Usage:
#   scripts/perf-regress.sh [--reduced|--full] [--threshold PCT] [--update | --update-new]
#                           [--backend avx2|sse41|...] [--baseline FILE] [--out FILE] [--jobs N]
#   scripts/perf-regress.sh --compare-json OLD.json NEW.json
#
#   --reduced     (default) the CI set: a few groups x queries of the simd kernel,
#                 one ref group, the warm-cache trajectories, simd contact
#                 manifolds (a few groups of manifold.cases and bench.cases,
#                 traj.cases cold and warm), and shape casts (three groups of
#                 cast.cases, both kernels); one repetition
#   --full        every group x query (intersect, distance, penetration,
#                 manifold) x kernel of bench.cases, every group of
#                 manifold.cases (manifold), traj.cases cold and warm and
#                 every group of cast.cases (cast), for both kernels; three
#                 repetitions
#                 (manifold: mink_manifold at margin 0.025, manifold.cases's
#                 speculative margin; entries manifold/<group>/<kernel>;
#                 cast: mink_cast, or mink_toi where a shape turns, cold;
#                 entries cast/<group>/<kernel>)
#   --threshold   fail when an entry rises by more than PCT percent (default 2)
#   --update      write the measured entries into the baseline (a reduced run
#                 replaces only its own entries, a full run the whole file)
#   --update-new  add only the measured entries the baseline lacks (a new
#                 family or group); every entry already there stays as it is,
#                 and is gated as without it (nothing is written on a FAIL)
#   --compare-json  advisory: Google Benchmark's compare.py on two
#                 `mink-bench --benchmark_format=json` outputs; never fails
#
# Exit status: 0 pass, 1 some entry rose by more than the threshold,
# 2 the run itself failed (build, valgrind, or a kernel answering wrong).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
py=/usr/bin/python3 # Debian's, stdlib only

die() { echo "perf-regress: $*" >&2; exit 2; }
is_root() { [ "$(id -u)" -eq 0 ]; }
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
apt_install() {
  echo "perf-regress: installing $*" >&2
  DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >&2
}

# ------------------------------------------------------------ --compare-json
compare_json() {
  local old=$1 new=$2 cmp=/usr/share/benchmark/compare.py
  if [ ! -f "$old" ] || [ ! -f "$new" ]; then
    echo "perf-regress: no such file: $old or $new (advisory, not failing)"
    return 0
  fi
  if [ ! -f "$cmp" ]; then
    if is_root && command -v apt-get >/dev/null; then apt_install libbenchmark-tools || true
    else echo "perf-regress: compare.py missing; run: sudo apt-get install -y libbenchmark-tools"; return 0; fi
  fi
  if ! "$py" -c 'import scipy' 2>/dev/null; then
    if is_root && command -v apt-get >/dev/null; then apt_install python3-scipy || true
    else echo "perf-regress: compare.py needs scipy; run: sudo apt-get install -y python3-scipy"; return 0; fi
  fi
  # Advisory: wall-time comparisons on shared machines inform, never gate.
  local color=()
  [ -t 1 ] || color=(--no-color) # CI logs: no escape codes
  "$py" "$cmp" "${color[@]}" benchmarks "$old" "$new" || echo "perf-regress: compare.py failed (advisory, not failing)"
  return 0
}

# ------------------------------------------------------------ arguments
set_name=reduced
threshold=2
update=0
backend=""
baseline=""
out=""
jobs=$(nproc 2>/dev/null || echo 2)
while [ $# -gt 0 ]; do
  case $1 in
    --reduced) set_name=reduced ;;
    --full) set_name=full ;;
    --threshold) [ $# -ge 2 ] || die "--threshold needs a value"; threshold=$2; shift ;;
    --threshold=*) threshold=${1#*=} ;;
    --update) update=1 ;;
    --update-new) update=new ;;
    --backend) [ $# -ge 2 ] || die "--backend needs a value"; backend=$2; shift ;;
    --baseline) [ $# -ge 2 ] || die "--baseline needs a value"; baseline=$2; shift ;;
    --out) [ $# -ge 2 ] || die "--out needs a value"; out=$2; shift ;;
    --jobs) [ $# -ge 2 ] || die "--jobs needs a value"; jobs=$2; shift ;;
    --compare-json) [ $# -ge 3 ] || die "--compare-json needs OLD.json NEW.json"; compare_json "$2" "$3"; exit 0 ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) die "unknown argument $1 (see --help)" ;;
  esac
  shift
done
[[ $threshold =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "bad --threshold $threshold"
[[ $jobs =~ ^[1-9][0-9]*$ ]] || die "bad --jobs $jobs"

# ------------------------------------------------------------ tools
[ -x "$py" ] || die "$py not found (Debian's python3 is needed to parse the callgrind output)"
if ! command -v valgrind >/dev/null; then
  if is_root && command -v apt-get >/dev/null; then apt_install valgrind
  else die "valgrind missing; run: sudo apt-get install -y valgrind"; fi
fi

# valgrind 3.19 cannot run AVX-512 code, so the widest gated backend is AVX2.
if [ -z "$backend" ]; then
  case $(uname -m) in
    aarch64|arm64) backend=neon ;;
    *) if grep -qw avx2 /proc/cpuinfo && grep -qw fma /proc/cpuinfo; then backend=avx2; else backend=sse41; fi ;;
  esac
fi
[ -n "$baseline" ] || baseline="$root/bench/baseline/$backend.json"
build="${MINK_PERF_BUILD_DIR:-$root/build/perf}"
[ -n "$out" ] || out="$build/perf-$set_name.json"

# ------------------------------------------------------------ build
echo "perf-regress: building ($backend, Release) in $build" >&2
mkdir -p "$build"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DMINK_SIMD="$backend" \
  -DMINK_BUILD_TESTS=OFF -DMINK_BUILD_BENCH=ON >"$build/configure.log" 2>&1 \
  || { cat "$build/configure.log" >&2; die "configure failed"; }
cmake --build "$build" --target mink-perf-driver -j"$jobs" >"$build/build.log" 2>&1 \
  || { cat "$build/build.log" >&2; die "build failed"; }
driver="$build/bench/mink-perf-driver"
[ -x "$driver" ] || die "no $driver (is bench/perf.cmake included from bench/CMakeLists.txt?)"
grep -q MINK_HAVE_CALLGRIND "$build/bench/CMakeFiles/mink-perf-driver.dir/flags.make" 2>/dev/null \
  || die "the driver was built without valgrind/callgrind.h: install valgrind and rerun"

# ------------------------------------------------------------ the sets
# One line per driver invocation: "<case file> <driver arguments>". Each runs
# in its own valgrind, in parallel up to --jobs.
bench="$root/tests/data/bench.cases"
traj="$root/tests/data/traj.cases"
manifold="$root/tests/data/manifold.cases"
cast="$root/tests/data/cast.cases"
if [ "$set_name" = reduced ]; then
  # Small, medium and huge hulls, the primitives, every point query of the
  # simd kernel; one ref group; the cache on trajectories; simd manifolds of
  # box stacks, faces, capsules, a mix, two bench.cases groups and the
  # trajectories (after the point queries of the same run: they only add
  # entries); casts of both kernels: hull pairs moving linearly and turning,
  # and fast small bodies against thin planks. One repetition: the counts are
  # exact, repetitions only amortize a constant.
  runs=(
    "$bench --kernel simd --query intersect,distance,penetration --groups hull8-sep,hull32-pen,box-box-pen,capsule-box --reps 1"
    "$bench --kernel simd --query distance,penetration --groups hull128-sep,hull1024-sep,sphere-hull32 --reps 1"
    "$bench --kernel ref --query distance,penetration --groups hull32-pen --reps 1"
    "$traj --warm --kernel simd --query distance,penetration,manifold --reps 1"
    "$manifold --kernel simd --query manifold --groups box-slab,box-box,hull-face,capsule-flat,general --reps 1"
    "$bench --kernel simd --query manifold --groups box-box-pen,hull8-pen --reps 1"
    "$cast --kernel simd,ref --query cast --groups lin-hull,rot-hull,bullet-plank --reps 1"
  )
else
  # --query all: intersect, distance, penetration, then manifold
  runs=(
    "$bench --kernel simd --query all --reps 3"
    "$bench --kernel ref --query all --reps 3"
    "$traj --warm --kernel simd --query all --reps 3"
    "$traj --warm --kernel ref --query all --reps 3"
    "$manifold --kernel simd --query manifold --reps 3"
    "$manifold --kernel ref --query manifold --reps 3"
    "$cast --kernel simd --query cast --reps 3"
    "$cast --kernel ref --query cast --reps 3"
  )
fi

work="$build/callgrind-$set_name"
rm -rf "$work"
mkdir -p "$work"
start=$(date +%s)
echo "perf-regress: ${#runs[@]} callgrind runs ($set_name set, $jobs at a time)" >&2
run_one() { # index, arguments...
  local i=$1; shift
  local d="$work/run$i" rc
  mkdir -p "$d"
  printf '%s\n' "$*" >"$d/args"
  # --instr-atstart=no: nothing is instrumented until the driver's
  # CALLGRIND_START_INSTRUMENTATION, so loading the cases runs at ~4x, not ~50x.
  valgrind --tool=callgrind --instr-atstart=no --dump-line=no --dump-instr=no \
    --callgrind-out-file="$d/cg.out" "$driver" "$@" >"$d/manifest" 2>"$d/valgrind.log" && rc=0 || rc=$?
  echo "$rc" >"$d/rc"
}
pids=()
for i in "${!runs[@]}"; do
  # shellcheck disable=SC2086 # the run line is split into arguments on purpose
  run_one "$i" ${runs[$i]} &
  pids+=($!)
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do sleep 0.2; done
done
wait "${pids[@]}" || true
elapsed=$(($(date +%s) - start))
echo "perf-regress: callgrind runs took ${elapsed}s" >&2

failed=0
for i in "${!runs[@]}"; do
  d="$work/run$i"
  rc=$(cat "$d/rc" 2>/dev/null || echo 99)
  if [ "$rc" != 0 ]; then
    failed=1
    echo "perf-regress: driver run failed (exit $rc): ${runs[$i]}" >&2
    grep '^check .* fail [1-9]' "$d/manifest" >&2 || true
    grep -v '^==' "$d/valgrind.log" | tail -n 5 >&2 || true
    if grep -q 'unhandled instruction bytes' "$d/valgrind.log"; then
      # e.g. valgrind 3.19 lacks the register form of vmovq (C5 .. D6): a
      # code change can make gcc emit it; the kernel is fine, valgrind is not
      echo "perf-regress: valgrind cannot decode an instruction of this build (see the bytes above);" \
        "restructure the code that compiles to it, or use a newer valgrind" >&2
    fi
  fi
done
[ $failed = 0 ] || die "a driver run failed (a kernel answering wrong fails the gate too); outputs in $work"

# ------------------------------------------------------------ counts, JSON, comparison
compiler=$(grep -m1 '^CMAKE_C_COMPILER:' "$build/CMakeCache.txt" | cut -d= -f2-)
compiler_version=$("$compiler" --version 2>/dev/null | head -n1 || echo unknown)
PERF_WORK="$work" PERF_OUT="$out" PERF_BASELINE="$baseline" PERF_SET="$set_name" \
PERF_BACKEND="$backend" PERF_THRESHOLD="$threshold" PERF_UPDATE="$update" \
PERF_COMPILER="$compiler_version" PERF_VALGRIND="$(valgrind --version)" \
  "$py" - <<'PY'
import glob, json, os, re, sys

env = os.environ
work, out, base_path = env["PERF_WORK"], env["PERF_OUT"], env["PERF_BASELINE"]
threshold = float(env["PERF_THRESHOLD"])
update = env["PERF_UPDATE"] == "1"
update_new = env["PERF_UPDATE"] == "new"
full = env["PERF_SET"] == "full"

def fail(msg):
    print("perf-regress: " + msg, file=sys.stderr)
    sys.exit(2)

# Each run: the manifest (label -> cases, reps) and one callgrind dump per label.
entries, sources = {}, {}
for run in sorted(glob.glob(os.path.join(work, "run*"))):
    manifest = {}
    with open(os.path.join(run, "manifest")) as f:
        for line in f:
            t = line.split()
            if t and t[0] in ("entry", "calib"):
                manifest[t[1]] = (int(t[3]), int(t[5]))
    dumps, paths = {}, {}
    for path in glob.glob(os.path.join(run, "cg.out.*")):
        label = total = None
        with open(path) as f:
            for line in f:
                m = re.match(r"desc: Trigger: Client Request: (.*)$", line)
                if m:
                    label = m.group(1).strip()
                m = re.match(r"(?:totals|summary): (\d+)", line)
                if m:
                    total = int(m.group(1))
        if label is not None and total is not None:
            if label in dumps:
                fail("%s: two dumps labelled %s" % (run, label))
            dumps[label] = total
            paths[label] = path
    if "calib" not in dumps:
        fail("%s: no calib dump (was the driver built with callgrind.h?)" % run)
    calib = dumps["calib"]
    for label, (cases, reps) in manifest.items():
        if label == "calib":
            continue
        if label not in dumps:
            fail("%s: no callgrind dump for %s" % (run, label))
        group, query, kernel = label.split("/")
        # "<query>/<group>/<kernel>", as mink-bench names its benchmarks
        key = "%s/%s/%s" % (query, group, kernel)
        entries[key] = round((dumps[label] - calib) / (cases * reps), 1)
        sources[key] = (paths[label], cases * reps)
if not entries:
    fail("no entries measured")

meta = {"backend": env["PERF_BACKEND"], "compiler": env["PERF_COMPILER"],
        "valgrind": env["PERF_VALGRIND"],
        "unit": "callgrind instructions (Ir) per query, Release build"}

def self_costs(path):
    """Self Ir per function of one callgrind dump (call costs excluded)."""
    names, cost, fn, skip = {}, {}, None, False
    for line in open(path):
        m = re.match(r"(c?fn)=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
        if m:
            if m.group(3):
                names[m.group(2)] = m.group(3)
            if m.group(1) == "fn":
                fn = m.group(2)
            continue
        if line.startswith("calls="):
            skip = True  # the next cost line is the callee's inclusive cost
            continue
        if fn is not None and re.match(r"[0-9+*-]", line):
            if skip:
                skip = False
                continue
            cost[fn] = cost.get(fn, 0) + int(line.split()[-1])
    return sorted(((c, names.get(f, f)) for f, c in cost.items()), reverse=True)

def write(path, ents):
    doc = dict(meta)
    doc["entries"] = dict(sorted(ents.items()))
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    os.replace(tmp, path)

os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
write(out, entries)

old_doc = {}
if os.path.exists(base_path):
    with open(base_path) as f:
        old_doc = json.load(f)
old = old_doc.get("entries", {})

for key in ("compiler", "valgrind"):
    if old_doc.get(key) and old_doc[key] != meta[key]:
        print("perf-regress: note: baseline %s is %r, this run %r: counts may differ for that reason alone"
              % (key, old_doc[key], meta[key]))

rose, fell, added = [], [], []
w = max(len(k) for k in entries)
print("%-*s %12s %12s %9s" % (w, "entry (Ir/query)", "old", "new", "delta"))
for k in sorted(entries):
    new = entries[k]
    if k not in old:
        added.append(k)
        print("%-*s %12s %12.1f %9s" % (w, k, "-", new, "new"))
        continue
    o = old[k]
    delta = (new - o) / o * 100.0 if o else 0.0
    mark = ""
    if delta > threshold:
        rose.append((k, delta))
        mark = "  <-- ROSE"
    elif delta < -threshold:
        fell.append((k, delta))
        mark = "  (fell)"
    print("%-*s %12.1f %12.1f %+8.2f%%%s" % (w, k, o, new, delta, mark))
unmeasured = sorted(set(old) - set(entries))
if unmeasured:
    print("(%d baseline entries not in the %s set)" % (len(unmeasured), env["PERF_SET"]))
print("wrote %s" % out)

if update:
    merged = dict(entries) if full else dict(old, **entries)
    write(base_path, merged)
    print("perf-regress: baseline %s updated (%d entries, %s run)" % (base_path, len(merged), env["PERF_SET"]))
    sys.exit(0)
if not old:
    print("perf-regress: no baseline %s; create it with --update" % base_path)
    sys.exit(0)
if added:
    print("perf-regress: %d entries not in the baseline (not gated): %s" % (len(added), ", ".join(added)))
if fell:
    print("perf-regress: %d entries fell by more than %g %%: consider --update" % (len(fell), threshold))
if rose:
    print("perf-regress: FAIL: %d entries rose by more than %g %%:" % (len(rose), threshold))
    for k, d in rose:
        print("  %s %+.2f%%" % (k, d))
    # Where the instructions of the worst risen entries go now (self Ir per
    # query), to point at the function that grew; every dump stays in $work.
    worst = sorted(rose, key=lambda e: -e[1])
    for k, d in worst[:8]:
        path, n = sources[k]
        top = ", ".join("%s %.0f" % (name, c / n) for c, name in self_costs(path)[:5])
        print("  %s now spends: %s" % (k, top))
    if len(worst) > 8:
        print("  (profiles of the other %d under %s)" % (len(worst) - 8, work))
    sys.exit(1)
# --update-new: only when the entries already there pass the gate
if update_new:
    doc = dict(old_doc)
    doc["entries"] = dict(sorted(dict(old, **{k: entries[k] for k in added}).items()))
    tmp = base_path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    os.replace(tmp, base_path)
    print("perf-regress: baseline %s: %d new entries added, the %d others unchanged"
          % (base_path, len(added), len(old)))
print("perf-regress: PASS: no entry rose by more than %g %%" % threshold)
PY
