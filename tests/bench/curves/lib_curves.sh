# shellcheck shell=bash
# Shared by the tests/bench/curves/ scripts (sourced after ../lib.sh): the
# common flags, min/median/max of a point's rounds, the CSV layout, the
# markdown table behind a plot, gnuplot's PNG preamble, and the dataset
# generators of ../ishard.sh and ../dsort.sh (the same Python, so a curve's
# point at the default size is the same data those scripts measure).
#
# A curve's CSV: one row per x value; the first column is x, then three
# columns per series: NAME_med, NAME_min, NAME_max (the median, min and max
# of the --rounds rounds). curve_md turns it into a table with "median
# (min-max)" cells; gnuplot plots the median with the min/max as error bars.

# curves_defaults: QUICK=0 ROUNDS=3 OUT=tests/bench/curves/out (every script's flags).
curves_defaults() {
  # shellcheck disable=SC2034 # read by the sourcing script
  QUICK=0
  ROUNDS=3
  OUT="$ROOT/tests/bench/curves/out"
}

# curves_check: --rounds must be a positive number; makes OUT absolute; gnuplot.
curves_check() {
  case "$ROUNDS" in '' | *[!0-9]* | 0) echo "--rounds must be a positive number" >&2; exit 2 ;; esac
  mkdir -p "$OUT"
  OUT="$(cd "$OUT" && pwd)"
  command -v gnuplot >/dev/null || { echo "gnuplot is missing: installers/bench-deps.sh" >&2; exit 1; }
}

# stats N...: "median min max" of the numbers given (the median as lib.sh's).
stats() {
  local mm
  mm=$(printf '%s\n' "$@" | sort -g | awk 'NR == 1 {lo = $1} {hi = $1} END {printf "%.6g %.6g", lo, hi}')
  echo "$(echo "$@" | median) $mm"
}

# csv_row FILE X "med min max"...: appends one row.
csv_row() {
  local file="$1" x="$2" row s
  shift 2
  row="$x"
  for s in "$@"; do row="$row,${s// /,}"; done
  echo "$row" >>"$file"
}

# csv_header FILE XNAME SERIES...: starts FILE with the header row.
csv_header() {
  local file="$1" h="$2" s
  shift 2
  for s in "$@"; do h="$h,${s}_med,${s}_min,${s}_max"; done
  echo "$h" >"$file"
}

# curve_md CSV TITLE XFORMAT LABELS: the markdown table of a curve's CSV, each
# cell "median (min-max)" with numbers rounded to 3 significant digits (or
# whole numbers when larger); XFORMAT "bytes" prints x as 1 KiB, 16 MiB, ...
# ("" as it is); LABELS: the column titles, comma-separated, x first ("" =
# the CSV's names).
curve_md() {
  python3 - "$1" "$2" "${3:-}" "${4:-}" <<'PY'
import csv, sys
path, title, xfmt, labels = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
rows = list(csv.reader(open(path)))
head, body = rows[0], rows[1:]
def num(s):
    v = float(s)
    if abs(v) >= 100: return f"{v:,.0f}"
    return f"{v:.3g}"
def xs(s):
    if xfmt != "bytes": return num(s)
    v = int(float(s))
    for unit, n in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if v >= n and v % n == 0: return f"{v // n} {unit}"
    return f"{v} B"
names = [head[0]] + [head[i][:-4] for i in range(1, len(head), 3)]
if labels:
    names = labels.split(",")
    assert len(names) == 1 + (len(head) - 1) // 3, (labels, head)
print(f"**{title}** (`{path.rsplit('/', 1)[-1]}`; median of the rounds, min-max in brackets)")
print()
print("| " + " | ".join(names) + " |")
print("|" + "---|" * len(names))
for r in body:
    cells = [xs(r[0])]
    for i in range(1, len(r), 3):
        cells.append(f"{num(r[i])} ({num(r[i + 1])}-{num(r[i + 2])})" if r[i] != "" else "-")
    print("| " + " | ".join(cells) + " |")
print()
PY
}

# gp_preamble PNG TITLE XLABEL YLABEL LOGX(0/1): gnuplot commands for a
# 1000x600 PNG with the legend outside the data (below the plot).
gp_preamble() {
  cat <<GP
set terminal pngcairo size 1000,600 enhanced font 'sans,11'
set output '$1'
set datafile separator ','
set title "$2"
set xlabel "$3"
set ylabel "$4"
set grid
set key outside below horizontal
set yrange [0:*]
set style data yerrorlines
set pointsize 1.2
GP
  [ "$5" = 1 ] && echo "set logscale x 2"
  return 0
}

# gp_run: gnuplot reading its script on stdin; fails loudly.
gp_run() {
  local err
  err=$(gnuplot 2>&1 >/dev/null) || { echo "gnuplot failed: $err" >&2; return 1; }
  [ -z "$err" ] || echo "gnuplot: $err" >&2
}

# gen_ishard_src DIR SAMPLES SIZE: ../ishard.sh's generator (WebDataset
# samples of 3 files: .png of SIZE random bytes, .cls, .json under DIR/train).
gen_ishard_src() {
  python3 - "$1" "$2" "$3" <<'PY'
import os, sys, random
root, n, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rnd = random.Random(1)
os.makedirs(root + "/train", exist_ok=True)
for i in range(n):
    key = "%s/train/%06d" % (root, i)
    with open(key + ".png", "wb") as f: f.write(rnd.randbytes(size))
    with open(key + ".cls", "w") as f: f.write(str(i % 10))
    with open(key + ".json", "w") as f: f.write('{"index":%d,"label":%d}' % (i, i % 10))
PY
}

# gen_dsort_src DIR SAMPLES SIZE PER_SHARD: ../dsort.sh's generator (shards
# shard-NNNN.tar of PER_SHARD samples, each a .bin of SIZE bytes and a .cls).
gen_dsort_src() {
  python3 - "$1" "$2" "$3" "$4" <<'PY'
import io, os, random, sys, tarfile
root, n, size, per = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rnd = random.Random(1)
os.makedirs(root, exist_ok=True)
keys = list(range(n))
rnd.shuffle(keys)
for s in range(0, n, per):
    with tarfile.open("%s/shard-%04d.tar" % (root, s // per), "w", format=tarfile.USTAR_FORMAT) as t:
        for k in keys[s:s + per]:
            for ext, data in ((".bin", rnd.randbytes(size)), (".cls", str(k % 1000).encode())):
                info = tarfile.TarInfo("sample-%07d%s" % (k, ext))
                info.size = len(data)
                info.mtime = 1700000000
                t.addfile(info, io.BytesIO(data))
PY
}

# secs_since START: seconds (float) from a `date +%s.%N` START to now.
# (the end is read before python3 starts, so its start-up is not counted).
secs_since() {
  local end
  end=$(date +%s.%N)
  python3 -c "import sys; print(float(sys.argv[2]) - float(sys.argv[1]))" "$1" "$end"
}
