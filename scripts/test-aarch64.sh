#!/usr/bin/env bash
# Cross-builds mink for aarch64 with the NEON backend and runs every test
# under qemu-user (ctest goes through CMAKE_CROSSCOMPILING_EMULATOR).
# Installs what is missing when run as root (Debian/Ubuntu); otherwise prints
# the command. Idempotent: with everything present it only checks.
# Usage: scripts/test-aarch64.sh [extra cmake -D options...]
# Env:   MINK_BUILD_DIR (default build/aarch64)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

need=()
add_arch=0
command -v cmake >/dev/null 2>&1 || need+=(cmake)
command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 || need+=(gcc-aarch64-linux-gnu)
# only Recommended by the cross gcc: the target's crt files, libc and headers
have_pkg libc6-dev-arm64-cross || need+=(libc6-dev-arm64-cross)
if ! command -v qemu-aarch64 >/dev/null 2>&1 && ! command -v qemu-aarch64-static >/dev/null 2>&1; then
  need+=(qemu-user)
fi
have_pkg libsimde-dev || need+=(libsimde-dev)
if command -v dpkg >/dev/null 2>&1; then
  # the arm64 CMocka needs the foreign architecture enabled first
  if [ "$(dpkg --print-architecture)" != arm64 ] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
    add_arch=1
  fi
  have_pkg libcmocka-dev:arm64 || need+=(libcmocka-dev:arm64)
fi

if [ ${#need[@]} -gt 0 ]; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "test-aarch64: not a Debian/Ubuntu system; please install: ${need[*]}" >&2
    exit 1
  fi
  if [ "$(id -u)" -ne 0 ]; then
    echo "test-aarch64: missing packages. Run:" >&2
    [ $add_arch = 1 ] && echo "  sudo dpkg --add-architecture arm64" >&2
    echo "  sudo apt-get update && sudo apt-get install -y ${need[*]}" >&2
    exit 1
  fi
  echo "test-aarch64: installing ${need[*]}"
  [ $add_arch = 1 ] && dpkg --add-architecture arm64
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need[@]}"
fi

build="${MINK_BUILD_DIR:-$root/build/aarch64}"
cmake -S "$root" -B "$build" -DCMAKE_TOOLCHAIN_FILE="$root/cmake/toolchain-aarch64.cmake" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMINK_SIMD=neon -DMINK_BUILD_BENCH=OFF "$@" >/dev/null
cmake --build "$build" -j"$(nproc)"
# Emulated tests run 10-30x slower than native ones (the slowest takes about
# a minute): 300 s each leaves room and still ends a hang.
ctest --test-dir "$build" --output-on-failure -j"$(nproc)" --timeout 300
