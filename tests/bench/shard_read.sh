#!/usr/bin/env bash
# P5: 1 KiB samples read as WebDataset shards vs as loose objects, in
# samples/s, and against libarchive parsing the same shards from memory:
#   shard-read   GET each ~1 MiB .tar whole (direct to the target) and read
#                every member with libarchive, as a WebDataset loader does
#   loose-read   GET each sample as its own object (direct, 64 connections)
#   shard-scan   the same shard files parsed from memory, no transfer
# Goals: shard-read >= 10 x loose-read, and >= 0.9 x shard-scan (pass 2).
# The samples are PUT once as loose objects; `tessera ishard` makes the
# shards from exactly those objects; the shards are downloaded for
# shard-scan. A single-target cluster, as in P1. Rounds alternate the three
# modes; medians are compared.
# Usage: tests/bench/shard_read.sh [--samples N] [--duration SECONDS] [--rounds N]
set -euo pipefail
SAMPLES=20000
DURATION=5
ROUNDS=3
while [ $# -gt 0 ]; do
  case "$1" in
    --samples) SAMPLES="$2"; shift 2 ;;
    --duration) DURATION="$2"; shift 2 ;;
    --rounds) ROUNDS="$2"; shift 2 ;;
    *) echo "usage: $0 [--samples N] [--duration SECONDS] [--rounds N]" >&2; exit 2 ;;
  esac
done
case "$SAMPLES" in '' | *[!0-9]* | 0) echo "--samples must be a positive number" >&2; exit 2 ;; esac
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_require curl
WORK="$(mktemp -d)"
trap bench_cleanup EXIT

THREADS=$(nproc)
cluster_up p5 1 "--fsync false"
T=("$TESSERA" --endpoint "$PROXY_URL")
"${T[@]}" bench put --bucket bench-p5 --prefix loose/ --size 1KiB --count "$SAMPLES" --workers 32 --direct >/dev/null
"${T[@]}" bucket create bench-p5-shards >/dev/null
"${T[@]}" ishard bench-p5/loose/ bench-p5-shards --shard-size 1MiB --wait >/dev/null 2>&1
mkdir -p "$WORK/shards"
"${T[@]}" --json ls bench-p5-shards >"$WORK/shards.json"
for n in $(json_get "$WORK/shards.json" '"\n".join(e["name"] for e in d["entries"])'); do
  curl -sfL -o "$WORK/shards/$n" "$PROXY_URL/v1/objects/bench-p5-shards/$n"
done
echo "$SAMPLES samples of 1 KiB; $(ls "$WORK/shards" | wc -l) shards of 1 MiB ($(du -sh "$WORK/shards" | cut -f1))" >&2

TARGET_PID=$(cat "$WORK/cluster-p5/pids/target-1.pid")
HZ=$(getconf CLK_TCK)
declare -A RES CPU
# measure NAME ARGS...: one round; appends samples/s to RES[NAME] and the CPU
# per sample (us, user + system) of the client and of the target to CPU[NAME].
measure() {
  local name="$1"; shift
  local before after client
  before=$(awk '{print $14 + $15}' "/proc/$TARGET_PID/stat")
  client=$(python3 - "$WORK/$name.json" "$TESSERA" --json bench "$@" --duration "${DURATION}s" <<'PY'
import resource, subprocess, sys
with open(sys.argv[1], "w") as f:
    subprocess.run(sys.argv[2:], stdout=f, check=True)
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
print(ru.ru_utime + ru.ru_stime)
PY
) || { echo "tessera bench $* failed" >&2; exit 1; }
  after=$(awk '{print $14 + $15}' "/proc/$TARGET_PID/stat")
  RES[$name]="${RES[$name]:-} $(json_get "$WORK/$name.json" 'd["summary"]["get"]["items_per_s"]')"
  CPU[$name]="${CPU[$name]:-} $(python3 - "$WORK/$name.json" "$client" "$before" "$after" "$HZ" <<'PY'
import json, sys
items = json.load(open(sys.argv[1]))["summary"]["get"]["items"]
client, before, after, hz = float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
print("%.3f/%.3f" % (client * 1e6 / items, (after - before) / hz * 1e6 / items))
PY
)"
}
for r in $(seq 1 "$ROUNDS"); do
  measure shard --endpoint "$PROXY_URL" shard-read --bucket bench-p5-shards --direct --workers 8 --threads "$THREADS"
  measure loose --endpoint "$PROXY_URL" loose-read --bucket bench-p5 --prefix loose/ --direct --workers 64 \
    --threads "$THREADS"
  measure scan shard-scan --dir "$WORK/shards" --workers "$THREADS"
  echo "round $r: shard-read ${RES[shard]##* } loose-read ${RES[loose]##* } shard-scan ${RES[scan]##* } samples/s" >&2
  echo "round $r CPU per sample (us, client/target): shard-read ${CPU[shard]##* } shard-scan ${CPU[scan]##* }" >&2
done
# What P5b could reach if the machine's CPUs were the only limit: libarchive's
# cost per sample from memory over what a sample costs the client and the
# target when it comes over HTTP (both share this machine's CPUs).
python3 - "${CPU[shard]}" "${CPU[scan]}" <<'PY' >&2
import statistics, sys
def med(words, i):
    return statistics.median(float(w.split("/")[i]) for w in words.split())
c, t, s = med(sys.argv[1], 0), med(sys.argv[1], 1), med(sys.argv[2], 0)
print("CPU per sample (medians): shard-read client %.3f + target %.3f us, shard-scan %.3f us; "
      "P5b at most %.3f while client and target share the CPUs" % (c, t, s, s / (c + t)))
PY
declare -A M
for k in shard loose scan; do M[$k]=$(echo "${RES[$k]}" | median); done
fmt() { python3 -c "import sys; print(f'{float(sys.argv[1]):.0f} samples/s')" "$1"; }
result P5 "1 KiB samples: shard-read vs loose-read (1 MiB .tar shards, direct)" "$(fmt "${M[shard]}")" \
  "loose-read $(fmt "${M[loose]}")" "$(ratio "${M[shard]}" "${M[loose]}")" 10
result P5b "1 KiB samples: shard-read vs libarchive from memory" "$(fmt "${M[shard]}")" \
  "shard-scan $(fmt "${M[scan]}")" "$(ratio "${M[shard]}" "${M[scan]}")" 0.9
