#!/usr/bin/env bash
# Performance pass 2's goals alone (P1, P2, CLIENT, P5b, P6, P7, P11, P12),
# one script after the other, then each goal's ratio per round with its
# min / median / max (the spread issue 23 asks for), then where a small
# GET's CPU goes (cpu_split.sh). The full suite is run_all.sh; this is the
# shorter run for the goals that pass 2 raised.
# About 15 minutes with the defaults.
# Usage: tests/bench/pass2_goals.sh [--rounds N] [--duration S] [--names N] [--ishard-samples N] [--log FILE]
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROUNDS=3
DURATION=5
NAMES=1000000
ISHARD_SAMPLES=70000
LOG=""
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) ROUNDS="$2"; shift 2 ;;
    --duration) DURATION="$2"; shift 2 ;;
    --names) NAMES="$2"; shift 2 ;;
    --ishard-samples) ISHARD_SAMPLES="$2"; shift 2 ;;
    --log) LOG="$2"; shift 2 ;;
    *) echo "usage: $0 [--rounds N] [--duration S] [--names N] [--ishard-samples N] [--log FILE]" >&2; exit 2 ;;
  esac
done
[ -n "$LOG" ] || LOG="$(mktemp)"
: >"$LOG"
RESULTS="$(mktemp)"
export RESULTS
trap 'rm -f "$RESULTS"' EXIT
echo "started $(date -u '+%Y-%m-%d %H:%M UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg), tessera $(git -C "$HERE/../.." describe --always --dirty 2>/dev/null || echo unknown)" | tee -a "$LOG"
run() {
  echo "== $*" | tee -a "$LOG"
  "$@" 2>&1 | tee -a "$LOG"
}
run "$HERE/small_get.sh" --duration "$DURATION" --rounds "$ROUNDS"
run "$HERE/shard_read.sh" --duration "$DURATION" --rounds "$ROUNDS"
run "$HERE/dsort.sh" --rounds "$ROUNDS"
run "$HERE/ishard.sh" --rounds "$ROUNDS" --samples "$ISHARD_SAMPLES"
run "$HERE/small_put.sh" --duration "$DURATION" --rounds "$ROUNDS"
run "$HERE/list.sh" --names "$NAMES" --duration $((DURATION * 2))
run "$HERE/cpu_split.sh" --rounds "$ROUNDS"
echo "finished $(date -u '+%Y-%m-%d %H:%M UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$LOG"

# Each goal's ratio in every round (both sides of a ratio come from the same
# round), then min / median / max.
python3 - "$LOG" <<'PY'
import re, statistics, sys
text = open(sys.argv[1]).read()
ratios = {k: [] for k in ("P1", "P2", "CLIENT", "P5b", "P6", "P11", "P12")}
for m in re.finditer(r"round \d+: direct (\S+) nginx (\S+) proxy (\S+) wrk (\S+) bench-on-nginx (\S+) req/s", text):
    d, n, p, w, b = (float(x) for x in m.groups())
    ratios["P1"].append(d / n)
    ratios["P2"].append(p / n)
    ratios["CLIENT"].append(b / w)
for m in re.finditer(r"round \d+: shard-read (\S+) loose-read (\S+) shard-scan (\S+) samples/s", text):
    ratios["P5b"].append(float(m.group(1)) / float(m.group(3)))
cp = dict(re.findall(r"round (\d+) cp -r: (\S+) s", text))
for r, secs in re.findall(r"round (\d+) dsort shuffle: (\S+) s", text):
    if r in cp:
        ratios["P6"].append(float(cp[r]) / float(secs))
tar = dict(re.findall(r"round (\d+) tar cf: (\S+) s", text))
for r, secs in re.findall(r"round (\d+) ishard: (\S+) s", text):
    if r in tar:
        ratios["P11"].append(float(tar[r]) / float(secs))
files = {"local files with fsync / nginx": [], "Tessera fsync on / local files": [],
         "Tessera fsync on / the same with the commit log off": []}
for m in re.finditer(r"round \d+: fsync on (\S+) nginx (\S+) fsync off (\S+) PUT/s(?:; local files with fsync (\S+) files/s)?(?:; commit log off (\S+) PUT/s)?", text):
    ratios["P12"].append(float(m.group(1)) / float(m.group(2)))
    if m.group(4):
        files["local files with fsync / nginx"].append(float(m.group(4)) / float(m.group(2)))
        files["Tessera fsync on / local files"].append(float(m.group(1)) / float(m.group(4)))
    if m.group(5):
        files["Tessera fsync on / the same with the commit log off"].append(float(m.group(1)) / float(m.group(5)))
goals = {"P1": 1.2, "P2": 0.9, "CLIENT": 1.0, "P5b": 0.9, "P6": 0.8, "P11": 0.6, "P12": 1.0}
print("\n| id | rounds | min | median | max | goal | met (median) |")
print("|---|---|---|---|---|---|---|")
for k, xs in ratios.items():
    if not xs:
        print(f"| {k} | 0 | | | | {goals[k]} | not measured |")
        continue
    med = statistics.median(xs)
    print(f"| {k} | {len(xs)} | {min(xs):.3f} | {med:.3f} | {max(xs):.3f} | >= {goals[k]} | "
          f"{'yes' if med >= goals[k] else 'no'} |")
for k, xs in files.items():
    if xs:
        print(f"\nP12, {k}: min {min(xs):.3f}, median {statistics.median(xs):.3f}, max {max(xs):.3f}")
for line in text.splitlines():
    if line.startswith("RESULT P7"):
        print("\nP7 (one listing run, no rounds): " + line[len("RESULT "):])
PY
grep '^RESULT ' "$RESULTS" || true
