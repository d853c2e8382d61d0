#!/usr/bin/env bash
# Runs the benchmark suite (P1, P2, P3, P4, P5, P6 (dSort), P7, P8 (ETL), P9 (S3), P11 (ishard),
# P12 (small PUTs with fsync), P13 (copies, erasure coding) and the client check) one
# script after the other and writes docs/benchmarks.md: the machine, the
# versions, the date, the command, and every ratio against its goal.
# About 25 minutes with the defaults (the 1M-name bucket, ETL and the 70,000-sample ishard take most).
# Usage: tests/bench/run_all.sh [--quick] [--names N] [--out FILE]
#   --quick    2 s measurements, 1 round, 100,000 names, 5,000 ETL samples, a 32 MiB S3 object,
#              10,000 demo samples for P10a, 20,000 for P10c (1,000,000 otherwise),
#              10,000 ishard samples for P11 (70,000 otherwise)
#   --names N  names in the P7 bucket (default 1,000,000)
#   --out F    the report (default docs/benchmarks.md; "-" = stdout only)
# Needs: a release build (installers/build.sh release, or TESSERA_BUILD=...)
# and installers/bench-deps.sh. Run it on an otherwise idle machine: other
# work on the CPUs moves both sides of a ratio, but not always equally.
set -euo pipefail
ARGS="$*"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
DURATION=5
ROUNDS=3
NAMES=1000000
ETL_LIMIT=""
S3_ARGS=""
P10_ARGS=""
P10C_SAMPLES=1000000
ISHARD_SAMPLES=70000
OUT="$ROOT/docs/benchmarks.md"
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) DURATION=2; ROUNDS=1; NAMES=100000; ETL_LIMIT="--limit 5000"; S3_ARGS="--size-mib 32 --small-count 16"
      P10_ARGS="--limit 10000"; P10C_SAMPLES=20000; ISHARD_SAMPLES=10000; shift ;;
    --names) NAMES="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    *) echo "usage: $0 [--quick] [--names N] [--out FILE]" >&2; exit 2 ;;
  esac
done
source "$HERE/lib.sh"
bench_require nginx wrk dd

RESULTS="$(mktemp)"
export RESULTS
LOG="$(mktemp)"
trap 'rm -f "$RESULTS" "$LOG"' EXIT
started=$(date -u '+%Y-%m-%d %H:%M UTC')
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
t0=$SECONDS
run() {
  echo "== $*" | tee -a "$LOG" >&2
  "$@" 2>&1 | tee -a "$LOG" >&2
}
run "$HERE/small_get.sh" --duration "$DURATION" --rounds "$ROUNDS"
run "$HERE/large_get.sh" --duration "$DURATION" --rounds "$ROUNDS"
run "$HERE/put.sh" --duration "$DURATION" --rounds "$ROUNDS"
run "$HERE/small_put.sh" --duration "$DURATION" --rounds "$ROUNDS"
run "$HERE/shard_read.sh" --duration "$DURATION" --rounds "$ROUNDS"
run "$HERE/dsort.sh" --rounds "$ROUNDS"
run "$HERE/ishard.sh" --rounds "$ROUNDS" --samples "$ISHARD_SAMPLES"
run "$HERE/list.sh" --names "$NAMES" --duration $((DURATION * 2))
run "$HERE/etl.sh" --duration "$DURATION" --rounds "$ROUNDS" $ETL_LIMIT
run "$HERE/protect.sh" --duration "$DURATION" --rounds "$ROUNDS"
run "$HERE/s3.sh" --rounds "$ROUNDS" $S3_ARGS
run "$HERE/python_loader.sh" --rounds "$ROUNDS" $P10_ARGS
run "$HERE/python_p10c.sh" --samples "$P10C_SAMPLES"
elapsed=$((SECONDS - t0))
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

report() {
  echo "# Benchmarks"
  echo
  echo "Written by \`tests/bench/run_all.sh\`; every number below comes from one run of it."
  echo "Each ratio compares Tessera with a reference measured in the same run on the same"
  echo "machine, both driven by \`tessera bench\` wherever the protocol allows (so the client's"
  echo "cost cancels out). Ratios matter; absolute numbers depend on the machine."
  echo
  echo "- date: $started, $elapsed s"
  echo "- command: \`tests/bench/run_all.sh $ARGS\` (measurements ${DURATION} s, ${ROUNDS} round(s), medians; P7 with $NAMES names)"
  echo "- machine: $(lscpu | sed -n 's/^Model name:[[:space:]]*//p' | head -1), $(nproc) CPUs, $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo) memory, kernel $(uname -r)"
  echo "- load average (1/5/15 min) before: $load_before, after: $load_after"
  echo "- versions: tessera $(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo unknown), $(nginx -v 2>&1 | sed 's/^nginx version: //'), $(wrk --version 2>&1 | head -1 | cut -d' ' -f1-2), $(dd --version | head -1), $(c++ --version | head -1)"
  echo "- build: $TESSERA_BUILD"
  echo
  echo "| id | measure | Tessera | reference | ratio | goal | met |"
  echo "|---|---|---|---|---|---|---|"
  grep '^RESULT ' "$RESULTS" | sed 's/^RESULT /| /; s/$/ |/'

  echo
  echo "CLIENT is the check that \`tessera bench\` drives nginx at least as hard as \`wrk\`"
  echo "with the same connections and threads. P5b is P5's second reference: libarchive"
  echo "reading the same shards from memory (\`tessera bench shard-scan\`). P6 is dSort's goal"
  echo "(at most 1.25 x the time of \`cp -r\` of the same bytes) as a ratio where higher is better:"
  echo "the copy's time over dSort's, goal >= 0.8. P11 is ishard's the same way against \`tar cf\`"
  echo "of the same files from a local directory. P12 compares 4 KiB PUTs acknowledged after"
  echo "\`fsync\` with nginx's WebDAV PUTs, which never sync. The goals are performance pass 2's."
  echo
  echo "## ETL"
  echo
  echo "P8a reads 1,000 PNGs (about 0.4 KiB each) through an \`io://\` ETL started per object,"
  echo "64 connections through the proxy, against the same transformer run directly on the"
  echo "same local files with the same parallelism (\`tests/bench/etl_local_runner.py\`)."
  echo "P8b passes the demo's Fashion-MNIST PNGs through a 64x64 JPEG resize into a new"
  echo "bucket (one object each) and, per sample, the demo's shards into new shards, against"
  echo "\`xargs -P <cores>\` running the same PIL calls over the same local files."
  echo "The cost of one object through each mode, one connection at a time:"
  echo
  grep '^INFO ' "$RESULTS" | sed 's/^INFO /- /' || true
  echo
  cat "$HERE/perf_pass.md"
  echo
  echo "## Per-round numbers"
  echo
  echo '```'
  grep -E '^(== |round |PUT |listing:|[0-9]+ samples of|input: )' "$LOG" || true
  echo '```'
}
if [ "$OUT" = "-" ]; then
  report
else
  report >"$OUT"
  echo "wrote $OUT" >&2
fi
cat "$RESULTS"
