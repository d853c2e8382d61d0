#!/usr/bin/env bash
# What counting costs on the data path: 1 KiB GET straight to a target, 64
# connections driven by wrk, against two single-target clusters that differ
# only in --op-stats (true / false). Rounds alternate between them; the
# medians and their ratio are printed.
# Usage: tests/bench/stats_overhead.sh [--duration SECONDS] [--rounds N]
# Needs: a release build (installers/build.sh release), wrk (installers/bench-deps.sh).
set -euo pipefail
DURATION=10
ROUNDS=3
while [ $# -gt 0 ]; do
  case "$1" in
    --duration) DURATION="$2"; shift 2 ;;
    --rounds) ROUNDS="$2"; shift 2 ;;
    *) echo "usage: $0 [--duration SECONDS] [--rounds N]" >&2; exit 2 ;;
  esac
done
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_require wrk
WORK="$(mktemp -d)"
trap bench_cleanup EXIT

declare -A URL
head -c 1024 /dev/urandom >"$WORK/obj"
for m in on off; do
  flag=true; [ "$m" = off ] && flag=false
  cluster_up "stats-$m" 1 "--fsync false --op-stats $flag"
  curl -sf -XPOST "$PROXY_URL/v1/buckets/bench-stats" -d '{"action":"create-bck"}' >/dev/null
  curl -sfL -XPUT --data-binary @"$WORK/obj" "$PROXY_URL/v1/objects/bench-stats/obj-1k" >/dev/null
  URL[$m]="$(first_target_url "$PROXY_URL")/v1/objects/bench-stats/obj-1k"
  curl -sf "${URL[$m]}" | cmp - "$WORK/obj"
done

declare -A RESULTS
run() {  # prints requests/s
  wrk -t1 -c64 -d"${DURATION}s" "$1" | awk '/Requests\/sec/ {print $2}'
}
for r in $(seq 1 "$ROUNDS"); do
  for m in on off; do
    v=$(run "${URL[$m]}")
    RESULTS[$m]="${RESULTS[$m]:-} $v"
    echo "round $r op-stats=$m: $v req/s"
  done
done
ON=$(echo "${RESULTS[on]}" | median)
OFF=$(echo "${RESULTS[off]}" | median)
echo "1 KiB GET direct, 64 connections, ${DURATION}s x ${ROUNDS} rounds: counting on ${ON} req/s, off ${OFF} req/s"
echo "RATIO stats_overhead $(python3 -c "print(f'{$ON/$OFF:.4f}')")  (on/off; goal >= 0.98)"
