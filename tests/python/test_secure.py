"""tessera.Client against a cluster with TLS and auth on: the CA file, a
refused unknown certificate, ``insecure``; no token is 401 with the node's
message; login, whoami, refresh, revoke; an admin reads straight from the
targets, a user with a read grant is refused there and goes through the
proxy's signed redirect instead."""

import unittest

import local_cluster
import tessera
from tessera import errors

ADMIN_PW = "admin-password-1"
USER_PW = "reader-password-1"


class SecureClientTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cluster = local_cluster.LocalCluster(2, extra_args=["--auth-enabled", "true"], tls=True)
        cls.cluster.add_user("admin", ADMIN_PW, admin=True)
        cls.cluster.start()

    @classmethod
    def tearDownClass(cls):
        cls.cluster.close()

    def client(self, **kw):
        kw.setdefault("ca_file", self.cluster.ca_file)
        return tessera.Client(self.cluster.proxy_url, retries=1, max_retry_wait=0.1, **kw)

    def test_tls_and_tokens(self):
        self.assertTrue(self.cluster.proxy_url.startswith("https://"))
        with tessera.Client(self.cluster.proxy_url, retries=0) as unknown_ca:
            with self.assertRaises(errors.ConnectionLost) as e:
                unknown_ca.health()
        self.assertIn("CERTIFICATE_VERIFY_FAILED", str(e.exception))
        with tessera.Client(self.cluster.proxy_url, insecure=True) as insecure:
            self.assertEqual(insecure.health()["role"], "proxy")
        c = self.client()
        with self.assertRaises(errors.Unauthorized) as e:
            c.list_buckets()
        self.assertEqual(e.exception.status, 401)
        self.assertTrue(e.exception.message)
        with self.assertRaises(errors.Unauthorized):
            c.login("admin", "wrong-password")
        doc = c.login("admin", ADMIN_PW)
        self.assertTrue(doc["token"] and doc["refresh_token"])
        self.assertEqual(c.whoami()["name"], "admin")
        self.assertTrue(c.cluster_map()["tmap"])
        self.assertTrue(all(n["public_net"]["direct_url"].startswith("https://")
                            for n in c.cluster_map()["tmap"].values()))
        c.create_bucket("sec")
        for i in range(10):
            c.put("sec", f"o{i}", f"secret {i}".encode())
        before = c.stats["redirects"]
        self.assertEqual(c.get("sec", "o3"), b"secret 3")
        self.assertEqual(c.stats["redirects"], before)  # an admin's token is taken by the target directly
        # A reader: granted read on the bucket, refused by the targets directly, served via the proxy.
        self.assertEqual(c.create_user("reader", USER_PW)["name"], "reader")
        c.grant("reader", "sec", ["read", "list"])
        r = self.client()
        r.login("reader", USER_PW)
        self.assertEqual([r.get("sec", f"o{i}") for i in range(10)], [f"secret {i}".encode() for i in range(10)])
        self.assertGreater(r.stats["redirects"], 0)
        with self.assertRaises(errors.Forbidden):
            r.put("sec", "nope", b"x")
        c.grant("reader", "sec", ["write"])
        r.put("sec", "big", bytes(1 << 20))  # through the proxy, 1 MiB
        self.assertEqual(c.get("sec", "big"), bytes(1 << 20))
        self.assertEqual(len(r.list_names("sec")), 11)
        # Refresh trades the pair; revoke makes the token useless everywhere.
        old = r._token
        r.refresh()
        self.assertNotEqual(r._token, old)
        self.assertEqual(r.whoami()["name"], "reader")
        r.revoke()
        with self.assertRaises(errors.Unauthorized):
            r.whoami()
        r.close()
        c.close()


if __name__ == "__main__":
    unittest.main()
