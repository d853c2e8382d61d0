#!/usr/bin/env bash
# P1 and P2: 1 KiB GET, 64 connections, Tessera vs nginx serving the same
# files (1000 objects obj-00000000..; the same names as files in nginx's
# root), both driven by `tessera bench` so the client's cost cancels out:
#   P1  direct to the target (the client computes HRW)  goal >= 1.2 x nginx (pass 2)
#   P2  through the proxy (307, then the target)         goal >= 0.9 x nginx (pass 2)
# and the client check: `tessera bench` vs `wrk` on the same nginx file with
# the same connections and threads (goal >= 1.0: the client is not the
# bottleneck). Rounds alternate between the sides; medians are compared.
# A single-target cluster, so one server process meets one nginx.
# Usage: tests/bench/small_get.sh [--duration SECONDS] [--rounds N]
# Needs: a release build (or TESSERA_BUILD=...), installers/bench-deps.sh.
set -euo pipefail
DURATION=5
ROUNDS=3
while [ $# -gt 0 ]; do
  case "$1" in
    --duration) DURATION="$2"; shift 2 ;;
    --rounds) ROUNDS="$2"; shift 2 ;;
    *) echo "usage: $0 [--duration SECONDS] [--rounds N]" >&2; exit 2 ;;
  esac
done
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_require nginx wrk
WORK="$(mktemp -d)"
trap bench_cleanup EXIT

OBJECTS=1000
THREADS=$(nproc)
# nginx serves byte-identical files under the same names.
small_files_up small bench-small "$OBJECTS"

declare -A RES
measure() {  # NAME ARGS...: one round, appends ops/s to RES[NAME]
  local name="$1"; shift
  bench_run "$WORK/$name.json" "$@" --workers 64 --threads "$THREADS" --duration "${DURATION}s"
  RES[$name]="${RES[$name]:-} $(json_get "$WORK/$name.json" 'd["summary"]["get"]["ops_per_s"]')"
}
for r in $(seq 1 "$ROUNDS"); do
  measure direct --endpoint "$PROXY_URL" get --bucket bench-small --prefix obj- --direct
  measure nginx --url-get "$NGINX_URL/obj-{i}" --count-objects "$OBJECTS"
  measure proxy --endpoint "$PROXY_URL" get --bucket bench-small --prefix obj-
  w=$(wrk -t"$THREADS" -c64 -d"${DURATION}s" "$NGINX_URL/obj-00000000" | awk '/Requests\/sec/ {print $2}')
  RES[wrk]="${RES[wrk]:-} $w"
  measure nginx1 --url-get "$NGINX_URL/obj-00000000"
  echo "round $r: direct ${RES[direct]##* } nginx ${RES[nginx]##* } proxy ${RES[proxy]##* } wrk $w bench-on-nginx ${RES[nginx1]##* } req/s" >&2
done
declare -A M
for k in direct nginx proxy wrk nginx1; do M[$k]=$(echo "${RES[$k]}" | median); done
fmt() { python3 -c "import sys; print(f'{float(sys.argv[1]):.0f} req/s')" "$1"; }
result P1 "1 KiB GET direct to target, 64 conns" "$(fmt "${M[direct]}")" "nginx $(fmt "${M[nginx]}")" \
  "$(ratio "${M[direct]}" "${M[nginx]}")" 1.2
result P2 "1 KiB GET through the proxy, 64 conns" "$(fmt "${M[proxy]}")" "nginx $(fmt "${M[nginx]}")" \
  "$(ratio "${M[proxy]}" "${M[nginx]}")" 0.9
result CLIENT "tessera bench vs wrk on one nginx file, 64 conns, $THREADS threads" "$(fmt "${M[nginx1]}")" \
  "wrk $(fmt "${M[wrk]}")" "$(ratio "${M[nginx1]}" "${M[wrk]}")" 1.0
