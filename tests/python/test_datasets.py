"""The rest of tessera.torch and friends against a real cluster: ObjectDataset
(single and batched reads through a DataLoader, several buckets as one source,
a train/validation split by prefix, reads through an inline ETL on the
targets), DynamicBatchSampler, packing a map-style
dataset into shards with worker processes (then read back with ShardDataset,
and shuffled by a dSort job),
and tessera.wds URLs straight on the owning targets."""

import unittest
import urllib.request

import local_cluster
import tessera
import tessera.wds
from tessera.hrw import Placement
from tessera.torch import DynamicBatchSampler, ObjectDataset, ShardDataset
from tessera.writer import write_shards

import torch
from torch.utils.data import BatchSampler, DataLoader, SequentialSampler


class DatasetsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cluster = local_cluster.LocalCluster(2).start()
        cls.c = tessera.Client(cls.cluster.proxy_url)
        cls.c.create_bucket("loose")
        cls.c.create_bucket("loose2")
        for i in range(60):
            split = "train" if i < 45 else "val"
            cls.c.put("loose", f"{split}/{i:03d}.bin", bytes([i]) * (100 + i))
        for i in range(5):
            cls.c.put("loose2", f"x/{i}.bin", b"second" * (i + 1))

    @classmethod
    def tearDownClass(cls):
        cls.c.close()
        cls.cluster.close()

    def test_object_dataset(self):
        train = ObjectDataset(self.c, "loose", prefix="train/")
        val = ObjectDataset(self.c, "loose", prefix="val/")
        self.assertEqual((len(train), len(val)), (45, 15))
        self.assertEqual(train[3], ("train/003.bin", bytes([3]) * 103))
        # Batched: the sampler hands whole batches of indices, fetched in parallel.
        loader = DataLoader(train, sampler=BatchSampler(SequentialSampler(train), 8, False), batch_size=None,
                            num_workers=2, collate_fn=lambda x: x)
        got = [item for batch in loader for item in batch]
        self.assertEqual([n for n, _ in got], [f"train/{i:03d}.bin" for i in range(45)])
        self.assertTrue(all(d == bytes([i]) * (100 + i) for i, (_, d) in enumerate(got)))
        both = ObjectDataset(self.c, sources=[("loose", "val/"), ("loose2", "x/")])
        self.assertEqual(len(both), 20)
        self.assertEqual(both[15], ("loose2/x/0.bin", b"second"))
        self.assertEqual(ObjectDataset(self.c, "loose", names=["val/050.bin"])[0][1], bytes([50]) * 150)

    def test_object_dataset_through_inline_etl(self):
        import hashlib
        self.c.etl_init({"name": "md5", "command": ["md5"]})
        self.assertIn("md5", [e["name"] for e in self.c.etl_list()])
        ds = ObjectDataset(self.c, "loose", prefix="val/", etl="md5")
        name, digest = ds[0]
        self.assertEqual(name, "val/045.bin")
        self.assertEqual(digest.decode(), hashlib.md5(bytes([45]) * 145).hexdigest())
        self.assertEqual(self.c.get("loose", "val/046.bin", etl="md5").decode(),
                         hashlib.md5(bytes([46]) * 146).hexdigest())
        with self.assertRaises(tessera.NotFound):
            self.c.get("loose", "val/046.bin", etl="no-such-etl")
        self.c.etl_delete("md5")

    def test_dynamic_batch_sampler(self):
        sizes = [100, 300, 250, 900, 50, 1500, 200, 200]
        batches = list(DynamicBatchSampler(sizes, 1000))
        self.assertEqual(batches, [[0, 1, 2], [3, 4], [5], [6, 7]])
        self.assertTrue(all(sum(sizes[i] for i in b) <= 1000 or len(b) == 1 for b in batches))
        self.assertEqual(list(DynamicBatchSampler(sizes, 1000, drop_last=True, saturation_factor=0.8))[-1], [5])
        shuffled = list(DynamicBatchSampler(sizes, 1000, shuffle=True, seed=3))
        self.assertEqual(sorted(i for b in shuffled for i in b), list(range(8)))
        self.assertEqual(shuffled, list(DynamicBatchSampler(sizes, 1000, shuffle=True, seed=3)))
        ds = ObjectDataset(self.c, "loose", prefix="train/")
        sampler = DynamicBatchSampler(ds.sizes(), 1000)
        loader = DataLoader(ds, sampler=sampler, batch_size=None, collate_fn=lambda x: x)
        for batch in loader:
            self.assertTrue(sum(len(d) for _, d in batch) <= 1000)

    def test_write_shards_then_read_them(self):
        class Squares(torch.utils.data.Dataset):
            def __len__(self):
                return 50

            def __getitem__(self, i):
                img = torch.full((1, 8, 8), (i * 5) % 256, dtype=torch.uint8)
                return img, i % 10

        self.c.create_bucket("packed")
        written = write_shards(self.c, Squares(), "packed", workers=3, max_shard_bytes=20 * 1024)
        self.assertEqual(sum(s for _, s, _ in written), 50)
        self.assertTrue(all(b <= 20 * 1024 + 1024 for _, _, b in written))
        self.assertEqual(sorted(n for n, _, _ in written), self.c.list_names("packed"))
        ds = ShardDataset(self.c, bucket="packed", prefix="shard-", shuffle=False, decode=True, streams=1)
        samples = list(iter(ds))
        self.assertEqual([s["__key__"] for s in samples], [f"{i:09d}" for i in range(50)])
        self.assertEqual([s["cls"] for s in samples], [i % 10 for i in range(50)])
        self.assertTrue(torch.equal(samples[7]["png"], torch.full((1, 8, 8), 35, dtype=torch.uint8)))
        # dSort shuffles them into new shards; the job is waited on like any other.
        self.c.create_bucket("packed-shuffled")
        job_id = self.c.dsort({"input_bck": "packed", "input_format": {"objnames": [n[:-4] for n, _, _ in written]},
                               "output_bck": "packed-shuffled", "output_shard_size": "20 records",
                               "algorithm": {"kind": "shuffle", "seed": "7"}})
        self.assertTrue(job_id.startswith("dsort"), job_id)
        self.assertEqual(self.c.wait_job(job_id, timeout=120, poll=0.2)["state"], "finished")
        shuffled = ShardDataset(self.c, bucket="packed-shuffled", shuffle=False, streams=1)
        keys = [s["__key__"] for s in shuffled]
        self.assertEqual(sorted(keys), [f"{i:09d}" for i in range(50)])
        self.assertNotEqual(keys, sorted(keys))
        self.assertEqual(len(shuffled.shards), 3)
        # A shard rewritten after the index was made: refused, naming it.
        stale = ShardDataset(self.c, bucket="packed", prefix="shard-", shuffle=False, streams=1)
        first = written[0][0]
        from tessera.tar import ShardWriter
        w = ShardWriter()
        for i in range(written[0][1]):
            w.add(f"other-{i:05d}", {"cls": b"1"})
        self.c.put("packed", first, w.finish())
        with self.assertRaises(tessera.ShardChanged) as e:
            list(stale)
        self.assertIn(f"packed/{first}", str(e.exception))

    def test_long_member_names_and_ranks_from_the_environment(self):
        import os
        from tessera.tar import ShardWriter
        self.c.create_bucket("longnames")
        keys = [f"{'d' * 60}/{'e' * 50}-{i:04d}" for i in range(30)]  # over 100 bytes: pax headers, no offsets
        for j in range(2):
            w = ShardWriter()
            for k in keys[j * 15:(j + 1) * 15]:
                w.add(k, {"txt": k.encode()})
            self.c.put("longnames", f"ln-{j}.tar", w.finish())
        ds = ShardDataset(self.c, bucket="longnames", shuffle=False, streams=4)
        self.assertTrue(all(info.offsets is None for info in ds.shards))
        # 30 samples in 4 streams of 8, 8, 7, 7 (streams 1 and 2 start mid-shard), round-robin.
        spans = [keys[0:8], keys[8:16], keys[16:23], keys[23:30]]
        expected = [span[i] for i in range(8) for span in spans if i < len(span)]
        merged = [s["__key__"] for s in ds]
        self.assertEqual(merged, expected)
        self.assertTrue(all(s["txt"] == s["__key__"].encode() for s in ds))
        # Rank and world size from RANK/WORLD_SIZE: the same as given explicitly.
        os.environ["RANK"], os.environ["WORLD_SIZE"] = "1", "2"
        try:
            from_env = [s["__key__"] for s in ShardDataset(self.c, bucket="longnames", shuffle=False, streams=4)]
        finally:
            del os.environ["RANK"], os.environ["WORLD_SIZE"]
        explicit = [s["__key__"] for s in ShardDataset(self.c, bucket="longnames", shuffle=False, streams=4, rank=1,
                                                       world_size=2)]
        self.assertEqual(from_env, explicit)
        self.assertTrue(explicit)
        self.assertNotEqual(explicit, merged)

    def test_wds_urls_go_to_the_owners(self):
        self.c.create_bucket("wds")
        for i in range(4):
            self.c.put("wds", f"s-{i}.tar", f"shard {i}".encode())
        urls = tessera.wds.urls(self.c, "wds", "s-{0..3}.tar")
        smap = self.c.cluster_map()
        placement = Placement(smap["tmap"])
        for i, u in enumerate(urls):
            owner = smap["tmap"][placement.owner("wds", f"s-{i}.tar")]
            self.assertTrue(u.startswith(owner["public_net"]["direct_url"] + "/v1/objects/wds/"), u)
            with urllib.request.urlopen(u) as r:  # no redirect: the owner serves it
                self.assertEqual(r.geturl(), u)
                self.assertEqual(r.read(), f"shard {i}".encode())
        self.assertEqual(tessera.wds.pipe_urls(self.c, "wds", ["s-0.tar"])[0], f"pipe:curl -sfL '{urls[0]}'")


if __name__ == "__main__":
    unittest.main()
