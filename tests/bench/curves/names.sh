#!/usr/bin/env bash
# Curve: listing names/s through the proxy and the targets' memory vs names in
# a bucket (10k, 100k, 1M; 10M with --max-names 10000000). One bucket on a
# 3-target cluster (fsync off, as list.sh) grows from one point to the next:
# each point PUTs only the names it adds (1-byte objects, `tessera bench put
# --size 1 --direct --workers 64`), then one complete listing pass (checked
# for the exact count) builds the targets' name snapshots, then each round
# lists for --duration seconds with one client walking pages of 10,000
# (`tessera bench list`, as list.sh) and reads the targets' RSS: the sum of
# VmRSS in /proc/PID/status of the 3 target processes.
# Writes OUT/names.csv, OUT/curve-names-rate.png, OUT/curve-names-rss.png, OUT/names.md.
# Usage: tests/bench/curves/names.sh [--quick] [--rounds N] [--out DIR] [--duration S] [--max-names N]
#   --quick        points 2k, 10k, 50k; 1 s per round
#   --duration S   seconds of listing per round (default 5)
#   --max-names N  the largest point: 10k, 100k, 1M, 10M up to N (default 1000000, at most 10000000)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/../lib.sh"
source "$HERE/lib_curves.sh"
curves_defaults
DURATION=5
MAX_NAMES=1000000
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) QUICK=1; shift ;;
    --rounds) ROUNDS="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --duration) DURATION="$2"; shift 2 ;;
    --max-names) MAX_NAMES="$2"; shift 2 ;;
    *) echo "usage: $0 [--quick] [--rounds N] [--out DIR] [--duration S] [--max-names N]" >&2; exit 2 ;;
  esac
done
case "$MAX_NAMES" in '' | *[!0-9]*) echo "--max-names must be a number" >&2; exit 2 ;; esac
[ "$MAX_NAMES" -ge 10000 ] && [ "$MAX_NAMES" -le 10000000 ] || {
  echo "--max-names is 10000..10000000" >&2; exit 2; }
curves_check
bench_require
WORK="$(mktemp -d)"
trap bench_cleanup EXIT

POINTS=()
for n in 10000 100000 1000000 10000000; do [ "$n" -gt "$MAX_NAMES" ] || POINTS+=("$n"); done
if [ "$QUICK" = 1 ]; then
  POINTS=(2000 10000 50000)
  DURATION=1
fi
TARGETS=3
cluster_up names "$TARGETS" "--fsync false"
EP="$PROXY_URL"
DATA="$WORK/cluster-names"

# The targets' resident memory, MiB: the sum of VmRSS of their processes.
targets_rss_mib() {
  local sum=0 i pid kb
  for i in $(seq 1 "$TARGETS"); do
    pid=$(cat "$DATA/pids/target-$i.pid")
    kb=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status")
    sum=$((sum + kb))
  done
  python3 -c "print(round($sum / 1024, 1))"
}
RSS0=$(targets_rss_mib)
echo "targets' RSS with an empty cluster: $RSS0 MiB"

CSV="$OUT/names.csv"
csv_header "$CSV" names names_per_s targets_rss_mib
have=0
step=0
for n in "${POINTS[@]}"; do
  step=$((step + 1))
  add=$((n - have))
  start=$SECONDS
  bench_run "$WORK/fill.json" --endpoint "$EP" put --bucket curve-names --prefix "p$step-" --size 1 --count "$add" \
    --workers 64 --direct
  have=$n
  echo "names $n: PUT $add more in $((SECONDS - start)) s ($(json_get "$WORK/fill.json" 'round(d["summary"]["put"]["ops_per_s"])') PUT/s)"
  # The fill's write-back (millions of new inodes) would otherwise run
  # through the listing rounds.
  sync
  bench_run "$WORK/warm.json" --endpoint "$EP" list --bucket curve-names --pagesize 10000 \
    --count $(((n + 9999) / 10000)) --workers 1
  got=$(json_get "$WORK/warm.json" 'd["summary"]["list"]["items"]')
  [ "$got" = "$n" ] || { echo "the listing returned $got names, expected $n" >&2; exit 1; }
  # The slowest page of the first pass is its first: the targets' walk.
  echo "names $n: first pass (the targets' walk, then every page) in" \
    "$(json_get "$WORK/warm.json" 'round(d["summary"]["list"]["seconds"], 2)') s, slowest page" \
    "$(json_get "$WORK/warm.json" 'round(d["summary"]["list"]["latency_us"]["max"] / 1000)') ms"
  RATE=() RSS=()
  for r in $(seq 1 "$ROUNDS"); do
    bench_run "$WORK/list.json" --endpoint "$EP" list --bucket curve-names --pagesize 10000 \
      --duration "${DURATION}s" --workers 1
    RATE+=("$(json_get "$WORK/list.json" 'd["summary"]["list"]["items_per_s"]')")
    RSS+=("$(targets_rss_mib)")
    printf 'names %8d round %d: %9.0f names/s (%s complete passes), targets RSS %s MiB\n' "$n" "$r" "${RATE[-1]}" \
      "$(json_get "$WORK/list.json" 'd["list_passes"]')" "${RSS[-1]}"
  done
  csv_row "$CSV" "$n" "$(stats "${RATE[@]}")" "$(stats "${RSS[@]}")"
done

{
  gp_preamble "$OUT/curve-names-rate.png" "Listing through the proxy: names/s vs names in the bucket (3 targets, pages of 10,000, 1 client)" \
    "names in the bucket" "names/s" 1
  echo "set format y '%.1s%c'"
  echo "set logscale x 10"
  echo "set format x '%.0s%c'"
  echo "set xrange [${POINTS[0]} / 2.0 : ${POINTS[-1]} * 2.0]"
  echo "plot '$CSV' skip 1 using 1:2:3:4 title 'Tessera list (median, min-max bars)' lw 2"
} | gp_run
{
  gp_preamble "$OUT/curve-names-rss.png" "Targets' memory vs names in the bucket (sum of VmRSS of 3 targets, after full listing passes)" \
    "names in the bucket" "RSS (MiB)" 1
  echo "set logscale x 10"
  echo "set format x '%.0s%c'"
  echo "set xrange [${POINTS[0]} / 2.0 : ${POINTS[-1]} * 2.0]"
  echo "plot '$CSV' skip 1 using 1:5:6:7 title 'sum of the targets VmRSS (median, min-max bars)' lw 2"
} | gp_run

{
  echo "### Listing vs names in a bucket"
  echo
  echo "![names/s vs names](images/curve-names-rate.png)"
  echo "![targets RSS vs names](images/curve-names-rss.png)"
  echo
  echo "One bucket of 1-byte objects on $TARGETS targets (fsync off), grown point to point; after a complete"
  echo "listing pass, each round lists through the proxy for ${DURATION} s (pages of 10,000, one client) and"
  echo "then sums the targets' VmRSS ($RSS0 MiB with the cluster empty). $ROUNDS round(s)."
  echo
  curve_md "$CSV" "Listing names/s and targets' RSS vs names" "" "names,names/s,targets' RSS (MiB)"
} >"$OUT/names.md"
echo "wrote $CSV, $OUT/curve-names-rate.png, $OUT/curve-names-rss.png, $OUT/names.md"
