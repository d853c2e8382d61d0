#!/usr/bin/env bash
# What counting costs on the data path: 1 KiB GET straight to a target, 64
# connections driven by wrk, against two single-target clusters that differ
# only in --op-stats (true / false). Rounds alternate between them; the
# medians and their ratio are printed.
# Usage: tests/bench/stats_overhead.sh [--duration SECONDS] [--rounds N]
# Needs: a release build (installers/build.sh release), wrk (installers/bench-deps.sh).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DURATION=10
ROUNDS=3
while [ $# -gt 0 ]; do
  case "$1" in
    --duration) DURATION="$2"; shift 2 ;;
    --rounds) ROUNDS="$2"; shift 2 ;;
    *) echo "usage: $0 [--duration SECONDS] [--rounds N]" >&2; exit 2 ;;
  esac
done
command -v wrk >/dev/null || { echo "wrk is missing: installers/bench-deps.sh" >&2; exit 1; }
export TESSERA_BUILD="${TESSERA_BUILD:-build/release}"
[ -x "$ROOT/$TESSERA_BUILD/daemon/tessera-node" ] || { echo "no $TESSERA_BUILD build: installers/build.sh release" >&2; exit 1; }

WORK="$(mktemp -d)"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
declare -A PORT DATA
cleanup() {
  for m in on off; do
    [ -n "${DATA[$m]:-}" ] && TESSERA_DATA="${DATA[$m]}" TESSERA_PORT="${PORT[$m]}" \
      "$ROOT/installers/local-cluster.sh" down >/dev/null 2>&1 || true
  done
  rm -rf "$WORK"
}
trap cleanup EXIT

declare -A URL
for m in on off; do
  PORT[$m]=$(free_port)
  DATA[$m]="$WORK/$m"
  flag=true; [ "$m" = off ] && flag=false
  TESSERA_DATA="${DATA[$m]}" TESSERA_PORT="${PORT[$m]}" TESSERA_TARGET_ARGS="--fsync false --op-stats $flag" \
    "$ROOT/installers/local-cluster.sh" up --targets 1 >/dev/null
  proxy="http://127.0.0.1:${PORT[$m]}"
  curl -sf -XPOST "$proxy/v1/buckets/bench-stats" -d '{"action":"create-bck"}' >/dev/null
  head -c 1024 /dev/urandom > "$WORK/obj"
  curl -sfL -XPUT --data-binary @"$WORK/obj" "$proxy/v1/objects/bench-stats/obj-1k" >/dev/null
  target=$(curl -sf "$proxy/v1/daemon?what=smap" | python3 -c 'import json,sys; print(list(json.load(sys.stdin)["tmap"].values())[0]["public_net"]["direct_url"])')
  URL[$m]="$target/v1/objects/bench-stats/obj-1k"
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
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
ON=$(echo "${RESULTS[on]}" | median)
OFF=$(echo "${RESULTS[off]}" | median)
echo "1 KiB GET direct, 64 connections, ${DURATION}s x ${ROUNDS} rounds: counting on ${ON} req/s, off ${OFF} req/s"
echo "RATIO stats_overhead $(python3 -c "print(f'{$ON/$OFF:.4f}')")  (on/off; goal >= 0.98)"
