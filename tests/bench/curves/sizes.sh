#!/usr/bin/env bash
# Curve: GET and PUT throughput (MB/s = 10^6 B/s) vs object size (1 KiB ...
# 256 MiB), Tessera direct to its one target (fsync off) against nginx (GET
# with sendfile from byte-identical files; WebDAV PUT, which never fsyncs),
# both driven by `tessera bench` with the same workers; `dd` (no fsync,
# bs = the object size, one file) is the reference line for PUT.
# Data is capped: each size's GET set is at most --get-mib MiB (at least 4
# objects; everything in the page cache), and each PUT point writes at most
# --put-mib MiB (--count objects; below 64 KiB, where that count would take
# long, --duration seconds instead); GETs run for --duration seconds. PUT outputs are deleted (and synced)
# after every point, the GET set after its size. Rounds alternate the servers.
# Writes OUT/sizes.csv, OUT/curve-sizes-get.png, OUT/curve-sizes-put.png, OUT/sizes.md.
# Usage: tests/bench/curves/sizes.sh [--quick] [--rounds N] [--out DIR] [--duration S]
#                                    [--workers N] [--get-mib N] [--put-mib N]
#   --quick       sizes 1 KiB, 256 KiB, 16 MiB; 1 s; 64 MiB caps
#   --duration S  seconds per GET point, and per PUT point below 64 KiB (default 5)
#   --workers N   concurrent requests (default 8)
#   --get-mib N   GET set per size, MiB (default 1024)
#   --put-mib N   bytes one PUT point writes, MiB (default 1024)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/../lib.sh"
source "$HERE/lib_curves.sh"
curves_defaults
DURATION=5
WORKERS=8
GET_MIB=1024
PUT_MIB=1024
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) QUICK=1; shift ;;
    --rounds) ROUNDS="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --duration) DURATION="$2"; shift 2 ;;
    --workers) WORKERS="$2"; shift 2 ;;
    --get-mib) GET_MIB="$2"; shift 2 ;;
    --put-mib) PUT_MIB="$2"; shift 2 ;;
    *) echo "usage: $0 [--quick] [--rounds N] [--out DIR] [--duration S] [--workers N] [--get-mib N] [--put-mib N]" >&2
      exit 2 ;;
  esac
done
for v in "$WORKERS" "$GET_MIB" "$PUT_MIB"; do
  case "$v" in '' | *[!0-9]* | 0) echo "--workers, --get-mib and --put-mib must be positive numbers" >&2; exit 2 ;; esac
done
[ "$PUT_MIB" -le 16384 ] && [ "$GET_MIB" -le 8192 ] || { echo "--put-mib is at most 16384, --get-mib at most 8192" >&2; exit 2; }
curves_check
bench_require nginx curl dd
WORK="$(mktemp -d)"
trap bench_cleanup EXIT

KIB=1024
MIB=$((1024 * 1024))
SIZES=("$KIB" $((16 * KIB)) $((256 * KIB)) "$MIB" $((16 * MIB)) $((64 * MIB)) $((256 * MIB)))
if [ "$QUICK" = 1 ]; then
  SIZES=("$KIB" $((256 * KIB)) $((16 * MIB)))
  DURATION=1
  GET_MIB=64
  PUT_MIB=64
fi

cluster_up sizes 1 "--fsync false"
EP="$PROXY_URL"
mkdir -p "$WORK/www/get" "$WORK/dd"
nginx_up "$WORK/www"

mbps() { json_get "$1" "d['summary']['$2']['mb_per_s']"; }
dd_mbps() {  # SIZE COUNT: dd's own bytes and seconds, as MB/s
  local out
  out=$(LC_ALL=C dd if=/dev/zero of="$WORK/dd/file" bs="$1" count="$2" 2>&1 | tail -1)
  rm -f "$WORK/dd/file"
  python3 -c "import sys; f=sys.argv[1].split(); print(int(f[0]) / float(f[f.index('copied,')+1]) / 1e6)" "$out"
}
clean_puts() {
  "$TESSERA" --endpoint "$EP" bucket rm curve-put --yes >/dev/null 2>&1 || true
  rm -rf "$WORK/www/put"
  sync
}

CSV="$OUT/sizes.csv"
csv_header "$CSV" size_bytes tessera_get nginx_get tessera_put nginx_put dd
for size in "${SIZES[@]}"; do
  # The GET set: N objects in Tessera, the same bytes as files for nginx.
  n=$((GET_MIB * MIB / size))
  n=$((n < 4 ? 4 : (n > 1000 ? 1000 : n)))
  bench_run "$WORK/fill.json" --endpoint "$EP" put --bucket curve-get --size "$size" --count "$n" \
    --workers "$((n < WORKERS ? n : WORKERS))" --direct
  for i in $(seq 0 $((n - 1))); do
    f=$(printf 'obj-%08d' "$i")
    curl -sfL -o "$WORK/www/get/$f" "$EP/v1/objects/curve-get/$f"
  done
  # PUT: a count that writes at most --put-mib MiB, or --duration for small sizes.
  pn=$((PUT_MIB * MIB / size))
  [ "$pn" -ge 1 ] || pn=1
  if [ "$size" -lt $((64 * KIB)) ]; then stop=(--duration "${DURATION}s"); else stop=(--count "$pn"); fi
  TG=() NG=() TP=() NP=() DD=()
  for r in $(seq 1 "$ROUNDS"); do
    bench_run "$WORK/tg.json" --endpoint "$EP" get --bucket curve-get --prefix obj- --direct \
      --workers "$WORKERS" --duration "${DURATION}s"
    bench_run "$WORK/ng.json" --url-get "$NGINX_URL/get/obj-{i}" --count-objects "$n" --workers "$WORKERS" --duration "${DURATION}s"
    bench_run "$WORK/tp.json" --endpoint "$EP" put --bucket curve-put --size "$size" --direct \
      --workers "$WORKERS" "${stop[@]}"
    clean_puts
    bench_run "$WORK/np.json" --url-put "$NGINX_URL/put/" --size "$size" --workers "$WORKERS" "${stop[@]}"
    clean_puts
    TG+=("$(mbps "$WORK/tg.json" get)")
    NG+=("$(mbps "$WORK/ng.json" get)")
    TP+=("$(mbps "$WORK/tp.json" put)")
    NP+=("$(mbps "$WORK/np.json" put)")
    DD+=("$(dd_mbps "$size" "$pn")")
    sync
    printf 'size %10d round %d: GET tessera %7.0f nginx %7.0f | PUT tessera %7.0f nginx %7.0f dd %7.0f MB/s\n' \
      "$size" "$r" "${TG[-1]}" "${NG[-1]}" "${TP[-1]}" "${NP[-1]}" "${DD[-1]}"
  done
  csv_row "$CSV" "$size" "$(stats "${TG[@]}")" "$(stats "${NG[@]}")" "$(stats "${TP[@]}")" "$(stats "${NP[@]}")" \
    "$(stats "${DD[@]}")"
  "$TESSERA" --endpoint "$EP" bucket rm curve-get --yes >/dev/null
  rm -rf "$WORK/www/get"
  mkdir -p "$WORK/www/get"
  sync
done

XR="set xrange [$((SIZES[0] / 2)):$((SIZES[-1] * 2))]"
XT="set xtics ('1 KiB' 1024, '16 KiB' 16384, '256 KiB' 262144, '1 MiB' 1048576, '16 MiB' 16777216, '64 MiB' 67108864, '256 MiB' 268435456)"
{
  gp_preamble "$OUT/curve-sizes-get.png" "GET throughput vs object size ($WORKERS connections, 1 target direct, page cache; median, min-max bars)" \
    "object size" "MB/s (10^6 B/s)" 1
  echo "$XR"
  echo "$XT"
  echo "plot '$CSV' skip 1 using 1:2:3:4 title 'Tessera GET (direct to target)' lw 2, \\"
  echo "     '' skip 1 using 1:5:6:7 title 'nginx GET (sendfile)' lw 2"
} | gp_run
{
  gp_preamble "$OUT/curve-sizes-put.png" "PUT throughput vs object size ($WORKERS connections, 1 target direct, fsync off; median, min-max bars)" \
    "object size" "MB/s (10^6 B/s)" 1
  echo "$XR"
  echo "$XT"
  echo "plot '$CSV' skip 1 using 1:8:9:10 title 'Tessera PUT (direct to target)' lw 2, \\"
  echo "     '' skip 1 using 1:11:12:13 title 'nginx WebDAV PUT' lw 2, \\"
  echo "     '' skip 1 using 1:14:15:16 title 'dd bs=size, one file (reference)' lw 2 dt 2"
} | gp_run

{
  echo "### GET and PUT throughput vs object size"
  echo
  echo "![GET MB/s vs size](images/curve-sizes-get.png)"
  echo "![PUT MB/s vs size](images/curve-sizes-put.png)"
  echo
  echo "One target (fsync off) direct and nginx, $WORKERS connections from \`tessera bench\`. GET: up to"
  echo "$GET_MIB MiB of objects per size (4 to 1000 objects), in the page cache. PUT: each point writes"
  echo "at most $PUT_MIB MiB (below 64 KiB: ${DURATION} s), deleted and synced after it. dd writes the"
  echo "same bytes in blocks of the object size to one file, no fsync. $ROUNDS round(s)."
  echo
  curve_md "$CSV" "GET and PUT MB/s vs object size" bytes \
    "object size,Tessera GET,nginx GET,Tessera PUT,nginx PUT,dd"
} >"$OUT/sizes.md"
echo "wrote $CSV, $OUT/curve-sizes-get.png, $OUT/curve-sizes-put.png, $OUT/sizes.md"
