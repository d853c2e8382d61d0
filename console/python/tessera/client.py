"""The Tessera client: buckets, objects, shards, jobs, the cluster map, tokens.

Reads and writes go straight to the target that owns the object, computed from
the cached cluster map with the same HRW placement as the C++ code
(:mod:`tessera.hrw`). When the map is stale the target answers ``307`` to the
right owner and the client follows it (and refreshes its map); a target that
cannot be reached sends the request through the proxy instead. Everything else
goes to the proxy given as ``endpoint``.

Thread safety: a ``Client`` may be shared by threads; it survives ``fork``
(each process keeps its own connections). Errors are :mod:`tessera.errors`.
"""

import http.client
import io
import json
import threading
import time
import urllib.parse

from . import errors
from .http import Transport
from .hrw import Placement, SNODE_AWAY, SNODE_MAINTENANCE

JOB_DONE_STATES = ("finished", "aborted", "failed")


def _quote(name):
    return urllib.parse.quote(name, safe="/")


def _normalize_endpoint(endpoint):
    if "://" not in endpoint:
        endpoint = "http://" + endpoint
    return endpoint.rstrip("/")


class ListPage:
    """One page of a listing: ``entries`` (dicts as the node sends them: ``name``,
    ``size``, and what ``props`` asked for; ``size``, a decimal string on the wire
    as AIStore writes it, is turned into an int here), ``token`` (pass it back for
    the next page) and ``complete`` (True only when the node said the listing is over)."""

    def __init__(self, entries, token):
        for e in entries:
            if isinstance(e.get("size"), str):
                e["size"] = int(e["size"])
        self.entries = entries
        self.token = token
        self.complete = token == ""


class ObjectReader(io.RawIOBase):
    """A file-like stream of an object (or a byte range of it) that survives a
    dead connection: when the connection breaks it asks the owner again for the
    rest (``Range: bytes=<offset>-``), at most ``retries`` times in a row, and
    refuses to go on if the object's version or checksum changed meanwhile
    (:class:`errors.ShardChanged`). ``offset`` is the position in the object."""

    def __init__(self, client, bucket, name, start=0, end=None, retries=3, params=None):
        super().__init__()
        self._client = client
        self.bucket, self.name = bucket, name
        self.offset = start
        self.end = end  # exclusive; None: to the end
        self.retries = retries
        self.params = dict(params or {})
        self.reconnects = 0
        self._identity = None
        self._resp = None
        self._eof = start == end
        if not self._eof:
            self._open()

    def _open(self):
        headers = {}
        if self.offset > 0 or self.end is not None:
            last = "" if self.end is None else str(self.end - 1)
            headers["Range"] = f"bytes={self.offset}-{last}"
        try:
            resp = self._client._object_request("GET", self.bucket, self.name, params=self.params, headers=headers,
                                                stream=True)
        except errors.RangeNotSatisfiable as e:
            if self._identity is None:
                raise
            raise errors.ShardChanged(f"{self.bucket}/{self.name} changed while being read (now shorter than "
                                      f"byte {self.offset})") from e
        ident = (resp.headers.get("ais-version"), resp.headers.get("ais-checksum-value"))
        if self._identity is None:
            self._identity = ident
        elif ident != self._identity:
            resp.close()
            raise errors.ShardChanged(f"{self.bucket}/{self.name} changed while being read "
                                      f"(version/checksum {self._identity} -> {ident})")
        self._resp = resp
        length = resp.headers.get("content-length")
        # http.client reports a body cut short as a plain end: know where it must end.
        self._expected_end = self.offset + int(length) if length is not None and length.isdigit() else None

    def readable(self):
        return True

    def readinto(self, b):
        if self._eof:
            return 0
        failures = 0
        while True:
            try:
                n = self._resp.readinto(b)
                if n == 0 and self._expected_end is not None and self.offset < self._expected_end:
                    raise http.client.IncompleteRead(b"", self._expected_end - self.offset)
            except (http.client.HTTPException, OSError, ValueError, AttributeError) as e:
                if self._resp is not None:
                    self._resp._drop()
                failures += 1
                if failures > self.retries:
                    raise errors.ConnectionLost(f"{self.bucket}/{self.name}: connection lost at byte {self.offset} "
                                                f"and {self.retries} reconnection(s) failed: {e!r}") from e
                self.reconnects += 1
                try:
                    self._open()
                except errors.ConnectionLost:
                    continue
                continue
            if n == 0:
                self._eof = True
                self._resp.close()
                return 0
            self.offset += n
            return n

    def read(self, n=-1):
        if n is None or n < 0:
            return self.readall()
        buf = bytearray(n)
        got = 0
        view = memoryview(buf)
        while got < n:
            k = self.readinto(view[got:])
            if k == 0:
                break
            got += k
        return bytes(buf[:got])

    def cut_connection(self):
        """Shuts the live socket down, as a dead network would (for tests)."""
        import socket as _s
        sock = self._resp.socket() if self._resp is not None else None
        if sock is not None:
            sock.shutdown(_s.SHUT_RDWR)

    def close(self):
        if self._resp is not None:
            self._resp.close()
            self._resp = None
        super().close()


class Client:
    """``Client("http://127.0.0.1:8080")``: talk to the cluster whose proxy is
    ``endpoint`` (``host:port`` or a URL; ``https://`` with TLS).

    ``token``: an access token sent as ``Authorization: Bearer``; ``ca_file``: the
    PEM CAs for TLS (``insecure=True`` skips the check); ``timeout``: seconds for
    connecting and each socket read/write; ``pool_size``: idle connections kept per
    node; ``retries``: extra attempts after a ``503`` (after its ``Retry-After``,
    capped at ``max_retry_wait``) or a failed GET/HEAD connection; ``direct``: go
    straight to the owning target (``False``: every object call through the
    proxy's redirect); ``map_ttl``: seconds a cached cluster map is trusted before
    it is fetched again (a redirect naming a newer map refreshes it at once).
    """

    def __init__(self, endpoint, token=None, ca_file=None, insecure=False, timeout=60.0, pool_size=16, retries=5,
                 max_retry_wait=5.0, direct=True, map_ttl=30.0):
        self.endpoint = _normalize_endpoint(endpoint)
        self.direct = direct
        self.map_ttl = map_ttl
        self._transport = Transport(timeout=timeout, pool_size=pool_size, retries=retries,
                                    max_retry_wait=max_retry_wait, ca_file=ca_file, insecure=insecure)
        self._token = None
        self._refresh_token = None
        self.set_token(token)
        self._lock = threading.Lock()
        self._smap = None
        self._smap_time = 0.0
        self._placement = None
        self._direct_refused = False

    # -- plumbing ------------------------------------------------------------
    @property
    def stats(self):
        """Counters of the transport: connects, reuses, retries, redirects."""
        return dict(self._transport.stats)

    def set_token(self, token):
        self._token = token
        if token:
            self._transport.headers["Authorization"] = f"Bearer {token}"
        else:
            self._transport.headers.pop("Authorization", None)

    def close(self):
        self._transport.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _url(self, path, params=None):
        url = self.endpoint + path
        if params:
            url += "?" + urllib.parse.urlencode(params)
        return url

    def _call(self, method, path, params=None, body=None, headers=None, ok=(200,)):
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
            headers = dict(headers or {})
            headers.setdefault("Content-Type", "application/json")
        return self._transport.request(method, self._url(path, params), body=body, headers=headers, ok=ok)

    def _json(self, method, path, params=None, body=None):
        resp = self._call(method, path, params, body)
        return json.loads(resp.body) if resp.body else None

    # -- cluster map and placement -------------------------------------------
    def cluster_map(self, refresh=False):
        """The cluster map (``GET /v1/cluster?what=smap``, AIStore's shape): ``version``
        (a decimal string on the wire, an int here), ``uuid``, ``creation_time``,
        ``proxy_si`` (the primary), ``pmap`` and ``tmap`` ({id: snode}); cached
        ``map_ttl`` seconds."""
        with self._lock:
            fresh = self._smap is not None and time.monotonic() - self._smap_time < self.map_ttl
            if fresh and not refresh:
                return self._smap
        smap = self._json("GET", "/v1/cluster", {"what": "smap"})
        smap["version"] = int(smap.get("version", 0))
        with self._lock:
            self._smap = smap
            self._smap_time = time.monotonic()
            self._placement = Placement(smap.get("tmap", {}))
        return smap

    def _mark_stale(self):
        # Not 0.0: the monotonic clock counts from boot, so on a machine up for
        # less than map_ttl a map "fetched at 0" would still look fresh.
        with self._lock:
            self._smap_time = float("-inf")

    def owner(self, bucket, name):
        """The snode dict of the target that owns bucket/name under the cached map."""
        smap = self.cluster_map()
        with self._lock:
            tid = self._placement.owner(bucket, name)
        return smap["tmap"][tid] if tid is not None else None

    def object_url(self, bucket, name, params=None, direct=None):
        """The URL of an object: on its owning target (``direct``, the default of the
        client) with the map version it was computed from, or on the proxy."""
        direct = self.direct if direct is None else direct
        q = dict(params or {})
        base = self.endpoint
        if direct and not self._direct_refused:
            smap = self.cluster_map()
            node = self.owner(bucket, name)
            if node is not None:
                base = node["public_net"]["direct_url"].rstrip("/")
                q["smap_version"] = smap["version"]
        url = f"{base}/v1/objects/{bucket}/{_quote(name)}"
        if q:
            url += "?" + urllib.parse.urlencode(q)
        return url

    def _object_request(self, method, bucket, name, params=None, headers=None, body=None, stream=False,
                        ok=(200, 206)):
        url = self.object_url(bucket, name, params)
        direct = not url.startswith(self.endpoint + "/")
        if not direct and method == "PUT" and body is not None:
            url = self._owner_via_proxy(url)
        try:
            resp = self._transport.request(method, url, body=body, headers=headers, stream=stream, ok=ok)
        except errors.ConnectionLost:
            if not direct:
                raise
            # The owner we computed is gone (or moved): ask the proxy, with a fresh map next time.
            self._mark_stale()
            url, resp = self._via_proxy(method, bucket, name, params, headers, body, stream, ok)
        except (errors.Unauthorized, errors.Forbidden):
            if not direct or not self._token:
                raise
            # A target takes a bearer token directly only from an admin: go through the
            # proxy, whose redirect carries a signature the target accepts.
            self._direct_refused = True
            url, resp = self._via_proxy(method, bucket, name, params, headers, body, stream, ok)
        if resp.url != url:
            # Redirected: our map may be stale.
            q = urllib.parse.parse_qs(urllib.parse.urlsplit(resp.url).query)
            seen = q.get("smap_version", ["0"])[0]
            if self._smap is not None and seen.isdigit() and int(seen) > self._smap.get("version", 0):
                self._mark_stale()
        return resp

    def _via_proxy(self, method, bucket, name, params, headers, body, stream, ok):
        if hasattr(body, "seek"):
            body.seek(0)
        url = self.object_url(bucket, name, params, direct=False)
        if method == "PUT" and body is not None:
            url = self._owner_via_proxy(url)
        return url, self._transport.request(method, url, body=body, headers=headers, stream=stream, ok=ok)

    def _owner_via_proxy(self, url):
        """The proxy's redirect for a PUT, asked with an empty body: the proxy
        answers a PUT whose body is over 64 KiB by closing the connection unread,
        which would break the upload; an empty one it reads, and it stores nothing
        itself. Errors (no such bucket, no targets) come back here."""
        resp = self._transport.request("PUT", url, body=b"", follow=False, ok=(307,))
        return urllib.parse.urljoin(url, resp.headers["location"])

    # -- buckets -------------------------------------------------------------
    def list_buckets(self):
        """Bucket names, sorted."""
        return [b["name"] for b in self._json("GET", "/v1/buckets")]

    def create_bucket(self, bucket):
        self._call("POST", f"/v1/buckets/{bucket}", body={"action": "create-bck"})

    def destroy_bucket(self, bucket):
        self._call("DELETE", f"/v1/buckets/{bucket}")

    def bucket_props(self, bucket):
        resp = self._call("HEAD", f"/v1/buckets/{bucket}")
        return json.loads(resp.headers.get("ais-bucket-props", "{}"))

    def set_bucket_props(self, bucket, props):
        """Changes some properties (a partial props dict); returns them all."""
        return self._json("PATCH", f"/v1/buckets/{bucket}", body={"action": "set-bprops", "value": props})

    # -- objects -------------------------------------------------------------
    def put(self, bucket, name, data, custom=None, checksum=True):
        """Writes an object from bytes (or a seekable binary file). With ``checksum``
        the xxhash64 of bytes is sent and the target refuses a mismatch. Returns the
        object's metadata (:meth:`head`'s shape)."""
        headers = {}
        if isinstance(data, (bytes, bytearray, memoryview)):
            data = bytes(data)
            if checksum:
                from .hrw import xxhash64
                headers["ais-checksum-type"] = "xxhash"
                headers["ais-checksum-value"] = f"{xxhash64(data):016x}"
        if custom:
            headers["ais-custom-md"] = ",".join(f"{k}={v}" for k, v in custom.items())
        resp = self._object_request("PUT", bucket, name, headers=headers, body=data)
        return _meta(resp.headers)

    def get(self, bucket, name, archpath=None, byte_range=None, etl=None, etl_args=None):
        """The object's bytes (or a shard member's with ``archpath``; ``byte_range``
        ``(start, end_exclusive)``; ``etl``: the name of an ETL to read through)."""
        params = {}
        if archpath is not None:
            params["archpath"] = archpath
        if etl:
            params["etl_name"] = etl
            if etl_args is not None:
                params["etl_args"] = etl_args
        headers = {}
        if byte_range is not None:
            headers["Range"] = f"bytes={byte_range[0]}-{byte_range[1] - 1}"
        return self._object_request("GET", bucket, name, params=params, headers=headers).body

    def get_stream(self, bucket, name, start=0, end=None, retries=3, params=None):
        """An :class:`ObjectReader`: the object streamed, resumed after a dead connection."""
        return ObjectReader(self, bucket, name, start, end, retries, params)

    def head(self, bucket, name):
        """``{"size","version","checksum","atime_ns","custom","location","name"}``."""
        resp = self._object_request("HEAD", bucket, name)
        return _meta(resp.headers)

    def exists(self, bucket, name):
        try:
            self.head(bucket, name)
            return True
        except errors.NotFound:
            return False

    def delete(self, bucket, name):
        self._object_request("DELETE", bucket, name)

    def list_page(self, bucket, prefix="", token="", page_size=0, props=None, archive=False):
        """One page of ``GET /v1/buckets/<b>``: a :class:`ListPage`."""
        params = {}
        if prefix:
            params["prefix"] = prefix
        if token:
            params["continuation_token"] = token
        if page_size:
            params["pagesize"] = page_size
        if props:
            params["props"] = props if isinstance(props, str) else ",".join(props)
            # atime in RFC 3339 with nanoseconds (the node's default is AIStore's RFC822).
            params["time_format"] = "2006-01-02T15:04:05.999999999Z07:00"
        if archive:
            params["archive"] = "true"
        doc = self._json("GET", f"/v1/buckets/{bucket}", params)
        return ListPage(doc.get("entries") or [], doc.get("continuation_token", ""))

    def list_objects(self, bucket, prefix="", page_size=0, props=None, archive=False):
        """Every entry under ``prefix``, page after page. The generator ends normally
        only when the node said the listing is complete (an empty token); a page
        that cannot be had raises (a ``503`` after its retries: ``listing incomplete``)."""
        token = ""
        while True:
            page = self.list_page(bucket, prefix, token, page_size, props, archive)
            yield from page.entries
            if page.complete:
                return
            token = page.token

    def list_names(self, bucket, prefix=""):
        return [e["name"] for e in self.list_objects(bucket, prefix)]

    # -- shards --------------------------------------------------------------
    def list_members(self, bucket, shard):
        """A shard's members in shard order: ``[{"name","size"}]`` (names inside the shard)."""
        out, seen = [], False
        for e in self.list_objects(bucket, prefix=shard, archive=True):
            if e["name"] == shard:
                seen = True
                if e.get("flags", 0) & 4096:
                    raise errors.Corruption(422, e.get("error", "shard cannot be read"), "", "GET",
                                            f"{bucket}/{shard}")
            elif seen and e.get("flags", 0) & 128 and e["name"].startswith(shard + "/"):
                out.append({"name": e["name"][len(shard) + 1:], "size": e.get("size", 0)})
        if not seen:
            raise errors.NotFound(404, f"shard \"{bucket}/{shard}\" does not exist", "", "GET", f"{bucket}/{shard}")
        return out

    def get_member(self, bucket, shard, member):
        """One member's bytes (``archpath``)."""
        return self.get(bucket, shard, archpath=member)

    def select(self, bucket, shard, pattern, mode="regexp"):
        """The members matching ``pattern`` (``mode``: regexp, prefix, suffix, substr,
        wdskey) as ``[(name, bytes)]`` in shard order (``archregx``)."""
        from .tar import iter_members
        data = self._object_request("GET", bucket, shard, params={"archregx": pattern, "archmode": mode}).body
        return [(name, payload) for name, payload, _off in iter_members(io.BytesIO(data))]

    def get_sample(self, bucket, shard, key):
        """A WebDataset sample: ``{extension: bytes}`` of the members named ``key.*``."""
        out = {}
        for name, payload in self.select(bucket, shard, key, mode="wdskey"):
            last = name.rsplit("/", 1)[-1]
            ext = last.split(".", 1)[1] if "." in last else ""
            out[ext] = payload
        return out

    def append_member(self, bucket, shard, member, data):
        """Appends (or creates) a member of a shard; returns the shard's metadata."""
        resp = self._object_request("PUT", bucket, shard, params={"archpath": member}, body=bytes(data))
        return _meta(resp.headers)

    # -- jobs ----------------------------------------------------------------
    def start_job(self, kind, args=None):
        """Starts a job (``rebalance``, ``reprotect``, ``scrub``, ``archive``,
        ``ishard``); returns its status (``id``, ``state``, ``progress``...)."""
        body = {"kind": kind}
        if args is not None:
            body["args"] = args
        return self._json("POST", "/v1/jobs", body=body)

    def ishard(self, spec, dry_run=False):
        """Starts an ishard job from a spec dict (or answers its plan with ``dry_run``)."""
        return self._json("POST", "/v1/ishard", {"dry_run": "true"} if dry_run else None, body=spec)

    def archive(self, src_bucket, archname, to_bucket=None, objnames=None, template=None, **extra):
        """Starts an archive job: objects of ``src_bucket`` into one shard."""
        value = {"archname": archname}
        if to_bucket:
            value["to_bck"] = {"name": to_bucket}
        if objnames is not None:
            value["objnames"] = list(objnames)
        if template is not None:
            value["template"] = template
        value.update(extra)
        return self._json("POST", f"/v1/buckets/{src_bucket}", body={"action": "archive", "value": value})

    def dsort(self, spec):
        """Starts a dSort job; returns its id."""
        return self._call("POST", "/v1/sort", body=spec).body.decode().strip().strip('"')

    def job(self, job_id):
        return self._json("GET", f"/v1/jobs/{job_id}")

    def jobs(self):
        return self._json("GET", "/v1/jobs")

    def abort_job(self, job_id):
        return self._json("DELETE", f"/v1/jobs/{job_id}")

    def wait_job(self, job_id, timeout=600.0, poll=0.5, progress=None):
        """Polls the job every ``poll`` seconds until it ended; calls ``progress(status)``
        after each poll. Returns the final status; raises :class:`errors.TesseraError`
        when it is still running after ``timeout`` seconds. A failed job is returned,
        not raised: look at ``state`` and ``error``."""
        deadline = time.monotonic() + timeout
        while True:
            status = self.job(job_id)
            if progress is not None:
                progress(status)
            if status.get("state") in JOB_DONE_STATES:
                return status
            if time.monotonic() > deadline:
                raise errors.TesseraError(f"job {job_id} still {status.get('state')} after {timeout} s")
            time.sleep(poll)

    # -- ETL -----------------------------------------------------------------
    def etl_init(self, spec):
        return self._json("PUT", "/v1/etl", body=spec)

    def etl_list(self):
        return self._json("GET", "/v1/etl")

    def etl_delete(self, name):
        self._call("DELETE", f"/v1/etl/{name}")

    # -- auth ----------------------------------------------------------------
    def login(self, user, password):
        """``POST /v1/tokens``: gets a token pair and uses the access token from now on."""
        doc = self._json("POST", "/v1/tokens", body={"user": user, "password": password})
        self.set_token(doc["token"])
        self._refresh_token = doc.get("refresh_token")
        self._direct_refused = False
        return doc

    def refresh(self):
        """Trades the refresh token (once) for a new pair."""
        if not self._refresh_token:
            raise errors.TesseraError("no refresh token: call login() first")
        doc = self._json("POST", "/v1/tokens/refresh", body={"refresh_token": self._refresh_token})
        self.set_token(doc["token"])
        self._refresh_token = doc.get("refresh_token")
        return doc

    def revoke(self, token=None):
        """Revokes ``token`` (default: the client's own)."""
        self._call("DELETE", "/v1/tokens", body={"token": token or self._token})

    def whoami(self):
        """``{"name","admin","grants"}`` of the token's user."""
        return self._json("GET", "/v1/whoami")

    def create_user(self, name, password, admin=False):
        """Admins only: a new user (``POST /v1/users``)."""
        resp = self._call("POST", "/v1/users", body={"name": name, "password": password, "admin": admin},
                          ok=(200, 201))
        return json.loads(resp.body) if resp.body else None

    def grant(self, user, bucket, permissions):
        """Admins only: ``permissions`` (read, list, write, delete, admin-bucket) on
        ``bucket`` (``"*"``: every bucket)."""
        resp = self._call("POST", f"/v1/users/{user}/grants", body={"bucket": bucket, "permissions": permissions},
                          ok=(200, 201))
        return json.loads(resp.body) if resp.body else None

    def health(self):
        return self._json("GET", "/v1/health", {"detail": "true"})


def _meta(h):
    custom = {}
    if h.get("ais-custom-md"):
        for kv in h["ais-custom-md"].split(","):
            k, _, v = kv.lstrip().partition("=")
            custom[k] = v
    size = h.get("ais-size")
    return {
        "name": h.get("ais-name"),
        "size": int(size) if size is not None and size.isdigit() else None,
        "version": h.get("ais-version"),
        "checksum": h.get("ais-checksum-value"),
        "atime_ns": int(h["ais-atime"]) if h.get("ais-atime", "").isdigit() else None,
        "custom": custom,
        "location": h.get("ais-location"),
    }


def is_available(node):
    """False for a target the map marks away or in maintenance."""
    return not (node.get("flags", 0) & (SNODE_AWAY | SNODE_MAINTENANCE))
