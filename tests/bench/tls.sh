#!/usr/bin/env bash
# The cost of TLS: the same reads from a 1-target cluster serving HTTPS
# (local-cluster.sh --tls) and from one serving plain HTTP, both driven by
# curl (which decrypts, as a real client does). Two measures, rounds
# alternating, medians compared:
#   TLS1: 64 MiB GET through the proxy's redirect, MB/s
#   TLS2: 1 KiB GETs through the proxy's redirect over one curl process
#         (keep-alive to the proxy and the target), GETs/s
# No goal: the ratio says what a cluster pays for TLS on this machine.
# Usage: tests/bench/tls.sh [--rounds N] [--small N]
set -euo pipefail
ROUNDS=3
SMALL=2000
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) ROUNDS="$2"; shift 2 ;;
    --small) SMALL="$2"; shift 2 ;;
    *) echo "usage: $0 [--rounds N] [--small N]" >&2; exit 2 ;;
  esac
done
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_require openssl
WORK="$(mktemp -d)"
trap bench_cleanup EXIT

# tls_cluster_up NAME: like cluster_up, with --tls; sets PROXY_URL and CA.
tls_cluster_up() {
  local name="$1" port
  port=$(free_port_run 1)
  CLUSTERS+=("$WORK/cluster-$name:$port")
  TESSERA_DATA="$WORK/cluster-$name" TESSERA_PORT="$port" TESSERA_TARGET_ARGS="--fsync false" \
    "$ROOT/installers/local-cluster.sh" up --targets 1 --tls >"$WORK/cluster-$name.up.log" 2>&1 || {
    cat "$WORK/cluster-$name.up.log" >&2
    return 1
  }
  PROXY_URL="https://127.0.0.1:$port"
  CA="$WORK/cluster-$name/tls/ca.pem"
}

cluster_up plain 1 "--fsync false"
PLAIN_URL="$PROXY_URL"
tls_cluster_up tls
TLS_URL="$PROXY_URL"

head -c $((64 << 20)) /dev/urandom >"$WORK/big"
head -c 1024 /dev/urandom >"$WORK/small"
for url in "$PLAIN_URL" "$TLS_URL"; do
  c=(curl -sf --cacert "$CA")
  "${c[@]}" -X POST "$url/v1/buckets/bench-tls" --data-binary '{"action":"create-bck"}' >/dev/null
  "${c[@]}" -L -T "$WORK/big" "$url/v1/objects/bench-tls/big" >/dev/null
  for i in $(seq 0 99); do
    echo "url = \"$url/v1/objects/bench-tls/s-$i\""
    echo "upload-file = \"$WORK/small\""
  done >"$WORK/put.cfg"
  "${c[@]}" -L -K "$WORK/put.cfg" >/dev/null
done

# big_get URL: MB/s of one 64 MiB GET.
big_get() {
  curl -sf --cacert "$CA" -L -o /dev/null -w '%{speed_download}' "$1/v1/objects/bench-tls/big" |
    python3 -c 'import sys; print(float(sys.stdin.read()) / 1e6)'
}
# small_gets URL: GETs/s of $SMALL 1 KiB GETs in one curl process.
small_gets() {
  local i
  for i in $(seq 0 $((SMALL - 1))); do
    echo "url = \"$1/v1/objects/bench-tls/s-$((i % 100))\""
    echo "output = /dev/null"
  done >"$WORK/get.cfg"
  local t0 t1
  t0=$(date +%s.%N)
  curl -sf --cacert "$CA" -L -K "$WORK/get.cfg"
  t1=$(date +%s.%N)
  python3 -c "import sys; print($SMALL / (float(sys.argv[2]) - float(sys.argv[1])))" "$t0" "$t1"
}

declare -A RES M
for r in $(seq 1 "$ROUNDS"); do
  RES[plain_big]="${RES[plain_big]:-} $(big_get "$PLAIN_URL")"
  RES[tls_big]="${RES[tls_big]:-} $(big_get "$TLS_URL")"
  RES[plain_small]="${RES[plain_small]:-} $(small_gets "$PLAIN_URL")"
  RES[tls_small]="${RES[tls_small]:-} $(small_gets "$TLS_URL")"
  echo "round $r: 64 MiB GET plain ${RES[plain_big]##* } TLS ${RES[tls_big]##* } MB/s;" \
    "1 KiB GET plain ${RES[plain_small]##* } TLS ${RES[tls_small]##* } /s" >&2
done
for k in plain_big tls_big plain_small tls_small; do M[$k]=$(echo "${RES[$k]}" | median); done
fmt() { python3 -c "import sys; print(f'{float(sys.argv[1]):.0f} {sys.argv[2]}')" "$1" "$2"; }
result TLS1 "64 MiB GET via the proxy, curl" "$(fmt "${M[tls_big]}" MB/s)" "plain HTTP $(fmt "${M[plain_big]}" MB/s)" \
  "$(ratio "${M[tls_big]}" "${M[plain_big]}")" 0
result TLS2 "1 KiB GET via the proxy, one curl" "$(fmt "${M[tls_small]}" GET/s)" \
  "plain HTTP $(fmt "${M[plain_small]}" GET/s)" "$(ratio "${M[tls_small]}" "${M[plain_small]}")" 0
