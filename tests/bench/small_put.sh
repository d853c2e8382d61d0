#!/usr/bin/env bash
# P12: 4 KiB PUT objects/s, direct to one target with fsync on, 64 workers,
# against nginx's WebDAV PUT of the same objects (which never fsyncs), both
# driven by `tessera bench put`. Also prints the fsync-off rate, to show what
# durability costs here. Goal: Tessera (fsync on) >= 1.0 x nginx (fsync off).
# Also measures local files written with the same durability as a commit
# (`tessera bench file-put`: work file, fdatasync, rename, folder fsync, over 2
# folders as a target's 2 mountpaths): what this disk does with fsync on and
# no server at all, in the same round. And Tessera with fsync on but its
# commit log off (`--commit-log false`: every PUT syncs its own file and
# folder), which is how small PUTs were committed before the log.
# Rounds alternate; medians are compared.
# Usage: tests/bench/small_put.sh [--duration SECONDS] [--rounds N] [--workers N] [--size SIZE]
set -euo pipefail
DURATION=5
ROUNDS=3
WORKERS=64
SIZE=4KiB
while [ $# -gt 0 ]; do
  case "$1" in
    --duration) DURATION="$2"; shift 2 ;;
    --rounds) ROUNDS="$2"; shift 2 ;;
    --workers) WORKERS="$2"; shift 2 ;;
    --size) SIZE="$2"; shift 2 ;;
    *) echo "usage: $0 [--duration SECONDS] [--rounds N] [--workers N] [--size SIZE]" >&2; exit 2 ;;
  esac
done
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_require nginx
WORK="$(mktemp -d)"
trap bench_cleanup EXIT

cluster_up sync 1 "--fsync true ${SYNC_ARGS:-}"
SYNC="$PROXY_URL"
cluster_up nosync 1 "--fsync false"
NOSYNC="$PROXY_URL"
cluster_up nolog 1 "--fsync true --commit-log false"
NOLOG="$PROXY_URL"
nginx_up "$WORK/www"
mkdir -p "$WORK/files"

declare -A RES M
measure() {
  local name="$1"; shift
  # Each measurement starts with no one else's dirty pages to write back:
  # the syncs of the one after a run without fsync would wait for them.
  sync
  bench_run "$WORK/$name.json" "$@" --size "$SIZE" --workers "$WORKERS" --duration "${DURATION}s"
  RES[$name]="${RES[$name]:-} $(json_get "$WORK/$name.json" 'd["summary"]["put"]["ops_per_s"]')"
}
# Every round writes new names (a folder or prefix per round): a round that
# overwrote the last one's files would delete as many inodes as it creates,
# and on ext4 without a journal (this machine's root) every file creation
# then checks the inodes freed in the last 60-360 s first, for everyone on
# the filesystem. The order rotates each round, so that no way is always
# the one measured right after another's writes.
measure_one() {
  local r="$1" way="$2"
  case "$way" in
    sync) measure sync --endpoint "$SYNC" put --bucket bench-put --direct --prefix "r$r-" ;;
    nginx) measure nginx --url-put "$NGINX_URL/put/r$r/" ;;
    nosync) measure nosync --endpoint "$NOSYNC" put --bucket bench-put --direct --prefix "r$r-" ;;
    files) mkdir -p "$WORK/files/r$r"; measure files file-put --dir "$WORK/files/r$r" --dirs 2 ;;
    nolog) measure nolog --endpoint "$NOLOG" put --bucket bench-put --direct --prefix "r$r-" ;;
  esac
}
WAYS=(sync nginx nosync files nolog)
for r in $(seq 1 "$ROUNDS"); do
  for i in $(seq 0 $((${#WAYS[@]} - 1))); do
    measure_one "$r" "${WAYS[$(((i + r - 1) % ${#WAYS[@]}))]}"
  done
  echo "round $r: fsync on ${RES[sync]##* } nginx ${RES[nginx]##* } fsync off ${RES[nosync]##* }" \
    "PUT/s; local files with fsync ${RES[files]##* } files/s; commit log off ${RES[nolog]##* } PUT/s" >&2
done
for k in sync nginx nosync files nolog; do M[$k]=$(echo "${RES[$k]}" | median); done
fmt() { python3 -c "import sys; print(f'{float(sys.argv[1]):.0f} PUT/s')" "$1"; }
result P12 "$SIZE PUT direct, fsync on, $WORKERS workers" "$(fmt "${M[sync]}")" "nginx dav PUT (no fsync) $(fmt "${M[nginx]}")" \
  "$(ratio "${M[sync]}" "${M[nginx]}")" 1.0
echo "fsync off: $(fmt "${M[nosync]}") ($(ratio "${M[nosync]}" "${M[nginx]}") of nginx)"
echo "fsync on, commit log off: $(fmt "${M[nolog]}") ($(ratio "${M[nolog]}" "${M[nginx]}") of nginx);" \
  "the commit log gives $(ratio "${M[sync]}" "${M[nolog]}") x"
echo "local files with fsync (file-put): $(fmt "${M[files]}" | sed 's/PUT/files/'); Tessera fsync on is" \
  "$(ratio "${M[sync]}" "${M[files]}") of it; local files with fsync / nginx: $(ratio "${M[files]}" "${M[nginx]}")"
