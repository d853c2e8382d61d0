#!/usr/bin/env bash
# A local Tessera cluster of real tessera-node processes: 1 proxy and N
# targets (default 3), each target with 2 mountpaths.
#
# Usage: installers/local-cluster.sh up|down|status|logs [--targets N] [--data DIR]
#   data:  $TESSERA_DATA or --data, default <repo>/.data/cluster
#   ports: proxy $TESSERA_PORT (default 8080), targets the next N ports
#   build: $TESSERA_BUILD (default <repo>/build/release)
#   extra tessera-node flags for every target: $TESSERA_TARGET_ARGS (e.g. "--fsync false")
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

CMD="${1:-status}"
shift || true
TARGETS=3
TARGETS_GIVEN=0
DATA="${TESSERA_DATA:-$ROOT/.data/cluster}"
while [ $# -gt 0 ]; do
  case "$1" in
    --targets) TARGETS="$2"; TARGETS_GIVEN=1; shift 2 ;;
    --data) DATA="$2"; shift 2 ;;
    *) echo "usage: $0 up|down|status|logs [--targets N] [--data DIR]" >&2; exit 2 ;;
  esac
done
if [ "$TARGETS_GIVEN" = 0 ] && ls -d "$DATA"/target-* >/dev/null 2>&1; then
  # An existing cluster comes back with the targets it had.
  TARGETS=$(ls -d "$DATA"/target-* | wc -l)
fi
PORT="${TESSERA_PORT:-8080}"
BUILD="${TESSERA_BUILD:-$ROOT/build/release}"
NODE="$BUILD/daemon/tessera-node"
PROXY_URL="http://127.0.0.1:$PORT"
LOGS="$DATA/logs"
PIDS="$DATA/pids"

alive() { [ -f "$PIDS/$1.pid" ] && kill -0 "$(cat "$PIDS/$1.pid")" 2>/dev/null; }

nodes() {
  echo proxy
  # Without --targets: the targets this data directory has (any count).
  local i d
  if [ "$TARGETS_GIVEN" = 1 ] || ! ls -d "$DATA"/target-* >/dev/null 2>&1; then
    for i in $(seq 1 "$TARGETS"); do echo "target-$i"; done
  else
    for d in "$DATA"/target-*; do [ -d "$d" ] && basename "$d"; done
  fi
  return 0
}

start_node() {
  local name="$1"; shift
  if alive "$name"; then echo "  $name already running (pid $(cat "$PIDS/$name.pid"))"; return; fi
  mkdir -p "$LOGS" "$PIDS"
  setsid nohup "$NODE" "$@" >>"$LOGS/$name.log" 2>&1 < /dev/null &
  echo $! > "$PIDS/$name.pid"
  echo "  $name started (pid $!)"
}

wait_healthy() {
  local deadline=$(( $(date +%s) + 30 )) count=-1
  while [ "$(date +%s)" -lt "$deadline" ]; do
    if curl -sf "$PROXY_URL/v1/health" >/dev/null 2>&1; then
      # Every target in the map appears once with its type in "tmap".
      count=$(curl -sf "$PROXY_URL/v1/cluster?what=smap" | grep -o '"daemon_type":"target"' | wc -l || echo -1)
      [ "$count" -ge "$TARGETS" ] && return 0
    fi
    sleep 0.2
  done
  echo "cluster not healthy after 30 s ($count of $TARGETS targets joined); last log lines:" >&2
  for f in "$LOGS"/*.log; do echo "== $f" >&2; tail -5 "$f" >&2; done
  return 1
}

case "$CMD" in
  up)
    [ -x "$NODE" ] || { echo "no $NODE: run installers/build.sh first" >&2; exit 1; }
    echo "starting cluster in $DATA"
    start_node proxy --role proxy --host 127.0.0.1 --port "$PORT" --data-dir "$DATA/proxy"
    for i in $(seq 1 "$TARGETS"); do
      d="$DATA/target-$i"
      start_node "target-$i" --role target --host 127.0.0.1 --port $((PORT + i)) --data-dir "$d" \
        --mountpath "$d/mp1" --mountpath "$d/mp2" --proxy-url "$PROXY_URL" ${TESSERA_TARGET_ARGS:-}
    done
    wait_healthy
    echo "cluster up: $PROXY_URL ($TARGETS targets)"
    ;;
  down)
    for n in $(nodes); do
      if alive "$n"; then kill "$(cat "$PIDS/$n.pid")" 2>/dev/null || true; fi
    done
    deadline=$(( $(date +%s) + 10 ))
    for n in $(nodes); do
      while alive "$n" && [ "$(date +%s)" -lt "$deadline" ]; do sleep 0.1; done
      if alive "$n"; then kill -9 "$(cat "$PIDS/$n.pid")" 2>/dev/null || true; fi
      rm -f "$PIDS/$n.pid"
    done
    echo "cluster down (data kept in $DATA)"
    ;;
  status)
    for n in $(nodes); do
      if alive "$n"; then echo "  $n running (pid $(cat "$PIDS/$n.pid"))"; else echo "  $n stopped"; fi
    done
    curl -s "$PROXY_URL/v1/health" && echo || echo "proxy at $PROXY_URL not answering"
    ;;
  logs)
    tail -n 20 "$LOGS"/*.log
    ;;
  *)
    echo "usage: $0 up|down|status|logs [--targets N] [--data DIR]" >&2; exit 2 ;;
esac
