#!/usr/bin/env bash
# Fuzzes Tessera's parsers with libFuzzer (clang-14), on purpose and for as
# long as asked: builds the harnesses in their own tree and runs each for N
# seconds on its seed corpus.
# Usage: tests/fuzz/run.sh [--seconds N] [--jobs J] [harness...]
#   --seconds N  per harness (default 60)
#   --jobs J     harnesses run at once (default 1; TESSERA_JOBS builds, default 2)
#   harness      names as in tests/fuzz/fuzz_<name>.cpp (default: all)
# Build tree: build/fuzz (TESSERA_FUZZ_BUILD overrides), clang++-14, Ninja,
# ccache. Inputs the fuzzer finds go to build/fuzz/corpus/<harness>/ (the
# seeds in tests/fuzz/corpus/ are only read); a crashing input is saved in
# build/fuzz/crashes/<harness>/ and named in the output.
# Exits 1 when any harness crashed, hung, leaked or broke a property.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
FUZZ_SECONDS=60
RUN_JOBS=1
NAMES=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) FUZZ_SECONDS="$2"; shift 2 ;;
    --jobs) RUN_JOBS="$2"; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    -*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
    *) NAMES+=("$1"); shift ;;
  esac
done
if [ "${#NAMES[@]}" -eq 0 ]; then
  for f in "$ROOT"/tests/fuzz/fuzz_*.cpp; do
    n="$(basename "$f" .cpp)"
    NAMES+=("${n#fuzz_}")
  done
fi
for n in "${NAMES[@]}"; do
  if [ ! -f "$ROOT/tests/fuzz/fuzz_$n.cpp" ]; then echo "run.sh: no harness $n" >&2; exit 2; fi
done

"$ROOT/installers/deps.sh"
BUILD="${TESSERA_FUZZ_BUILD:-$ROOT/build/fuzz}"
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$ROOT}"
START=$SECONDS
if [ ! -f "$BUILD/CMakeCache.txt" ]; then
  echo "fuzz: configuring $BUILD"
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++-14 \
    -DTESSERA_FUZZ=ON -DTESSERA_BUILD_TESTS=OFF >/dev/null
fi
TARGETS=()
for n in "${NAMES[@]}"; do TARGETS+=("fuzz_$n"); done
echo "fuzz: building ${#TARGETS[@]} harnesses with ${TESSERA_JOBS:-2} jobs"
cmake --build "$BUILD" -j "${TESSERA_JOBS:-2}" --target "${TARGETS[@]}"
echo "fuzz: built in $((SECONDS - START)) s"

# Undefined behaviour and leaks end a run like a crash.
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"

# fuzz_one NAME: runs one harness; its log is build/fuzz/logs/NAME.log.
fuzz_one() {
  local n="$1"
  local work="$BUILD/corpus/$n" crashes="$BUILD/crashes/$n" log="$BUILD/logs/$n.log"
  mkdir -p "$work" "$crashes" "$BUILD/logs"
  local rc=0
  "$BUILD/tests/fuzz/fuzz_$n" -max_total_time="$FUZZ_SECONDS" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$crashes/" "$work" "$ROOT/tests/fuzz/corpus/$n" >"$log" 2>&1 || rc=$?
  local execs speed
  execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)"
  speed="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)"
  if [ "$rc" -eq 0 ]; then
    echo "fuzz: $n ok: ${execs:-?} runs in ${FUZZ_SECONDS} s (${speed:-?}/s), corpus $(find "$work" -type f | wc -l) inputs"
    return 0
  fi
  echo "fuzz: $n FAILED (exit $rc) after ${execs:-?} runs; log $log"
  grep -m 3 -E '^==[0-9]+==ERROR|runtime error|fuzz property broken|ERROR: libFuzzer' "$log" | sed 's/^/fuzz:   /' || true
  sed -n 's/.*Test unit written to /fuzz:   input saved in /p' "$log"
  return 1
}

status=0
running=0
for n in "${NAMES[@]}"; do
  if [ "$running" -ge "$RUN_JOBS" ]; then
    wait -n || status=1
    running=$((running - 1))
  fi
  fuzz_one "$n" &
  running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
  wait -n || status=1
  running=$((running - 1))
done
echo "fuzz: ${#NAMES[@]} harnesses, $FUZZ_SECONDS s each, finished in $((SECONDS - START)) s (exit $status)"
exit "$status"
