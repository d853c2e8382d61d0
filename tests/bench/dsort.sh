#!/usr/bin/env bash
# dSort shuffle throughput on a local 3-target cluster, against a reference
# measured in the same run on the same disk: `cp -r` of the same input bytes
# (the shard files) into a new directory. The dSort reads every input shard
# on its owner, sends every record to the target that owns its output shard
# and writes every output shard — the copy is the floor of that work on one
# machine. Each round shuffles the whole input into a new bucket; its time
# is from the job's start to the last target's end; the per-phase times are
# the slowest target's. Both start from synced disks and their outputs are
# removed between rounds. Prints every round, the medians and the ratio,
# and the CPU time each side cost (cp's user + system; the cluster's
# processes' for the dSort, their CPU between the job's start and its end).
# Usage: tests/bench/dsort.sh [--samples N] [--size BYTES] [--per-shard N] [--rounds N]
#   --samples    WebDataset samples of 2 files: .bin (--size bytes) and .cls (default 1024)
#   --size       bytes of each sample's .bin (default 1048576: ~1 GiB in all)
#   --per-shard  samples per input shard, and per output shard (default 64)
#   --rounds     dSort runs and copies (default 3)
# Needs: a release build (installers/build.sh release; or TESSERA_BUILD=...), python3, curl.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
SAMPLES=1024
SIZE=1048576
PER_SHARD=64
ROUNDS=3
while [ $# -gt 0 ]; do
  case "$1" in
    --samples) SAMPLES="$2"; shift 2 ;;
    --size) SIZE="$2"; shift 2 ;;
    --per-shard) PER_SHARD="$2"; shift 2 ;;
    --rounds) ROUNDS="$2"; shift 2 ;;
    *) echo "usage: $0 [--samples N] [--size BYTES] [--per-shard N] [--rounds N]" >&2; exit 2 ;;
  esac
done
# shellcheck source=lib.sh
source "$ROOT/tests/bench/lib.sh"
bench_require python3 curl
WORK="$(mktemp -d)"
trap bench_cleanup EXIT

SHARDS=$(( (SAMPLES + PER_SHARD - 1) / PER_SHARD ))
LAST=$(printf '%04d' $((SHARDS - 1)))
echo "generating $SAMPLES samples of $SIZE bytes in $SHARDS shards ..."
python3 - "$WORK/src" "$SAMPLES" "$SIZE" "$PER_SHARD" <<'PY'
import io, os, random, sys, tarfile
root, n, size, per = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rnd = random.Random(1)
os.makedirs(root, exist_ok=True)
keys = list(range(n))
rnd.shuffle(keys)
for s in range(0, n, per):
    with tarfile.open("%s/shard-%04d.tar" % (root, s // per), "w", format=tarfile.USTAR_FORMAT) as t:
        for k in keys[s:s + per]:
            for ext, data in ((".bin", rnd.randbytes(size)), (".cls", str(k % 1000).encode())):
                info = tarfile.TarInfo("sample-%07d%s" % (k, ext))
                info.size = len(data)
                info.mtime = 1700000000
                t.addfile(info, io.BytesIO(data))
PY
BYTES=$(du -sb "$WORK/src" | cut -f1)

cluster_up dsort 3 "--fsync false"
EP="$PROXY_URL"
"$TESSERA" --endpoint "$EP" bucket create dsort-src >/dev/null
echo "uploading $(python3 -c "print('%.1f MiB' % ($BYTES / 2**20))") to $EP ..."
"$TESSERA" --endpoint "$EP" put "$WORK/src" dsort-src --workers 8 >/dev/null 2>"$WORK/put.err" || {
  cat "$WORK/put.err" >&2; exit 1; }

# CPU seconds (user + system) of the cluster's processes, threads included:
# on 2 CPUs shared with other tenants the time of a round moves a lot, the
# CPU a round costs much less.
NODE_PIDS=$(cat "$WORK"/cluster-dsort/pids/*.pid)
node_cpu() {
  local t=0 p
  for p in $NODE_PIDS; do t=$((t + $(awk '{print $14 + $15}' "/proc/$p/stat"))); done
  python3 -c "import os, sys; print(int(sys.argv[1]) / os.sysconf('SC_CLK_TCK'))" "$t"
}

# Rounds alternate a copy and a dSort, each started after `sync` and each
# output removed (and synced) after it: neither measures the other's
# write-back, and dirty pages do not pile up across rounds.
CP_SECS=()
DSORT_SECS=()
CP_CPU=()
DSORT_CPU=()
for r in $(seq 1 "$ROUNDS"); do
  sync
  start=$(date +%s.%N)
  cpu=$( { TIMEFORMAT='%U %S'; time cp -r "$WORK/src" "$WORK/copy"; } 2>&1 )
  end=$(date +%s.%N)
  CP_SECS+=("$(python3 -c "print($end - $start)")")
  CP_CPU+=("$(echo "$cpu" | awk '{print $1 + $2}')")
  echo "round $r cp -r: $(printf '%.3f' "${CP_SECS[-1]}") s, CPU $(printf '%.2f' "${CP_CPU[-1]}") s"
  rm -rf "$WORK/copy"
  sync

  "$TESSERA" --endpoint "$EP" bucket create "dsort-dst-$r" >/dev/null
  cpu0=$(node_cpu)
  "$TESSERA" --endpoint "$EP" --json dsort start dsort-src "dsort-dst-$r" --input "shard-{0000..$LAST}" \
    --shard-size "$PER_SHARD records" --algorithm shuffle --seed "$r" --wait \
    >"$WORK/job-$r.json" 2>"$WORK/job-$r.err" || { cat "$WORK/job-$r.err" "$WORK/job-$r.json" >&2; exit 1; }
  read -r secs phases < <(python3 - "$WORK/job-$r.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["state"] == "finished", d
end = max(t["ended_ns"] for t in d["targets"].values())
m = d["metrics"].values()
slowest = lambda k: max(x.get(k, 0) for x in m) / 1000
spilled = sum(x.get("spill.records", 0) for x in m)
print((end - d["started_ns"]) / 1e9,
      "extract %.2fs, sort+wait %.2fs, create %.2fs, final barrier %.2fs, spilled records %d" % (
          slowest("extract.ms"), slowest("sort.ms"), slowest("create.ms"), slowest("wait.ms"), spilled))
PY
)
  DSORT_SECS+=("$secs")
  DSORT_CPU+=("$(python3 -c "import sys; print(float(sys.argv[2]) - float(sys.argv[1]))" "$cpu0" "$(node_cpu)")")
  echo "round $r dsort shuffle: $(printf '%.3f' "$secs") s, nodes' CPU $(printf '%.2f' "${DSORT_CPU[-1]}") s ($phases)"
  "$TESSERA" --endpoint "$EP" bucket rm "dsort-dst-$r" --yes >/dev/null
  sync
done

C=$(echo "${CP_SECS[@]}" | median)
D=$(echo "${DSORT_SECS[@]}" | median)
echo
echo "input: $SAMPLES samples of $SIZE B in $SHARDS shards ($BYTES bytes), 3 targets on one machine ($(nproc) CPUs)"
echo "reference cp -r (same disk): median $(printf '%.3f' "$C") s, CPU $(printf '%.2f' "$(echo "${CP_CPU[@]}" | median)") s"
echo "dsort shuffle (3 targets):   median $(printf '%.3f' "$D") s, nodes' CPU $(printf '%.2f' "$(echo "${DSORT_CPU[@]}" | median)") s"
python3 -c "print('ratio dsort / cp -r: %.2f (goal <= 1.25)' % ($D / $C))"
# For run_all.sh, as a ratio where higher is better: copy time / dSort time.
result P6 "dSort shuffle of $((BYTES >> 20)) MiB ($SAMPLES samples of $SIZE B, 3 targets), cp -r time / dSort time" \
  "$(printf '%.3f' "$D") s" "cp -r $(printf '%.3f' "$C") s" "$(ratio "$C" "$D")" 0.8
