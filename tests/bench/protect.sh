#!/usr/bin/env bash
# P13: what copies cost. One cluster of 3 targets (fsync on, as shipped):
#   P13a  1 MiB PUT MB/s into a bucket mirrored across 2 targets vs the same
#         PUTs into an unprotected bucket (goal >= 0.45: every byte is written
#         twice, on two targets, before the answer);
#   P13b  1 MiB GET MB/s of a mirrored bucket whose owners are partly away
#         (one target killed: a third of the reads are served by the copy's
#         holder after a redirect) vs the same GETs with every target up;
#   P13c  re-protect: the reprotect job making the second copy of N MiB of
#         1 MiB objects vs `cp -r` of the same files on the same filesystem
#         (cp time / reprotect time; goal >= 0.3).
# And on a second cluster of 7 targets (the owner and 4 + 2 slice holders):
#   P13d  1 MiB PUT MB/s into a bucket erasure coded 4+2 vs an unprotected
#         one (goal >= 0.6: the object, plus 1.5 x its size in slices);
#   P13e  1 MiB GET MB/s of the 4+2 bucket with one target killed (a
#         seventh of the reads rebuilt from 4 slices) vs all targets up.
# Rounds alternate; medians are compared. --part mirror or --part ec runs one
# cluster's half only (P13a-c or P13d-e).
# Usage: tests/bench/protect.sh [--duration SECONDS] [--rounds N] [--workers N] [--mib N] [--part all|mirror|ec]
set -euo pipefail
DURATION=5
ROUNDS=3
WORKERS=16
MIB=512
PART=all
while [ $# -gt 0 ]; do
  case "$1" in
    --duration) DURATION="$2"; shift 2 ;;
    --rounds) ROUNDS="$2"; shift 2 ;;
    --workers) WORKERS="$2"; shift 2 ;;
    --mib) MIB="$2"; shift 2 ;;
    --part) PART="$2"; shift 2 ;;
    *) echo "usage: $0 [--duration SECONDS] [--rounds N] [--workers N] [--mib N] [--part all|mirror|ec]" >&2; exit 2 ;;
  esac
done
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_require curl
WORK="$(mktemp -d)"
trap bench_cleanup EXIT

mkbucket() {
  curl -sf -X POST "$P/v1/buckets/$1" -d '{"action":"create-bck"}' >/dev/null
  if [ "$2" -gt 1 ]; then
    curl -sf -X PATCH "$P/v1/buckets/$1" \
      -d "{\"action\":\"set-bprops\",\"value\":{\"mirror\":{\"enabled\":true,\"copies\":$2,\"across_targets\":true}}}" >/dev/null
  fi
}
# wait_jobs KIND: until no job of KIND runs; prints the seconds the last one took.
wait_jobs() {
  python3 - "$P" "$1" <<'PY'
import json, sys, time, urllib.request
p, kind = sys.argv[1], sys.argv[2]
while True:
    jobs = [j for j in json.load(urllib.request.urlopen(p + "/v1/jobs")) if j["kind"] == kind]
    if jobs and all(j["state"] != "running" for j in jobs):
        j = jobs[-1]
        if j["state"] != "finished":
            sys.exit("%s %s: %s" % (kind, j["state"], j.get("error")))
        print((j["ended_ns"] - j["started_ns"]) / 1e9)
        break
    time.sleep(0.05)
PY
}
# kill_target CLUSTER I: kill -9 target I of CLUSTER, then wait until the
# proxy ($P) marks a target away.
kill_target() {
  kill -9 "$(cat "$WORK/cluster-$1/pids/target-$2.pid")"
  python3 - "$P" <<'PY'
import json, sys, time, urllib.request
p = sys.argv[1]
while not any(n.get("flags", 0) & 0x10000 for n in json.load(urllib.request.urlopen(p + "/v1/daemon?what=smap"))["tmap"].values()):
    time.sleep(0.1)
PY
}
declare -A RES M
if [ "$PART" != ec ]; then
cluster_up protect 3 "--fsync true"
P="$PROXY_URL"
mkbucket bench-plain 1
mkbucket bench-mirror 2
wait_jobs reprotect >/dev/null
fi

measure() {
  local name="$1"; shift
  bench_run "$WORK/$name.json" --endpoint "$P" "$@" --size 1MiB --workers "$WORKERS" --duration "${DURATION}s"
}
if [ "$PART" != ec ]; then
for r in $(seq 1 "$ROUNDS"); do
  measure plain put --bucket bench-plain
  RES[plain]="${RES[plain]:-} $(json_get "$WORK/plain.json" 'd["summary"]["put"]["mb_per_s"]')"
  measure mirror put --bucket bench-mirror
  RES[mirror]="${RES[mirror]:-} $(json_get "$WORK/mirror.json" 'd["summary"]["put"]["mb_per_s"]')"
  echo "round $r: PUT unprotected ${RES[plain]##* } mirrored x2 ${RES[mirror]##* } MB/s" >&2
done

# GETs of the mirrored bucket with every target up, then with one away.
bench_run "$WORK/fill.json" --endpoint "$P" put --bucket bench-mirror --prefix g/ --size 1MiB --count 256 --workers 8
for r in $(seq 1 "$ROUNDS"); do
  measure getup get --bucket bench-mirror --prefix g/
  RES[getup]="${RES[getup]:-} $(json_get "$WORK/getup.json" 'd["summary"]["get"]["mb_per_s"]')"
done
kill_target protect 3
for r in $(seq 1 "$ROUNDS"); do
  measure getaway get --bucket bench-mirror --prefix g/
  RES[getaway]="${RES[getaway]:-} $(json_get "$WORK/getaway.json" 'd["summary"]["get"]["mb_per_s"]')"
  errs=$(json_get "$WORK/getaway.json" 'd["summary"]["get"].get("errors", 0)')
  [ "$errs" = "0" ] || { echo "GETs with a target away failed: $errs" >&2; exit 1; }
done
echo "GET mirrored: all up ${RES[getup]}; one target away ${RES[getaway]} MB/s" >&2
TESSERA_DATA="$WORK/cluster-protect" TESSERA_PORT="${P##*:}" "$ROOT/installers/local-cluster.sh" up >/dev/null 2>&1

# Re-protect N MiB: unprotected objects get their second copy.
mkbucket bench-later 1
head -c $((1024 * 1024)) /dev/urandom >"$WORK/obj"
seq 1 "$MIB" | xargs -P 8 -I{} curl -sf -L -T "$WORK/obj" "$P/v1/objects/bench-later/o-{}" -o /dev/null
for r in $(seq 1 "$ROUNDS"); do
  mkdir -p "$WORK/cp-src"
  for i in $(seq 1 "$MIB"); do cp "$WORK/obj" "$WORK/cp-src/o-$i"; done
  sync
  t0=$(date +%s.%N); cp -r "$WORK/cp-src" "$WORK/cp-dst"; sync; t1=$(date +%s.%N)
  RES[cp]="${RES[cp]:-} $(python3 -c "print($t1 - $t0)")"
  rm -rf "$WORK/cp-src" "$WORK/cp-dst"
  curl -sf -X PATCH "$P/v1/buckets/bench-later" \
    -d '{"action":"set-bprops","value":{"mirror":{"enabled":true,"copies":2,"across_targets":true}}}' >/dev/null
  RES[reprotect]="${RES[reprotect]:-} $(wait_jobs reprotect)"
  curl -sf -X PATCH "$P/v1/buckets/bench-later" -d '{"action":"set-bprops","value":{"mirror":{"enabled":false}}}' >/dev/null
  wait_jobs reprotect >/dev/null
  echo "round $r: reprotect ${MIB} MiB ${RES[reprotect]##* } s, cp -r ${RES[cp]##* } s" >&2
done
fi

if [ "$PART" != mirror ]; then
# Erasure coding 4+2 on 7 targets.
cluster_up ec 7 "--fsync true"
P="$PROXY_URL"
mkbucket bench-ecplain 1
curl -sf -X POST "$P/v1/buckets/bench-ec" -d '{"action":"create-bck"}' >/dev/null
curl -sf -X PATCH "$P/v1/buckets/bench-ec" \
  -d '{"action":"set-bprops","value":{"ec":{"enabled":true,"data_slices":4,"parity_slices":2}}}' >/dev/null
wait_jobs reprotect >/dev/null
for r in $(seq 1 "$ROUNDS"); do
  measure ecplain put --bucket bench-ecplain
  RES[ecplain]="${RES[ecplain]:-} $(json_get "$WORK/ecplain.json" 'd["summary"]["put"]["mb_per_s"]')"
  measure ec put --bucket bench-ec
  RES[ec]="${RES[ec]:-} $(json_get "$WORK/ec.json" 'd["summary"]["put"]["mb_per_s"]')"
  echo "round $r: PUT unprotected ${RES[ecplain]##* } erasure coded 4+2 ${RES[ec]##* } MB/s" >&2
done
bench_run "$WORK/ecfill.json" --endpoint "$P" put --bucket bench-ec --prefix g/ --size 1MiB --count 256 --workers 8
for r in $(seq 1 "$ROUNDS"); do
  measure ecgetup get --bucket bench-ec --prefix g/
  RES[ecgetup]="${RES[ecgetup]:-} $(json_get "$WORK/ecgetup.json" 'd["summary"]["get"]["mb_per_s"]')"
done
kill_target ec 7
# The names the fill wrote, read by URL (the proxy redirects each).
for r in $(seq 1 "$ROUNDS"); do
  bench_run "$WORK/ecgetaway.json" --url-get "$P/v1/objects/bench-ec/g/obj-{i}" --count-objects 256 \
    --workers "$WORKERS" --duration "${DURATION}s"
  RES[ecgetaway]="${RES[ecgetaway]:-} $(json_get "$WORK/ecgetaway.json" 'd["summary"]["get"]["mb_per_s"]')"
  errs=$(json_get "$WORK/ecgetaway.json" 'd["summary"]["get"].get("errors", 0)')
  [ "$errs" = "0" ] || { echo "GETs of the 4+2 bucket with a target away failed: $errs" >&2; exit 1; }
done
echo "GET 4+2: all up ${RES[ecgetup]}; one target away ${RES[ecgetaway]} MB/s" >&2
fi

for k in plain mirror getup getaway cp reprotect ecplain ec ecgetup ecgetaway; do
  [ -n "${RES[$k]:-}" ] && M[$k]=$(echo "${RES[$k]}" | median)
done
fmt() { python3 -c "import sys; print(f'{float(sys.argv[1]):.0f} MB/s')" "$1"; }
secs() { python3 -c "import sys; print(f'{float(sys.argv[1]):.2f} s')" "$1"; }
if [ "$PART" != ec ]; then
result P13a "1 MiB PUT, 2 copies across targets, $WORKERS workers" "$(fmt "${M[mirror]}")" \
  "unprotected $(fmt "${M[plain]}")" "$(ratio "${M[mirror]}" "${M[plain]}")" 0.45
result P13b "1 MiB GET, mirrored, 1 of 3 targets away, $WORKERS workers" "$(fmt "${M[getaway]}")" \
  "all targets up $(fmt "${M[getup]}")" "$(ratio "${M[getaway]}" "${M[getup]}")" 0.5
result P13c "reprotect $MIB MiB (second copies)" "$(secs "${M[reprotect]}")" "cp -r $(secs "${M[cp]}")" \
  "$(ratio "${M[cp]}" "${M[reprotect]}")" 0.3
fi
if [ "$PART" != mirror ]; then
result P13d "1 MiB PUT, erasure coded 4+2 (7 targets), $WORKERS workers" "$(fmt "${M[ec]}")" \
  "unprotected $(fmt "${M[ecplain]}")" "$(ratio "${M[ec]}" "${M[ecplain]}")" 0.6
result P13e "1 MiB GET, erasure coded 4+2, 1 of 7 targets away" "$(fmt "${M[ecgetaway]}")" \
  "all targets up $(fmt "${M[ecgetup]}")" "$(ratio "${M[ecgetaway]}" "${M[ecgetup]}")" 0.5
fi
