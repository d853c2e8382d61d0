"""AIStore's msgpack listing as AIStore's Python SDK reads it: a real cluster
with 10,000 objects is listed with the request the SDK sends
(python/aistore/sdk/bucket.py list_objects: Accept: application/msgpack, the
ActionMsg with flags as a string) and decoded with Debian's python3-msgpack;
the same listing as JSON must have exactly the same content. The keys must be
AIStore's (cmn/objlist_gen.go): LsoRes by Go field name, LsoEnt by its msgp
short keys."""

import json
import threading

import msgpack

import local_cluster
import tessera

import unittest

N = 10_000
LSORES_KEYS = {"UUID", "ContinuationToken", "Entries", "Flags"}
LSOENT_KEYS = {"n", "cs", "a", "v", "t", "m", "s", "c", "f"}
ENTRY_IS_CACHED = 1 << 6


def sdk_body(token, props):
    # python/aistore/sdk/types.py ListObjectsMsg.as_dict inside ActionMsg(action="list").model_dump()
    return {"action": "list", "name": "", "value": {
        "prefix": "", "pagesize": 0, "uuid": "", "props": props, "continuation_token": token,
        "flags": "0", "target": ""}}


class AistoreMsgpackTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cluster = local_cluster.LocalCluster(3).start()
        cls.c = tessera.Client(cls.cluster.proxy_url, retries=2, max_retry_wait=1.0)
        cls.c.create_bucket("msgp")
        names = [f"shard-{i:05d}/sample-{i * 7919 % N:05d}.bin" for i in range(N)]
        errors = []

        def upload(part):
            c = tessera.Client(cls.cluster.proxy_url, retries=2, max_retry_wait=1.0)
            try:
                for name in part:
                    c.put("msgp", name, name.encode() * (1 + len(name) % 3))
            except Exception as e:  # reported below, the test fails on it
                errors.append(e)
            finally:
                c.close()

        threads = [threading.Thread(target=upload, args=(names[k::8],)) for k in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            raise errors[0]
        cls.names = sorted(names)

    @classmethod
    def tearDownClass(cls):
        cls.c.close()
        cls.cluster.close()

    def pages(self, accept, props):
        """Every page of the listing, in order, as the node sent them (decoded)."""
        out, token = [], ""
        while True:
            headers = {"Content-Type": "application/json"}
            if accept:
                headers["Accept"] = accept
            resp = self.c._call("GET", "/v1/buckets/msgp", params={"provider": "ais"},
                                body=json.dumps(sdk_body(token, props)).encode(), headers=headers)
            if accept:
                self.assertEqual(resp.headers["content-type"], "application/msgpack")
                page = msgpack.unpackb(resp.body, raw=False, strict_map_key=True)
                self.assertEqual(set(page), LSORES_KEYS)
                token = page["ContinuationToken"]
            else:
                self.assertEqual(resp.headers["content-type"], "application/json")
                page = json.loads(resp.body)
                self.assertEqual(set(page), {"uuid", "continuation_token", "entries", "flags"})
                token = page["continuation_token"]
            out.append(page)
            if token == "":
                return out

    def test_msgpack_equals_json(self):
        props = "name,size,checksum,atime,version,custom,location,copies"
        mp = [e for p in self.pages("application/msgpack", props) for e in (p["Entries"] or [])]
        js = [e for p in self.pages(None, props) for e in (p["entries"] or [])]
        self.assertEqual(len(mp), N)
        self.assertEqual([e["n"] for e in mp], self.names)
        self.assertEqual(len(js), N)
        for m, j in zip(mp, js):
            self.assertLessEqual(set(m), LSOENT_KEYS)
            self.assertIn("n", m)
            self.assertIsInstance(m["s"], int)
            self.assertIsInstance(j["size"], str)  # `size,string` in JSON
            self.assertEqual(m["n"], j["name"])
            self.assertEqual(m["s"], int(j["size"]))
            self.assertEqual(m["cs"], j["checksum"])
            self.assertEqual(m["v"], j["version"])
            self.assertEqual(m["t"], j["location"])
            self.assertEqual(m["c"], j["copies"])
            self.assertEqual(m["f"], j["flags"])
            self.assertTrue(m["f"] & ENTRY_IS_CACHED)
            self.assertTrue(m["t"].startswith("t[") and "]:" in m["t"])
            self.assertEqual(m["s"], len(m["n"]) * (1 + len(m["n"]) % 3))
            # atime: AIStore's default format, RFC822 in UTC (not compared:
            # the JSON listing read the files later).
            self.assertRegex(m["a"], r"^\d\d [A-Z][a-z][a-z] \d\d \d\d:\d\d UTC$")

    def test_sdk_defaults_are_name_and_size(self):
        # props "" is AIStore's name,size (api/apc/lsmsg.go JoinProps).
        mp = [e for p in self.pages("application/msgpack", "") for e in (p["Entries"] or [])]
        self.assertEqual(len(mp), N)
        self.assertEqual({k for e in mp for k in e}, {"n", "s", "f"})


if __name__ == "__main__":
    unittest.main()
