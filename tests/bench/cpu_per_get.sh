#!/usr/bin/env bash
# A/B of two tessera-node builds by the target's CPU time per 1 KiB GET
# (direct, 64 connections, --count N): utime+stime of the target process from
# /proc, divided by the GETs. Rounds alternate between the builds. CPU per
# request moves much less than req/s when other work shares the machine, so
# this is how the performance pass measured its changes.
# Usage: tests/bench/cpu_per_get.sh BEFORE_BUILD AFTER_BUILD [--rounds N] [--count N]
#   a build is a directory with daemon/tessera-node (and console/cli/tessera
#   for AFTER_BUILD, which drives both); extra target flags for each side in
#   $ARGS_BEFORE / $ARGS_AFTER (e.g. ARGS_AFTER="--io-threads 1").
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 BEFORE_BUILD AFTER_BUILD [--rounds N] [--count N]" >&2; exit 2; }
BEFORE="$1"; AFTER="$2"; shift 2
ROUNDS=3
COUNT=100000
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) ROUNDS="$2"; shift 2 ;;
    --count) COUNT="$2"; shift 2 ;;
    *) echo "usage: $0 BEFORE_BUILD AFTER_BUILD [--rounds N] [--count N]" >&2; exit 2 ;;
  esac
done
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
WORK="$(mktemp -d)"
trap bench_cleanup EXIT
declare -A URL RES PID BUILD=([before]="$BEFORE" [after]="$AFTER") ARGS=([before]="${ARGS_BEFORE:-}" [after]="${ARGS_AFTER:-}")
CLIENT="$AFTER/console/cli/tessera"
TESSERA="$CLIENT"  # bench_run drives both sides with the AFTER build's client
for side in before after; do
  TESSERA_BUILD="${BUILD[$side]}"
  NODE="$TESSERA_BUILD/daemon/tessera-node"
  export TESSERA_BUILD
  [ -x "$NODE" ] || { echo "no $NODE" >&2; exit 1; }
  cluster_up "$side" 1 "--fsync false ${ARGS[$side]}"
  URL[$side]="$PROXY_URL"
  PID[$side]=$(cat "$WORK/cluster-$side/pids/target-1.pid")
  "$CLIENT" --endpoint "$PROXY_URL" bench get --bucket bench-cpu --count-objects 1000 --size 1KiB --count 1000 \
    --workers 16 >/dev/null
done
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)
for r in $(seq 1 "$ROUNDS"); do
  for side in before after; do
    a=$(ticks "${PID[$side]}")
    bench_run "$WORK/$side.json" --endpoint "${URL[$side]}" get --bucket bench-cpu --prefix obj- --direct \
      --workers 64 --count "$COUNT"
    b=$(ticks "${PID[$side]}")
    us=$(python3 -c "import sys; print(round(($b - $a) / $hz * 1e6 / $COUNT, 2))")
    RES[$side]="${RES[$side]:-} $us"
    echo "round $r $side: $us us CPU/GET, $(json_get "$WORK/$side.json" 'round(d["summary"]["get"]["ops_per_s"])') GET/s" >&2
  done
done
B=$(echo "${RES[before]}" | median)
A=$(echo "${RES[after]}" | median)
echo "target CPU per 1 KiB GET (median of $ROUNDS): before $B us, after $A us, after/before $(ratio "$A" "$B")"
