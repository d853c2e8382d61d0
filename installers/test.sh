#!/usr/bin/env bash
# README command 2: installs what is missing, builds, runs the whole test suite.
# Usage: installers/test.sh [--asan] [ctest arguments, e.g. -L unit]
# TESSERA_SANITIZE=1 also selects the ASan/UBSan build.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
START=$(date +%s)

KIND=release
if [ "${1:-}" = "--asan" ]; then KIND=asan; shift; fi
if [ "${TESSERA_SANITIZE:-0}" = "1" ]; then KIND=asan; fi

"$ROOT/installers/build.sh" "$KIND"

export QT_QPA_PLATFORM=offscreen
status=0
ctest --test-dir "$ROOT/build/$KIND" -j "${TESSERA_JOBS:-2}" --output-on-failure "$@" || status=$?
echo "test.sh: finished in $(( $(date +%s) - START )) s (exit $status)"
exit "$status"
