#!/usr/bin/env bash
# Configures and builds Tessera. Usage: installers/build.sh [release|dev|asan]
# Build trees: build/release, build/dev, build/asan (reused when present).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
KIND="${1:-release}"
JOBS="${TESSERA_JOBS:-2}"

"$ROOT/installers/deps.sh"

case "$KIND" in
  release) ARGS=(-DCMAKE_BUILD_TYPE=Release) ;;
  dev) ARGS=(-DCMAKE_BUILD_TYPE=Debug) ;;
  asan) ARGS=(-DCMAKE_BUILD_TYPE=Debug -DTESSERA_SANITIZE=ON) ;;
  *) echo "usage: $0 [release|dev|asan]" >&2; exit 2 ;;
esac

BUILD="$ROOT/build/$KIND"
cmake -S "$ROOT" -B "$BUILD" -G Ninja "${ARGS[@]}" >/dev/null
cmake --build "$BUILD" -j "$JOBS"
echo "build: $BUILD"
