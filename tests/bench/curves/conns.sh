#!/usr/bin/env bash
# Curve: 1 KiB GET req/s and p99 latency vs connections (1, 2, 4, ... 512),
# Tessera direct to its one target against nginx serving byte-identical files
# under the same names, both driven by `tessera bench` (as small_get.sh does:
# 1000 objects, threads = min(connections, CPUs)). Rounds alternate the two
# servers at each point. Writes OUT/conns.csv, OUT/curve-conns-rps.png,
# OUT/curve-conns-p99.png and OUT/conns.md.
# Usage: tests/bench/curves/conns.sh [--quick] [--rounds N] [--out DIR] [--duration SECONDS] [--max-conns N]
#   --quick       connections 1, 4, 16, 64; 1 s per point; 200 objects
#   --rounds N    rounds per point (default 3)
#   --out DIR     CSV, PNG and markdown (default tests/bench/curves/out)
#   --duration S  seconds per point and server (default 5)
#   --max-conns N the last point (a power of 2, default 512)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/../lib.sh"
source "$HERE/lib_curves.sh"
curves_defaults
DURATION=5
MAX_CONNS=512
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) QUICK=1; shift ;;
    --rounds) ROUNDS="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --duration) DURATION="$2"; shift 2 ;;
    --max-conns) MAX_CONNS="$2"; shift 2 ;;
    *) echo "usage: $0 [--quick] [--rounds N] [--out DIR] [--duration SECONDS] [--max-conns N]" >&2; exit 2 ;;
  esac
done
case "$MAX_CONNS" in '' | *[!0-9]* | 0) echo "--max-conns must be a positive number" >&2; exit 2 ;; esac
[ "$MAX_CONNS" -le 4096 ] || { echo "--max-conns is at most 4096 (tessera bench's --workers)" >&2; exit 2; }
curves_check
bench_require nginx curl
WORK="$(mktemp -d)"
trap bench_cleanup EXIT

OBJECTS=1000
CONNS=()
for ((c = 1; c <= MAX_CONNS; c *= 2)); do CONNS+=("$c"); done
if [ "$QUICK" = 1 ]; then
  DURATION=1
  OBJECTS=200
  CONNS=(1 4 16 64)
fi
CPUS=$(nproc)

small_files_up conns curve-conns "$OBJECTS"

CSV="$OUT/conns.csv"
csv_header "$CSV" connections tessera_rps nginx_rps tessera_p99_ms nginx_p99_ms
for c in "${CONNS[@]}"; do
  threads=$((c < CPUS ? c : CPUS))
  T_RPS=() N_RPS=() T_P99=() N_P99=()
  for r in $(seq 1 "$ROUNDS"); do
    common=(--workers "$c" --threads "$threads" --duration "${DURATION}s")
    bench_run "$WORK/t.json" --endpoint "$PROXY_URL" get --bucket curve-conns --prefix obj- --direct "${common[@]}"
    bench_run "$WORK/n.json" --url-get "$NGINX_URL/obj-{i}" --count-objects "$OBJECTS" "${common[@]}"
    T_RPS+=("$(json_get "$WORK/t.json" 'd["summary"]["get"]["ops_per_s"]')")
    N_RPS+=("$(json_get "$WORK/n.json" 'd["summary"]["get"]["ops_per_s"]')")
    T_P99+=("$(json_get "$WORK/t.json" 'd["summary"]["get"]["latency_us"]["p99"] / 1000')")
    N_P99+=("$(json_get "$WORK/n.json" 'd["summary"]["get"]["latency_us"]["p99"] / 1000')")
    printf 'conns %4d round %d: tessera %8.0f req/s p99 %7.2f ms | nginx %8.0f req/s p99 %7.2f ms\n' \
      "$c" "$r" "${T_RPS[-1]}" "${T_P99[-1]}" "${N_RPS[-1]}" "${N_P99[-1]}"
  done
  csv_row "$CSV" "$c" "$(stats "${T_RPS[@]}")" "$(stats "${N_RPS[@]}")" "$(stats "${T_P99[@]}")" "$(stats "${N_P99[@]}")"
done

{
  gp_preamble "$OUT/curve-conns-rps.png" "1 KiB GET: requests per second vs connections (1 target, direct; median, min-max bars)" \
    "connections (tessera bench workers)" "requests/s" 1
  echo "set xrange [0.7:${CONNS[-1]} * 1.4]"
  echo "plot '$CSV' skip 1 using 1:2:3:4 title 'Tessera (direct to target)' lw 2, \\"
  echo "     '' skip 1 using 1:5:6:7 title 'nginx (sendfile)' lw 2"
} | gp_run
{
  gp_preamble "$OUT/curve-conns-p99.png" "1 KiB GET: p99 latency vs connections (1 target, direct; median, min-max bars)" \
    "connections (tessera bench workers)" "p99 latency (ms)" 1
  echo "set xrange [0.7:${CONNS[-1]} * 1.4]"
  echo "plot '$CSV' skip 1 using 1:8:9:10 title 'Tessera (direct to target)' lw 2, \\"
  echo "     '' skip 1 using 1:11:12:13 title 'nginx (sendfile)' lw 2"
} | gp_run

{
  echo "### 1 KiB GET vs connections"
  echo
  echo "![req/s vs connections](images/curve-conns-rps.png)"
  echo "![p99 vs connections](images/curve-conns-p99.png)"
  echo
  echo "One target (fsync off) direct and nginx on the same $OBJECTS files of 1 KiB, both driven by"
  echo "\`tessera bench\` with threads = min(connections, $CPUS CPUs), ${DURATION} s per point and server,"
  echo "$ROUNDS round(s) alternating the servers."
  echo
  curve_md "$CSV" "1 KiB GET vs connections" "" \
    "connections,Tessera req/s,nginx req/s,Tessera p99 (ms),nginx p99 (ms)"
} >"$OUT/conns.md"
echo "wrote $CSV, $OUT/curve-conns-rps.png, $OUT/curve-conns-p99.png, $OUT/conns.md"
