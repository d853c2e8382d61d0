#!/usr/bin/env bash
# A local Tessera cluster of real tessera-node processes: 1 proxy and N
# targets (default 3), each target with 2 mountpaths.
#
# Usage: installers/local-cluster.sh up|down|status|logs [--targets N] [--data DIR] [--tls]
#   --tls: every node serves HTTPS only, with a certificate from a CA made for
#          this cluster ($DATA/tls/ca.pem; clients: curl --cacert, tessera
#          --ca-file). A data directory made with --tls keeps it.
#   data:  $TESSERA_DATA or --data, default <repo>/.data/cluster
#          $DATA/proxy, $DATA/target-<i>/{mp1,mp2}, $DATA/logs/<node>.log, $DATA/pids/<node>.pid
#   ports: proxy $TESSERA_PORT (default 8080), targets the next N ports
#   build: $TESSERA_BUILD (default <repo>/build/release)
#   extra tessera-node flags for every target: $TESSERA_TARGET_ARGS (e.g. "--fsync false")
# Without --targets, an existing data directory comes back with the targets it had.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

usage() { echo "usage: $0 up|down|status|logs [--targets N] [--data DIR] [--tls]" >&2; exit 2; }

CMD="${1:-status}"
shift || true
TARGETS=3
TARGETS_GIVEN=0
TLS=0
DATA="${TESSERA_DATA:-$ROOT/.data/cluster}"
while [ $# -gt 0 ]; do
  case "$1" in
    --targets)
      [ $# -ge 2 ] || usage
      TARGETS="$2"; TARGETS_GIVEN=1; shift 2 ;;
    --data)
      [ $# -ge 2 ] || usage
      DATA="$2"; shift 2 ;;
    --tls) TLS=1; shift ;;
    *) usage ;;
  esac
done
case "$TARGETS" in
  '' | *[!0-9]* | 0) echo "--targets must be a positive number" >&2; exit 2 ;;
esac
case "$DATA" in /*) ;; *) DATA="$PWD/$DATA" ;; esac
PORT="${TESSERA_PORT:-8080}"
BUILD="${TESSERA_BUILD:-$ROOT/build/release}"
NODE="$BUILD/daemon/tessera-node"
TLS_DIR="$DATA/tls"
if [ -s "$TLS_DIR/node.pem" ]; then TLS=1; fi
SCHEME=http
CURL=(curl)
if [ "$TLS" = 1 ]; then
  SCHEME=https
  CURL=(curl --cacert "$TLS_DIR/ca.pem")
fi
PROXY_URL="$SCHEME://127.0.0.1:$PORT"
LOGS="$DATA/logs"
PIDS="$DATA/pids"
read -r -a TARGET_ARGS <<< "${TESSERA_TARGET_ARGS:-}"

# The targets this data directory already has, in numeric order.
existing_targets() {
  local d
  for d in "$DATA"/target-*; do
    if [ -d "$d" ]; then basename "$d"; fi
  done | sort -t- -k2 -n
}

if [ "$TARGETS_GIVEN" = 0 ]; then
  have=$(existing_targets | wc -l)
  if [ "$have" -gt 0 ]; then TARGETS="$have"; fi
fi

nodes() {
  echo proxy
  if [ "$TARGETS_GIVEN" = 1 ] || [ -z "$(existing_targets)" ]; then
    seq -f 'target-%g' 1 "$TARGETS"
  else
    existing_targets
  fi
}

pid_of() { cat "$PIDS/$1.pid" 2>/dev/null || true; }
# A node is alive when its pid is a running tessera-node: a recycled pid or a
# zombie (whose cmdline is empty) does not count.
alive() {
  local pid
  pid="$(pid_of "$1")"
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && grep -qa tessera-node "/proc/$pid/cmdline" 2>/dev/null
}

show_log() {
  local f="$LOGS/$1.log"
  if [ -f "$f" ]; then
    echo "== $f (last 20 lines)" >&2
    tail -n 20 "$f" >&2
  else
    echo "== $1: no log at $f" >&2
  fi
}

start_node() {
  local name="$1"
  shift
  if alive "$name"; then
    echo "  $name already running (pid $(pid_of "$name"))"
    return 0
  fi
  mkdir -p "$LOGS" "$PIDS"
  echo "--- $(date '+%F %T') starting: $NODE $*" >>"$LOGS/$name.log"
  setsid nohup "$NODE" "$@" >>"$LOGS/$name.log" 2>&1 </dev/null &
  local pid=$! i
  echo "$pid" >"$PIDS/$name.pid"
  # Until the child has exec'd (its command line names the node): checked
  # right after the fork, a busy machine's child still runs this script's
  # code, and `alive` would take the node for dead.
  for i in $(seq 1 250); do
    alive "$name" && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.02
  done
  echo "  $name started (pid $pid, log $LOGS/$name.log)"
}

# Number of targets in the proxy's cluster map ("tmap"), or 0.
joined_targets() {
  local smap
  smap="$("${CURL[@]}" -sf --max-time 2 "$PROXY_URL/v1/cluster?what=smap" 2>/dev/null)" || { echo 0; return 0; }
  # Every target appears once in the map with its type; proxies say "proxy".
  grep -oE '"daemon_type"[[:space:]]*:[[:space:]]*"target"' <<<"$smap" | wc -l
}

wait_healthy() {
  local deadline=$((SECONDS + 30)) count=0 n
  while [ "$SECONDS" -lt "$deadline" ]; do
    for n in $(nodes); do
      if ! alive "$n"; then
        echo "$n exited during start-up" >&2
        show_log "$n"
        return 1
      fi
    done
    if "${CURL[@]}" -sf --max-time 2 "$PROXY_URL/v1/health" >/dev/null 2>&1; then
      count="$(joined_targets)"
      [ "$count" -ge "$TARGETS" ] && return 0
    fi
    sleep 0.2
  done
  echo "cluster not ready after 30 s: $count of $TARGETS targets joined at $PROXY_URL" >&2
  for n in $(nodes); do show_log "$n"; done
  return 1
}

# A CA for this cluster and one certificate for every node (they all listen
# on 127.0.0.1), made once with openssl.
make_certificates() {
  [ -s "$TLS_DIR/node.pem" ] && return 0
  command -v openssl >/dev/null || { echo "--tls needs openssl (installers/install-deps.sh)" >&2; exit 1; }
  mkdir -p "$TLS_DIR"
  (
    umask 077
    cd "$TLS_DIR"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 825 \
      -keyout ca.key -out ca.pem -subj "/CN=Tessera local cluster CA" 2>/dev/null
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
      -keyout node.key -out node.csr -subj "/CN=127.0.0.1" 2>/dev/null
    printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n' >node.ext
    openssl x509 -req -in node.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 825 \
      -extfile node.ext -out node.pem 2>/dev/null
    rm -f node.csr node.ext
    chmod 644 ca.pem node.pem
  )
  echo "  certificates in $TLS_DIR (trust ca.pem: curl --cacert, tessera --ca-file)"
}

NODE_TLS=()
if [ "$TLS" = 1 ]; then
  NODE_TLS=(--tls-cert-file "$TLS_DIR/node.pem" --tls-key-file "$TLS_DIR/node.key" --tls-ca-file "$TLS_DIR/ca.pem")
fi

case "$CMD" in
  up)
    [ -x "$NODE" ] || { echo "no $NODE: run installers/build.sh first" >&2; exit 1; }
    echo "starting cluster in $DATA (proxy $PROXY_URL, $TARGETS targets)"
    mkdir -p "$DATA/proxy"
    if [ "$TLS" = 1 ]; then make_certificates; fi
    start_node proxy --role proxy --port "$PORT" --data-dir "$DATA/proxy" --host 127.0.0.1 \
      ${NODE_TLS[@]+"${NODE_TLS[@]}"}
    # The proxy creates the cluster's secret key at its first start; the
    # targets need it to join.
    KEY="$DATA/proxy/cluster.key"
    deadline=$((SECONDS + 15))
    while [ ! -s "$KEY" ] && [ "$SECONDS" -lt "$deadline" ] && alive proxy; do sleep 0.05; done
    if [ ! -s "$KEY" ]; then
      echo "the proxy did not create $KEY" >&2
      show_log proxy
      exit 1
    fi
    for i in $(seq 1 "$TARGETS"); do
      d="$DATA/target-$i"
      mkdir -p "$d/mp1" "$d/mp2"
      start_node "target-$i" --role target --port $((PORT + i)) --data-dir "$d" \
        --mountpath "$d/mp1" --mountpath "$d/mp2" --proxy-url "$PROXY_URL" --host 127.0.0.1 \
        --cluster-key-file "$KEY" ${NODE_TLS[@]+"${NODE_TLS[@]}"} ${TARGET_ARGS[@]+"${TARGET_ARGS[@]}"}
    done
    if ! wait_healthy; then
      echo "nodes that started are still running; 'installers/local-cluster.sh down' stops them" >&2
      exit 1
    fi
    echo "cluster up: $PROXY_URL ($TARGETS targets, data in $DATA)"
    if [ "$TLS" = 1 ]; then echo "TLS: trust $TLS_DIR/ca.pem (curl --cacert, tessera --ca-file)"; fi
    ;;
  down)
    for n in $(nodes); do
      if alive "$n"; then kill -TERM "$(pid_of "$n")" 2>/dev/null || true; fi
    done
    deadline=$((SECONDS + 10))
    for n in $(nodes); do
      while alive "$n" && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.1; done
      if alive "$n"; then
        echo "  $n did not stop in 10 s: SIGKILL" >&2
        kill -KILL "$(pid_of "$n")" 2>/dev/null || true
      fi
      rm -f "$PIDS/$n.pid"
    done
    echo "cluster down (data kept in $DATA)"
    ;;
  status)
    for n in $(nodes); do
      if alive "$n"; then
        echo "  $n running (pid $(pid_of "$n"))"
      elif [ -n "$(pid_of "$n")" ]; then
        echo "  $n dead (stale pid $(pid_of "$n"); see $LOGS/$n.log)"
      else
        echo "  $n stopped"
      fi
    done
    if health="$("${CURL[@]}" -s --max-time 2 "$PROXY_URL/v1/health?detail=true")"; then
      echo "health ($PROXY_URL): ${health:-ok}"
      echo "targets in the cluster map: $(joined_targets)"
    else
      echo "proxy at $PROXY_URL not answering"
    fi
    ;;
  logs)
    found=0
    for n in $(nodes); do
      if [ -f "$LOGS/$n.log" ]; then
        found=1
        echo "== $LOGS/$n.log"
        tail -n 20 "$LOGS/$n.log"
      fi
    done
    [ "$found" = 1 ] || echo "no logs in $LOGS"
    ;;
  *) usage ;;
esac
