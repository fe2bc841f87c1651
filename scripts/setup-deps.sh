#!/usr/bin/env bash
# Installs what mink needs to build, test and benchmark on Debian/Ubuntu.
# Idempotent: when everything is present it only checks and returns.
# As root it runs apt-get; otherwise it prints the command to run.
set -euo pipefail

# header-or-binary probe -> Debian package
need=()
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
for pkg in build-essential cmake pkg-config libsimde-dev libcmocka-dev libbenchmark-dev \
           clang valgrind ${MINK_EXTRA_PACKAGES:-}; do
  have_pkg "$pkg" || need+=("$pkg")
done
# Optional: peers for the benchmark table, the chart, compare.py.
if [ "${MINK_SETUP_BENCH:-0}" = 1 ]; then
  for pkg in libccd-dev libbullet-dev libfcl-dev gnuplot-nox libbenchmark-tools python3-scipy; do
    have_pkg "$pkg" || need+=("$pkg")
  done
fi

if [ ${#need[@]} -eq 0 ]; then
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "setup-deps: not a Debian/Ubuntu system; please install: ${need[*]}" >&2
  exit 1
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "setup-deps: missing packages. Run:" >&2
  echo "  sudo apt-get update && sudo apt-get install -y ${need[*]}" >&2
  exit 1
fi
echo "setup-deps: installing ${need[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${need[@]}"
