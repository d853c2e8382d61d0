#!/usr/bin/python3
"""P10c measurement (run by python_p10c.sh, which starts the cluster): N
samples of 1 KiB each, stored twice in the same run -- as N loose objects and
packed into shards of 1,000 samples -- then read three ways:
  single:  one thread of plain keep-alive GETs, one object at a time (the
           baseline a training script starts from);
  objects: ObjectDataset (batched, 8 threads a worker) with a DataLoader of
           `--workers` workers;
  shards:  ShardDataset with the same DataLoader over the shards.
Prints one line per measure and the results as JSON on the last line."""

import argparse
import io
import json
import os
import random
import sys
import tarfile
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "console", "python"))

import tessera  # noqa: E402
from tessera.torch import ObjectDataset, ShardDataset  # noqa: E402
from torch.utils.data import BatchSampler, DataLoader, RandomSampler  # noqa: E402

PER_SHARD = 1000


def sample(i):
    return random.Random(i).randbytes(1024)


def load(client, raw, packed, n, threads):
    t0 = time.perf_counter()
    client.create_bucket(raw)
    client.create_bucket(packed)
    names = [f"s{i:07d}.bin" for i in range(n)]

    def put_range(start):  # the client's pools are thread-safe
        for i in range(start, min(start + 1000, n)):
            client.put(raw, names[i], sample(i))

    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(put_range, range(0, n, 1000)))
    loose_s = time.perf_counter() - t0

    def put_shard(s):
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as tar:
            for i in range(s * PER_SHARD, min((s + 1) * PER_SHARD, n)):
                data = sample(i)
                info = tarfile.TarInfo(names[i])
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
        client.put(packed, f"shard-{s:06d}.tar", buf.getvalue())

    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(put_shard, range((n + PER_SHARD - 1) // PER_SHARD)))
    print(f"loaded {n} loose objects in {loose_s:.1f} s and {(n + PER_SHARD - 1) // PER_SHARD} shards "
          f"in {time.perf_counter() - t0 - loose_s:.1f} s", flush=True)
    return names


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--endpoint", required=True)
    ap.add_argument("--samples", type=int, default=1_000_000)
    ap.add_argument("--single", type=int, default=20000, help="objects the single-threaded reader GETs")
    ap.add_argument("--objects", type=int, default=200000, help="objects ObjectDataset reads")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--load-threads", type=int, default=16)
    a = ap.parse_args()

    client = tessera.Client(a.endpoint)
    names = load(client, "p10c-raw", "p10c-shards", a.samples, a.load_threads)

    # single: one thread, one keep-alive connection per target, straight to the owner.
    order = random.Random(7).sample(range(a.samples), min(a.single, a.samples))
    t0 = time.perf_counter()
    for i in order:
        assert len(client.get("p10c-raw", names[i])) == 1024
    single = len(order) / (time.perf_counter() - t0)
    print(f"single: {len(order)} GETs at {single:.0f} objects/s", flush=True)

    objects = ObjectDataset(client, "p10c-raw", threads=8)
    count = min(a.objects, len(objects))
    sampler = BatchSampler(RandomSampler(range(count)), a.batch, False)
    t0 = time.perf_counter()
    n = 0
    for b in DataLoader(objects, sampler=sampler, batch_size=None, num_workers=a.workers, collate_fn=lambda x: x):
        n += len(b)
    objrate = n / (time.perf_counter() - t0)
    print(f"objects: {n} objects at {objrate:.0f} objects/s (ObjectDataset, {a.workers} workers)", flush=True)

    shards = ShardDataset(client, bucket="p10c-shards", prefix="shard-", batch_size=a.batch, seed=1)
    t0 = time.perf_counter()
    n = 0
    for b in DataLoader(shards, batch_size=a.batch, num_workers=a.workers):
        n += len(b["__key__"])
    assert n == a.samples, (n, a.samples)
    shardrate = n / (time.perf_counter() - t0)
    print(f"shards: {n} samples at {shardrate:.0f} samples/s (ShardDataset, {a.workers} workers)", flush=True)
    print(json.dumps({"samples": a.samples, "single": single, "objects": objrate, "shards": shardrate,
                      "workers": a.workers}))


if __name__ == "__main__":
    main()
