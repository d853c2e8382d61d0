#!/usr/bin/env bash
# P10c: 1 KiB samples read three ways in one run (tests/bench/python_p10c.py):
# one thread of plain GETs (the baseline), ObjectDataset with a DataLoader,
# and ShardDataset over the same samples packed into shards of 1,000. Goal:
# ShardDataset >= 10x the single-threaded GETs (AIStore publishes about 8x).
# A 3-target cluster, fsync off. Loading 1,000,000 objects takes minutes.
# Usage: tests/bench/python_p10c.sh [--samples N] [--workers N]
set -euo pipefail
SAMPLES=1000000
WORKERS=2
while [ $# -gt 0 ]; do
  case "$1" in
    --samples) SAMPLES="$2"; shift 2 ;;
    --workers) WORKERS="$2"; shift 2 ;;
    *) echo "usage: $0 [--samples N] [--workers N]" >&2; exit 2 ;;
  esac
done
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_require
bench_require_python
WORK="$(mktemp -d)"
trap bench_cleanup EXIT

cluster_up p10c 3 "--fsync false"
"$PY" "$ROOT/tests/bench/python_p10c.py" --endpoint "$PROXY_URL" --samples "$SAMPLES" --workers "$WORKERS" \
  | tee "$WORK/p10c.out"
json=$(tail -1 "$WORK/p10c.out")
get() { echo "$json" | "$PY" -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
single=$(get 'round(d["single"])')
objs=$(get 'round(d["objects"])')
shards=$(get 'round(d["shards"])')
result P10c "ShardDataset + DataLoader($WORKERS workers) over $SAMPLES 1 KiB samples vs single-threaded GETs" \
  "$shards samples/s" "single GETs $single objects/s" "$(ratio "$shards" "$single")" 10
result P10c-obj "ObjectDataset + DataLoader($WORKERS workers) vs single-threaded GETs (informative)" \
  "$objs objects/s" "single GETs $single objects/s" "$(ratio "$objs" "$single")" 1
