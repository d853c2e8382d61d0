#!/usr/bin/env python3
"""Soak: no acknowledged operation lost, undone or served stale while targets
die and return.

Starts its own cluster (one proxy, N targets with two mountpaths each, free
loopback ports, data in a temporary directory), runs clients doing
PUT/GET/DELETE/append/list with every acknowledged operation recorded in a
model, kills a target with SIGKILL every --kill-every seconds and restarts it
--restart-after seconds later, fails one mountpath once (--fail-mountpath),
and checks every answer against the model. At the end everything is restored
and every name of the model is read back and listed.

With --mirror N the bucket keeps N copies across targets, with --ec D+P it is
erasure coded (shard appends are left out: such a bucket refuses them). Then
one target down at a time is covered by the copies or slices, so a read of an
acknowledged object, or a listing, that answers 503 for any other reason than
a cluster map still on its way is a violation (UNAVAILABLE). A
name never acknowledged may answer 503 while a holder is away: its owner
cannot tell it from a copy it lost.

Each client owns its names (c<i>/...), so the model of a name is exact: its
acknowledged state, or, after operations whose outcome is unknown (no
answer, or a 503 saying so), the states it may be in, in the order they were
written, until the next acknowledged write. A read narrows them: a state
older than the one read never comes back, while a later unknown operation may
still take effect (it is still in flight as far as the client can tell).

Exit status 0 only with no violation. Standard library only.
"""

import argparse
import hashlib
import http.client
import io
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import urllib.parse
from collections import deque

BUCKET = "soak"
VIOLATIONS = ("LOST", "STALE", "CORRUPT", "UNDONE", "PHANTOM", "INCOMPLETE_LISTING", "BAD_STATUS", "BAD_ERROR",
              "UNAVAILABLE")
# A 503 no copy can prevent: a node whose cluster map is older than the request's.
TRANSIENT_503 = ("newer than this target", "has not joined")
T0 = [time.time()]  # the soak's start, for the times in reports


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def digest(data):
    return hashlib.sha256(data).hexdigest()


class Node:
    def __init__(self, name, args, log):
        self.name, self.args, self.log, self.proc = name, args, log, None

    def start(self):
        self.proc = subprocess.Popen(self.args, stdout=open(self.log, "ab"), stderr=subprocess.STDOUT)

    def kill(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


class Cluster:
    def __init__(self, bin_dir, root, targets, fsync, log_level="warn"):
        self.node_bin = os.path.join(bin_dir, "tessera-node")
        if not os.access(self.node_bin, os.X_OK):
            sys.exit(f"soak: no tessera-node in {bin_dir} (build first: installers/build.sh release)")
        self.root = root
        self.coded = False  # set when the bucket is erasure coded (holdings() in reports)
        self.proxy_port = free_port()
        self.proxy_url = f"http://127.0.0.1:{self.proxy_port}"
        common = ["--keepalive-interval-ms", "300", "--peer-timeout-ms", "2000", "--log-level", log_level]
        self.proxy = Node("proxy", [self.node_bin, "--role", "proxy", "--port", str(self.proxy_port),
                                    "--data-dir", f"{root}/proxy", "--keepalive-max-missed", "3"] + common,
                          f"{root}/proxy.log")
        self.targets = []
        for i in range(targets):
            port = free_port()
            d = f"{root}/t{i}"
            os.makedirs(f"{d}/mp1", exist_ok=True)
            os.makedirs(f"{d}/mp2", exist_ok=True)
            args = [self.node_bin, "--role", "target", "--port", str(port), "--data-dir", d,
                    "--mountpath", f"{d}/mp1", "--mountpath", f"{d}/mp2", "--proxy-url", self.proxy_url,
                    "--cluster-key-file", f"{root}/proxy/cluster.key", "--fsync", "true" if fsync else "false",
                    "--rebalance-delay-ms", "500"] + common
            self.targets.append(Node(f"t{i}", args, f"{root}/t{i}.log"))
            self.targets[-1].port = port
            self.targets[-1].mountpaths = [f"{d}/mp1", f"{d}/mp2"]

    def start(self):
        os.makedirs(f"{self.root}/proxy", exist_ok=True)
        self.proxy.start()
        deadline = time.time() + 20
        while not os.path.exists(f"{self.root}/proxy/cluster.key") and time.time() < deadline:
            time.sleep(0.05)
        for t in self.targets:
            t.start()
        if not self.wait_ready(30):
            # The data directory goes when the run ends: show the logs' tails now.
            for n in [self.proxy] + self.targets:
                try:
                    with open(n.log, errors="replace") as f:
                        tail = f.readlines()[-8:]
                except OSError as e:
                    tail = [f"(no log: {e})\n"]
                print(f"--- {n.name}: {n.log}\n" + "".join(tail), end="", file=sys.stderr)
            raise SystemExit("soak: the cluster did not come up within 30 s")

    def smap(self):
        try:
            return json.loads(request("GET", self.proxy_url + "/v1/cluster?what=smap", timeout=3)[2])
        except Exception:
            return None

    def wait_ready(self, seconds):
        deadline = time.time() + seconds
        while time.time() < deadline:
            smap = self.smap()
            if smap:
                tmap = smap.get("tmap", {})
                active = [n for n in tmap.values() if not (n.get("flags", 0) & 0x10000)]
                if len(tmap) == len(self.targets) and len(active) == len(self.targets):
                    ok = True
                    for t in self.targets:
                        try:
                            ok = ok and request("GET", f"http://127.0.0.1:{t.port}/v1/health", timeout=2)[0] == 200
                        except Exception:
                            ok = False
                    if ok:
                        return True
            time.sleep(0.2)
        return False

    def stop(self):
        for t in self.targets:
            t.stop()
        self.proxy.stop()

    def holdings(self, name):
        """What each target keeps of `name` now (an erasure-coded bucket):
        its slice, its whole copy's stamp, its deletion record, as the
        targets' slice survey sees them. For the report of a violation."""
        out = []
        try:
            with open(f"{self.root}/proxy/cluster.key") as f:
                key = f.read().strip()
        except OSError:
            key = ""
        for t in self.targets:
            url = f"http://127.0.0.1:{t.port}/v1/internal/ec/{BUCKET}/{urllib.parse.quote(name)}"
            try:
                st, hdrs, _ = request("HEAD", url, headers={"tessera-cluster-key": key}, timeout=2, follow=False)
            except Exception as e:
                out.append(f"{t.name}: no answer ({e.__class__.__name__})")
                continue
            keep = {k: v for k, v in hdrs.items() if any(w in k for w in ("slice", "stamp", "tomb", "index"))}
            out.append(f"{t.name}: {st} " + " ".join(f"{k}={v}" for k, v in sorted(keep.items())))
        return "; ".join(out)


def request(method, url, body=None, headers=None, timeout=20, follow=True):
    """(status, headers dict lower-case, body bytes); follows 307 re-sending the body."""
    for _ in range(5):
        u = urllib.parse.urlsplit(url)
        conn = http.client.HTTPConnection(u.hostname, u.port, timeout=timeout)
        try:
            path = u.path + ("?" + u.query if u.query else "")
            conn.request(method, path, body=body, headers=headers or {})
            r = conn.getresponse()
            data = r.read()
            hdrs = {k.lower(): v for k, v in r.getheaders()}
        finally:
            conn.close()
        if follow and r.status in (301, 302, 307, 308) and "location" in hdrs:
            url = urllib.parse.urljoin(url, hdrs["location"])
            continue
        return r.status, hdrs, data
    raise RuntimeError("too many redirects")


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.ops = {}           # (kind, status) -> count
        self.lat = {}           # kind -> [seconds]
        self.violations = {v: 0 for v in VIOLATIONS}
        self.samples = []       # first violations, for the report
        self.acked = {}

    def op(self, kind, status, seconds):
        with self.lock:
            self.ops[(kind, status)] = self.ops.get((kind, status), 0) + 1
            self.lat.setdefault(kind, []).append(seconds)
            if isinstance(status, int) and 200 <= status < 300:
                self.acked[kind] = self.acked.get(kind, 0) + 1

    def violation(self, kind, text):
        with self.lock:
            self.violations[kind] += 1
            if len(self.samples) < 40:
                self.samples.append(f"{kind}: {text}")


class Client(threading.Thread):
    """Owns names c<i>/o-<k> (objects) and c<i>/s-<k>.tar (shards)."""

    def __init__(self, idx, cluster, stats, mix, stop, rng_seed, objects=60, shards=6, covered=False):
        super().__init__(daemon=True)
        self.covered = covered  # "all": reads and listings must not answer 503; "reads": object reads
        self.idx, self.cluster, self.stats, self.mix, self.stop = idx, cluster, stats, mix, stop
        self.rng = random.Random(rng_seed)
        self.objects = [f"c{idx}/o-{k}" for k in range(objects)]
        self.shards = [f"c{idx}/s-{k}.tar" for k in range(shards)]
        # name -> list of possible states: None (absent) or digest; the last
        # acknowledged state is the only one unless an outcome was unknown.
        self.model = {n: [None] for n in self.objects}
        self.history = {n: set() for n in self.objects}   # every digest ever written
        self.members = {s: {} for s in self.shards}       # shard -> member -> [possible digests or None]
        self.seq = 0
        self.trace = {n: deque(maxlen=int(os.environ.get("SOAK_TRACE", "10"))) for n in self.objects}  # the last operations on a name, for a report

    def note(self, name, op, status, d=None):
        st = "no-answer" if status is None else status
        self.trace[name].append(f"{time.time() - T0[0]:.2f}s {op} {st}" + (f" {d[:8]}" if d else ""))

    def violate(self, kind, name, text):
        self.stats.violation(kind, text + "\n      " + "\n      ".join(self.trace.get(name, [])))

    def url(self, name, query=""):
        return f"{self.cluster.proxy_url}/v1/objects/{BUCKET}/{urllib.parse.quote(name)}" + (f"?{query}" if query else "")

    def call(self, kind, method, url, body=None, name=None):
        t0 = time.time()
        try:
            status, hdrs, data = request(method, url, body=body)
        except Exception as e:  # no answer: the outcome is unknown
            self.stats.op(kind, "no-answer", time.time() - t0)
            return None, {}, str(e).encode()
        if status == 503 and b"outcome is unknown" in data:
            # A disk failed under a change it had made (made, maybe not
            # durable), or a holder's answer to a copy was lost.
            self.stats.op(kind, "503-unknown", time.time() - t0)
            return None, hdrs, data
        self.stats.op(kind, status, time.time() - t0)
        if status >= 500 or (status >= 400 and status not in (404, 409, 416, 422)):
            self.check_error(kind, method, url, status, hdrs, data)
        # A name whose last known state is "absent" (never written, deleted,
        # or only written by operations whose outcome is unknown) may answer
        # 503 while a holder is away: its owner cannot tell it from a copy it
        # lost. Promise 11 is about acknowledged objects.
        absent = name is not None and self.model.get(name, [None])[0] is None
        if status == 503 and self.covered and method == "GET" and not absent and (
                self.covered == "all" or "/v1/objects/" in url):
            try:
                msg = json.loads(data).get("message", "")
            except Exception:
                msg = ""
            if not any(t in msg for t in TRANSIENT_503):
                held = self.cluster.holdings(name) if self.cluster.coded and name else ""
                self.violate("UNAVAILABLE", name, f"{method} {url} -> 503 with copies: {msg[:200]}" +
                             (f"\n      held now: {held}" if held else ""))
        return status, hdrs, data

    def check_error(self, kind, method, url, status, hdrs, data):
        if status not in (503, 507):
            self.stats.violation("BAD_STATUS", f"{method} {url} -> {status} {data[:200]!r}")
            return
        try:
            msg = json.loads(data).get("message", "")
        except Exception:
            msg = ""
        if not msg or (status == 503 and "retry-after" not in hdrs):
            self.stats.violation("BAD_ERROR", f"{method} {url} -> {status} without a JSON reason or Retry-After")

    def run(self):
        kinds = [k for k, w in self.mix.items() for _ in range(w)]
        while not self.stop.is_set():
            kind = self.rng.choice(kinds)
            try:
                getattr(self, "op_" + kind)()
            except Exception as e:  # an answer the client could not read
                self.stats.violation("BAD_STATUS", f"{kind}: unreadable answer: {e!r}")

    # -- operations
    def op_put(self):
        name = self.rng.choice(self.objects)
        self.seq += 1
        size = self.rng.choice([0, 1, 100, 4096, 65536, 262144] if self.rng.random() < 0.97 else [4 << 20])
        data = (f"{name} #{self.seq} ".encode() + os.urandom(max(0, size)))[: max(size, 1)]
        d = digest(data)
        status, _, _ = self.call("put", "PUT", self.url(name), data)
        self.note(name, "PUT", status, d)
        self.history[name].add(d)
        if status is None:
            self.model[name] = self.model[name] + [d]
        elif status == 200:
            self.model[name] = [d]

    def op_delete(self):
        name = self.rng.choice(self.objects)
        status, _, _ = self.call("delete", "DELETE", self.url(name))
        self.note(name, "DELETE", status)
        if status is None:
            self.model[name] = self.model[name] + [None]
        elif status == 200:
            self.model[name] = [None]
        elif status == 404 and None not in self.model[name]:
            self.violate("LOST", name, f"DELETE {name} -> 404 but it exists")

    def judge_read(self, name, status, data, possible, history):
        if status is None or status in (503, 507):
            return
        if status == 200:
            d = digest(data)
            if d in possible:
                return d
            if d in history:
                self.violate("STALE", name, f"GET {name}: an older version {d[:8]}")
            else:
                self.violate("CORRUPT", name, f"GET {name}: bytes never written")
        elif status == 404:
            if None not in possible:
                self.violate("LOST", name, f"GET {name} -> 404, acknowledged as present")
            else:
                return None
        return "?"

    def op_get(self):
        name = self.rng.choice(self.objects)
        status, _, data = self.call("get", "GET", self.url(name), name=name)
        self.note(name, "GET", status, digest(data) if status == 200 else None)
        if status == 200 and self.model[name] == [None]:
            kind = "UNDONE" if self.history[name] else "PHANTOM"
            self.violate(kind, name, f"GET {name} -> 200 after an acknowledged DELETE")
            return
        seen = self.judge_read(name, status, data, self.model[name], self.history[name])
        if seen != "?" and status in (200, 404):
            # What was read is the state now: the states before it are gone
            # for good; a later operation whose outcome is unknown may still
            # take effect (linearizability: it has no answer yet).
            possible = self.model[name]
            self.model[name] = possible[possible.index(seen):]

    def op_append(self):
        shard = self.rng.choice(self.shards)
        self.seq += 1
        member = f"m-{self.seq}.txt"
        data = f"{shard}/{member} ".encode() + os.urandom(self.rng.choice([10, 1000, 20000]))
        status, _, _ = self.call("append", "PUT", self.url(shard, "archpath=" + member), data)
        if status is None:
            self.members[shard][member] = [None, digest(data)]
        elif status == 200:
            self.members[shard][member] = [digest(data)]
        # Read back an older member of the same shard now and then.
        if self.members[shard] and self.rng.random() < 0.5:
            m = self.rng.choice(list(self.members[shard]))
            st, _, got = self.call("member", "GET", self.url(shard, "archpath=" + m))
            possible = self.members[shard][m]
            if st == 200:
                if digest(got) not in possible:
                    self.stats.violation("CORRUPT", f"member {shard}/{m}: other bytes")
                else:
                    self.members[shard][m] = [digest(got)]
            elif st == 404 and None not in possible:
                self.stats.violation("LOST", f"member {shard}/{m} -> 404, acknowledged")

    def op_list(self):
        names, token = set(), ""
        t0 = time.time()
        while True:
            q = f"prefix=c{self.idx}/&pagesize=500" + (f"&continuation_token={urllib.parse.quote(token)}" if token else "")
            status, _, data = self.call("list", "GET", f"{self.cluster.proxy_url}/v1/buckets/{BUCKET}?{q}")
            if status != 200:
                return
            page = json.loads(data)
            names.update(e["name"] for e in page.get("entries", []))
            token = page.get("continuation_token", "")
            if not token:
                break
        for n in self.objects:
            possible = self.model[n]
            if len(possible) != 1:
                continue
            wrong = None
            if possible[0] is not None and n not in names:
                wrong = ("INCOMPLETE_LISTING", f"list without {n}")
            if possible[0] is None and n in names:
                wrong = ("UNDONE", f"list holds deleted {n}")
            if wrong:
                # When, and (erasure coded) what each target keeps of it now.
                held = self.cluster.holdings(n) if self.cluster.coded else ""
                self.violate(wrong[0], n, f"{wrong[1]} (listed {t0 - T0[0]:.2f}s to {time.time() - T0[0]:.2f}s)" +
                             (f"\n      held now: {held}" if held else ""))
        for s in self.shards:
            acked = any(len(p) == 1 and p[0] is not None for p in self.members[s].values())
            if acked and s not in names:
                self.stats.violation("INCOMPLETE_LISTING", f"list without shard {s}")

    # -- the end
    def verify_all(self):
        for n in self.objects:
            status, _, data = self.call("final-get", "GET", self.url(n))
            if status in (503, 507, None):
                self.stats.violation("BAD_STATUS", f"final GET {n} -> {status}: everything should be back")
                continue
            if status == 200 and self.model[n] == [None]:
                self.stats.violation("UNDONE", f"final GET {n} -> 200 after an acknowledged DELETE")
                continue
            self.judge_read(n, status, data, self.model[n], self.history[n])
        for s in self.shards:
            if not self.members[s]:
                continue
            status, _, data = self.call("final-get", "GET", self.url(s))
            if status != 200:
                if any(len(p) == 1 and p[0] is not None for p in self.members[s].values()):
                    self.stats.violation("LOST", f"final GET shard {s} -> {status}")
                continue
            with tarfile.open(fileobj=io.BytesIO(data)) as t:
                held = {i.name: digest(t.extractfile(i).read()) for i in t.getmembers() if i.isfile()}
            for m, possible in self.members[s].items():
                d = held.get(m)
                if d not in possible:
                    self.stats.violation("LOST" if d is None else "CORRUPT", f"final member {s}/{m}")
        self.op_list()


def chaos(cluster, stats, stop, args, rng, log):
    """Kills a target every --kill-every s, restarts it --restart-after s later; fails a mountpath once."""
    next_kill = time.time() + args.kill_every
    fail_at = time.time() + (args.duration / 2 if args.fail_mountpath else 1e18)
    while not stop.is_set():
        now = time.time()
        if now >= fail_at:
            fail_at = 1e18
            t = rng.choice(cluster.targets)
            mp = t.mountpaths[1]
            log(f"failing mountpath {mp} of {t.name}")
            os.rename(mp, mp + ".gone")
            open(mp, "w").close()
            stop.wait(min(args.restart_after, max(1, args.duration / 6)))
            t.kill()
            os.remove(mp)
            os.rename(mp + ".gone", mp)
            t.start()
            stats.restarts += 1
            log(f"{t.name} restarted with {mp} back")
            next_kill = time.time() + args.kill_every
            continue
        if now >= next_kill:
            t = rng.choice(cluster.targets)
            log(f"kill -9 {t.name}")
            t.kill()
            stats.kills += 1
            stop.wait(args.restart_after)
            t.start()
            stats.restarts += 1
            log(f"{t.name} restarted")
            next_kill = time.time() + args.kill_every
            continue
        stop.wait(0.2)


def percentile(xs, p):
    if not xs:
        return 0.0
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100.0 * len(xs)))]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--minutes", type=float, default=10)
    ap.add_argument("--seconds", type=float, help="overrides --minutes")
    ap.add_argument("--targets", type=int, default=3)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--kill-every", type=float, default=60)
    ap.add_argument("--restart-after", type=float, default=10)
    ap.add_argument("--mix", default="put=40,get=40,delete=10,append=5,list=5")
    ap.add_argument("--fail-mountpath", action="store_true")
    ap.add_argument("--seed", type=int, default=int(time.time()))
    ap.add_argument("--data", help="data directory (default: a temporary one, removed at the end)")
    ap.add_argument("--no-fsync", action="store_true")
    ap.add_argument("--mirror", type=int, default=1, help="copies across targets (default 1: not mirrored)")
    ap.add_argument("--ec", help="erasure coding D+P instead (e.g. 2+1: needs --targets D+P+1 or more)")
    ap.add_argument("--log-level", default="warn", help="the nodes' log level (info: every reconcile in the logs)")
    ap.add_argument("--bin-dir", default=os.path.join(os.path.dirname(__file__), "../../build/release/daemon"))
    args = ap.parse_args()
    args.duration = args.seconds if args.seconds else args.minutes * 60
    mix = {k: int(v) for k, v in (p.split("=") for p in args.mix.split(","))}
    root = args.data or tempfile.mkdtemp(prefix="tessera-soak-")
    os.makedirs(root, exist_ok=True)
    t_start = time.time()
    T0[0] = t_start

    def log(text):
        print(f"[{time.time() - t_start:7.1f}s] {text}", flush=True)

    argv, skip = [], False
    for a in sys.argv[1:]:
        if skip or a.startswith("--seed"):
            skip = a == "--seed"
            continue
        argv.append(a)
    print("reproduce: " + " ".join([sys.argv[0]] + argv + [f"--seed {args.seed}"]), flush=True)
    cluster = Cluster(os.path.abspath(args.bin_dir), root, args.targets, not args.no_fsync, args.log_level)
    stats = Stats()
    stats.kills = stats.restarts = 0
    stop = threading.Event()
    try:
        cluster.start()
        status, _, body = request("POST", f"{cluster.proxy_url}/v1/buckets/{BUCKET}",
                                  json.dumps({"action": "create-bck"}).encode())
        if status != 200:
            raise SystemExit(f"soak: cannot create the bucket: {status} {body!r}")
        protection = None
        if args.mirror > 1:
            protection = ("mirror", {"enabled": True, "copies": args.mirror, "across_targets": True})
        elif args.ec:
            d, p = (int(x) for x in args.ec.split("+"))
            # Objects of 64 KiB and more are sliced; smaller ones copied whole.
            protection = ("ec", {"enabled": True, "data_slices": d, "parity_slices": p, "objsize_limit": 65536})
            cluster.coded = True
        if protection:
            key, value = protection
            status, _, body = request("PATCH", f"{cluster.proxy_url}/v1/buckets/{BUCKET}",
                                      json.dumps({"action": "set-bprops", "value": {key: value}}).encode())
            if status != 200:
                raise SystemExit(f"soak: cannot protect the bucket: {status} {body!r}")
            deadline = time.time() + 30
            while json.loads(request("GET", f"{cluster.proxy_url}/v1/daemon?what=bmd")[2])["buckets"][BUCKET][
                    key]["pending"]:
                if time.time() > deadline:
                    raise SystemExit("soak: the bucket's copies were not made within 30 s")
                time.sleep(0.1)
            mix.pop("append", None)
        log(f"cluster up at {cluster.proxy_url}: {args.targets} targets, data in {root}")
        rng = random.Random(args.seed)
        clients = [Client(i, cluster, stats, mix, stop, rng.random(), covered=None if protection is None else "all")
                   for i in range(args.clients)]
        for c in clients:
            c.start()
        chaos_stop = threading.Event()
        ch = threading.Thread(target=chaos, args=(cluster, stats, chaos_stop, args, random.Random(args.seed + 1), log),
                              daemon=True)
        ch.start()
        deadline = t_start + args.duration
        while time.time() < deadline:
            time.sleep(min(5, max(0.1, deadline - time.time())))
            with stats.lock:
                total = sum(stats.ops.values())
                bad = sum(stats.violations.values())
            log(f"{total} operations, {bad} violation(s)")
        chaos_stop.set()
        ch.join()
        stop.set()
        for c in clients:
            c.join()
        log("restoring: every target up")
        for t in cluster.targets:
            if t.proc.poll() is not None:
                t.start()
        if not cluster.wait_ready(60):
            stats.violation("BAD_STATUS", "the cluster did not come back within 60 s")
        else:
            log("verifying every acknowledged name")
            for c in clients:
                c.verify_all()
    finally:
        stop.set()
        cluster.stop()
        if not args.data:
            shutil.rmtree(root, ignore_errors=True)

    print("\nop          status      count   p50 ms   p99 ms")
    for (kind, status), n in sorted(stats.ops.items(), key=lambda x: (x[0][0], str(x[0][1]))):
        lat = stats.lat.get(kind, [])
        print(f"{kind:<11} {str(status):<10} {n:>6} {percentile(lat, 50) * 1000:8.1f} {percentile(lat, 99) * 1000:8.1f}")
    print(f"\nacknowledged: " + ", ".join(f"{k} {v}" for k, v in sorted(stats.acked.items())))
    print(f"kills: {stats.kills}, restarts: {stats.restarts}, seconds: {time.time() - t_start:.0f}")
    print("violations: " + ", ".join(f"{k} {v}" for k, v in stats.violations.items()))
    for s in stats.samples:
        print("  " + s)
    return 0 if sum(stats.violations.values()) == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
