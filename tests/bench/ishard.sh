#!/usr/bin/env bash
# ishard throughput (samples/s) on a local 3-target cluster, against a
# reference measured in the same run: GNU tar writing one .tar of the same
# files from a local directory (`tar cf --sort=name`, page cache warm, after `sync`) — the
# work ishard does minus the cluster (listing, planning, fetching from
# peers, one PUT per shard). Each round shards the whole bucket into a new
# bucket; the job's time is from its start (listing and planning included)
# to the last target's end. Prints every round, the medians and the ratio.
# Usage: tests/bench/ishard.sh [--samples N] [--size BYTES] [--shard-size S] [--rounds N]
#   --samples     WebDataset samples of 3 files: .png (--size bytes), .cls, .json (default 20000)
#   --size        bytes of each sample's .png (default 2048)
#   --shard-size  ishard's shard size (default 16MiB)
#   --rounds      ishard runs and tar runs (default 3)
# Needs: a release build (installers/build.sh release; or TESSERA_BUILD=...), python3, GNU tar.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
SAMPLES=20000
SIZE=2048
SHARD_SIZE=16MiB
ROUNDS=3
while [ $# -gt 0 ]; do
  case "$1" in
    --samples) SAMPLES="$2"; shift 2 ;;
    --size) SIZE="$2"; shift 2 ;;
    --shard-size) SHARD_SIZE="$2"; shift 2 ;;
    --rounds) ROUNDS="$2"; shift 2 ;;
    *) echo "usage: $0 [--samples N] [--size BYTES] [--shard-size S] [--rounds N]" >&2; exit 2 ;;
  esac
done
# shellcheck source=lib.sh
source "$ROOT/tests/bench/lib.sh"
bench_require python3 tar curl
WORK="$(mktemp -d)"
trap bench_cleanup EXIT

echo "generating $SAMPLES samples (3 files each, .png of $SIZE bytes) ..."
python3 - "$WORK/src" "$SAMPLES" "$SIZE" <<'PY'
import os, sys, random
root, n, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rnd = random.Random(1)
os.makedirs(root + "/train", exist_ok=True)
for i in range(n):
    key = "%s/train/%06d" % (root, i)
    with open(key + ".png", "wb") as f: f.write(rnd.randbytes(size))
    with open(key + ".cls", "w") as f: f.write(str(i % 10))
    with open(key + ".json", "w") as f: f.write('{"index":%d,"label":%d}' % (i, i % 10))
PY

cluster_up ishard 3 "--fsync false"
EP="$PROXY_URL"
"$TESSERA" --endpoint "$EP" bucket create ishard-src >/dev/null
echo "uploading to $EP ..."
"$TESSERA" --endpoint "$EP" put "$WORK/src/train" ishard-src/train/ --workers 32 >/dev/null 2>"$WORK/put.err" || {
  cat "$WORK/put.err" >&2; exit 1; }

rate() { python3 -c "print('%.1f' % ($SAMPLES / $1))"; }

# Each measurement after `sync` (as dsort.sh): the upload's write-back, and
# the previous round's, would otherwise run through it.
TAR_RATES=()
for r in $(seq 1 "$ROUNDS"); do
  sync
  start=$(date +%s.%N)
  tar cf "$WORK/ref.tar" --sort=name -C "$WORK/src" train
  end=$(date +%s.%N)
  secs=$(python3 -c "print($end - $start)")
  TAR_RATES+=("$(rate "$secs")")
  echo "round $r tar cf: $(printf '%.3f' "$secs") s, ${TAR_RATES[-1]} samples/s"
  rm -f "$WORK/ref.tar"
done

ISHARD_RATES=()
for r in $(seq 1 "$ROUNDS"); do
  "$TESSERA" --endpoint "$EP" bucket create "ishard-dst-$r" >/dev/null
  sync
  "$TESSERA" --endpoint "$EP" --json ishard ishard-src "ishard-dst-$r" --shard-size "$SHARD_SIZE" --wait \
    >"$WORK/job-$r.json" 2>"$WORK/job-$r.err" || { cat "$WORK/job-$r.err" "$WORK/job-$r.json" >&2; exit 1; }
  secs=$(python3 - "$WORK/job-$r.json" 2>"$WORK/split-$r" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["state"] == "finished", d
end = max(t["ended_ns"] for t in d["targets"].values())
print((end - d["started_ns"]) / 1e9)
ts = sorted(d["targets"].values(), key=lambda t: t["started_ns"])
print("planning %.3f s, targets %s" % ((ts[0]["started_ns"] - d["started_ns"]) / 1e9,
      " ".join("%.3f" % ((t["ended_ns"] - t["started_ns"]) / 1e9) for t in ts)), file=sys.stderr)
PY
)
  shards=$(curl -sf "$EP/v1/buckets/ishard-dst-$r?pagesize=10000" |
    python3 -c 'import json,sys; print(len(json.load(sys.stdin)["entries"]))')
  ISHARD_RATES+=("$(rate "$secs")")
  echo "round $r ishard: $(printf '%.3f' "$secs") s, ${ISHARD_RATES[-1]} samples/s ($shards shards; $(cat "$WORK/split-$r"))"
done

T=$(echo "${TAR_RATES[*]}" | median)
I=$(echo "${ISHARD_RATES[*]}" | median)
echo
echo "samples: $SAMPLES x 3 files (.png $SIZE B), shard size $SHARD_SIZE, 3 targets on one machine ($(nproc) CPUs)"
echo "reference tar cf (local dir): median $T samples/s"
echo "ishard (3 targets):           median $I samples/s"
python3 -c "print('ratio ishard / tar cf: %.2f' % ($I / $T))"
fmt() { python3 -c "import sys; print(f'{float(sys.argv[1]):.0f} samples/s')" "$1"; }
result P11 "ishard of $SAMPLES samples ($((SAMPLES * 3)) objects, 3 targets), tar cf time / ishard time" "$(fmt "$I")" \
  "tar cf $(fmt "$T")" "$(ratio "$I" "$T")" 0.6
