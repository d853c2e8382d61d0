"""HTTP transport: keep-alive connection pools, redirects, retries, typed errors.

Standard library only (``http.client``). One :class:`Transport` is shared by a
client's calls and is thread safe; after a ``fork`` (DataLoader workers) the
child drops the parent's pooled connections and opens its own.

Limits (constructor arguments, defaults in brackets): ``timeout`` [60 s] for
connecting and for each socket read or write; ``pool_size`` [16] idle
connections kept per node; ``retries`` [5] extra attempts after a ``503`` (the
wait is the answer's ``Retry-After``, capped at ``max_retry_wait`` [5 s]) or,
for GET and HEAD, after a failed connection; ``max_redirects`` [5].
"""

import http.client
import os
import socket
import ssl
import threading
import time
import urllib.parse

from . import errors

_REDIRECTS = (301, 302, 307, 308)
_CHUNK = 1 << 16


class Response:
    """An answer. ``status``, ``headers`` (dict, lower-case keys), ``url`` (where it
    came from, after redirects). Read it with :meth:`read` (all of it) or
    :meth:`read_chunk`; :meth:`close` gives the connection back to the pool when
    the body was read to its end, and drops it otherwise."""

    def __init__(self, transport, key, conn, resp, url):
        self._transport = transport
        self._key = key
        self._conn = conn
        self._resp = resp
        self.url = url
        self.status = resp.status
        # A header sent on several lines reads as one comma-separated list
        # (RFC 9110 5.3): ais-custom-md comes as one "k=v" line per entry.
        self.headers = {}
        for k, v in resp.getheaders():
            k = k.lower()
            self.headers[k] = f"{self.headers[k]}, {v}" if k in self.headers else v
        self.body = None

    def read(self):
        try:
            return self._resp.read()
        except (http.client.HTTPException, OSError) as e:
            self._drop()
            raise errors.ConnectionLost(f"GET {self.url}: connection lost while reading: {e!r}") from e
        finally:
            self.close()

    def read_chunk(self, n=_CHUNK):
        """Up to ``n`` bytes; ``b""`` at the end. Raises the low-level error
        (``http.client.IncompleteRead``, ``OSError``) when the connection dies, so
        that a resuming reader can tell it from the end."""
        return self._resp.read(n)

    def readinto(self, buf):
        return self._resp.readinto(buf)

    def close(self):
        if self._conn is None:
            return
        conn, self._conn = self._conn, None
        if self._resp.isclosed() and not self._resp.will_close:
            self._transport._release(self._key, conn)
        else:
            conn.close()

    def _drop(self):
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def socket(self):
        """The connection's socket while the response is open (tests cut it)."""
        return self._conn.sock if self._conn is not None else None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Transport:
    def __init__(self, timeout=60.0, pool_size=16, retries=5, max_retry_wait=5.0, max_redirects=5, ca_file=None,
                 insecure=False, headers=None):
        self.timeout = timeout
        self.pool_size = pool_size
        self.retries = retries
        self.max_retry_wait = max_retry_wait
        self.max_redirects = max_redirects
        self.headers = dict(headers or {})
        if insecure:
            self._ssl = ssl._create_unverified_context()
        else:
            self._ssl = ssl.create_default_context(cafile=ca_file)
        self._lock = threading.Lock()
        self._idle = {}
        self._pid = os.getpid()
        self.stats = {"connects": 0, "reuses": 0, "retries_503": 0, "retries_conn": 0, "redirects": 0}

    # -- pool --------------------------------------------------------------
    def _acquire(self, key):
        with self._lock:
            if self._pid != os.getpid():
                # A forked child: the parent's sockets are not ours to use. Closing
                # our copies of the descriptors leaves the parent's connections open.
                for idle in self._idle.values():
                    for c in idle:
                        c.close()
                self._idle = {}
                self._pid = os.getpid()
            idle = self._idle.get(key)
            if idle:
                self.stats["reuses"] += 1
                return idle.pop(), True
            self.stats["connects"] += 1
        scheme, host, port = key
        if scheme == "https":
            conn = http.client.HTTPSConnection(host, port, timeout=self.timeout, context=self._ssl)
        else:
            conn = http.client.HTTPConnection(host, port, timeout=self.timeout)
        return conn, False

    def _release(self, key, conn):
        with self._lock:
            if self._pid != os.getpid():
                conn.close()
                return
            idle = self._idle.setdefault(key, [])
            if len(idle) < self.pool_size:
                idle.append(conn)
                return
        conn.close()

    def close(self):
        with self._lock:
            for idle in self._idle.values():
                for c in idle:
                    c.close()
            self._idle = {}

    # -- requests ----------------------------------------------------------
    def request(self, method, url, body=None, headers=None, stream=False, follow=True, retries=None,
                ok=(200, 206)):
        """Sends the request and returns a :class:`Response` (already read unless
        ``stream``). Follows redirects (re-sending ``body``: bytes, or a seekable file),
        retries a ``503`` after its ``Retry-After``, and raises the typed error of
        any status outside ``ok`` (a redirect not followed is returned)."""
        retries = self.retries if retries is None else retries
        hdrs = dict(self.headers)
        hdrs.update(headers or {})
        start_pos = body.tell() if hasattr(body, "read") and hasattr(body, "tell") else None
        attempts_503 = 0
        attempts_conn = 0
        redirects = 0
        while True:
            if start_pos is not None:
                body.seek(start_pos)
            try:
                resp = self._once(method, url, body, hdrs)
            except errors.ConnectionLost:
                if method in ("GET", "HEAD") and attempts_conn < retries:
                    attempts_conn += 1
                    self.stats["retries_conn"] += 1
                    time.sleep(min(0.05 * (2 ** attempts_conn), self.max_retry_wait))
                    continue
                raise
            if follow and resp.status in _REDIRECTS and "location" in resp.headers:
                resp.read()
                redirects += 1
                self.stats["redirects"] += 1
                if redirects > self.max_redirects:
                    raise errors.HTTPError(resp.status, f"more than {self.max_redirects} redirects", "", method, url)
                if hasattr(body, "read") and start_pos is None:
                    raise errors.TesseraError(f"{method} {url}: redirected, and the body cannot be sent twice")
                url = urllib.parse.urljoin(url, resp.headers["location"])
                continue
            if resp.status == 503 and attempts_503 < retries and (start_pos is not None or not hasattr(body, "read")):
                data = resp.read()
                attempts_503 += 1
                self.stats["retries_503"] += 1
                try:
                    wait = float(resp.headers.get("retry-after", "1"))
                except ValueError:
                    wait = 1.0
                time.sleep(min(max(wait, 0.0), self.max_retry_wait))
                continue
            if resp.status not in ok and not (resp.status in _REDIRECTS and not follow):
                data = resp.read()
                raise errors.from_response(resp.status, resp.headers, data, method, url)
            if not stream:
                resp.body = resp.read()
            return resp

    def _once(self, method, url, body, headers):
        u = urllib.parse.urlsplit(url)
        key = (u.scheme, u.hostname, u.port or (443 if u.scheme == "https" else 80))
        path = (u.path or "/") + ("?" + u.query if u.query else "")
        for fresh_try in range(2):
            conn, reused = self._acquire(key)
            try:
                conn.request(method, path, body=body, headers=headers)
                resp = conn.getresponse()
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError) as e:
                conn.close()
                if reused and fresh_try == 0 and not hasattr(body, "read"):
                    # A kept-alive connection the server closed meanwhile: once more on a new one.
                    continue
                raise errors.ConnectionLost(f"{method} {url}: {e!r}") from e
            except (http.client.HTTPException, OSError, socket.timeout) as e:
                conn.close()
                raise errors.ConnectionLost(f"{method} {url}: {e!r}") from e
            return Response(self, key, conn, resp, url)
        raise AssertionError("unreachable")
