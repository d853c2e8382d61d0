#!/usr/bin/python3
"""The local reference of the ETL benchmark (tests/bench/etl.sh): runs a
transformer directly, once per file (its stdin the file, its stdout read to
the end), PARALLEL at a time, cycling over FILES for DURATION seconds, as the
target's io:// mode does. Prints the objects per second.

  etl_local_runner.py --parallel 8 --duration 5 --files-from LIST -- CMD [ARG...]
"""
import argparse
import subprocess
import sys
import threading
import time


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--parallel", type=int, default=8)
    p.add_argument("--duration", type=float, default=5)
    p.add_argument("--files-from", required=True)
    p.add_argument("cmd", nargs=argparse.REMAINDER)
    a = p.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    files = [line.strip() for line in open(a.files_from) if line.strip()]
    done = [0] * a.parallel
    failed = []
    stop = time.monotonic() + a.duration

    def worker(w):
        i = w
        while time.monotonic() < stop:
            with open(files[i % len(files)], "rb") as f:
                r = subprocess.run(cmd, stdin=f, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            if r.returncode != 0:
                failed.append(r.stderr.decode(errors="replace"))
                return
            done[w] += 1
            i += a.parallel

    start = time.monotonic()
    threads = [threading.Thread(target=worker, args=(w,)) for w in range(a.parallel)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - start
    if failed:
        print("transformer failed: " + failed[0], file=sys.stderr)
        sys.exit(1)
    print(f"{sum(done) / elapsed:.1f}")


if __name__ == "__main__":
    main()
