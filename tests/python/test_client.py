"""tessera.Client against a real cluster (one proxy, three targets): every call
and its errors, honest paging, shard members, jobs, HRW agreement with the C++
placement on 10,000 names (the proxy's 307 Location), direct reads that do not
go through the proxy, the fallback on a stale map, keep-alive reuse, 503 +
Retry-After, and a connection cut in the middle of a shard."""

import io
import tarfile
import threading
import urllib.parse

import local_cluster
import tessera
from tessera import errors, tar
from tessera.hrw import Placement

import unittest


def make_tar(samples):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as t:
        for name, data in samples:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    return buf.getvalue()


class ClientTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cluster = local_cluster.LocalCluster(3).start()
        cls.c = tessera.Client(cls.cluster.proxy_url, retries=2, max_retry_wait=1.0)

    @classmethod
    def tearDownClass(cls):
        cls.c.close()
        cls.cluster.close()

    def test_buckets(self):
        c = self.c
        c.create_bucket("b-buckets")
        self.assertIn("b-buckets", c.list_buckets())
        with self.assertRaises(errors.Conflict) as e:
            c.create_bucket("b-buckets")
        self.assertEqual(e.exception.status, 409)
        self.assertEqual(e.exception.message, 'bucket "ais://b-buckets" already exists')
        props = c.bucket_props("b-buckets")
        self.assertEqual(props["checksum"]["type"], "xxhash")
        props = c.set_bucket_props("b-buckets", {"checksum": {"validate_warm_get": True}})
        self.assertTrue(props["checksum"]["validate_warm_get"])
        with self.assertRaises(errors.BadRequest) as e:
            c.set_bucket_props("b-buckets", {"provider": "aws"})
        self.assertIn("provider", e.exception.message)
        with self.assertRaises(errors.BadRequest):
            c.create_bucket("Bad_Name")
        c.destroy_bucket("b-buckets")
        self.assertNotIn("b-buckets", c.list_buckets())
        with self.assertRaises(errors.NotFound) as e:
            c.destroy_bucket("b-buckets")
        self.assertEqual(e.exception.message, 'bucket "ais://b-buckets" does not exist')
        with self.assertRaises(errors.NotFound):
            c.bucket_props("b-buckets")

    def test_objects(self):
        c = self.c
        c.create_bucket("b-objects")
        meta = c.put("b-objects", "dir/a b?#%+.txt", b"hello tessera", custom={"label": "cat", "split": "a=b"})
        self.assertEqual(meta["size"], 13)
        self.assertEqual(meta["version"], "1")
        self.assertEqual(c.get("b-objects", "dir/a b?#%+.txt"), b"hello tessera")
        self.assertEqual(c.get("b-objects", "dir/a b?#%+.txt", byte_range=(6, 13)), b"tessera")
        head = c.head("b-objects", "dir/a b?#%+.txt")
        self.assertEqual(head["name"], "b-objects/dir/a b?#%+.txt")
        # The node sends one ais-custom-md line per entry (AIStore's form).
        self.assertEqual(head["custom"], {"label": "cat", "split": "a=b"})
        self.assertEqual(head["checksum"], f"{tessera.hrw.xxhash64(b'hello tessera'):016x}")
        self.assertEqual(head["location"], c.owner("b-objects", "dir/a b?#%+.txt")["daemon_id"])
        with io.BytesIO(b"from a file") as f:
            self.assertEqual(c.put("b-objects", "file", f)["version"], "1")
        self.assertEqual(c.get_stream("b-objects", "file").read(), b"from a file")
        self.assertTrue(c.exists("b-objects", "file"))
        c.delete("b-objects", "file")
        self.assertFalse(c.exists("b-objects", "file"))
        with self.assertRaises(errors.NotFound) as e:
            c.get("b-objects", "file")
        self.assertEqual(e.exception.message, 'object "b-objects/file" does not exist')
        with self.assertRaises(errors.NotFound):
            c.delete("b-objects", "file")
        with self.assertRaises(errors.NotFound):
            c.put("no-such-bucket", "x", b"1")
        with self.assertRaises(errors.BadRequest) as e:
            c.get("b-objects", "a/../b")
        self.assertIn("'.' and '..'", e.exception.message)
        with self.assertRaises(errors.RangeNotSatisfiable):
            c.get("b-objects", "dir/a b?#%+.txt", byte_range=(100, 200))

    def test_listing_pages_honestly(self):
        c = self.c
        c.create_bucket("b-list")
        names = [f"obj-{i:04d}" for i in range(250)]
        for n in names:
            c.put("b-list", n, n.encode())
        page = c.list_page("b-list", page_size=100)
        self.assertFalse(page.complete)
        self.assertTrue(page.token)
        got, token, pages = [], "", 0
        while True:
            page = c.list_page("b-list", token=token, page_size=100, props="name,size,version")
            got.extend(e["name"] for e in page.entries)
            pages += 1
            if page.complete:
                break
            token = page.token
        self.assertEqual(got, names)
        self.assertGreaterEqual(pages, 3)
        self.assertEqual(c.list_names("b-list", prefix="obj-01"), names[100:200])
        self.assertEqual([e["size"] for e in c.list_objects("b-list", page_size=7)], [8] * 250)
        with self.assertRaises(errors.BadRequest) as e:
            c.list_page("b-list", page_size=10001)
        self.assertEqual(e.exception.message, "pagesize must not exceed 10000")

    def test_shard_members_and_jobs(self):
        c = self.c
        c.create_bucket("b-shards")
        shard = make_tar([("s/0001.cls", b"3"), ("s/0001.png", b"P" * 700), ("s/0002.cls", b"5")])
        c.put("b-shards", "one.tar", shard)
        self.assertEqual(c.list_members("b-shards", "one.tar"),
                         [{"name": "s/0001.cls", "size": 1}, {"name": "s/0001.png", "size": 700},
                          {"name": "s/0002.cls", "size": 1}])
        self.assertEqual(c.get_member("b-shards", "one.tar", "s/0002.cls"), b"5")
        self.assertEqual(c.select("b-shards", "one.tar", r"\.cls$"), [("s/0001.cls", b"3"), ("s/0002.cls", b"5")])
        self.assertEqual(c.get_sample("b-shards", "one.tar", "s/0001"), {"cls": b"3", "png": b"P" * 700})
        with self.assertRaises(errors.NotFound) as e:
            c.get_member("b-shards", "one.tar", "s/0003.cls")
        self.assertIn("has no member", e.exception.message)
        self.assertEqual(c.append_member("b-shards", "one.tar", "s/0003.cls", b"7")["version"], "2")
        self.assertEqual(c.get_member("b-shards", "one.tar", "s/0003.cls"), b"7")
        # Jobs: an archive job from loose objects, waited on with progress.
        for i in range(20):
            c.put("b-shards", f"img-{i:02d}.bin", bytes([i]) * 100)
        status = c.archive("b-shards", "packed.tar", template="img-{00..19}.bin")
        seen = []
        final = c.wait_job(status["id"], timeout=60, poll=0.1, progress=seen.append)
        self.assertEqual(final["state"], "finished")
        self.assertTrue(seen)
        self.assertEqual(len(c.list_members("b-shards", "packed.tar")), 20)
        # Aborting an ended job changes nothing; an unknown job is 404.
        self.assertEqual(c.abort_job(status["id"])["state"], "finished")
        with self.assertRaises(errors.NotFound):
            c.job("archive-nosuch")
        with self.assertRaises(errors.BadRequest):
            c.start_job("no-such-kind")
        # The other tests make targets join, and each join starts an automatic
        # rebalance: one may be running (409); wait for it, then start ours.
        job = None
        for _ in range(5):
            try:
                job = c.start_job("rebalance")
                break
            except errors.Conflict:
                for j in c.jobs():
                    if j["kind"] == "rebalance" and j["state"] == "running":
                        c.wait_job(j["id"], timeout=60, poll=0.1)
        self.assertIsNotNone(job)
        self.assertIn(c.wait_job(job["id"], timeout=60, poll=0.1)["state"], ("finished", "aborted"))
        self.assertIn(job["id"], [j["id"] for j in c.jobs()])
        # ishard: dry run, then a run that is aborted or finishes.
        plan = c.ishard({"src_bck": "b-shards", "dst_bck": "b-shards", "prefix": "img-", "sample_count": 5},
                        dry_run=True)
        self.assertEqual(len(plan["plan"]["shards"]), 4)
        job = c.ishard({"src_bck": "b-shards", "dst_bck": "b-shards", "prefix": "img-", "sample_count": 5,
                        "shard_template": "i-{00..99}"})
        aborted = c.abort_job(job["id"])
        self.assertTrue(aborted["abort_requested"] or aborted["state"] == "finished")
        self.assertIn(c.wait_job(job["id"], timeout=60, poll=0.1)["state"], ("aborted", "finished"))

    def test_cluster_map_and_hrw_agree_with_cpp_on_10000_names(self):
        c = self.c
        smap = c.cluster_map(refresh=True)
        self.assertEqual(len(smap["tmap"]), 3)
        c.create_bucket("b-hrw")
        by_port = {urllib.parse.urlsplit(n["public_net"]["direct_url"]).port: tid for tid, n in smap["tmap"].items()}
        placement = Placement(smap["tmap"])
        t = c._transport
        counts = {tid: 0 for tid in smap["tmap"]}
        for i in range(10000):
            name = f"n{i}/é-{i * 7919 % 10007}.bin"
            url = f"{c.endpoint}/v1/objects/b-hrw/{urllib.parse.quote(name)}"
            r = t.request("HEAD", url, follow=False, ok=(307,))
            owner = by_port[urllib.parse.urlsplit(r.headers["location"]).port]
            self.assertEqual(placement.owner("b-hrw", name), owner, name)
            counts[owner] += 1
        self.assertTrue(all(n > 2500 for n in counts.values()), counts)

    def test_direct_reads_keep_alive_and_stale_map(self):
        c = tessera.Client(self.cluster.proxy_url, map_ttl=3600)
        c.create_bucket("b-direct")
        names = [f"d-{i:03d}" for i in range(120)]
        for n in names:
            c.put("b-direct", n, n.encode() * 10)
        before = c.stats
        for n in names:
            self.assertEqual(c.get("b-direct", n), n.encode() * 10)
        after = c.stats
        self.assertEqual(after["redirects"], before["redirects"])  # straight to the owner, every time
        self.assertLessEqual(after["connects"] - before["connects"], 3)  # one per target at most
        self.assertGreaterEqual(after["reuses"] - before["reuses"], 117)
        # A fourth target joins: the cached map is stale, the old owners redirect.
        old_version = c.cluster_map()["version"]
        self.cluster.target_names.append("t3")
        self.cluster.start_target("t3")
        self.cluster.wait_targets(4)
        before = c.stats
        for n in names:
            self.assertEqual(c.get("b-direct", n), n.encode() * 10)
        self.assertGreater(c.stats["redirects"], before["redirects"])
        self.assertGreater(c.cluster_map()["version"], old_version)  # refreshed after the redirect
        placement = Placement(c.cluster_map()["tmap"])
        moved = [n for n in names if placement.owner("b-direct", n) == [
            t for t, v in c.cluster_map()["tmap"].items() if v["public_net"]["direct_url"].endswith(
                str(self.cluster.ports["t3"]))][0]]
        self.assertTrue(moved)
        # The proxy's route works the same.
        p = tessera.Client(self.cluster.proxy_url, direct=False)
        self.assertEqual(p.get("b-direct", names[0]), names[0].encode() * 10)
        self.assertGreater(p.stats["redirects"], 0)
        big = bytes(range(256)) * 16384  # 4 MiB: the proxy would close the connection on it unread
        p.put("b-direct", "via-proxy", big)
        self.assertEqual(c.get("b-direct", "via-proxy"), big)
        with self.assertRaises(errors.NotFound):
            p.put("no-such-bucket", "x", big)
        c.close()
        p.close()

    def test_unreachable_owner_falls_back_to_the_proxy(self):
        c = tessera.Client(self.cluster.proxy_url, map_ttl=3600, retries=0)
        c.create_bucket("b-fallback")
        c.put("b-fallback", "obj", b"still here")
        smap = c.cluster_map()
        owner = c.owner("b-fallback", "obj")["daemon_id"]
        # The cached map names an address where nothing listens (a target that moved).
        dead = f"http://127.0.0.1:{local_cluster.free_port()}"
        smap["tmap"][owner] = dict(smap["tmap"][owner], public_net=dict(smap["tmap"][owner]["public_net"],
                                                                         direct_url=dead))
        self.assertTrue(c.object_url("b-fallback", "obj").startswith(dead))
        self.assertEqual(c.get("b-fallback", "obj"), b"still here")
        self.assertEqual(c.stats["redirects"], 1)  # the proxy's 307 to the real owner
        c.close()

    def test_503_retry_after(self):
        c = tessera.Client(self.cluster.proxy_url, retries=1, max_retry_wait=0.2)
        smap = c.cluster_map(refresh=True)
        node = next(iter(smap["tmap"].values()))
        url = node["public_net"]["direct_url"] + "/v1/objects/b-none/x?smap_version=99999"
        with self.assertRaises(errors.Unavailable) as e:
            c._transport.request("GET", url)
        self.assertEqual(e.exception.status, 503)
        self.assertIn("newer than this target", e.exception.message)
        self.assertEqual(e.exception.retry_after, 1.0)
        self.assertEqual(c.stats["retries_503"], 1)
        # The owner in maintenance: the proxy answers 503 until it returns; the client
        # (through the proxy here) retries and gets it.
        c2 = tessera.Client(self.cluster.proxy_url, retries=50, max_retry_wait=0.1, direct=False)
        c2.create_bucket("b-maint")
        c2.put("b-maint", "obj", b"payload")
        owner = c2.owner("b-maint", "obj")["daemon_id"]
        self.cluster_action("start-maintenance", owner)
        # A listing while a target is in maintenance is refused, never partial.
        with self.assertRaises(errors.Unavailable) as e:
            list(c.list_objects("b-maint"))
        self.assertIn("listing incomplete", e.exception.message)
        stopper_done = threading.Event()

        def stop_when_retried():
            try:
                local_cluster.wait_for(lambda: c2.stats["retries_503"] >= 1, 30, "a 503 retried")
                stopper_done.set()
            finally:
                self.cluster_action("stop-maintenance", owner)

        th = threading.Thread(target=stop_when_retried)
        th.start()
        try:
            self.assertEqual(c2.get("b-maint", "obj"), b"payload")
        finally:
            th.join(30)
        self.assertTrue(stopper_done.is_set())
        self.assertGreaterEqual(c2.stats["retries_503"], 1)
        c.close()
        c2.close()

    def cluster_action(self, action, sid):
        self.c._call("PUT", "/v1/cluster", body={"action": action, "value": {"sid": sid}})

    def test_connection_cut_mid_shard(self):
        c = self.c
        c.create_bucket("b-cut")
        samples = [(f"k/{i:04d}.bin", bytes([i % 251]) * 3000) for i in range(300)]
        shard = make_tar(samples)
        c.put("b-cut", "big.tar", shard)
        reader = c.get_stream("b-cut", "big.tar", retries=2)
        got = []
        for name, payload, _off in tar.iter_members(reader):
            got.append((name, payload))
            if len(got) == 40:
                reader.cut_connection()
        self.assertEqual(got, samples)
        self.assertEqual(reader.reconnects, 1)
        # Without retries it fails clearly.
        reader = c.get_stream("b-cut", "big.tar", retries=0)
        members = tar.iter_members(reader)
        for _ in range(40):
            next(members)
        reader.cut_connection()
        with self.assertRaises(errors.ConnectionLost) as e:
            list(members)
        self.assertIn("b-cut/big.tar: connection lost at byte", str(e.exception))
        # The shard rewritten (same size, other bytes) between the cut and the reconnection.
        reader = c.get_stream("b-cut", "big.tar", retries=2)
        members = tar.iter_members(reader)
        next(members)
        c.put("b-cut", "big.tar", make_tar([(n, d[::-1] + b"") for n, d in reversed(samples)]))
        reader.cut_connection()
        with self.assertRaises(errors.ShardChanged) as e:
            list(members)
        self.assertIn("changed while being read", str(e.exception))
        # The shard rewritten shorter between the cut and the reconnection: refused, not mixed.
        reader = c.get_stream("b-cut", "big.tar", retries=2)
        members = tar.iter_members(reader)
        next(members)
        c.put("b-cut", "big.tar", make_tar(samples[:10]))
        reader.cut_connection()
        with self.assertRaises(errors.ShardChanged):
            list(members)

    def test_pooled_connection_closed_under_us_is_replaced(self):
        import socket
        c = tessera.Client(self.cluster.proxy_url, retries=0)
        self.assertTrue(c.health())
        idle = [conn for conns in c._transport._idle.values() for conn in conns]
        self.assertEqual(len(idle), 1)
        idle[0].sock.shutdown(socket.SHUT_RDWR)  # as a server closing an idle keep-alive connection
        self.assertTrue(c.health())  # no retries allowed: the pool's one fresh attempt did it
        self.assertEqual(c.stats["connects"], 2)
        self.assertEqual(c.stats["retries_conn"], 0)
        c.close()

    def test_foreign_and_typed_errors(self):
        with self.assertRaises(errors.NotFound) as e:
            self.c._call("GET", "/v1/nothing")
        self.assertEqual(e.exception.message, "no such endpoint: /v1/nothing")
        with self.assertRaises(errors.MethodNotAllowed):
            self.c._call("PUT", "/v1/buckets/zzz")
        dead = tessera.Client(f"127.0.0.1:{local_cluster.free_port()}", retries=1, max_retry_wait=0.01)
        with self.assertRaises(errors.ConnectionLost):
            dead.list_buckets()


if __name__ == "__main__":
    unittest.main()
