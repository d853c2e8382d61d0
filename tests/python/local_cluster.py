"""A local Tessera cluster for the Python tests: one proxy and N targets of the
build tree's ``tessera-node``, on free loopback ports, in a temporary directory
(the approach of tests/faults/soak.py). Waits poll with deadlines, never sleep
blindly. ``TESSERA_BIN_DIR`` names the directory of ``tessera-node`` and
``tessera`` (CMake passes it)."""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "console", "python"))


def bin_dir():
    d = os.environ.get("TESSERA_BIN_DIR")
    if d:
        return d
    return os.path.join(REPO, "build", "release", "daemon")


def cli_binary():
    env = os.environ.get("TESSERA_CLI")
    if env:
        return env
    return os.path.join(REPO, "build", "release", "console", "cli", "tessera")


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait_for(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    delay = 0.02
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what}: not within {timeout} s")
        time.sleep(delay)
        delay = min(delay * 1.5, 0.25)


_SSL = {"context": None}


def http_json(url, timeout=3):
    with urllib.request.urlopen(url, timeout=timeout, context=_SSL["context"]) as r:
        return json.loads(r.read())


def make_certificates(d):
    """A CA and one certificate for 127.0.0.1, as installers/local-cluster.sh makes them."""
    os.makedirs(d, exist_ok=True)

    def run(*args):
        subprocess.run(args, cwd=d, check=True, capture_output=True, timeout=60)

    run("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days",
        "30", "-keyout", "ca.key", "-out", "ca.pem", "-subj", "/CN=Tessera test CA")
    run("openssl", "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout",
        "node.key", "-out", "node.csr", "-subj", "/CN=127.0.0.1")
    with open(os.path.join(d, "node.ext"), "w") as f:
        f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n")
    run("openssl", "x509", "-req", "-in", "node.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
        "-days", "30", "-extfile", "node.ext", "-out", "node.pem")
    return os.path.join(d, "ca.pem")


class LocalCluster:
    def __init__(self, targets=3, extra_args=(), root=None, tls=False):
        self.node = os.path.join(bin_dir(), "tessera-node")
        if not os.access(self.node, os.X_OK):
            raise RuntimeError(f"no tessera-node in {bin_dir()}: build first (installers/build.sh release)")
        self.root = root or tempfile.mkdtemp(prefix="tessera-py-")
        self.extra = list(extra_args)
        self.proxy_port = free_port()
        self.ca_file = None
        scheme = "http"
        if tls:
            import ssl
            tls_dir = os.path.join(self.root, "tls")
            self.ca_file = make_certificates(tls_dir)
            self.extra += ["--tls-cert-file", f"{tls_dir}/node.pem", "--tls-key-file", f"{tls_dir}/node.key",
                           "--tls-ca-file", self.ca_file]
            _SSL["context"] = ssl.create_default_context(cafile=self.ca_file)
            scheme = "https"
        self.proxy_url = f"{scheme}://127.0.0.1:{self.proxy_port}"
        self.procs = {}
        self.target_names = [f"t{i}" for i in range(targets)]
        self.ports = {}

    def _common(self):
        return ["--keepalive-interval-ms", "300", "--log-level", "warn", "--fsync", "false"] + self.extra

    def _start(self, name, args):
        with open(os.path.join(self.root, f"{name}.log"), "ab") as log:
            self.procs[name] = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT)

    def start_target(self, name):
        d = os.path.join(self.root, name)
        os.makedirs(os.path.join(d, "mp1"), exist_ok=True)
        os.makedirs(os.path.join(d, "mp2"), exist_ok=True)
        port = self.ports.setdefault(name, free_port())
        self._start(name, [self.node, "--role", "target", "--port", str(port), "--data-dir", d,
                           "--mountpath", f"{d}/mp1", "--mountpath", f"{d}/mp2", "--proxy-url", self.proxy_url,
                           "--cluster-key-file", f"{self.root}/proxy/cluster.key", "--rebalance-delay-ms", "300"]
                    + self._common())

    def add_user(self, name, password, admin=False):
        """``tessera-node --role proxy ... user add`` on the proxy's data directory
        (before the proxy starts: the first admin is made this way)."""
        os.makedirs(f"{self.root}/proxy", exist_ok=True)
        args = [self.node, "--role", "proxy", "--data-dir", f"{self.root}/proxy", "user", "add", name]
        if admin:
            args.append("--admin")
        r = subprocess.run(args, input=password + "\n", capture_output=True, text=True, timeout=60)
        if r.returncode != 0:
            raise RuntimeError(f"user add {name}: exit {r.returncode}: {r.stderr}")

    def start(self, timeout=30):
        os.makedirs(f"{self.root}/proxy", exist_ok=True)
        self._start("proxy", [self.node, "--role", "proxy", "--port", str(self.proxy_port), "--data-dir",
                              f"{self.root}/proxy", "--rebalance-delay-ms", "300"] + self._common())
        wait_for(lambda: os.path.exists(f"{self.root}/proxy/cluster.key"), timeout, "proxy start")
        for name in self.target_names:
            self.start_target(name)
        self.wait_targets(len(self.target_names), timeout)
        return self

    def smap(self):
        try:
            return http_json(self.proxy_url + "/v1/cluster?what=smap")
        except OSError:
            return None

    def wait_targets(self, n, timeout=30):
        """Until n targets are in the map, not away, and each answers its health
        check (with auth on, where the map needs a token: the proxy's count)."""
        scheme = self.proxy_url.split(":", 1)[0]

        def healthy(url):
            try:
                return http_json(url + "/v1/health?detail=true").get("status") == "ok"
            except OSError:
                return False

        def ready():
            smap = self.smap()
            if smap:
                present = [t for t in smap.get("tmap", {}).values() if not (t.get("flags", 0) & 0x30000)]
                urls = [t["public_net"]["direct_url"] for t in present]
            else:
                try:
                    if http_json(self.proxy_url + "/v1/health?detail=true").get("targets") != n:
                        return False
                except OSError:
                    return False
                urls = [f"{scheme}://127.0.0.1:{self.ports[t]}" for t in self.target_names if t in self.procs]
            return len(urls) == n and all(healthy(u) for u in urls) and (smap or True)
        return wait_for(ready, timeout, f"{n} targets joined")

    def stop(self, name):
        p = self.procs.pop(name, None)
        if p and p.poll() is None:
            p.send_signal(signal.SIGKILL)
            p.wait()

    def cli(self, *args, timeout=120):
        env = dict(os.environ, TESSERA_ENDPOINT=self.proxy_url)
        r = subprocess.run([cli_binary(), *args], env=env, capture_output=True, text=True, timeout=timeout)
        if r.returncode != 0:
            raise RuntimeError(f"tessera {' '.join(args)}: exit {r.returncode}: {r.stderr or r.stdout}")
        return r.stdout

    def load_demo(self, limit, shard_size="256KiB", raw="fashion-mnist-raw", sharded="fashion-mnist"):
        """Debian's Fashion-MNIST through the CLI's own demo loader (convert, upload,
        ishard): ``limit`` samples in shards of ``shard_size``."""
        self.cli("demo", "fashion-mnist", "--limit", str(limit), "--shard-size", shard_size, "--bucket", raw,
                 "--shard-bucket", sharded, "--workers", "8", timeout=300)

    def close(self):
        for name in list(self.procs):
            self.stop(name)
        if os.environ.get("TESSERA_KEEP_TEST_DATA") != "1":
            shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.close()
