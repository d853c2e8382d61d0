#!/usr/bin/env bash
# P3: 64 MiB GET, Tessera (direct to the target, which uses sendfile) vs
# nginx with sendfile on, serving byte-identical files (4 objects), both
# driven by `tessera bench` with the same workers. Goal: >= 0.95 x nginx MB/s.
# Rounds alternate; medians are compared. Everything is in the page cache,
# so this measures the server's send path, not the disk.
# Usage: tests/bench/large_get.sh [--duration SECONDS] [--rounds N] [--workers N]
set -euo pipefail
DURATION=5
ROUNDS=3
WORKERS=4
while [ $# -gt 0 ]; do
  case "$1" in
    --duration) DURATION="$2"; shift 2 ;;
    --rounds) ROUNDS="$2"; shift 2 ;;
    --workers) WORKERS="$2"; shift 2 ;;
    *) echo "usage: $0 [--duration SECONDS] [--rounds N] [--workers N]" >&2; exit 2 ;;
  esac
done
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_require nginx
WORK="$(mktemp -d)"
trap bench_cleanup EXIT

OBJECTS=4
files_up large bench-large "$OBJECTS" 64MiB

declare -A RES M
measure() {
  local name="$1"; shift
  bench_run "$WORK/$name.json" "$@" --workers "$WORKERS" --duration "${DURATION}s"
  RES[$name]="${RES[$name]:-} $(json_get "$WORK/$name.json" 'd["summary"]["get"]["mb_per_s"]')"
}
for r in $(seq 1 "$ROUNDS"); do
  measure tessera --endpoint "$PROXY_URL" get --bucket bench-large --prefix obj- --direct
  measure nginx --url-get "$NGINX_URL/obj-{i}" --count-objects "$OBJECTS"
  echo "round $r: tessera ${RES[tessera]##* } nginx ${RES[nginx]##* } MB/s" >&2
done
for k in tessera nginx; do M[$k]=$(echo "${RES[$k]}" | median); done
fmt() { python3 -c "import sys; print(f'{float(sys.argv[1]):.0f} MB/s')" "$1"; }
result P3 "64 MiB GET direct, $WORKERS conns" "$(fmt "${M[tessera]}")" "nginx sendfile $(fmt "${M[nginx]}")" \
  "$(ratio "${M[tessera]}" "${M[nginx]}")" 0.95
