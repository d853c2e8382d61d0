#!/usr/bin/env bash
# Runs the curve scripts of tests/bench/curves/ one after the other, copies
# their plots to docs/images/curve-*.png and writes a markdown fragment for
# docs/benchmarks.md (OUT/curves.md): the machine, the date, the load average
# before and after, the build's commit, the command, then each curve's plots
# and the table behind them. A script that fails is reported and the others
# still run; the exit status is then 1.
# Usage: tests/bench/curves/run_curves.sh [--quick] [--rounds N] [--out DIR] [--images DIR]
#                                         [--only LIST] [--max-names N] [--max-mib N]
#   --quick        every script's --quick (checks the scripts, in about 6 minutes)
#   --rounds N     rounds per point (default 3)
#   --out DIR      CSV, PNG, logs and curves.md (default tests/bench/curves/out)
#   --images DIR   where the PNGs are copied (default docs/images; "-" = not copied)
#   --only LIST    comma-separated subset of: conns,sizes,names,datasets,targets
#   --max-names N  names.sh's largest bucket (default 1000000; 10000000 on purpose)
#   --max-mib N    datasets.sh's largest dataset in MiB (default 1024; up to 4096)
# Run it on an otherwise idle machine (see docs/benchmarks.md); a full run
# with the defaults takes about an hour (tests/bench/curves/README.md).
set -euo pipefail
ARGS="$*"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../.." && pwd)"
source "$HERE/../lib.sh"
source "$HERE/lib_curves.sh"
curves_defaults
IMAGES="$ROOT/docs/images"
ONLY="conns,sizes,names,datasets,targets"
EXTRA_NAMES=()
EXTRA_MIB=()
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) QUICK=1; shift ;;
    --rounds) ROUNDS="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --images) IMAGES="$2"; shift 2 ;;
    --only) ONLY="$2"; shift 2 ;;
    --max-names) EXTRA_NAMES=(--max-names "$2"); shift 2 ;;
    --max-mib) EXTRA_MIB=(--max-mib "$2"); shift 2 ;;
    *) echo "usage: $0 [--quick] [--rounds N] [--out DIR] [--images DIR] [--only LIST] [--max-names N] [--max-mib N]" >&2
      exit 2 ;;
  esac
done
curves_check
for c in ${ONLY//,/ }; do
  case "$c" in conns | sizes | names | datasets | targets) ;; *) echo "--only: unknown curve \"$c\"" >&2; exit 2 ;; esac
done
bench_require nginx curl dd tar gnuplot

COMMON=(--rounds "$ROUNDS" --out "$OUT")
[ "$QUICK" = 0 ] || COMMON+=(--quick)
LOG="$OUT/curves.log"
: >"$LOG"
started=$(date -u '+%Y-%m-%d %H:%M UTC')
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
t0=$SECONDS
FAILED=()
DONE=()
for c in ${ONLY//,/ }; do
  extra=()
  [ "$c" != names ] || extra=("${EXTRA_NAMES[@]+"${EXTRA_NAMES[@]}"}")
  [ "$c" != datasets ] || extra=("${EXTRA_MIB[@]+"${EXTRA_MIB[@]}"}")
  echo "== $c.sh ${COMMON[*]} ${extra[*]+"${extra[*]}"}" | tee -a "$LOG"
  s=$SECONDS
  if "$HERE/$c.sh" "${COMMON[@]}" "${extra[@]+"${extra[@]}"}" 2>&1 | tee -a "$LOG"; then
    DONE+=("$c")
    echo "== $c.sh: $((SECONDS - s)) s" | tee -a "$LOG"
  else
    FAILED+=("$c")
    echo "== $c.sh FAILED after $((SECONDS - s)) s" | tee -a "$LOG"
  fi
done
elapsed=$((SECONDS - t0))
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

if [ "$IMAGES" != "-" ]; then
  mkdir -p "$IMAGES"
  for c in "${DONE[@]+"${DONE[@]}"}"; do cp "$OUT"/curve-"$c"*.png "$IMAGES"/; done
fi

{
  echo "## Curves: how the cost grows"
  echo
  echo "Written by \`tests/bench/curves/run_curves.sh\` (one script per curve; see"
  echo "tests/bench/curves/README.md). Every point is the median of the rounds, with the min and max"
  echo "as error bars and in brackets in the tables; the CSVs are in the run's output folder."
  echo
  echo "- date: $started, $elapsed s"
  echo "- command: \`tests/bench/curves/run_curves.sh $ARGS\` ($ROUNDS round(s) per point$([ "$QUICK" = 0 ] || echo ', --quick'))"
  echo "- machine: $(lscpu | sed -n 's/^Model name:[[:space:]]*//p' | head -1), $(nproc) CPUs, $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo) memory, kernel $(uname -r)"
  echo "- load average (1/5/15 min) before: $load_before, after: $load_after"
  echo "- build: tessera $(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo unknown) ($TESSERA_BUILD), $(nginx -v 2>&1 | sed 's/^nginx version: //'), $(gnuplot --version)"
  [ "${#FAILED[@]}" = 0 ] || echo "- FAILED (see $LOG): ${FAILED[*]}"
  echo
  for c in "${DONE[@]+"${DONE[@]}"}"; do
    cat "$OUT/$c.md"
    echo
  done
} >"$OUT/curves.md"
echo "wrote $OUT/curves.md$([ "$IMAGES" = "-" ] || echo " and the plots in $IMAGES")"
[ "${#FAILED[@]}" = 0 ] || { echo "failed: ${FAILED[*]}" >&2; exit 1; }
