#!/usr/bin/env bash
# shellcheck disable=SC2317  # the check_* helpers run through step(), not directly
# Packaging test: installs mink (Release, static and then shared) into temporary
# prefixes and builds tests/consumer against each, the way an outside project
# would: with CMake (find_package via CMAKE_PREFIX_PATH) and with pkg-config
# (PKG_CONFIG_PATH). Runs the programs, checks the installed files, the package
# version rules and that the shared library exports exactly the MINK_API names.
# Prints PASS or FAIL; exits non-zero on failure.
# Usage: scripts/test-consumer.sh        (MINK_KEEP_TMP=1 keeps the work directory)
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/mink-consumer.XXXXXX")
jobs=$(nproc 2>/dev/null || echo 4)
cc=${CC:-cc}
cxx=${CXX:-c++}
failed=()
nlog=0
variant=""

cleanup() {
  if [ "${MINK_KEEP_TMP:-0}" = 1 ]; then echo "work directory kept: $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

# step NAME CMD...: runs CMD with its output in a log; on failure shows the log's tail.
# STEP_SHOW=1 also shows the last line of a successful run (the programs' summaries).
step() {
  local name=$1; shift
  local log="$work/log.$((++nlog))"
  if "$@" >"$log" 2>&1; then
    if [ "${STEP_SHOW:-0}" = 1 ]; then echo "  ok    $name: $(tail -n 1 "$log")"; else echo "  ok    $name"; fi
    return 0
  fi
  echo "  FAIL  $name"
  tail -n 40 "$log" | sed 's/^/        | /'
  failed+=("$variant: $name")
  return 1
}

# The version the headers declare; the package, mink.pc and the soname must follow it.
hver() { sed -nE "s/^#define MINK_VERSION_$1 +([0-9]+).*/\1/p" "$root/include/mink/mink.h"; }
vmaj=$(hver MAJOR); vmin=$(hver MINOR); vpat=$(hver PATCH)
version="$vmaj.$vmin.$vpat"

# The functions the public headers mark MINK_API, one per line, sorted.
api_names() {
  grep -hE '^MINK_API' "$1"/*.h | sed -E 's/^MINK_API[^(]*[ *](mink_[A-Za-z0-9_]+) *\(.*/\1/' | sort -u
}

check_installed() { # prefix libdir shared
  local prefix=$1 libdir=$2 shared=$3 f ok=0
  for f in "$prefix/include/mink/mink.h" "$prefix/include/mink/mink_ref.h" \
           "$libdir/cmake/mink/minkConfig.cmake" "$libdir/cmake/mink/minkConfigVersion.cmake" \
           "$libdir/cmake/mink/minkTargets.cmake" "$libdir/pkgconfig/mink.pc"; do
    [ -f "$f" ] || { echo "missing: $f"; ok=1; }
  done
  # Only the public headers: kernel/*.h are internal.
  for f in "$prefix"/include/mink/*; do
    case ${f##*/} in mink.h|mink_ref.h) ;; *) echo "unexpected header: $f"; ok=1 ;; esac
  done
  if [ "$shared" = ON ]; then
    [ -e "$libdir/libmink.so" ] || { echo "missing: $libdir/libmink.so"; ok=1; }
    [ ! -e "$libdir/libmink.a" ] || { echo "unexpected: $libdir/libmink.a"; ok=1; }
  else
    [ -f "$libdir/libmink.a" ] || { echo "missing: $libdir/libmink.a"; ok=1; }
    [ ! -e "$libdir/libmink.so" ] || { echo "unexpected: $libdir/libmink.so"; ok=1; }
  fi
  find "$prefix" \( -type f -o -type l \) | sed "s|^$prefix/||" | sort
  return "$ok"
}

# The consumer must have found this prefix's package, not some other mink.
check_found() { # consumer-build expected-dir
  local found; found=$(sed -nE 's/^mink_DIR:PATH=(.*)/\1/p' "$1/CMakeCache.txt")
  echo "mink_DIR=$found"
  [ "$(cd "$found" && pwd -P)" = "$(cd "$2" && pwd -P)" ]
}

# How the executable got mink: shared -> NEEDED libmink.so.<soversion>; static -> no libmink.
check_linkage() { # exe shared
  local needed; needed=$(readelf -d "$1" | grep NEEDED)
  echo "$needed"
  if [ "$2" = ON ]; then grep -q "\[libmink\.so\.$vmaj\.$vmin\]" <<<"$needed"
  else ! grep -q libmink <<<"$needed"; fi
}

# find_package(mink <want>) must be refused for an incompatible version.
expect_version_refused() { # want prefix
  local out; out=$(cmake -S "$root/tests/consumer" -B "$work/consumer-want-$1" \
                         -DCMAKE_PREFIX_PATH="$2" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF \
                         -DMINK_CONSUMER_WANT="$1" 2>&1)
  local rc=$?
  echo "$out" | grep -A 12 "CMake Error"
  # Refused for its version: CMake lists our config as "considered but not accepted".
  # (A here-string, not `echo | grep -q`: with pipefail, grep -q's early exit
  # could fail the pipe with SIGPIPE at random.)
  [ "$rc" -ne 0 ] && grep -q "considered but not accepted" <<<"$out"
}

check_static_names() { # libmink.a
  local stray; stray=$(nm -g --defined-only "$1" | awk 'NF == 3 {print $3}' | grep -v '^mink_' | sort -u)
  [ -z "$stray" ] || { echo "global symbols outside mink_*:" $stray; return 1; }
}

check_exports() { # libdir includedir
  local so; so=$(readlink -f "$1/libmink.so")
  local exported; exported=$(nm -D --defined-only "$so" | awk '{print $NF}' | sort -u)
  local api; api=$(api_names "$2")
  local foreign missing unlisted
  foreign=$(echo "$exported" | grep -v '^mink_')
  missing=$(comm -23 <(echo "$api") <(echo "$exported"))
  unlisted=$(comm -13 <(echo "$api") <(echo "$exported"))
  echo "exported by $(basename "$so") ($(echo "$exported" | wc -l)):"
  while read -r sym; do echo "  $sym"; done <<<"$exported"
  local ok=0
  [ -z "$foreign" ]  || { echo "not mink_*: $foreign"; ok=1; }
  [ -z "$missing" ]  || { echo "MINK_API but not exported: $missing"; ok=1; }
  [ -z "$unlisted" ] || { echo "exported but not MINK_API in the headers: $unlisted"; ok=1; }
  local soname; soname=$(readelf -d "$so" | sed -nE 's/.*SONAME.*\[(.*)\]/\1/p')
  echo "SONAME $soname"
  [ "$soname" = "libmink.so.$vmaj.$vmin" ] || { echo "SONAME should be libmink.so.$vmaj.$vmin"; ok=1; }
  return "$ok"
}

# A C++ translation unit: the headers must compile as C++ and link (extern "C").
write_cxx() {
  cat >"$work/cxx.cpp" <<'EOF'
#include <mink/mink.h>
#include <mink/mink_ref.h>
#include <cstdio>
int main() {
    const mink_shape box = mink_box(1.0f, 1.0f, 1.0f, 0.0f);
    const mink_pose a = {{0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f, 1.0f}};
    const mink_pose b = {{3.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f, 1.0f}};
    mink_result r, s;
    mink_distance(&box, &a, &box, &b, nullptr, &r);
    mink_ref_distance(&box, &a, &box, &b, nullptr, &s);
    const bool ok = r.status == MINK_OK && s.status == MINK_OK && r.distance > 0.999f &&
                    r.distance < 1.001f && s.distance > 0.999f && s.distance < 1.001f;
    std::printf("C++ consumer: distance %g (ref %g): %s\n", r.distance, s.distance, ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
}
EOF
}

run_variant() { # name shared(ON|OFF)
  variant=$1
  local shared=$2
  local build="$work/build-$variant" prefix="$work/prefix-$variant"
  echo "== $variant library"
  # Configured for the default prefix, installed with --prefix: the package and
  # mink.pc must follow the prefix given at install time.
  step "configure mink (Release, tests/bench off, BUILD_SHARED_LIBS=$shared)" \
    cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DMINK_BUILD_TESTS=OFF \
          -DMINK_BUILD_BENCH=OFF -DMINK_BUILD_FUZZ=OFF -DBUILD_SHARED_LIBS="$shared" || return
  step "build mink" cmake --build "$build" -j "$jobs" || return
  step "install mink to $prefix" cmake --install "$build" --prefix "$prefix" || return

  local pc; pc=$(find "$prefix" -path '*/pkgconfig/mink.pc' | head -n 1)
  if [ -z "$pc" ]; then step "find mink.pc" false; return; fi
  local libdir; libdir=$(dirname "$(dirname "$pc")")
  step "installed files" check_installed "$prefix" "$libdir" "$shared" || return

  # --- CMake consumer
  local cbuild="$work/consumer-$variant"
  step "consumer (CMake): find_package(mink 0.1 CONFIG REQUIRED)" \
    cmake -S "$root/tests/consumer" -B "$cbuild" -DCMAKE_BUILD_TYPE=Release \
          -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF || return
  step "consumer (CMake): found this prefix's package" check_found "$cbuild" "$libdir/cmake/mink"
  step "consumer (CMake): build (-Wall -Wextra -Wpedantic -Werror, no -lm of its own)" \
    cmake --build "$cbuild" -j "$jobs" || return
  step "consumer (CMake): links mink $([ "$shared" = ON ] && echo shared || echo statically)" \
    check_linkage "$cbuild/mink_consumer" "$shared"
  STEP_SHOW=1 step "consumer (CMake): run" "$cbuild/mink_consumer"

  # --- pkg-config consumer, the same main.c; the version defines come from mink.pc
  local pcv; pcv=$(PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --modversion mink 2>&1)
  step "pkg-config: mink.pc version $pcv == headers' $version" test "$pcv" = "$version" || return
  step "pkg-config: --atleast-version=$vmaj.$vmin" \
    env PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --atleast-version="$vmaj.$vmin" mink
  local flags static_flags
  flags=$(PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --cflags --libs mink)
  static_flags=$(PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --static --cflags --libs mink)
  flags=${flags%"${flags##*[! ]}"} static_flags=${static_flags%"${static_flags##*[! ]}"} # trailing blanks
  local pv=(-DMINK_EXPECT_MAJOR="${pcv%%.*}" -DMINK_EXPECT_MINOR="$(echo "$pcv" | cut -d. -f2)"
            -DMINK_EXPECT_PATCH="${pcv##*.}")
  local exe="$work/pc-consumer-$variant"
  # The flags come last, as a Makefile would put them: -lmink -lm after main.c.
  # shellcheck disable=SC2086
  step "pkg-config: $cc main.c $flags" \
    "$cc" -std=c11 -O2 -Wall -Wextra -Wpedantic -Werror "${pv[@]}" "$root/tests/consumer/main.c" \
          -o "$exe" $flags || return
  step "pkg-config: links mink $([ "$shared" = ON ] && echo shared || echo statically)" \
    check_linkage "$exe" "$shared"
  STEP_SHOW=1 step "pkg-config: run" env LD_LIBRARY_PATH="$libdir" "$exe"
  if [ "$shared" = OFF ]; then
    # shellcheck disable=SC2086
    step "pkg-config --static: $cc main.c $static_flags" \
      "$cc" -std=c11 -O2 "${pv[@]}" "$root/tests/consumer/main.c" -o "$exe-static" $static_flags &&
    STEP_SHOW=1 step "pkg-config --static: run" "$exe-static"
  fi

  # --- C++ consumer, when there is a C++ compiler
  if command -v "$cxx" >/dev/null 2>&1; then
    # shellcheck disable=SC2086
    step "C++ consumer: headers compile as C++ and link" \
      "$cxx" -std=c++11 -Wall -Wextra -Wpedantic -Werror "$work/cxx.cpp" -o "$exe-cxx" $flags &&
    STEP_SHOW=1 step "C++ consumer: run" env LD_LIBRARY_PATH="$libdir" "$exe-cxx"
  fi

  if [ "$shared" = ON ]; then
    STEP_SHOW=0 step "shared library exports exactly the MINK_API functions (all mink_*)" \
      check_exports "$libdir" "$prefix/include/mink" && sed -n '/^exported by/,/^SONAME/p' "$work/log.$nlog"
  else
    step "find_package(mink 0.2) refused (0.x: same minor only)" expect_version_refused 0.2 "$prefix"
    step "find_package(mink 1) refused" expect_version_refused 1 "$prefix"
    # an engine links libmink.a beside its own code: a global name outside
    # mink_* could clash with one of its own at link time
    step "libmink.a defines global symbols in mink_* only" check_static_names "$libdir/libmink.a"
  fi
}

start=$(date +%s)
echo "test-consumer: mink $version from $root (work: $work)"
if ! command -v pkg-config >/dev/null 2>&1; then
  echo "test-consumer: FAIL (pkg-config not found; run scripts/setup-deps.sh)"
  exit 1
fi
write_cxx
run_variant static OFF
run_variant shared ON

secs=$(( $(date +%s) - start ))
if [ ${#failed[@]} -eq 0 ]; then
  echo "test-consumer: PASS (static and shared, CMake and pkg-config; ${secs}s)"
  exit 0
fi
echo "test-consumer: FAIL (${#failed[@]} step(s); ${secs}s)"
for f in "${failed[@]}"; do echo "  - $f"; done
exit 1
