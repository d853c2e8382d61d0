"""tessera.torch.ShardDataset through real DataLoaders against a real cluster
holding the demo's Fashion-MNIST (2,000 samples, loaded by the CLI's own demo
loader and sharded by ishard into 39 shards): every sample exactly once per
epoch with 2 ranks x 2 workers, the same global order as 1 x 1, another order
for another epoch, an exact mid-epoch resume on another layout, connections
cut in the middle of shards without a sample lost or repeated, the same order
from the same shards on local disk, decoding, and one epoch of a small CNN
whose loss goes down."""

import os
import tempfile
import unittest

import local_cluster
import tessera
from tessera import shards as plan

import torch
from torch.utils.data import DataLoader

from tessera.torch import ShardDataset

LIMIT = 2000
B = 8
SEED = 11
STREAMS = 8


def keys_of(batches):
    return [k for b in batches for k in b["__key__"]]


def merge_ranks(per_rank):
    out, s = [], 0
    while any(s < len(x) for x in per_rank):
        for x in per_rank:
            if s < len(x):
                out.extend(x[s]["__key__"])
        s += 1
    return out


class ShardDatasetTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cluster = local_cluster.LocalCluster(3).start()
        cls.cluster.load_demo(LIMIT)
        cls.client = tessera.Client(cls.cluster.proxy_url)

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.cluster.close()

    def dataset(self, **kw):
        args = dict(bucket="fashion-mnist", prefix="shard-", seed=SEED, batch_size=B, streams=STREAMS,
                    shuffle_block=64)
        args.update(kw)
        return ShardDataset(self.client, **args)

    def run_1x1(self, epoch=0, **kw):
        ds = self.dataset(rank=0, world_size=1, **kw)
        ds.set_epoch(epoch)
        return keys_of(DataLoader(ds, batch_size=B, num_workers=1))

    def test_2x2_yields_every_sample_once_in_the_1x1_order(self):
        expected = sorted({n.rsplit(".", 1)[0] for n in self.client.list_names("fashion-mnist-raw")})
        self.assertEqual(len(expected), LIMIT)
        ref = self.run_1x1()
        self.assertEqual(len(ref), LIMIT)
        self.assertEqual(sorted(ref), expected)
        per_rank = []
        for rank in range(2):
            ds = self.dataset(rank=rank, world_size=2)
            per_rank.append(list(DataLoader(ds, batch_size=B, num_workers=2)))
        got = merge_ranks(per_rank)
        self.assertEqual(len(got), LIMIT)
        self.assertEqual(len(set(got)), LIMIT)
        self.assertEqual(got, ref)
        # And it is the order the plan computes without reading anything.
        ds = self.dataset()
        order = plan.global_order(ds.shards, SEED, 0, True, STREAMS, B, 64)
        self.assertEqual([ds.shards[s].keys[i] for s, i in order], ref)
        # Another epoch: the same samples, another order; the same epoch again: the same.
        other = self.run_1x1(epoch=1)
        self.assertEqual(sorted(other), expected)
        self.assertNotEqual(other, ref)
        self.assertEqual(self.run_1x1(epoch=1), other)

    def test_resume_mid_epoch_on_another_layout(self):
        ref = self.run_1x1(epoch=2)
        # Stop after 37 batches (296 samples: inside a shuffle block and a shard).
        ds = self.dataset(rank=0, world_size=1)
        ds.set_epoch(2)
        consumed = []
        for i, batch in enumerate(DataLoader(ds, batch_size=B, num_workers=2)):
            consumed.extend(batch["__key__"])
            if i == 36:
                break
        self.assertEqual(consumed, ref[:296])
        state = ds.state_dict(samples_seen=len(consumed))
        self.assertEqual(state["epoch"], 2)
        # A new process would build a new dataset: resume it with 2 ranks x 1 worker.
        per_rank = []
        for rank in range(2):
            fresh = self.dataset(rank=rank, world_size=2)
            fresh.load_state_dict(state)
            per_rank.append(list(DataLoader(fresh, batch_size=B, num_workers=1)))
        rest = merge_ranks(per_rank)
        self.assertEqual(rest, ref[296:])
        # set_epoch to the next epoch forgets the resume point.
        fresh = self.dataset(rank=0, world_size=1)
        fresh.load_state_dict(state)
        fresh.set_epoch(3)
        self.assertEqual(len(keys_of(DataLoader(fresh, batch_size=B, num_workers=1))), LIMIT)
        # A state taken with another order is refused.
        with self.assertRaisesRegex(ValueError, "streams"):
            self.dataset(streams=4).load_state_dict(state)

    def test_local_disk_gives_the_same_order(self):
        names = [n for n in self.client.list_names("fashion-mnist") if n.endswith(".tar")]
        with tempfile.TemporaryDirectory() as d:
            paths = []
            for n in names:
                p = os.path.join(d, n)
                with open(p, "wb") as f:
                    f.write(self.client.get("fashion-mnist", n))
                paths.append(p)
            local = ShardDataset(paths=paths, seed=SEED, batch_size=B, streams=STREAMS, shuffle_block=64)
            got = keys_of(DataLoader(local, batch_size=B, num_workers=2))
        self.assertEqual(got, self.run_1x1())

    def test_unshuffled_template_and_decoding(self):
        ds = self.dataset(prefix="", template="shard-{000000..000004}.tar", shuffle=False, decode=True, streams=1,
                          batch_size=1)
        samples = list(iter(ds))
        first = samples[0]
        self.assertEqual(first["__key__"], "train/000000")
        self.assertEqual(first["__shard__"], "fashion-mnist/shard-000000.tar")
        self.assertEqual(tuple(first["png"].shape), (1, 28, 28))
        self.assertEqual(first["png"].dtype, torch.uint8)
        self.assertIsInstance(first["cls"], int)
        self.assertEqual(first["json"]["label"], first["cls"])
        self.assertEqual([s["__key__"] for s in samples], [f"train/{i:06d}" for i in range(len(samples))])
        # The quick start's batches: decoded samples through the default collate.
        batch = next(iter(DataLoader(self.dataset(decode=True, batch_size=4), batch_size=4, num_workers=2)))
        self.assertEqual(tuple(batch["png"].shape), (4, 1, 28, 28))
        self.assertEqual((batch["png"].dtype, batch["cls"].dtype), (torch.uint8, torch.int64))
        tup = list(iter(self.dataset(prefix="", template="shard-000000.tar", shuffle=False, as_tuple=True,
                                     streams=1, batch_size=1)))
        self.assertEqual(tup[0][0], "train/000000")
        self.assertEqual(sorted(tup[0][1]), ["cls", "json", "png"])

    def test_connections_cut_mid_shard_lose_nothing(self):
        # Every shard read longer than 24 KiB loses its connection once after 20 KiB
        # (closed under it, unread bytes gone): each resumes at the byte where it
        # stopped, and the epoch is exactly the one without cuts.
        import tessera.torch as ttorch
        ref = self.run_1x1(epoch=4)
        readers = []
        original = tessera.client.ObjectReader.readinto

        def cutting_readinto(reader, b):
            start = reader.end - reader.total if reader.end is not None else 0
            if reader not in readers and reader.offset - start > 20 * 1024 and reader.offset < reader.end:
                readers.append(reader)
                reader._resp._drop()
            return original(reader, b)

        original_init = tessera.client.ObjectReader.__init__

        def init(reader, bucket_client, bucket, name, start=0, end=None, *a, **kw):
            original_init(reader, bucket_client, bucket, name, start, end, *a, **kw)
            reader.total = (end - start) if end is not None else None

        tessera.client.ObjectReader.readinto = cutting_readinto
        tessera.client.ObjectReader.__init__ = init
        saved_buffer, ttorch._READ_BUFFER = ttorch._READ_BUFFER, 4096  # many reads per shard
        try:
            ds = self.dataset(rank=0, world_size=1)
            ds.set_epoch(4)
            got = keys_of(DataLoader(ds, batch_size=B, num_workers=0))
        finally:
            tessera.client.ObjectReader.readinto = original
            tessera.client.ObjectReader.__init__ = original_init
            ttorch._READ_BUFFER = saved_buffer
        self.assertEqual(got, ref)
        self.assertGreater(len(readers), 5)
        self.assertEqual(sorted({r.reconnects for r in readers}), [1])

    def test_partitions_must_divide_streams(self):
        ds = self.dataset(rank=0, world_size=3)
        with self.assertRaisesRegex(ValueError, "must divide"):
            next(iter(ds))

    def test_training_example_loss_goes_down(self):
        torch.manual_seed(0)

        def to_xy(s):
            return s["png"].float().div(255.0), s["cls"]

        ds = ShardDataset(self.client, bucket="fashion-mnist", prefix="shard-", decode=True, map=to_xy, seed=1,
                          batch_size=32, streams=2)
        loader = DataLoader(ds, batch_size=32, num_workers=2)
        model = torch.nn.Sequential(torch.nn.Conv2d(1, 8, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
                                    torch.nn.Conv2d(8, 16, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
                                    torch.nn.Flatten(), torch.nn.Linear(16 * 7 * 7, 10))
        opt = torch.optim.Adam(model.parameters(), lr=3e-3)
        losses = []
        for x, y in loader:
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        self.assertEqual(len(losses), -(-LIMIT // 32))
        first, last = sum(losses[:10]) / 10, sum(losses[-10:]) / 10
        self.assertLess(last, first * 0.75, f"loss {first:.3f} -> {last:.3f}")


if __name__ == "__main__":
    unittest.main()
