# Shared by the tests/bench/ scripts (sourced, not run): free ports, a local
# Tessera cluster and a private nginx on loopback, ratios, and JSON fields of
# `tessera bench --json`. Everything lives under $WORK (a temp dir the
# caller makes) and is stopped by bench_cleanup (the caller's EXIT trap).
ROOT="${ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
export TESSERA_BUILD="${TESSERA_BUILD:-$ROOT/build/release}"
case "$TESSERA_BUILD" in /*) ;; *) TESSERA_BUILD="$ROOT/$TESSERA_BUILD" ;; esac
TESSERA="$TESSERA_BUILD/console/cli/tessera"
NODE="$TESSERA_BUILD/daemon/tessera-node"

bench_require() {
  [ -x "$NODE" ] && [ -x "$TESSERA" ] || {
    echo "no tessera-node/tessera in $TESSERA_BUILD: installers/build.sh release (or set TESSERA_BUILD)" >&2
    exit 1
  }
  local t
  for t in "$@"; do
    command -v "$t" >/dev/null || { echo "$t is missing: installers/bench-deps.sh" >&2; exit 1; }
  done
}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# A port p with p..p+N free too (local-cluster.sh gives targets PORT+1..PORT+N).
free_port_run() {
  python3 - "$1" <<'PY'
import random, socket, sys
n = int(sys.argv[1])
# SO_REUSEADDR as the nodes bind: after a busy run, ports whose old
# connections sit in TIME_WAIT are free for a listener. The ports are taken
# below the kernel's ephemeral range: after a heavy run that range can be
# full of TIME_WAIT client ports, n + 1 free ones in a row then rare.
lo = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
def sock():
    x = socket.socket(); x.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); return x
for _ in range(200):
    p = random.randrange(10000, max(10001, lo - n - 1))
    ok = True
    for q in range(p, p + n + 1):
        t = sock()
        try: t.bind(("127.0.0.1", q))
        except OSError: ok = False
        finally: t.close()
        if not ok: break
    if ok:
        print(p); sys.exit(0)
sys.exit(1)
PY
}

CLUSTERS=()
# cluster_up NAME TARGETS "EXTRA TARGET ARGS": sets PROXY_URL.
cluster_up() {
  local name="$1" targets="$2" args="${3:-}" port
  port=$(free_port_run "$targets")
  CLUSTERS+=("$WORK/cluster-$name:$port")
  TESSERA_DATA="$WORK/cluster-$name" TESSERA_PORT="$port" TESSERA_TARGET_ARGS="$args" \
    "$ROOT/installers/local-cluster.sh" up --targets "$targets" >"$WORK/cluster-$name.up.log" 2>&1 || {
    cat "$WORK/cluster-$name.up.log" >&2
    return 1
  }
  PROXY_URL="http://127.0.0.1:$port"
}

cluster_down_all() {
  local c
  for c in "${CLUSTERS[@]+"${CLUSTERS[@]}"}"; do
    TESSERA_DATA="${c%:*}" TESSERA_PORT="${c##*:}" "$ROOT/installers/local-cluster.sh" down >/dev/null 2>&1 || true
  done
  CLUSTERS=()
}

# nginx_up ROOTDIR: nginx-light as the calling user on a free loopback port,
# sendfile on, keep-alive, WebDAV PUT into ROOTDIR; pid, logs and temp files
# under $WORK/nginx. Sets NGINX_URL. Workers: one per CPU, as Debian ships it.
nginx_up() {
  local docroot="$1" dir="$WORK/nginx" port
  port=$(free_port)
  mkdir -p "$dir/tmp" "$docroot"
  cat >"$dir/nginx.conf" <<CONF
user $(id -un) $(id -gn);
worker_processes auto;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 8192; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  tcp_nodelay on;
  keepalive_timeout 75s;
  keepalive_requests 10000000;
  client_max_body_size 0;
  client_body_buffer_size 1m;
  client_body_temp_path $dir/tmp/body;
  proxy_temp_path $dir/tmp/proxy;
  fastcgi_temp_path $dir/tmp/fastcgi;
  uwsgi_temp_path $dir/tmp/uwsgi;
  scgi_temp_path $dir/tmp/scgi;
  default_type application/octet-stream;
  server {
    listen 127.0.0.1:$port;
    root $docroot;
    location / {
      dav_methods PUT;
      create_full_put_path on;
      dav_access user:rw group:r all:r;
    }
  }
}
CONF
  nginx -q -p "$dir" -c "$dir/nginx.conf" -g 'daemon on;' 2>>"$dir/error.log" || { cat "$dir/error.log" >&2; return 1; }
  NGINX_URL="http://127.0.0.1:$port"
  local deadline=$((SECONDS + 10))
  until curl -sf -o /dev/null "$NGINX_URL/" -r 0-0 2>/dev/null || curl -s -o /dev/null -w '%{http_code}' "$NGINX_URL/" | grep -qE '^(200|403|404)$'; do
    [ "$SECONDS" -lt "$deadline" ] || { echo "nginx did not answer on $NGINX_URL" >&2; cat "$dir/error.log" >&2; return 1; }
    sleep 0.1
  done
}

# files_up NAME BUCKET COUNT SIZE: a 1-target cluster (fsync off) holding
# COUNT objects of SIZE (obj-00000000..), and nginx serving byte-identical
# files under the same names from $WORK/www (the GET comparisons).
files_up() {
  local name="$1" bucket="$2" count="$3" size="$4" i n
  cluster_up "$name" 1 "--fsync false"
  "$TESSERA" --endpoint "$PROXY_URL" bench get --bucket "$bucket" --count-objects "$count" --size "$size" \
    --count "$count" --workers "$((count < 16 ? count : 16))" >/dev/null
  mkdir -p "$WORK/www"
  for i in $(seq 0 $((count - 1))); do
    n=$(printf 'obj-%08d' "$i")
    curl -sfL -o "$WORK/www/$n" "$PROXY_URL/v1/objects/$bucket/$n"
  done
  nginx_up "$WORK/www"
}

# small_files_up NAME BUCKET COUNT: files_up with objects of 1 KiB (the small-GET comparisons).
small_files_up() { files_up "$1" "$2" "$3" 1KiB; }

nginx_down() {
  local pidfile="$WORK/nginx/nginx.pid"
  if [ -f "$pidfile" ]; then
    kill -QUIT "$(cat "$pidfile")" 2>/dev/null || true
    local deadline=$((SECONDS + 10))
    while [ -f "$pidfile" ] && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.1; done
  fi
}

# The Python loader benchmarks: Debian's python3 with PyTorch and xxhash
# (installers/deps.sh installs them); sets PY.
bench_require_python() {
  PY=/usr/bin/python3
  "$PY" -c 'import torch, xxhash' 2>/dev/null || { echo "python3-torch/python3-xxhash missing: installers/deps.sh" >&2; exit 1; }
}

bench_cleanup() {
  nginx_down
  cluster_down_all
  [ -n "${KEEP_WORK:-}" ] || rm -rf "$WORK"
}

# json_get FILE EXPR: a field of a saved `tessera bench --json` document,
# EXPR in Python over `d`, e.g. 'd["summary"]["get"]["ops_per_s"]'.
json_get() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

# bench_run OUT ARGS...: tessera bench --json ARGS > OUT; fails on any error.
bench_run() {
  local out="$1"; shift
  if ! "$TESSERA" --json bench "$@" >"$out" 2>"$out.err"; then
    echo "tessera bench $* failed:" >&2
    cat "$out.err" >&2
    [ -s "$out" ] && json_get "$out" 'd.get("error_samples")' >&2
    return 1
  fi
}

# median: the median of the numbers on stdin (whitespace-separated).
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# first_target_url PROXY_URL: the direct URL of the first target in the map.
first_target_url() {
  curl -sf "$1/v1/daemon?what=smap" |
    python3 -c 'import json,sys; print(list(json.load(sys.stdin)["tmap"].values())[0]["public_net"]["direct_url"])'
}

ratio() { python3 -c "import sys; a,b=float(sys.argv[1]),float(sys.argv[2]); print(f'{a/b:.3f}' if b else 'n/a')" "$1" "$2"; }
# meets RATIO GOAL -> "yes"/"no"
meets() { python3 -c "import sys; print('yes' if float(sys.argv[1]) >= float(sys.argv[2]) else 'no')" "$1" "$2"; }

# result ID MEASURE VALUE REFERENCE RATIO GOAL: one line for the report,
# also appended to $RESULTS when set (run_all.sh collects them).
result() {
  local line
  line=$(printf 'RESULT %s | %s | %s | %s | %s | >= %s | %s' "$1" "$2" "$3" "$4" "$5" "$6" "$(meets "$5" "$6")")
  echo "$line"
  [ -z "${RESULTS:-}" ] || echo "$line" >>"$RESULTS"
}
