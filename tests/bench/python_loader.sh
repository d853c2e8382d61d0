#!/usr/bin/env bash
# P10a: the Python loader. samples/s of tessera.torch.ShardDataset through a
# PyTorch DataLoader (2 workers, batches of 64, raw bytes: no decoding) over
# the demo's Fashion-MNIST shards read straight from their targets, against the
# same code reading the same shard files from local disk, in the same run
# (goal >= 0.9); and against ObjectDataset reading the same samples as loose
# objects (3 objects a sample, batched and threaded; goal >= 10). Rounds
# alternate the modes; medians are compared. A 3-target cluster, fsync off;
# the demo is loaded by the CLI (`tessera demo fashion-mnist`, 10 MiB shards).
# Usage: tests/bench/python_loader.sh [--limit SAMPLES] [--rounds N] [--workers N]
#   --limit: demo samples (default 0: all 70,000, 23 shards)
set -euo pipefail
LIMIT=0
ROUNDS=3
WORKERS=2
while [ $# -gt 0 ]; do
  case "$1" in
    --limit) LIMIT="$2"; shift 2 ;;
    --rounds) ROUNDS="$2"; shift 2 ;;
    --workers) WORKERS="$2"; shift 2 ;;
    *) echo "usage: $0 [--limit SAMPLES] [--rounds N] [--workers N]" >&2; exit 2 ;;
  esac
done
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_require
bench_require_python
WORK="$(mktemp -d)"
trap bench_cleanup EXIT

cluster_up p10 3 "--fsync false"
T=("$TESSERA" --endpoint "$PROXY_URL")
"${T[@]}" demo fashion-mnist --limit "$LIMIT" >"$WORK/demo.log" 2>&1 || { cat "$WORK/demo.log" >&2; exit 1; }
mkdir -p "$WORK/shards"
"$PY" - "$PROXY_URL" "$WORK/shards" "$ROOT" <<'PY'
import os, sys
sys.path.insert(0, os.path.join(sys.argv[3], "console", "python"))
import tessera
c = tessera.Client(sys.argv[1])
for n in c.list_names("fashion-mnist", prefix="shard-"):
    with open(os.path.join(sys.argv[2], n), "wb") as f:
        f.write(c.get("fashion-mnist", n))
PY
"$PY" "$ROOT/tests/bench/python_loader.py" --endpoint "$PROXY_URL" --local "$WORK/shards" --rounds "$ROUNDS" \
  --workers "$WORKERS" | tee "$WORK/p10.out"
json=$(tail -1 "$WORK/p10.out")
get() { echo "$json" | "$PY" -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
tess=$(get 'round(d["median"]["tessera"])')
loc=$(get 'round(d["median"]["local"])')
obj=$(get 'round(d["median"]["objects"])')
shards=$(get 'd["shards"]')
result P10a "ShardDataset + DataLoader($WORKERS workers), $shards demo shards: Tessera vs local disk" \
  "$tess samples/s" "local files $loc samples/s" "$(ratio "$tess" "$loc")" 0.9
result P10a-obj "ShardDataset vs ObjectDataset over the loose demo objects" \
  "$tess samples/s" "ObjectDataset $obj samples/s" "$(ratio "$tess" "$obj")" 10
