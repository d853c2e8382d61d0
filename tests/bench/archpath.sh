#!/usr/bin/env bash
# archpath read latency on a big .tar shard, with and without the offset
# index: two single-target clusters that differ only in --archive-index
# (true / false) hold the same shard; random members are read straight from
# the target over one keep-alive connection. Reference: `tar -xOf` of the
# same shard file on disk for the same members. Prints averages and ratios.
# Usage: tests/bench/archpath.sh [--size-mb N] [--samples N] [--scan-samples N]
#   --size-mb       shard size (default 1024: 1 GiB of 1..100 KiB members)
#   --samples       reads with the index (default 2000)
#   --scan-samples  reads without the index and with tar -xOf (default 30)
# Needs: a release build (installers/build.sh release; or TESSERA_BUILD=...), python3, GNU tar.
set -euo pipefail
SIZE_MB=1024
SAMPLES=2000
SCAN_SAMPLES=30
while [ $# -gt 0 ]; do
  case "$1" in
    --size-mb) SIZE_MB="$2"; shift 2 ;;
    --samples) SAMPLES="$2"; shift 2 ;;
    --scan-samples) SCAN_SAMPLES="$2"; shift 2 ;;
    *) echo "usage: $0 [--size-mb N] [--samples N] [--scan-samples N]" >&2; exit 2 ;;
  esac
done
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_require tar
WORK="$(mktemp -d)"
trap bench_cleanup EXIT
declare -A URL

echo "building a ${SIZE_MB} MiB shard..."
python3 - "$WORK/shard.tar" "$SIZE_MB" "$WORK/members" <<'PY'
import io, os, random, sys, tarfile
path, size_mb, names_path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rng = random.Random(42)
limit = size_mb << 20
blob = os.urandom(100 * 1024)
names = []
with tarfile.open(path, "w", format=tarfile.USTAR_FORMAT) as tar:
    total, i = 0, 0
    while total < limit:
        n = rng.randint(1024, 100 * 1024)
        name = f"train/{i // 1000:04d}/sample-{i:07d}.bin"
        info = tarfile.TarInfo(name)
        info.size = n
        info.mtime = 1700000000
        tar.addfile(info, io.BytesIO(blob[:n]))
        names.append(name)
        total += 512 + (n + 511) // 512 * 512
        i += 1
with open(names_path, "w") as f:
    f.write("\n".join(names))
print(f"{len(names)} members")
PY

for m in on off; do
  flag=true; [ "$m" = off ] && flag=false
  cluster_up "arch-$m" 1 "--fsync false --archive-index $flag"
  curl -sf -XPOST "$PROXY_URL/v1/buckets/bench-arch" -d '{"action":"create-bck"}' >/dev/null
  curl -sfL -XPUT -T "$WORK/shard.tar" "$PROXY_URL/v1/objects/bench-arch/shard.tar" >/dev/null
  URL[$m]=$(first_target_url "$PROXY_URL")
done

# Average latency in ms of GET ?archpath=<random member> straight to the target.
measure() {  # url samples seed
  python3 - "$1" "$2" "$3" "$WORK/members" <<'PY'
import http.client, random, sys, time, urllib.parse
url, samples, seed, names_path = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
names = open(names_path).read().split("\n")
rng = random.Random(seed)
u = urllib.parse.urlparse(url)
conn = http.client.HTTPConnection(u.hostname, u.port)
def get(name):
    conn.request("GET", "/v1/objects/bench-arch/shard.tar?archpath=" + urllib.parse.quote(name))
    r = conn.getresponse()
    body = r.read()
    if r.status != 200:
        sys.exit(f"HTTP {r.status}: {body[:200]!r}")
    return len(body)
get(names[0])  # first read builds the index (or warms the page cache)
t = time.perf_counter()
for _ in range(samples):
    get(rng.choice(names))
print(f"{(time.perf_counter() - t) * 1000 / samples:.4f}")
PY
}
# The same members read with GNU tar from the file on disk (page cache warm).
tar_ref() {  # samples seed
  python3 - "$WORK/shard.tar" "$1" "$2" "$WORK/members" <<'PY'
import random, subprocess, sys, time
path, samples, seed, names_path = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
names = open(names_path).read().split("\n")
rng = random.Random(seed)
subprocess.run(["cat", path], stdout=subprocess.DEVNULL, check=True)
t = time.perf_counter()
for _ in range(samples):
    subprocess.run(["tar", "-xOf", path, rng.choice(names)], stdout=subprocess.DEVNULL, check=True)
print(f"{(time.perf_counter() - t) * 1000 / samples:.4f}")
PY
}

WITH=$(measure "${URL[on]}" "$SAMPLES" 1)
echo "archpath with the index:    ${WITH} ms per read (${SAMPLES} reads)"
WITHOUT=$(measure "${URL[off]}" "$SCAN_SAMPLES" 2)
echo "archpath without the index: ${WITHOUT} ms per read (${SCAN_SAMPLES} reads)"
TAR=$(tar_ref "$SCAN_SAMPLES" 2)
echo "tar -xOf of the file:       ${TAR} ms per read (${SCAN_SAMPLES} reads)"
echo "RATIO archpath_index_vs_scan $(python3 -c "print(f'{$WITHOUT/$WITH:.1f}')")  (without/with: how many times faster the index is)"
echo "RATIO archpath_index_vs_tar $(python3 -c "print(f'{$TAR/$WITH:.1f}')")  (tar -xOf / archpath with the index)"
