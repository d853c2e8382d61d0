#!/usr/bin/env bash
# Installs missing packages, then configures and builds Tessera.
# Usage: installers/build.sh [release|dev|asan] [TARGET...]
#   Build trees: build/release, build/dev, build/asan (reused when present; the
#   same trees as the CMake presets of the same names). ccache is used when
#   installed. TESSERA_JOBS sets the parallelism (default 2).
#   TARGETs build only those (run.sh: the three programs, not the tests).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
KIND="${1:-release}"
shift || true
TARGETS=("$@")
JOBS="${TESSERA_JOBS:-2}"

case "$KIND" in
  release) ARGS=(-DCMAKE_BUILD_TYPE=Release) ;;
  dev) ARGS=(-DCMAKE_BUILD_TYPE=Debug) ;;
  asan) ARGS=(-DCMAKE_BUILD_TYPE=Debug -DTESSERA_SANITIZE=ON) ;;
  *) echo "usage: $0 [release|dev|asan]" >&2; exit 2 ;;
esac

"$ROOT/installers/deps.sh"

BUILD="$ROOT/build/$KIND"
# A tree that already exists keeps its generator; a new one uses Ninja.
if [ ! -f "$BUILD/CMakeCache.txt" ]; then ARGS+=(-G Ninja); fi
echo "build: configuring $KIND in $BUILD"
cmake -S "$ROOT" -B "$BUILD" "${ARGS[@]}" >/dev/null
# ccache hits across build trees and checkouts: paths below the checkout are
# hashed relative to it.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$ROOT}"
if [ "${#TARGETS[@]}" -gt 0 ]; then
  echo "build: building ${TARGETS[*]} with $JOBS jobs"
  cmake --build "$BUILD" -j "$JOBS" --target "${TARGETS[@]}"
else
  echo "build: building with $JOBS jobs"
  cmake --build "$BUILD" -j "$JOBS"
fi
echo "build: done ($BUILD)"
