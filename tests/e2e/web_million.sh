#!/usr/bin/env bash
# The web console against a bucket of N objects (default 1,000,000), run on
# purpose (not part of CTest: the fill alone takes minutes). A local cluster
# of 3 targets (installers/local-cluster.sh, --fsync false), the bucket
# filled the way tests/bench/list.sh fills it (`tessera bench put`, 1-byte
# objects obj-00000000..., PUT straight to their targets), one complete
# listing to warm the targets' name snapshots, then headless Chromium
# (tests/e2e/web_million.mjs) measures: the time to the first page, End
# paging to "listing complete" (time per page, DOM rows, rows held), the JS
# heap before and after (CDP, after a forced GC), scrolling back to the
# middle, a prefix search; and the same walk with the whole listing held
# (?list_window=1000000) to compare the heap. Prints the machine's load.
# Usage: tests/e2e/web_million.sh [--names N] [--window ROWS] [--no-compare]
#   needs: installers/build.sh release (tessera-node, tessera, the web console
#   with its npm modules), /usr/bin/chromium (installers/deps.sh)
# The cleanup removes the cluster's data directory: a million files take the
# disk minutes to unlink (15 to 30 on the 2-core test machine).
set -euo pipefail
NAMES=1000000
WINDOW=""
COMPARE=1
while [ $# -gt 0 ]; do
  case "$1" in
    --names) NAMES="$2"; shift 2 ;;
    --window) WINDOW="$2"; shift 2 ;;
    --no-compare) COMPARE=0; shift ;;
    *) echo "usage: $0 [--names N] [--window ROWS] [--no-compare]" >&2; exit 2 ;;
  esac
done
case "$NAMES" in '' | *[!0-9]* | 0) echo "--names must be a positive number" >&2; exit 2 ;; esac
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/../bench/lib.sh"
bench_require node
MODULES="$TESSERA_BUILD/console/web/npm/node_modules"
[ -f "$TESSERA_BUILD/console/web/dist/index.html" ] && [ -f "$MODULES/playwright-core/package.json" ] || {
  echo "the web console is not built in $TESSERA_BUILD (target tessera_web_console)" >&2
  exit 1
}
[ -x /usr/bin/chromium ] || { echo "/usr/bin/chromium is missing: installers/deps.sh" >&2; exit 1; }
WORK="$(mktemp -d)"
trap bench_cleanup EXIT

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
cluster_up million 3 "--fsync false"
start=$SECONDS
bench_run "$WORK/fill.json" --endpoint "$PROXY_URL" put --bucket bench-million --size 1 --count "$NAMES" \
  --workers 64 --direct
echo "PUT $NAMES objects in $((SECONDS - start)) s ($(json_get "$WORK/fill.json" 'round(d["summary"]["put"]["ops_per_s"])') PUT/s)"
start=$SECONDS
bench_run "$WORK/warm.json" --endpoint "$PROXY_URL" list --bucket bench-million --pagesize 10000 \
  --count $(((NAMES + 9999) / 10000)) --workers 1
got=$(json_get "$WORK/warm.json" 'd["summary"]["list"]["items"]')
[ "$got" = "$NAMES" ] || { echo "the listing returned $got names, expected $NAMES" >&2; exit 1; }
echo "warm-up listing by the CLI: $got names in $((SECONDS - start)) s"
ARGS=(--url "$PROXY_URL" --modules "$MODULES" --chromium /usr/bin/chromium --bucket bench-million --names "$NAMES")
[ -z "$WINDOW" ] || ARGS+=(--window "$WINDOW")
[ "$COMPARE" = 1 ] || ARGS+=(--no-compare)
node "$HERE/web_million.mjs" "${ARGS[@]}"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
