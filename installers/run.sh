#!/usr/bin/env bash
# README command 1: installs what is missing, builds a Release build, starts a
# local cluster (1 proxy, 3 targets x 2 mountpaths) and shows how to use it.
# Running it again reuses the build and the data.
# Usage: installers/run.sh [--targets N] [--data DIR]   (passed to local-cluster.sh up)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

DATA="${TESSERA_DATA:-$ROOT/.data/cluster}"
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  if [ "${args[i]}" = "--data" ] && [ $((i + 1)) -lt ${#args[@]} ]; then DATA="${args[i + 1]}"; fi
done
case "$DATA" in /*) ;; *) DATA="$PWD/$DATA" ;; esac

# Only the programs a running cluster needs (and the web console's bundle,
# when npm is there); installers/test.sh builds the rest.
"$ROOT/installers/deps.sh"  # nodejs and npm among them (build.sh asks again: a no-op)
WEB=()
if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then WEB=(tessera_web_console); fi
"$ROOT/installers/build.sh" release tessera-node tessera tessera-console "${WEB[@]}"
"$ROOT/installers/local-cluster.sh" up "$@"

PORT="${TESSERA_PORT:-8080}"
EP="http://127.0.0.1:$PORT"
CLI="$ROOT/build/release/console/cli/tessera"

# The demo dataset: Fashion-MNIST as WebDataset samples in fashion-mnist-raw
# (70,000 samples, 210,000 small objects), sharded by ishard into
# fashion-mnist (10 MiB .tar shards). The command skips what is loaded: both
# buckets filled means nothing to do; samples without shards are only sharded.
# TESSERA_DEMO=0 skips it.
if [ "${TESSERA_DEMO:-1}" != "0" ]; then
  echo "loading the demo dataset (Fashion-MNIST) into buckets fashion-mnist-raw and fashion-mnist ..."
  "$CLI" --endpoint "$EP" demo fashion-mnist ||
    echo "warning: the demo dataset was not loaded (see above); the cluster runs anyway" >&2
fi

cat <<MSG

Tessera is running.
  endpoint  $EP
  data      $DATA
  logs      $DATA/logs/<node>.log   (installers/local-cluster.sh logs)
  status    installers/local-cluster.sh status
  stop      installers/local-cluster.sh down   (data is kept; run.sh again restarts it)

Try it with the CLI ($CLI):
  export TESSERA_ENDPOINT=$EP
  alias tessera=$CLI
  tessera bucket create demo
  tessera put README.md demo/readme.md
  tessera ls demo
  tessera get demo/readme.md -
  tessera cluster show
  tessera ls fashion-mnist-raw --limit 6       # the demo dataset: <split>/<index>.png/.cls/.json
  tessera ls fashion-mnist                     # ... and its WebDataset shards
  tessera show perf                            # live per-node throughput

or with curl:
  curl -X POST $EP/v1/buckets/demo -d '{"action":"create-bck"}'
  curl -L -T README.md $EP/v1/objects/demo/readme.md
  curl -L $EP/v1/objects/demo/readme.md
  curl "$EP/v1/buckets/demo?props=name,size,checksum"
MSG

echo "web console: $EP/console/"

CONSOLE="$ROOT/build/release/console/desktop/tessera-console"
if [ ! -x "$CONSOLE" ]; then
  echo "(the desktop console, tessera-console, is not built yet)"
elif [ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  echo "No display here; on a desktop session open the console with:"
  echo "  $CONSOLE --endpoint $EP"
else
  mkdir -p "$DATA/logs"
  setsid nohup "$CONSOLE" --endpoint "$EP" >>"$DATA/logs/console.log" 2>&1 </dev/null &
  echo "console started: tessera-console (pid $!, log $DATA/logs/console.log)"
fi
