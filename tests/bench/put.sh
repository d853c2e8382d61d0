#!/usr/bin/env bash
# P4: 1 MiB PUT, direct to the target, fsync off and on (two single-target
# clusters that differ only in --fsync), against `dd` writing 1 MiB blocks to
# the same filesystem (conv=fdatasync for the fsync case) and against nginx's
# WebDAV PUT (which never fsyncs), the PUTs driven by `tessera bench`.
# Goal: Tessera >= 0.8 x dd MB/s. Rounds alternate; medians are compared.
# dd writes one stream with one fdatasync at the end, while Tessera writes
# (and with fsync on, syncs) every 1 MiB object: the fsync ratio shows what
# per-object durability costs on this disk.
# Usage: tests/bench/put.sh [--duration SECONDS] [--rounds N] [--workers N] [--dd-mib N]
set -euo pipefail
DURATION=5
ROUNDS=3
WORKERS=16
DD_MIB=2048
while [ $# -gt 0 ]; do
  case "$1" in
    --duration) DURATION="$2"; shift 2 ;;
    --rounds) ROUNDS="$2"; shift 2 ;;
    --workers) WORKERS="$2"; shift 2 ;;
    --dd-mib) DD_MIB="$2"; shift 2 ;;
    *) echo "usage: $0 [--duration SECONDS] [--rounds N] [--workers N] [--dd-mib N]" >&2; exit 2 ;;
  esac
done
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_require nginx dd
WORK="$(mktemp -d)"
trap bench_cleanup EXIT

cluster_up nosync 1 "--fsync false"
NOSYNC="$PROXY_URL"
cluster_up sync 1 "--fsync true"
SYNC="$PROXY_URL"
nginx_up "$WORK/www"
mkdir -p "$WORK/dd"

declare -A RES M
measure() {
  local name="$1"; shift
  bench_run "$WORK/$name.json" "$@" --size 1MiB --workers "$WORKERS" --duration "${DURATION}s"
  RES[$name]="${RES[$name]:-} $(json_get "$WORK/$name.json" 'd["summary"]["put"]["mb_per_s"]')"
}
dd_mbps() {  # dd's own bytes and seconds, as MB/s (10^6 B/s)
  local out
  out=$(LC_ALL=C dd if=/dev/zero of="$WORK/dd/file" bs=1M count="$DD_MIB" "$@" 2>&1 | tail -1)
  rm -f "$WORK/dd/file"
  python3 -c "import sys; f=sys.argv[1].split(); print(int(f[0]) / float(f[f.index('copied,')+1]) / 1e6)" "$out"
}
for r in $(seq 1 "$ROUNDS"); do
  measure nosync --endpoint "$NOSYNC" put --bucket bench-put --direct
  RES[dd]="${RES[dd]:-} $(dd_mbps)"
  measure nginx --url-put "$NGINX_URL/put/"
  measure sync --endpoint "$SYNC" put --bucket bench-put --direct
  RES[ddsync]="${RES[ddsync]:-} $(dd_mbps conv=fdatasync)"
  echo "round $r: fsync off ${RES[nosync]##* } dd ${RES[dd]##* } nginx ${RES[nginx]##* }; fsync on ${RES[sync]##* } dd+fdatasync ${RES[ddsync]##* } MB/s" >&2
done
for k in nosync dd nginx sync ddsync; do M[$k]=$(echo "${RES[$k]}" | median); done
fmt() { python3 -c "import sys; print(f'{float(sys.argv[1]):.0f} MB/s')" "$1"; }
result P4a "1 MiB PUT direct, fsync off, $WORKERS workers" "$(fmt "${M[nosync]}")" "dd $(fmt "${M[dd]}")" \
  "$(ratio "${M[nosync]}" "${M[dd]}")" 0.8
result P4b "1 MiB PUT direct, fsync on, $WORKERS workers" "$(fmt "${M[sync]}")" "dd conv=fdatasync $(fmt "${M[ddsync]}")" \
  "$(ratio "${M[sync]}" "${M[ddsync]}")" 0.8
result P4c "1 MiB PUT direct, fsync off, $WORKERS workers" "$(fmt "${M[nosync]}")" "nginx dav PUT $(fmt "${M[nginx]}")" \
  "$(ratio "${M[nosync]}" "${M[nginx]}")" 0.8
