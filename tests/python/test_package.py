"""The package itself: ``pip install console/python`` offline (no index, the
in-tree build backend) into a fresh directory and imported from there; the
core imports without torch; the pure-Python xxhash64 (used when
python3-xxhash is missing) gives the C library's numbers, and placement with
it matches placement with the module."""

import os
import random
import subprocess
import sys
import tempfile
import unittest

import local_cluster

PKG = os.path.join(local_cluster.REPO, "console", "python")


class PackageTest(unittest.TestCase):
    def test_pip_install_offline_and_import(self):
        with tempfile.TemporaryDirectory() as d:
            r = subprocess.run([sys.executable, "-m", "pip", "install", "--no-index", "--no-cache-dir",
                                "--disable-pip-version-check", "--target", os.path.join(d, "site"), PKG],
                               capture_output=True, text=True, timeout=120)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            code = ("import sys, tessera, tessera.client, tessera.shards, tessera.wds, tessera.writer;"
                    "assert 'torch' not in sys.modules, 'the core imported torch';"
                    "import tessera.torch;"
                    "print(tessera.__file__, tessera.__version__)")
            out = subprocess.run([sys.executable, "-B", "-c", code], cwd=d, capture_output=True, text=True,
                                 env=dict(os.environ, PYTHONPATH=os.path.join(d, "site")), timeout=120)
            self.assertEqual(out.returncode, 0, out.stderr)
            self.assertTrue(out.stdout.startswith(os.path.join(d, "site", "tessera", "__init__.py")), out.stdout)
            self.assertIn("0.1.0", out.stdout)

    def test_pure_xxhash_matches_the_c_library(self):
        import xxhash
        from tessera import hrw
        rng = random.Random(5)
        for n in list(range(70)) + [255, 1000, 4096]:
            data = bytes(rng.randrange(256) for _ in range(n))
            for seed in (0, 1, rng.randrange(1 << 64)):
                self.assertEqual(hrw.xxhash64_pure(data, seed), xxhash.xxh64_intdigest(data, seed), (n, seed))

    def test_placement_without_the_module(self):
        from tessera import hrw
        tmap = {f"t{i}x": {"flags": 0} for i in range(5)}
        tmap["tgone"] = {"flags": hrw.SNODE_DECOMMISSIONING}
        fast = hrw.Placement(tmap)
        saved = hrw._xxhash
        hrw._xxhash = None
        try:
            slow = hrw.Placement(tmap)
            names = [f"obj/{i}" for i in range(500)]
            self.assertEqual([slow.owner("b", n) for n in names], [fast.owner("b", n) for n in names])
        finally:
            hrw._xxhash = saved
        self.assertNotIn("tgone", {fast.owner("b", f"o{i}") for i in range(500)})
        self.assertEqual(fast.order("b", "o1")[0], fast.owner("b", "o1"))


if __name__ == "__main__":
    unittest.main()
