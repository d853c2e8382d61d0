#!/usr/bin/env bash
# README command 2: installs what is missing, builds, runs the whole test suite.
# Usage: installers/test.sh [--asan] [ctest arguments, e.g. -L unit or -R test_hrw]
#   TESSERA_SANITIZE=1 also selects the ASan/UBSan build (build/asan);
#   the default is the Release build in build/release.
#   TESSERA_JOBS sets build and test parallelism (default 2).
# Exits with ctest's status.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
START=$SECONDS

KIND=release
if [ "${TESSERA_SANITIZE:-0}" = "1" ]; then KIND=asan; fi
CTEST_ARGS=()
for a in "$@"; do
  if [ "$a" = "--asan" ]; then KIND=asan; else CTEST_ARGS+=("$a"); fi
done

"$ROOT/installers/build.sh" "$KIND"

# Console tests run without a display.
export QT_QPA_PLATFORM="${QT_QPA_PLATFORM:-offscreen}"
status=0
ctest --test-dir "$ROOT/build/$KIND" -j "${TESSERA_JOBS:-2}" --output-on-failure \
  ${CTEST_ARGS[@]+"${CTEST_ARGS[@]}"} || status=$?
elapsed=$((SECONDS - START))
echo "test.sh: $KIND build, finished in $((elapsed / 60)) min $((elapsed % 60)) s (exit $status)"
exit "$status"
