#!/usr/bin/env bash
# Curve: aggregate GET and PUT throughput of 1 MiB objects, direct to the
# targets (the client computes HRW), vs the number of targets on this box
# (1, 2, 3, 4; a fresh cluster with fsync off per point), and on paper what
# the per-target figure predicts for 16 nodes with 100 GbE, next to AIStore's
# published 16-node figure.
# GET reads a set of --get-mib MiB (in the page cache) for --duration seconds;
# PUT writes --put-mib MiB per round (--count objects), deleted and synced
# after the round. Everything (client included) shares this box's CPUs, so
# the curve shows how the targets share one machine, not scale-out across
# machines; the dashed lines are linear scaling from the 1-target point.
# Writes OUT/targets.csv, OUT/curve-targets.png, OUT/targets.md (with the
# extrapolation and what it assumes).
# Usage: tests/bench/curves/targets.sh [--quick] [--rounds N] [--out DIR] [--duration S]
#                                      [--workers N] [--max-targets N] [--get-mib N] [--put-mib N]
#   --quick          1 and 2 targets, 1 s, 64 MiB
#   --duration S     seconds per GET point (default 5)
#   --workers N      concurrent requests (default 16)
#   --max-targets N  the last point (default 4, at most 8)
#   --get-mib N      GET set, MiB of 1 MiB objects (default 512)
#   --put-mib N      written per PUT round, MiB (default 1024)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/../lib.sh"
source "$HERE/lib_curves.sh"
curves_defaults
DURATION=5
WORKERS=16
MAX_TARGETS=4
GET_MIB=512
PUT_MIB=1024
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) QUICK=1; shift ;;
    --rounds) ROUNDS="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --duration) DURATION="$2"; shift 2 ;;
    --workers) WORKERS="$2"; shift 2 ;;
    --max-targets) MAX_TARGETS="$2"; shift 2 ;;
    --get-mib) GET_MIB="$2"; shift 2 ;;
    --put-mib) PUT_MIB="$2"; shift 2 ;;
    *) echo "usage: $0 [--quick] [--rounds N] [--out DIR] [--duration S] [--workers N] [--max-targets N]" \
      "[--get-mib N] [--put-mib N]" >&2; exit 2 ;;
  esac
done
for v in "$WORKERS" "$MAX_TARGETS" "$GET_MIB" "$PUT_MIB"; do
  case "$v" in '' | *[!0-9]* | 0) echo "--workers, --max-targets, --get-mib and --put-mib must be positive numbers" >&2
    exit 2 ;; esac
done
[ "$MAX_TARGETS" -le 8 ] && [ "$GET_MIB" -le 8192 ] && [ "$PUT_MIB" -le 16384 ] || {
  echo "--max-targets is at most 8, --get-mib at most 8192, --put-mib at most 16384" >&2; exit 2; }
curves_check
bench_require
WORK="$(mktemp -d)"
trap bench_cleanup EXIT

if [ "$QUICK" = 1 ]; then
  MAX_TARGETS=$((MAX_TARGETS < 2 ? MAX_TARGETS : 2))
  DURATION=1
  GET_MIB=64
  PUT_MIB=64
fi

CSV="$OUT/targets.csv"
csv_header "$CSV" targets get_mbps put_mbps
for t in $(seq 1 "$MAX_TARGETS"); do
  cluster_up "t$t" "$t" "--fsync false"
  EP="$PROXY_URL"
  bench_run "$WORK/fill.json" --endpoint "$EP" put --bucket curve-get --size 1MiB --count "$GET_MIB" \
    --workers "$WORKERS" --direct
  G=() P=()
  for r in $(seq 1 "$ROUNDS"); do
    bench_run "$WORK/g.json" --endpoint "$EP" get --bucket curve-get --prefix obj- --direct --workers "$WORKERS" \
      --duration "${DURATION}s"
    bench_run "$WORK/p.json" --endpoint "$EP" put --bucket curve-put --size 1MiB --direct --workers "$WORKERS" \
      --count "$PUT_MIB"
    "$TESSERA" --endpoint "$EP" bucket rm curve-put --yes >/dev/null
    sync
    G+=("$(json_get "$WORK/g.json" 'd["summary"]["get"]["mb_per_s"]')")
    P+=("$(json_get "$WORK/p.json" 'd["summary"]["put"]["mb_per_s"]')")
    printf 'targets %d round %d: GET %7.0f MB/s, PUT %7.0f MB/s\n' "$t" "$r" "${G[-1]}" "${P[-1]}"
  done
  csv_row "$CSV" "$t" "$(stats "${G[@]}")" "$(stats "${P[@]}")"
  cluster_down_all
  rm -rf "$WORK/cluster-t$t"
  sync
done

read -r G1 P1 < <(awk -F, 'NR == 2 {print $2, $5}' "$CSV")
{
  gp_preamble "$OUT/curve-targets.png" "Aggregate 1 MiB GET and PUT vs targets on one $(nproc)-CPU box (direct, $WORKERS connections; median, min-max bars)" \
    "targets (tessera-node processes on this machine)" "MB/s (10^6 B/s)" 0
  echo "set xrange [0.5:$MAX_TARGETS.5]"
  echo "set xtics 1"
  echo "plot '$CSV' skip 1 using 1:2:3:4 title 'GET (page cache)' lw 2, \\"
  echo "     '' skip 1 using 1:5:6:7 title 'PUT (fsync off)' lw 2, \\"
  echo "     '' skip 1 using 1:(\$1 * $G1) with lines title 'GET, linear from 1 target' dt 2 lc 1, \\"
  echo "     '' skip 1 using 1:(\$1 * $P1) with lines title 'PUT, linear from 1 target' dt 2 lc 2"
} | gp_run

paper() {
  python3 - "$CSV" "$(nproc)" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))[1:]
cpus = sys.argv[2]
gib = lambda mbps: float(mbps) * 1e6 / 2**30
link = 100e9 / 8 / 2**30          # 100 Gbit/s = 12.5 GB/s = 11.64 GiB/s per node
aistore_total, aistore_nodes = 175.0, 16
def line(kind, col):
    one = gib(rows[0][col])           # one target with the whole box: one node
    best = max(gib(r[col]) for r in rows)
    node, bound = (link, "network") if link < one else (one, "CPU/memory")
    print(f"| {kind} | {one:.2f} GiB/s | {best:.2f} GiB/s | {node:.2f} GiB/s ({bound}-bound) | {16 * node:.1f} GiB/s |")
print("| 1 MiB, direct | 1 target on this box | best total on this box | per node, 16 x 100 GbE | 16 nodes |")
print("|---|---|---|---|---|")
line("GET", 1)
line("PUT", 4)
print(f"| AIStore v3.30, published (GET) | | | {aistore_total / aistore_nodes:.1f} GiB/s (network-bound, 95 % of the link) | "
      f"{aistore_total:.0f} GiB/s |")
print()
print(f"What this assumes. A node is one target with this whole box: the 1-target point (this {cpus}-CPU")
print("box, loopback, the client on the same CPUs, GET from the page cache, PUT with fsync off),")
print(f"capped by a 100 GbE link: 100 Gbit/s = 12.5 GB/s = {link:.2f} GiB/s per node, with no protocol")
print("overhead, no switch limit, and clients elsewhere that keep every node busy (each node then")
print("serves its HRW share: 1/16 of the objects). Without the client on its CPUs a node like this")
print("box would do more, so the CPU-bound figure is a floor for such a node; it says nothing about")
print("NVMe read rates (everything here is in memory) nor about more CPUs per node. The best total")
print("shows whether more targets on one box add anything (they share the same CPUs).")
print()
print("AIStore's figure: \"The Perfect Line\" (Alex Aizman, AIStore blog, July 26, 2025,")
print("https://aistore.nvidia.com/blog/2025/07/26/smooth-max-line-speed): AIStore v3.30 on 16 OCI")
print("nodes with one 100 Gbps NIC each (192 NVMe drives in all), 100 % random GET of 10 MiB objects")
print("from an 80 TiB bucket served from disk: a sustained mean of 175 GiB/s (peaks 177 GiB/s), about")
print("95 % of the 186 GiB/s line rate, each node contributing roughly 11 GiB/s. Their objects are")
print("10 MiB (ours 1 MiB) and read from NVMe (ours from memory); PUT is not in that post.")
PY
}

{
  echo "### Throughput vs targets on this box, and 16 nodes on paper"
  echo
  echo "![MB/s vs targets](images/curve-targets.png)"
  echo
  echo "A fresh cluster per point (fsync off), 1 MiB objects direct to the targets, $WORKERS connections"
  echo "from \`tessera bench\` on the same box. GET: $GET_MIB objects in the page cache, ${DURATION} s. PUT:"
  echo "$PUT_MIB objects per round, deleted and synced after it. $ROUNDS round(s)."
  echo
  curve_md "$CSV" "Aggregate MB/s (10^6 B/s) vs targets" "" "targets,GET MB/s,PUT MB/s"
  echo "16 nodes with 100 GbE, on paper (GiB/s = 2^30 B/s):"
  echo
  paper
  echo
} >"$OUT/targets.md"
echo "wrote $CSV, $OUT/curve-targets.png, $OUT/targets.md"
