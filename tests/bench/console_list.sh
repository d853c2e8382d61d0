#!/usr/bin/env bash
# The console's object listing on a bucket of N objects (default 1,000,000):
# time to the first page, time to page through all of it with fetchMore()
# (pages of 1000, as the object table asks), and the resident memory of the
# process holding every row; once for the model alone, once with an offscreen
# QTableView that asks for the pages itself as it is scrolled to the end
# (reporting the longest time the UI thread was busy). Objects are 1 byte, PUT straight to their
# targets with `tessera bench put`; one warm-up listing builds the targets'
# name snapshots first (as list.sh does).
# Usage: tests/bench/console_list.sh [--names N] [--pagesize N]
set -euo pipefail
NAMES=1000000
PAGESIZE=1000
while [ $# -gt 0 ]; do
  case "$1" in
    --names) NAMES="$2"; shift 2 ;;
    --pagesize) PAGESIZE="$2"; shift 2 ;;
    *) echo "usage: $0 [--names N] [--pagesize N]" >&2; exit 2 ;;
  esac
done
case "$NAMES" in '' | *[!0-9]* | 0) echo "--names must be a positive number" >&2; exit 2 ;; esac
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_require
MEASURE="$TESSERA_BUILD/tests/console/console_list_measure"
[ -x "$MEASURE" ] || { echo "no $MEASURE: build the console_list_measure target" >&2; exit 1; }
WORK="$(mktemp -d)"
trap bench_cleanup EXIT

cluster_up console-list 3 "--fsync false"
start=$SECONDS
bench_run "$WORK/fill.json" --endpoint "$PROXY_URL" put --bucket bench-console --size 1 --count "$NAMES" \
  --workers 64 --direct
echo "PUT $NAMES objects in $((SECONDS - start)) s" >&2
bench_run "$WORK/warm.json" --endpoint "$PROXY_URL" list --bucket bench-console --pagesize 10000 \
  --count $(((NAMES + 9999) / 10000)) --workers 1
measure() { # measure LABEL ARGS...: one run, checked, its lines on stdout
  local label="$1"; shift
  "$MEASURE" --endpoint "$PROXY_URL" --bucket bench-console --pagesize "$PAGESIZE" "$@" >"$WORK/$label.txt"
  local rows
  rows=$(awk '$1=="rows"{print $2}' "$WORK/$label.txt")
  [ "$rows" = "$NAMES" ] || { echo "$label: the model holds $rows rows, expected $NAMES" >&2; exit 1; }
  get() { awk -v k="$1" '$1==k{print $2}' "$WORK/$label.txt"; }
  echo "$label: first page $(get first_page_ms) ms, all $(get pages) pages $(get all_pages_ms) ms," \
    "RSS $(get rss_before_kib) KiB -> $(get rss_after_kib) KiB, longest UI-thread gap $(get max_ui_gap_ms) ms" >&2
}
measure model
measure view --view
first=$(awk '$1=="first_page_ms"{print $2}' "$WORK/view.txt")
result C1 "console: first page of a $NAMES-object bucket (table view)" "${first} ms" "goal 500 ms" \
  "$(ratio 500 "$first")" 1.0
