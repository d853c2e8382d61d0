#!/usr/bin/env bash
# ETL throughput on a local 2-target cluster (one target per core), each
# against a reference measured in the same run on the same files:
#   P8a  inline GET through an io:// ETL, 64 connections through the proxy,
#        objects/s, for the md5 and the image-resize (PNG -> 64x64 JPEG)
#        sample transformers; reference: the same transformer run directly
#        on the same local files, once per file, with the same parallelism
#        (the ETL's pool_size) — tests/bench/etl_local_runner.py. Goal >= 0.8.
#   P8b  offline ETL of the demo's 70,000 Fashion-MNIST PNGs (resize to
#        64x64 JPEG) with long-lived io:// workers (framing "length",
#        resources/etl/resize_image.py, one per target), written back as
#        70,000 objects; again with the hpush:// server
#        (resources/etl/http_server.py); reference: `xargs -P <cores>` over
#        the same local files running tests/bench/etl_resize_files.py (the
#        same PIL calls) in batches of 500, writing JPEG files. Goal >= 0.8.
#        In the same run: per-sample ETL of the demo's 23 shards (every PNG
#        of every shard resized, new shards written), against the same
#        reference (the same images).
#   io:// vs hpush:// per-object overhead, one connection: the latency of a
#        GET through each minus a plain GET of the same object, in µs.
# Usage: tests/bench/etl.sh [--duration SECONDS] [--rounds N] [--limit N]
#   --limit N  only the first N demo samples for P8b (default: all 70,000)
# Needs: a release build (or TESSERA_BUILD=...), Debian's dataset-fashion-mnist,
# python3-pil (installers/deps.sh).
set -euo pipefail
DURATION=5
ROUNDS=3
LIMIT=0
while [ $# -gt 0 ]; do
  case "$1" in
    --duration) DURATION="$2"; shift 2 ;;
    --rounds) ROUNDS="$2"; shift 2 ;;
    --limit) LIMIT="$2"; shift 2 ;;
    *) echo "usage: $0 [--duration SECONDS] [--rounds N] [--limit N]" >&2; exit 2 ;;
  esac
done
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_require python3 xargs
HERE="$ROOT/tests/bench"
SAMPLES="$ROOT/resources/etl"
WORK="$(mktemp -d)"
trap bench_cleanup EXIT
CORES=$(nproc)
POOL=8

cluster_up etl 2 "--fsync false"
T=("$TESSERA" --endpoint "$PROXY_URL")
limit_args=()
[ "$LIMIT" -gt 0 ] && limit_args=(--limit "$LIMIT")
echo "loading the Fashion-MNIST demo (loose samples and 23 shards) ..." >&2
"${T[@]}" demo fashion-mnist --out "$WORK/fm" --bucket fm-raw --shard-bucket fm-shards "${limit_args[@]}" >"$WORK/demo.log" 2>&1 || { cat "$WORK/demo.log" >&2; exit 1; }
PNGS=$(find "$WORK/fm" -name '*.png' | wc -l)

# --- P8a: inline, 64 connections ------------------------------------------
mkdir -p "$WORK/p8a"
i=0
for f in $(find "$WORK/fm/train" -name '*.png' | sort | head -1000); do
  cp "$f" "$WORK/p8a/$(printf 'obj-%08d' "$i")"
  i=$((i + 1))
done
ls "$WORK"/p8a/obj-* >"$WORK/p8a.list"
"${T[@]}" bucket create etl-img >/dev/null
"${T[@]}" put "$WORK/p8a" etl-img/ --workers 16 >/dev/null
"${T[@]}" etl init --name md5 --pool "$POOL" -- md5 >/dev/null
"${T[@]}" etl init --name resize --pool "$POOL" -- resize_image.py 64 >/dev/null
"${T[@]}" etl init --name md5-push --comm hpush -- http_server.py --port '{port}' --op md5 >/dev/null

declare -A RES
tessera_ops() {  # OUT URL WORKERS: objects/s of `tessera bench --url-get`
  bench_run "$1" --url-get "$2" --count-objects 1000 --workers "$3" --threads "$CORES" --duration "${DURATION}s"
  json_get "$1" 'd["summary"]["get"]["ops_per_s"]'
}
for r in $(seq 1 "$ROUNDS"); do
  for etl in md5 resize; do
    t=$(tessera_ops "$WORK/$etl.json" "$PROXY_URL/v1/objects/etl-img/obj-{i}?etl_name=$etl" 64)
    l=$("$HERE/etl_local_runner.py" --parallel "$POOL" --duration "$DURATION" --files-from "$WORK/p8a.list" \
      -- "$SAMPLES/$( [ "$etl" = md5 ] && echo md5 || echo resize_image.py)" $( [ "$etl" = resize ] && echo 64))
    RES[$etl]="${RES[$etl]:-} $t"
    RES[$etl-local]="${RES[$etl-local]:-} $l"
    echo "round $r: $etl inline $t objects/s, local $l objects/s" >&2
  done
done
for etl in md5 resize; do
  t=$(echo "${RES[$etl]}" | median)
  l=$(echo "${RES[$etl-local]}" | median)
  result "P8a-$etl" "inline ETL GET ($etl, io://, pool $POOL), 64 conns" "$(printf '%.0f objects/s' "$t")" \
    "local $(printf '%.0f objects/s' "$l")" "$(ratio "$t" "$l")" 0.8
done

# --- per-object overhead, one connection ------------------------------------
for r in $(seq 1 "$ROUNDS"); do
  for kind in plain md5 md5-push; do
    q=""
    [ "$kind" != plain ] && q="?etl_name=$kind"
    o=$(tessera_ops "$WORK/lat-$kind.json" "$PROXY_URL/v1/objects/etl-img/obj-{i}$q" 1)
    RES[lat-$kind]="${RES[lat-$kind]:-} $o"
  done
done
plain=$(echo "${RES[lat-plain]}" | median)
# The transformer's own cost: md5 run directly, one at a time.
local1=$("$HERE/etl_local_runner.py" --parallel 1 --duration "$DURATION" --files-from "$WORK/p8a.list" -- "$SAMPLES/md5")
for kind in md5 md5-push; do
  o=$(echo "${RES[lat-$kind]}" | median)
  us=$(python3 -c "import sys; print(f'{1e6/float(sys.argv[1]) - 1e6/float(sys.argv[2]):.0f}')" "$o" "$plain")
  line="per-object cost of $kind ($( [ "$kind" = md5 ] && echo io:// || echo hpush://)), 1 connection: +$us µs over a plain GET ($(printf '%.0f' "$o") vs $(printf '%.0f' "$plain") GET/s)"
  [ "$kind" = md5 ] && line="$line; the md5 script alone, run directly: $(python3 -c "import sys; print(f'{1e6/float(sys.argv[1]):.0f}')" "$local1") µs"
  echo "INFO $line"
  [ -z "${RESULTS:-}" ] || echo "INFO $line" >>"$RESULTS"
done

# --- P8b: offline, every PNG of the demo -----------------------------------
"${T[@]}" etl init --name thumbs-push --comm hpush -- http_server.py --port '{port}' --op resize --size 64 >/dev/null
# framing "length": long-lived io:// workers, one per target (2 targets: as
# many workers as xargs runs processes).
curl -sf -X PUT "$PROXY_URL/v1/etl" -d '{"name":"thumbs","command":["resize_image.py","64"],"framing":"length","pool_size":1}' >/dev/null
(cd "$WORK/fm" && find . -name '*.png' | sed 's|^\./||' | sort) >"$WORK/pngs.txt"
for etl in thumbs thumbs-push; do
  python3 - "$WORK/pngs.txt" "$WORK/p8b-$etl.json" "$etl" <<'PY'
import json, sys
names = [l.strip() for l in open(sys.argv[1]) if l.strip()]
json.dump({"action": "etl-listrange", "name": "fm-thumbs",
           "value": {"id": sys.argv[3], "objnames": names, "ext": {"png": "jpg"}}}, open(sys.argv[2], "w"))
PY
done
job_seconds() {  # JOB-STATUS-JSON: the job's wall time
  python3 -c "import json,sys; d=json.load(sys.stdin); print((d['ended_ns']-d['started_ns'])/1e9)"
}
wait_job() {  # ID: waits, prints the final status JSON; fails unless finished
  "${T[@]}" job wait "$1" >/dev/null 2>&1 || { "${T[@]}" job show "$1" >&2; return 1; }
  curl -sf "$PROXY_URL/v1/jobs/$1"
}
for r in $(seq 1 "$ROUNDS"); do
  sync
  id=$(curl -sf -X POST "$PROXY_URL/v1/buckets/fm-raw" -H 'Content-Type: application/json' --data-binary @"$WORK/p8b-thumbs.json" |
    python3 -c "import json,sys; print(json.load(sys.stdin)['id'])")
  t=$(wait_job "$id" | job_seconds)
  "${T[@]}" bucket rm fm-thumbs --yes >/dev/null
  sync
  id=$(curl -sf -X POST "$PROXY_URL/v1/buckets/fm-raw" -H 'Content-Type: application/json' --data-binary @"$WORK/p8b-thumbs-push.json" |
    python3 -c "import json,sys; print(json.load(sys.stdin)['id'])")
  h=$(wait_job "$id" | job_seconds)
  rm -rf "$WORK/ref-out"
  sync
  s=$(date +%s.%N)
  (cd "$WORK/fm" && find . -name '*.png' -print0 | xargs -0 -P "$CORES" -n 500 "$HERE/etl_resize_files.py" 64 . "$WORK/ref-out")
  l=$(python3 -c "import sys; print(float(sys.argv[2]) - float(sys.argv[1]))" "$s" "$(date +%s.%N)")
  id=$(curl -sf -X POST "$PROXY_URL/v1/buckets/fm-shards" -H 'Content-Type: application/json' \
    -d '{"action":"etl-bck","name":"fm-64","value":{"id":"thumbs","per_sample":true,"sample_ext":["png"],"ext":{"png":"jpg"}}}' |
    python3 -c "import json,sys; print(json.load(sys.stdin)['id'])")
  p=$(wait_job "$id" | job_seconds)
  RES[p8b]="${RES[p8b]:-} $t"
  RES[p8b-push]="${RES[p8b-push]:-} $h"
  RES[p8b-local]="${RES[p8b-local]:-} $l"
  RES[p8b-shards]="${RES[p8b-shards]:-} $p"
  echo "round $r: offline $PNGS PNGs $t s (io:// framed), $h s (hpush://), xargs -P $CORES $l s, per-sample over the shards $p s" >&2
  "${T[@]}" bucket rm fm-thumbs --yes >/dev/null
  "${T[@]}" bucket rm fm-64 --yes >/dev/null
done
t=$(echo "${RES[p8b]}" | median)
h=$(echo "${RES[p8b-push]}" | median)
l=$(echo "${RES[p8b-local]}" | median)
p=$(echo "${RES[p8b-shards]}" | median)
rate() { python3 -c "import sys; print(f'{float(sys.argv[1])/float(sys.argv[2]):.0f} images/s')" "$PNGS" "$1"; }
result P8b "offline ETL, $PNGS PNGs -> 64x64 JPEG objects (io://, framed workers)" "$(rate "$t") ($(printf '%.1f' "$t") s)" \
  "xargs -P $CORES $(rate "$l")" "$(ratio "$l" "$t")" 0.8
result P8b-hpush "the same through the hpush:// Python server" "$(rate "$h") ($(printf '%.1f' "$h") s)" \
  "xargs -P $CORES $(rate "$l")" "$(ratio "$l" "$h")" 0.8
result P8b-shards "per-sample ETL of the demo shards (same images, new shards)" "$(rate "$p") ($(printf '%.1f' "$p") s)" \
  "xargs -P $CORES $(rate "$l")" "$(ratio "$l" "$p")" 0.8
