#!/usr/bin/env bash
# Curve: ishard and dSort time vs dataset size (64 MiB, 256 MiB, 1 GiB;
# 4 GiB with --max-mib 4096) on a 3-target cluster (fsync off), each next to
# its local reference on the same data, set up and timed as ../ishard.sh and
# ../dsort.sh do (their generators, in lib_curves.sh):
#   ishard  WebDataset samples of 3 files (.png of --png-size bytes, .cls,
#           .json) uploaded loose, sharded into --shard-size shards; time from
#           the job's start to the last target's end, after `sync`. Reference: `tar cf
#           --sort=name` of the same local files (page cache warm), after `sync`.
#   dSort   shards of --per-shard samples (.bin of --sample-size bytes, .cls),
#           shuffled into shards of the same record count; time from the
#           job's start to the last target's end, after `sync`. Reference:
#           `cp -r` of the same shard files on the same disk, after `sync`.
# Every output is removed (and synced) after its round, every input after
# its point. Writes OUT/datasets.csv, OUT/curve-datasets.png, OUT/datasets.md.
# Usage: tests/bench/curves/datasets.sh [--quick] [--rounds N] [--out DIR] [--max-mib N]
#                                       [--png-size B] [--shard-size S] [--sample-size B] [--per-shard N]
#   --quick          4 MiB and 16 MiB; dSort samples of 64 KiB
#   --max-mib N      the largest point: 64, 256, 1024, 4096 up to N (default 1024, at most 4096)
#   --png-size B     bytes of each ishard sample's .png (default 16384; ishard.sh's 2048 makes
#                    8x the files per MiB)
#   --shard-size S   ishard's output shard size (default 16MiB, as ishard.sh)
#   --sample-size B  bytes of each dSort sample's .bin (default 1048576, as dsort.sh)
#   --per-shard N    dSort samples per input and output shard (default 16: 16 MiB shards)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/../lib.sh"
source "$HERE/lib_curves.sh"
curves_defaults
MAX_MIB=1024
PNG_SIZE=16384
SHARD_SIZE=16MiB
SAMPLE_SIZE=1048576
PER_SHARD=16
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) QUICK=1; shift ;;
    --rounds) ROUNDS="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --max-mib) MAX_MIB="$2"; shift 2 ;;
    --png-size) PNG_SIZE="$2"; shift 2 ;;
    --shard-size) SHARD_SIZE="$2"; shift 2 ;;
    --sample-size) SAMPLE_SIZE="$2"; shift 2 ;;
    --per-shard) PER_SHARD="$2"; shift 2 ;;
    *) echo "usage: $0 [--quick] [--rounds N] [--out DIR] [--max-mib N] [--png-size B] [--shard-size S]" \
      "[--sample-size B] [--per-shard N]" >&2; exit 2 ;;
  esac
done
for v in "$MAX_MIB" "$PNG_SIZE" "$SAMPLE_SIZE" "$PER_SHARD"; do
  case "$v" in '' | *[!0-9]* | 0) echo "--max-mib, --png-size, --sample-size and --per-shard must be positive numbers" >&2
    exit 2 ;; esac
done
[ "$MAX_MIB" -ge 64 ] && [ "$MAX_MIB" -le 4096 ] || { echo "--max-mib is 64..4096" >&2; exit 2; }
curves_check
bench_require python3 tar curl
WORK="$(mktemp -d)"
trap bench_cleanup EXIT

POINTS=()
for m in 64 256 1024 4096; do [ "$m" -gt "$MAX_MIB" ] || POINTS+=("$m"); done
if [ "$QUICK" = 1 ]; then
  POINTS=(4 16)
  SAMPLE_SIZE=65536
fi
cluster_up datasets 3 "--fsync false"
EP="$PROXY_URL"
T() { "$TESSERA" --endpoint "$EP" "$@"; }
# job_secs JOB.json: from the job's start to the last target's end.
job_secs() {
  python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["state"] == "finished", d
print((max(t["ended_ns"] for t in d["targets"].values()) - d["started_ns"]) / 1e9)
PY
}

CSV="$OUT/datasets.csv"
csv_header "$CSV" dataset_mib ishard_s tar_cf_s dsort_s cp_r_s
for mib in "${POINTS[@]}"; do
  # ishard: samples whose .png bytes add up to the point's size.
  samples=$((mib * 1048576 / PNG_SIZE))
  rm -rf "$WORK/isrc"
  gen_ishard_src "$WORK/isrc" "$samples" "$PNG_SIZE"
  T bucket create ishard-src >/dev/null
  start=$SECONDS
  T put "$WORK/isrc/train" ishard-src/train/ --workers 32 >/dev/null 2>"$WORK/put.err" || { cat "$WORK/put.err" >&2; exit 1; }
  echo "$mib MiB: $samples ishard samples ($((samples * 3)) files) uploaded in $((SECONDS - start)) s"
  IS=() TS=()
  for r in $(seq 1 "$ROUNDS"); do
    # Both after `sync`, as the dSort rounds: the upload's write-back (and
    # the previous round's) would otherwise run through the measurement.
    sync
    start=$(date +%s.%N)
    tar cf "$WORK/ref.tar" --sort=name -C "$WORK/isrc" train
    TS+=("$(secs_since "$start")")
    rm -f "$WORK/ref.tar"
    T bucket create ishard-dst >/dev/null
    sync
    T --json ishard ishard-src ishard-dst --shard-size "$SHARD_SIZE" --wait >"$WORK/ij.json" 2>"$WORK/ij.err" || {
      cat "$WORK/ij.err" "$WORK/ij.json" >&2; exit 1; }
    IS+=("$(job_secs "$WORK/ij.json")")
    T bucket rm ishard-dst --yes >/dev/null
    printf '%5d MiB round %d: ishard %8.3f s, tar cf %8.3f s\n' "$mib" "$r" "${IS[-1]}" "${TS[-1]}"
  done
  T bucket rm ishard-src --yes >/dev/null
  rm -rf "$WORK/isrc"
  sync

  # dSort: shards of PER_SHARD samples adding up to the point's size.
  samples=$((mib * 1048576 / SAMPLE_SIZE))
  [ "$samples" -ge "$PER_SHARD" ] || samples=$PER_SHARD
  shards=$(((samples + PER_SHARD - 1) / PER_SHARD))
  last=$(printf '%04d' $((shards - 1)))
  rm -rf "$WORK/dsrc"
  gen_dsort_src "$WORK/dsrc" "$samples" "$SAMPLE_SIZE" "$PER_SHARD"
  T bucket create dsort-src >/dev/null
  start=$SECONDS
  T put "$WORK/dsrc" dsort-src --workers 8 >/dev/null 2>"$WORK/put.err" || { cat "$WORK/put.err" >&2; exit 1; }
  echo "$mib MiB: $samples dSort samples in $shards shards uploaded in $((SECONDS - start)) s"
  DS=() CS=()
  for r in $(seq 1 "$ROUNDS"); do
    sync
    start=$(date +%s.%N)
    cp -r "$WORK/dsrc" "$WORK/copy"
    CS+=("$(secs_since "$start")")
    rm -rf "$WORK/copy"
    sync
    T bucket create dsort-dst >/dev/null
    T --json dsort start dsort-src dsort-dst --input "shard-{0000..$last}" --shard-size "$PER_SHARD records" \
      --algorithm shuffle --seed "$r" --wait >"$WORK/dj.json" 2>"$WORK/dj.err" || {
      cat "$WORK/dj.err" "$WORK/dj.json" >&2; exit 1; }
    DS+=("$(job_secs "$WORK/dj.json")")
    T bucket rm dsort-dst --yes >/dev/null
    sync
    printf '%5d MiB round %d: dsort %8.3f s, cp -r %8.3f s\n' "$mib" "$r" "${DS[-1]}" "${CS[-1]}"
  done
  T bucket rm dsort-src --yes >/dev/null
  rm -rf "$WORK/dsrc"
  sync
  csv_row "$CSV" "$mib" "$(stats "${IS[@]}")" "$(stats "${TS[@]}")" "$(stats "${DS[@]}")" "$(stats "${CS[@]}")"
done

{
  gp_preamble "$OUT/curve-datasets.png" "ishard and dSort time vs dataset size (3 targets on one machine; median, min-max bars)" \
    "dataset size (MiB)" "time (s)" 1
  echo "set yrange [*:*]"
  echo "set logscale y 10"
  echo "set xrange [${POINTS[0]} / 1.5 : ${POINTS[-1]} * 1.5]"
  echo "set xtics (${POINTS[*]/%/,})" | sed 's/,)/)/; s/, /, /g'
  echo "plot '$CSV' skip 1 using 1:2:3:4 title 'ishard ($((PNG_SIZE / 1024)) KiB samples of 3 files -> $SHARD_SIZE shards)' lw 2, \\"
  echo "     '' skip 1 using 1:5:6:7 title 'tar cf of the same files (local)' lw 2 dt 2, \\"
  echo "     '' skip 1 using 1:8:9:10 title 'dSort shuffle ($PER_SHARD samples of $((SAMPLE_SIZE / 1024)) KiB per shard)' lw 2, \\"
  echo "     '' skip 1 using 1:11:12:13 title 'cp -r of the same shards (local)' lw 2 dt 2"
} | gp_run

{
  echo "### ishard and dSort vs dataset size"
  echo
  echo "![time vs dataset size](images/curve-datasets.png)"
  echo
  echo "3 targets (fsync off). ishard: samples of a $PNG_SIZE-byte .png, a .cls and a .json, uploaded"
  echo "loose, sharded into $SHARD_SIZE shards, against \`tar cf --sort=name\` of the same local files, both after \`sync\`."
  echo "dSort: input shards of $PER_SHARD samples (a $SAMPLE_SIZE-byte .bin and a .cls) shuffled into shards"
  echo "of $PER_SHARD records, against \`cp -r\` of the same shard files, both after \`sync\`. Job times run"
  echo "from the job's start to the last target's end. $ROUNDS round(s)."
  echo
  curve_md "$CSV" "ishard and dSort time (s) vs dataset size" "" "dataset (MiB),ishard (s),tar cf (s),dSort (s),cp -r (s)"
} >"$OUT/datasets.md"
echo "wrote $CSV, $OUT/curve-datasets.png, $OUT/datasets.md"
