#!/usr/bin/env bash
# P7: listing a bucket of N names (default 1,000,000) through the proxy, the
# way `tessera ls` does: one client walking the pages (10,000 names each) in
# order, the proxy merging the 3 targets' pages. Measured in names/s with
# `tessera bench list`; goal >= 1,000,000 names/s (pass 2). The objects are 1 byte,
# PUT straight to their targets first; one listing pass runs before the
# measurement so the targets' name snapshots are built (what a second
# `ls` of an unchanged bucket sees).
# With --props name,size each page also carries sizes (AIStore's default
# listing, and ishard's planner): a target stats each name once per snapshot.
# Usage: tests/bench/list.sh [--names N] [--duration SECONDS] [--props LIST]
set -euo pipefail
NAMES=1000000
DURATION=10
PROPS=name
while [ $# -gt 0 ]; do
  case "$1" in
    --names) NAMES="$2"; shift 2 ;;
    --duration) DURATION="$2"; shift 2 ;;
    --props) PROPS="$2"; shift 2 ;;
    *) echo "usage: $0 [--names N] [--duration SECONDS] [--props LIST]" >&2; exit 2 ;;
  esac
done
case "$NAMES" in '' | *[!0-9]* | 0) echo "--names must be a positive number" >&2; exit 2 ;; esac
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_require
WORK="$(mktemp -d)"
trap bench_cleanup EXIT

cluster_up list 3 "--fsync false"
start=$SECONDS
bench_run "$WORK/fill.json" --endpoint "$PROXY_URL" put --bucket bench-list --size 1 --count "$NAMES" \
  --workers 64 --direct
echo "PUT $NAMES objects in $((SECONDS - start)) s ($(json_get "$WORK/fill.json" 'round(d["summary"]["put"]["ops_per_s"])') PUT/s)" >&2
# Warm-up: one complete listing.
bench_run "$WORK/warm.json" --endpoint "$PROXY_URL" list --bucket bench-list --pagesize 10000 \
  --props "$PROPS" --count $(((NAMES + 9999) / 10000)) --workers 1
got=$(json_get "$WORK/warm.json" 'd["summary"]["list"]["items"]')
echo "first pass (the targets walk their names$([ "$PROPS" = name ] || echo ' and stat each')): $(json_get "$WORK/warm.json" 'round(d["summary"]["list"]["items_per_s"])') names/s" >&2
[ "$got" = "$NAMES" ] || { echo "the listing returned $got names, expected $NAMES" >&2; exit 1; }
bench_run "$WORK/list.json" --endpoint "$PROXY_URL" list --bucket bench-list --pagesize 10000 --props "$PROPS" \
  --duration "${DURATION}s" --workers 1
NPS=$(json_get "$WORK/list.json" 'd["summary"]["list"]["items_per_s"]')
P99=$(json_get "$WORK/list.json" 'round(d["summary"]["list"]["latency_us"]["p99"]/1000, 1)')
echo "listing: $(json_get "$WORK/list.json" 'd["list_passes"]') complete passes in ${DURATION} s, page p99 ${P99} ms" >&2
fmt() { python3 -c "import sys; print(f'{float(sys.argv[1]):.0f} names/s')" "$1"; }
result P7 "list $NAMES names ($PROPS) through the proxy, pages of 10000" "$(fmt "$NPS")" "goal 1000000 names/s" \
  "$(ratio "$NPS" 1000000)" 1.0
