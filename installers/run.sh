#!/usr/bin/env bash
# README command 1: installs what is missing, builds a Release build, starts a
# local cluster (1 proxy, 3 targets x 2 mountpaths) and shows how to use it.
# Running it again reuses the build and the data.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

"$ROOT/installers/build.sh" release
"$ROOT/installers/local-cluster.sh" up "$@"

PORT="${TESSERA_PORT:-8080}"
DATA="${TESSERA_DATA:-$ROOT/.data/cluster}"
CLI="$ROOT/build/release/console/cli/tessera"
EP="http://127.0.0.1:$PORT"

cat <<MSG

Tessera is running.
  endpoint  $EP
  data      $DATA   (logs in $DATA/logs)
  stop      installers/local-cluster.sh down

Try it with the CLI ($CLI):
  export TESSERA_ENDPOINT=$EP
  tessera bucket create demo
  tessera put README.md demo/readme.md
  tessera ls demo
  tessera get demo/readme.md -
  tessera cluster show

or with curl:
  curl -X POST $EP/v1/buckets/demo -d '{"action":"create-bck"}'
  curl -L -T README.md $EP/v1/objects/demo/readme.md
  curl -L $EP/v1/objects/demo/readme.md
  curl "$EP/v1/buckets/demo?props=name,size,checksum"
MSG

CONSOLE="$ROOT/build/release/console/desktop/tessera-console"
if [ -x "$CONSOLE" ] && [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  setsid nohup "$CONSOLE" --endpoint "$EP" >>"$DATA/logs/console.log" 2>&1 < /dev/null &
  echo "console started (tessera-console)"
else
  echo "(the desktop console is not part of this build yet, or no display is available)"
fi
