#!/usr/bin/env bash
# Where a small GET's CPU goes, per process, on this machine: the client
# (`tessera bench`), the proxy, the target and nginx, in microseconds of CPU
# (user + system, from rusage and /proc) per 1 KiB GET with 64 connections,
# for the three ways small_get.sh measures (P1 direct to the target, P2
# through the proxy, nginx). Client, server(s) and kernel share the CPUs, so
# a way's GET/s cannot exceed CPUs / (its total CPU per GET); the last lines
# print those ceilings and the ratios to nginx they allow. This is the
# profile behind the P1 and P2 goals: what Tessera's own CPU per GET would
# have to be for a ratio, given the client's.
# Usage: tests/bench/cpu_split.sh [--rounds N] [--count N]
set -euo pipefail
ROUNDS=3
COUNT=200000
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) ROUNDS="$2"; shift 2 ;;
    --count) COUNT="$2"; shift 2 ;;
    *) echo "usage: $0 [--rounds N] [--count N]" >&2; exit 2 ;;
  esac
done
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_require nginx
WORK="$(mktemp -d)"
trap bench_cleanup EXIT

OBJECTS=1000
THREADS=$(nproc)
small_files_up split bench-split "$OBJECTS"
TARGET_PID=$(cat "$WORK/cluster-split/pids/target-1.pid")
PROXY_PID=$(cat "$WORK/cluster-split/pids/proxy.pid")
NGINX_MASTER=$(cat "$WORK/nginx/nginx.pid")
HZ=$(getconf CLK_TCK)
# ticks PID...: utime + stime of the processes (their threads included).
ticks() {
  local t=0 p
  for p in "$@"; do t=$((t + $(awk '{print $14 + $15}' "/proc/$p/stat"))); done
  echo "$t"
}
# sticks PID...: stime alone (the kernel's share).
sticks() {
  local t=0 p
  for p in "$@"; do t=$((t + $(awk '{print $15}' "/proc/$p/stat"))); done
  echo "$t"
}
nginx_workers() { pgrep -P "$NGINX_MASTER" | tr '\n' ' '; }

# run WAY ARGS...: one measured run; prints "client proxy target nginx" us/GET and GET/s.
run() {
  local way="$1"; shift
  local workers before after
  workers=$(nginx_workers)
  # shellcheck disable=SC2086
  before="$(ticks "$PROXY_PID") $(ticks "$TARGET_PID") $(ticks $workers) $(sticks "$TARGET_PID") $(sticks $workers) $(sticks "$PROXY_PID")"
  python3 - "$WORK/$way.json" "$COUNT" "$TESSERA" --json bench "$@" --workers 64 --threads "$THREADS" \
    --count "$COUNT" >"$WORK/$way.client" <<'PY'
import json, resource, subprocess, sys
out, count, cmd = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
with open(out, "w") as f:
    subprocess.run(cmd, stdout=f, check=True)
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
print((ru.ru_utime + ru.ru_stime) * 1e6 / count)
PY
  # shellcheck disable=SC2086
  after="$(ticks "$PROXY_PID") $(ticks "$TARGET_PID") $(ticks $workers) $(sticks "$TARGET_PID") $(sticks $workers) $(sticks "$PROXY_PID")"
  python3 - "$before" "$after" "$HZ" "$COUNT" "$(cat "$WORK/$way.client")" \
    "$(json_get "$WORK/$way.json" 'd["summary"]["get"]["ops_per_s"]')" <<'PY'
import sys
b = [int(x) for x in sys.argv[1].split()]
a = [int(x) for x in sys.argv[2].split()]
hz, count, client, rate = int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]), float(sys.argv[6])
us = [(y - x) / hz * 1e6 / count for x, y in zip(b, a)]
print(f"{client:.2f} {us[0]:.2f} {us[1]:.2f} {us[2]:.2f} {rate:.0f} {us[3]:.2f} {us[4]:.2f} {us[5]:.2f}")
PY
}

declare -A RES
for r in $(seq 1 "$ROUNDS"); do
  for way in direct proxy nginx; do
    case "$way" in
      direct) line=$(run direct --endpoint "$PROXY_URL" get --bucket bench-split --prefix obj- --direct) ;;
      proxy) line=$(run proxy --endpoint "$PROXY_URL" get --bucket bench-split --prefix obj-) ;;
      nginx) line=$(run nginx --url-get "$NGINX_URL/obj-{i}" --count-objects "$OBJECTS") ;;
    esac
    RES[$way]="${RES[$way]:-}|$line"
    read -r c p t n g ts ns ps <<<"$line"
    echo "round $r $way: client $c proxy $p (system $ps) target $t (system $ts) nginx $n (system $ns) us CPU/GET, $g GET/s" >&2
  done
done

python3 - "$(nproc)" "${RES[direct]}" "${RES[proxy]}" "${RES[nginx]}" <<'PY'
import statistics, sys
cpus = int(sys.argv[1])
ways = {}
for name, text in zip(("direct", "proxy", "nginx"), sys.argv[2:]):
    rows = [[float(x) for x in part.split()] for part in text.split("|") if part.strip()]
    ways[name] = [statistics.median(col) for col in zip(*rows)]
print(f"CPU per 1 KiB GET, 64 connections (medians of {len(rows)} rounds; us of user+system):")
print(f"{'way':8} {'client':>8} {'proxy':>8} {'target':>8} {'nginx':>8} {'total':>8} {'GET/s':>9} {'ceiling':>9}")
ceil = {}
for name, (c, p, t, n, g, ts, ns, ps) in ways.items():
    total = c + p + t + n
    ceil[name] = cpus * 1e6 / total if total else 0
    print(f"{name:8} {c:8.2f} {p:8.2f} {t:8.2f} {n:8.2f} {total:8.2f} {g:9.0f} {ceil[name]:9.0f}")
c_ng = ways["nginx"][0]
n_ng = ways["nginx"][3]
print(f"the kernel's share (system time): target {ways['direct'][5]:.2f} of {ways['direct'][2]:.2f} us, "
      f"nginx {ways['nginx'][6]:.2f} of {ways['nginx'][3]:.2f} us")
print(f"ceiling ratios (CPUs / CPU per GET) to nginx: direct {ceil['direct'] / ceil['nginx']:.3f}, "
      f"proxy {ceil['proxy'] / ceil['nginx']:.3f}")
for goal, name in ((1.2, "direct"), (0.9, "proxy")):
    c, p, t, n, g, ts, ns, ps = ways[name]
    # The servers' CPU per GET that would give `goal` with this client cost.
    need = (c_ng + n_ng) / goal - c
    print(f"{name} at {goal} x nginx needs proxy + target <= {need:.2f} us per GET "
          f"(now {p + t:.2f}; nginx {n_ng:.2f}; the client {c:.2f} here, {c_ng:.2f} on nginx)")
    # What the ratio would be if the servers' own code cost nothing: the
    # client and the kernel's share of the servers stay.
    floor = c + ts + ps
    print(f"{name} with no user-space CPU in the servers at all: at most {(c_ng + n_ng) / floor:.3f} x nginx "
          f"(client {c:.2f} + kernel {ts + ps:.2f} us per GET)")
PY
