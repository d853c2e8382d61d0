#!/usr/bin/python3
"""P10a measurement (run by python_loader.sh, which starts the cluster and loads
the data): samples/s of tessera.torch.ShardDataset through a DataLoader with
N workers, over Tessera (shards read straight from their targets) and over the
same shard files on local disk, rounds alternating; and ObjectDataset over the
loose objects of the same samples. Prints one line per round and the medians
as JSON on the last line."""

import argparse
import glob
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "console", "python"))

import tessera  # noqa: E402
from tessera.torch import ObjectDataset, ShardDataset  # noqa: E402
from torch.utils.data import BatchSampler, DataLoader, RandomSampler  # noqa: E402


def run(ds, batch, workers, limit=None):
    t0 = time.perf_counter()
    n = 0
    for b in DataLoader(ds, batch_size=batch, num_workers=workers, persistent_workers=False):
        n += len(b["__key__"])
        if limit and n >= limit:
            break
    return n, time.perf_counter() - t0


def run_objects(ds, batch, workers, count):
    sampler = BatchSampler(RandomSampler(range(count), generator=None), batch, False)
    t0 = time.perf_counter()
    n = 0
    for b in DataLoader(ds, sampler=sampler, batch_size=None, num_workers=workers, collate_fn=lambda x: x):
        n += len(b)
    return n, time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--endpoint", required=True)
    ap.add_argument("--bucket", default="fashion-mnist")
    ap.add_argument("--raw-bucket", default="fashion-mnist-raw")
    ap.add_argument("--local", required=True, help="directory holding the same shard files")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--objects", type=int, default=30000, help="loose objects read per ObjectDataset round")
    a = ap.parse_args()

    client = tessera.Client(a.endpoint)
    t0 = time.perf_counter()
    remote = ShardDataset(client, bucket=a.bucket, prefix="shard-", batch_size=a.batch, seed=1)
    index_s = time.perf_counter() - t0
    local = ShardDataset(paths=sorted(glob.glob(os.path.join(a.local, "*.tar"))), batch_size=a.batch, seed=1)
    assert remote.num_samples == local.num_samples, (remote.num_samples, local.num_samples)
    objects = ObjectDataset(client, a.raw_bucket, threads=8)
    print(f"index: {len(remote.shards)} shards, {remote.num_samples} samples, listed in {index_s:.2f} s; "
          f"{len(objects)} loose objects", flush=True)
    rates = {"tessera": [], "local": [], "objects": []}
    for r in range(a.rounds):
        for ds, name in ((remote, "tessera"), (local, "local")):
            ds.set_epoch(r)
            n, s = run(ds, a.batch, a.workers)
            assert n == remote.num_samples, (name, n)
            rates[name].append(n / s)
            print(f"round {r + 1} {name}: {n} samples in {s:.2f} s = {n / s:.0f} samples/s", flush=True)
        count = min(a.objects, len(objects))
        n, s = run_objects(objects, a.batch, a.workers, count)
        files_per_sample = len(objects) / remote.num_samples
        rates["objects"].append(n / s / files_per_sample)
        print(f"round {r + 1} objects: {n} objects in {s:.2f} s = {n / s / files_per_sample:.0f} samples/s "
              f"({files_per_sample:.0f} objects per sample)", flush=True)
    med = {k: statistics.median(v) for k, v in rates.items()}
    print(json.dumps({"median": med, "samples": remote.num_samples, "shards": len(remote.shards),
                      "workers": a.workers, "batch": a.batch, "index_s": index_s}))


if __name__ == "__main__":
    main()
