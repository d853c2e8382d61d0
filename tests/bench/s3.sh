#!/usr/bin/env bash
# P9: the S3 front end (the proxy relays the body, no redirect) vs the native
# API (307 to the target, the body goes straight there), in the same run on
# the same cluster (3 targets, fsync off, everything in the page cache):
#   P9-large-*: one large object with `aws s3 cp` (multipart PUT in 8 MiB
#     parts, 10 threads; GET in ranged parts) vs `curl -L` on the native API;
#   P9-curl-large-*: the same object with curl on both sides (one stream),
#     which isolates the relay's cost from awscli's;
#   P9-1m-*: 1 MiB objects, 8 curl processes at a time, /s3 vs /v1 with -L.
# Goal: >= 0.7 for the 1 MiB ratios (issue 19). Rounds alternate; medians.
# Usage: tests/bench/s3.sh [--size-mib N] [--small-count N] [--rounds N]
set -euo pipefail
SIZE_MIB=256
SMALL=96
ROUNDS=3
while [ $# -gt 0 ]; do
  case "$1" in
    --size-mib) SIZE_MIB="$2"; shift 2 ;;
    --small-count) SMALL="$2"; shift 2 ;;
    --rounds) ROUNDS="$2"; shift 2 ;;
    *) echo "usage: $0 [--size-mib N] [--small-count N] [--rounds N]" >&2; exit 2 ;;
  esac
done
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_require aws curl
python3 -c 'import boto3' 2>/dev/null || { echo "python3-boto3 missing: installers/deps.sh" >&2; exit 1; }
WORK="$(mktemp -d)"
trap bench_cleanup EXIT
export AWS_ACCESS_KEY_ID=AKIDBENCH AWS_SECRET_ACCESS_KEY=bench-secret AWS_DEFAULT_REGION=us-east-1
export AWS_EC2_METADATA_DISABLED=true

cluster_up s3 3 "--fsync false"
curl -sS -f -X POST -d '{"action":"create-bck"}' "$PROXY_URL/v1/buckets/bench-s3" >/dev/null
AWS=(aws --endpoint-url "$PROXY_URL/s3")
head -c $((SIZE_MIB << 20)) /dev/urandom >"$WORK/large.bin"
head -c $((1 << 20)) /dev/urandom >"$WORK/small.bin"
BYTES=$((SIZE_MIB << 20))

now() { date +%s.%N; }
mbps() { python3 -c "import sys; print(f'{float(sys.argv[1]) / (float(sys.argv[3]) - float(sys.argv[2])) / 1e6:.0f}')" "$@"; }
# timed VAR CMD...: appends the MB/s of moving $BYTES with CMD to VAR.
timed() {
  local var="$1" t0 t1
  shift
  t0=$(now)
  "$@" >/dev/null
  t1=$(now)
  printf -v "$var" '%s %s' "${!var}" "$(mbps "$BYTES" "$t0" "$t1")"
}
# boto3 (Debian's python3-boto3), one stream, the body in 1 MiB pieces: what a
# training script's get_object/put_object sees (awscli's own file writer
# reads in small pieces and measures awscli more than the relay).
boto() {  # get|put KEY
  python3 - "$1" "$PROXY_URL/s3" "$2" "$WORK/large.bin" <<'PY'
import sys, time, boto3
op, endpoint, key, path = sys.argv[1:5]
s3 = boto3.client("s3", endpoint_url=endpoint)
if op == "put":
    with open(path, "rb") as f:
        data = f.read()
    t0 = time.monotonic()
    s3.put_object(Bucket="bench-s3", Key=key, Body=data)
    n = len(data)
else:
    t0 = time.monotonic()
    body = s3.get_object(Bucket="bench-s3", Key=key)["Body"]
    n = 0
    while chunk := body.read(1 << 20):
        n += len(chunk)
print(f"{n / (time.monotonic() - t0) / 1e6:.0f}")
PY
}
# btimed VAR get|put KEY: appends boto3's MB/s (timed inside Python, without
# the interpreter's start and boto3's import) to VAR.
btimed() {
  local var="$1"
  printf -v "$var" '%s %s' "${!var}" "$(boto "$2" "$3")"
}
small_native_put() { seq 1 "$SMALL" | xargs -P 8 -I{} curl -sS -f -L -T "$WORK/small.bin" -o /dev/null "$PROXY_URL/v1/objects/bench-s3/n{}"; }
small_native_get() { seq 1 "$SMALL" | xargs -P 8 -I{} curl -sS -f -L -o /dev/null "$PROXY_URL/v1/objects/bench-s3/n{}"; }
small_s3_put() { seq 1 "$SMALL" | xargs -P 8 -I{} curl -sS -f -T "$WORK/small.bin" -o /dev/null "$PROXY_URL/s3/bench-s3/s{}"; }
small_s3_get() { seq 1 "$SMALL" | xargs -P 8 -I{} curl -sS -f -o /dev/null "$PROXY_URL/s3/bench-s3/s{}"; }

NPUT="" NGET="" SPUT="" SGET="" CPUT="" CGET="" BPUT="" BGET="" SNPUT="" SNGET="" SSPUT="" SSGET=""
for r in $(seq 1 "$ROUNDS"); do
  timed NPUT curl -sS -f -L -T "$WORK/large.bin" -o /dev/null "$PROXY_URL/v1/objects/bench-s3/native.bin"
  timed SPUT "${AWS[@]}" s3 cp --only-show-errors "$WORK/large.bin" s3://bench-s3/s3.bin
  timed CPUT curl -sS -f -T "$WORK/large.bin" -o /dev/null "$PROXY_URL/s3/bench-s3/curl.bin"
  timed NGET curl -sS -f -L -o /dev/null "$PROXY_URL/v1/objects/bench-s3/native.bin"
  timed SGET "${AWS[@]}" s3 cp --only-show-errors s3://bench-s3/s3.bin "$WORK/s3.out"
  timed CGET curl -sS -f -o /dev/null "$PROXY_URL/s3/bench-s3/curl.bin"
  btimed BPUT put boto.bin
  btimed BGET get boto.bin
  cmp -s "$WORK/large.bin" "$WORK/s3.out" || { echo "aws s3 cp read back other bytes" >&2; exit 1; }
  BYTES_LARGE=$BYTES
  BYTES=$((SMALL << 20))
  timed SNPUT small_native_put
  timed SSPUT small_s3_put
  timed SNGET small_native_get
  timed SSGET small_s3_get
  BYTES=$BYTES_LARGE
  echo "round $r: large put native/aws/curl-s3 $NPUT | $SPUT | $CPUT; get $NGET | $SGET | $CGET; boto3 put/get $BPUT | $BGET; 1 MiB put $SNPUT | $SSPUT; get $SNGET | $SSGET" >&2
done
m() { echo "$1" | median; }
report() {  # ID MEASURE S3 NATIVE GOAL
  result "$1" "$2" "$3 MB/s" "native $4 MB/s" "$(ratio "$3" "$4")" "$5"
}
report P9-large-put "${SIZE_MIB} MiB PUT, aws s3 cp (multipart) vs curl -L native" "$(m "$SPUT")" "$(m "$NPUT")" 0.5
report P9-large-get "${SIZE_MIB} MiB GET, aws s3 cp vs curl -L native" "$(m "$SGET")" "$(m "$NGET")" 0.5
report P9-curl-large-put "${SIZE_MIB} MiB PUT, curl /s3 (relayed) vs curl -L native" "$(m "$CPUT")" "$(m "$NPUT")" 0.7
report P9-curl-large-get "${SIZE_MIB} MiB GET, curl /s3 (relayed) vs curl -L native" "$(m "$CGET")" "$(m "$NGET")" 0.7
report P9-boto3-large-put "${SIZE_MIB} MiB put_object, boto3 (payload SHA-256 signed) vs curl -L native" "$(m "$BPUT")" "$(m "$NPUT")" 0.5
report P9-boto3-large-get "${SIZE_MIB} MiB get_object read in 1 MiB pieces, boto3 vs curl -L native" "$(m "$BGET")" "$(m "$NGET")" 0.5
report P9-1m-put "1 MiB PUT x $SMALL, 8 curls, /s3 vs native -L" "$(m "$SSPUT")" "$(m "$SNPUT")" 0.7
report P9-1m-get "1 MiB GET x $SMALL, 8 curls, /s3 vs native -L" "$(m "$SSGET")" "$(m "$SNGET")" 0.7
