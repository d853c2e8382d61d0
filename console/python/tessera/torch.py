"""PyTorch datasets over Tessera: shards streamed straight from their targets.

* :class:`ShardDataset` - an ``IterableDataset`` of WebDataset samples from
  shards, split across DataLoader workers and ranks, with elastic determinism
  and mid-epoch resumption (the plan: :mod:`tessera.shards`).
* :class:`ObjectDataset` - map-style ``(name, bytes)`` over loose objects, with
  batched, threaded fetching.
* :class:`DynamicBatchSampler` - batches filled by total bytes.
* :func:`decode_sample` - decoders by extension (PIL images to tensors, ``cls``
  to int, ``json``, ``txt``).
"""

import io
import json
import os
import threading
from concurrent.futures import ThreadPoolExecutor

import torch
from torch.utils.data import Dataset, IterableDataset, Sampler, get_worker_info

from . import errors, shards, tar

IMAGE_EXTS = ("png", "jpg", "jpeg", "bmp", "gif", "webp", "ppm", "pgm")
INT_EXTS = ("cls", "cls2", "index", "label")
# Bytes read from a shard at a time (remote and local alike): one buffer per open stream.
_READ_BUFFER = 256 * 1024


def _decode_image(data):
    import numpy as np
    from PIL import Image
    img = Image.open(io.BytesIO(data))
    img.load()
    arr = np.array(img)
    if arr.ndim == 2:
        arr = arr[None, :, :]
    else:
        arr = arr.transpose(2, 0, 1)
    return torch.from_numpy(np.ascontiguousarray(arr))


def decode_value(ext, data):
    """One member's bytes by its extension's last part: images -> uint8 tensor
    (C, H, W); cls/cls2/index/label -> int; json -> object; txt -> str; else bytes."""
    last = ext.rsplit(".", 1)[-1].lower()
    if last in IMAGE_EXTS:
        return _decode_image(data)
    if last in INT_EXTS:
        return int(data.decode().strip())
    if last == "json":
        return json.loads(data)
    if last == "txt":
        return data.decode("utf-8")
    return data


def decode_sample(sample):
    """A sample dict with every member decoded by :func:`decode_value`."""
    return {k: (v if k.startswith("__") else decode_value(k, v)) for k, v in sample.items()}


def _rank_and_world(rank, world_size):
    if rank is not None and world_size is not None:
        return rank, world_size
    if "RANK" in os.environ and "WORLD_SIZE" in os.environ:
        return int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    if torch.distributed.is_available() and torch.distributed.is_initialized():
        return torch.distributed.get_rank(), torch.distributed.get_world_size()
    return 0, 1


class _RemoteSource:
    def __init__(self, client, retries, params=None):
        self.client = client
        self.retries = retries
        self.params = params

    def samples(self, info, first, end):
        """Samples [first, end) of a shard: (key, {ext: bytes})."""
        if info.offsets is not None:
            start = info.offsets[first]
            reader = self.client.get_stream(info.bucket, info.name, start=start, end=info.offsets[end],
                                            retries=self.retries, params=self.params)
            # Buffered: the tar parser's 512-byte reads come from memory, the socket is read in big steps.
            buffered = io.BufferedReader(reader, _READ_BUFFER)
            yield from _checked(info, first, end, tar.iter_samples(tar.iter_members(buffered, start)))
            reader.close()
        else:
            reader = self.client.get_stream(info.bucket, info.name, retries=self.retries, params=self.params)
            try:
                buffered = io.BufferedReader(reader, _READ_BUFFER)
                yield from _skipping(info, first, end, tar.iter_samples(tar.iter_members(buffered)))
            finally:
                reader.close()


class _LocalSource:
    def samples(self, info, first, end):
        with open(info.name, "rb") as f:
            if info.offsets is not None:
                start = info.offsets[first]
                f.seek(start)
                limited = io.BufferedReader(_Limited(f, info.offsets[end] - start), _READ_BUFFER)
                yield from _checked(info, first, end, tar.iter_samples(tar.iter_members(limited, start)))
            else:
                yield from _skipping(info, first, end, tar.iter_samples(tar.iter_members(f)))


class _Limited(io.RawIOBase):
    def __init__(self, f, n):
        self.f, self.left = f, n

    def readable(self):
        return True

    def readinto(self, b):
        if self.left <= 0:
            return 0
        n = self.f.readinto(memoryview(b)[:min(len(b), self.left)])
        self.left -= n
        return n


def _checked(info, first, end, it):
    expected = first
    for key, files, _off in it:
        if expected >= end:
            break
        if key != info.keys[expected]:
            raise errors.ShardChanged(f"{info.bucket}/{info.name}: sample {expected} is {key!r}, the listing said "
                                      f"{info.keys[expected]!r} (the shard changed since the dataset was made?)")
        yield key, files
        expected += 1
    if expected != end:
        raise errors.ShardChanged(f"{info.bucket}/{info.name}: ended after sample {expected}, expected {end}")


def _skipping(info, first, end, it):
    i = 0
    for key, files, _off in it:
        if i >= end:
            return
        if i >= first:
            yield key, files
        i += 1
    if i < end:
        raise errors.ShardChanged(f"{info.bucket}/{info.name}: has {i} samples, the listing said {len(info.keys)}")


class ShardDataset(IterableDataset):
    """WebDataset samples from Tessera shards (or, with ``paths=``, from tar files on
    local disk: the same code, for comparisons).

    Selection: ``bucket`` with ``prefix`` or a brace ``template``
    (``"shard-{000000..000022}.tar"``), or ``sources=[(bucket, prefix_or_template),
    ...]`` for several buckets or prefixes as one dataset. The shard index (sample
    keys and byte offsets, from one listing with members) is built when the dataset
    is made, in the main process.

    Order: see :mod:`tessera.shards`. ``seed``, ``shuffle`` (shard order and samples
    within blocks of ``shuffle_block``), ``streams`` (canonical streams; ranks x
    workers must divide it) and ``batch_size`` (give the DataLoader the same) fix
    the global order of every epoch, whatever the number of ranks and workers.
    ``rank``/``world_size``: explicit, else ``RANK``/``WORLD_SIZE`` from the
    environment, else ``torch.distributed``, else 0/1.

    Samples: dicts ``{"__key__", "__shard__", ext: bytes}`` (``as_tuple``: AIStore's
    ``(key, {ext: bytes})``); ``decode=True`` applies :func:`decode_sample`; ``map``
    is called on each sample last. ``retries``: reconnections of one shard read
    after a dead connection (it resumes at the byte where it stopped).
    """

    def __init__(self, client=None, bucket=None, prefix="", template=None, sources=None, paths=None, shuffle=True,
                 seed=0, batch_size=1, streams=24, shuffle_block=256, rank=None, world_size=None, decode=False,
                 map=None, as_tuple=False, retries=3):
        super().__init__()
        if paths is not None:
            self.shards = shards.local_index(paths)
            self._source = _LocalSource()
        else:
            if client is None:
                raise ValueError("ShardDataset needs a client (or paths= for local files)")
            if sources is None:
                if bucket is None:
                    raise ValueError("ShardDataset needs bucket= (with prefix= or template=) or sources=")
                sources = [(bucket, template if template is not None else prefix)]
            self.shards = []
            for bck, sel in sources:
                if "{" in sel:
                    names = shards.expand_template(sel)
                else:
                    names = [e["name"] for e in client.list_objects(bck, prefix=sel) if _is_shard(e["name"])]
                if not names:
                    raise errors.NotFound(404, f"no shards in {bck} under {sel!r}", "", "GET", bck)
                self.shards.extend(shards.remote_index(client, bck, names))
            self._source = _RemoteSource(client, retries)
        self.shuffle, self.seed, self.batch_size = shuffle, seed, batch_size
        self.streams, self.shuffle_block = streams, shuffle_block
        self.rank, self.world_size = rank, world_size
        self.decode, self.map, self.as_tuple = decode, map, as_tuple
        self.epoch = 0
        self._resume = None

    @property
    def num_samples(self):
        """Samples in one epoch (all ranks together)."""
        return sum(len(s) for s in self.shards)

    def set_epoch(self, epoch):
        """The epoch the next iteration yields (its order); drops a loaded resume
        point of another epoch."""
        self.epoch = epoch
        if self._resume is not None and self._resume["epoch"] != epoch:
            self._resume = None

    def state_dict(self, samples_seen):
        """Where training stands: ``samples_seen`` is the number of samples of the
        current epoch the training loop consumed, all ranks together (steps x
        batch_size x world_size; a multiple of ``batch_size``)."""
        base = self._resume["samples_seen"] if self._resume else 0
        return {"epoch": self.epoch, "samples_seen": samples_seen, "seed": self.seed, "shuffle": self.shuffle,
                "streams": self.streams, "batch_size": self.batch_size, "shuffle_block": self.shuffle_block,
                "num_samples": self.num_samples, "resumed_from": base}

    def load_state_dict(self, state):
        """Continue an epoch: the next iteration skips what ``state`` says was
        consumed. The order parameters must be the ones the state was taken with
        (``ValueError`` otherwise); ranks and workers may differ."""
        for k in ("seed", "shuffle", "streams", "batch_size", "shuffle_block", "num_samples"):
            mine = self.num_samples if k == "num_samples" else getattr(self, k)
            if state[k] != mine:
                raise ValueError(f"state_dict's {k} is {state[k]!r}, this dataset's {mine!r}: the order would differ")
        self.epoch = state["epoch"]
        self._resume = {"epoch": state["epoch"], "samples_seen": state["samples_seen"]}

    def _partition(self):
        rank, world = _rank_and_world(self.rank, self.world_size)
        info = get_worker_info()
        worker, workers = (info.id, info.num_workers) if info is not None else (0, 1)
        return rank + world * worker, world * workers

    def __iter__(self):
        p, partitions = self._partition()
        seen = self._resume["samples_seen"] if self._resume and self._resume["epoch"] == self.epoch else 0
        mine = shards.partition_plan(self.shards, self.seed, self.epoch, self.shuffle, self.streams, self.batch_size,
                                     partitions, p, seen)
        iters = [self._stream_samples(s) for s in mine]
        active = list(range(len(iters)))
        b = self.batch_size
        while active:
            still = []
            for i in active:
                n = 0
                for sample in iters[i]:
                    yield self._finish(sample)
                    n += 1
                    if n == b:
                        break
                if n == b:
                    still.append(i)
            active = still

    def _finish(self, sample):
        info, key, files = sample
        if self.decode:
            files = {ext: decode_value(ext, v) for ext, v in files.items()}
        shard = info.name if info.bucket is None else f"{info.bucket}/{info.name}"
        if self.as_tuple:
            out = (key, files)
        else:
            out = {"__key__": key, "__shard__": shard}
            out.update(files)
        return self.map(out) if self.map is not None else out

    def _stream_samples(self, stream):
        """A stream's samples in its order: (ShardInfo, key, files)."""
        flat_segments = []  # (start position in stream, segment)
        pos = 0
        for seg in stream.segments:
            flat_segments.append((pos, seg))
            pos += seg.end - seg.first
        for b0, order in shards.stream_order(stream, self.seed, self.epoch, self.shuffle, self.shuffle_block):
            if not order:
                continue
            lo = min(order)
            hi = max(order) + 1
            if not self.shuffle:
                yield from self._read_range(flat_segments, lo, hi)
                continue
            lo = b0
            block = list(self._read_range(flat_segments, lo, hi))
            for p in order:
                yield block[p - lo]

    def _read_range(self, flat_segments, a, b):
        for start, seg in flat_segments:
            seg_len = seg.end - seg.first
            lo, hi = max(a, start), min(b, start + seg_len)
            if lo >= hi:
                continue
            info = self.shards[seg.shard]
            for key, files in self._source.samples(info, seg.first + lo - start, seg.first + hi - start):
                yield info, key, files


def _is_shard(name):
    return name.endswith((".tar", ".tgz", ".tar.gz", ".tar.lz4", ".zip"))


class ObjectDataset(Dataset):
    """Map-style ``(name, bytes)`` over loose objects, as AIStore's ``AISMapDataset``.

    Objects: ``bucket`` with ``prefix`` or ``names=[...]``, or ``sources=[(bucket,
    prefix), ...]`` (names are then ``bucket/name`` when there are several
    buckets). Listed once, when the dataset is made. ``ds[i]`` reads one object;
    ``ds[[i, j, ...]]`` reads a batch with ``threads`` parallel requests (use a
    ``BatchSampler`` as the DataLoader's ``sampler`` with ``batch_size=None``).
    ``etl``: read every object through that ETL, on the targets.
    """

    def __init__(self, client, bucket=None, prefix="", names=None, sources=None, threads=8, etl=None,
                 etl_args=None):
        super().__init__()
        self.client = client
        self.threads = threads
        if sources is None:
            if bucket is None:
                raise ValueError("ObjectDataset needs bucket= or sources=")
            sources = [(bucket, prefix)]
        self.items = []  # (bucket, name, size)
        for bck, pfx in sources:
            if names is not None:
                self.items.extend((bck, n, None) for n in names)
            else:
                self.items.extend((bck, e["name"], e.get("size")) for e in client.list_objects(bck, prefix=pfx))
        self._several = len({b for b, _, _ in self.items}) > 1
        self.etl, self.etl_args = etl, etl_args
        self._pool = None
        self._pool_pid = None
        self._lock = threading.Lock()

    def __len__(self):
        return len(self.items)

    def sizes(self):
        """Object sizes from the listing (for :class:`DynamicBatchSampler`)."""
        return [s or 0 for _, _, s in self.items]

    def _one(self, i):
        bck, name, _ = self.items[i]
        data = self.client.get(bck, name, etl=self.etl, etl_args=self.etl_args)
        return (f"{bck}/{name}" if self._several else name), data

    def __getitem__(self, i):
        if isinstance(i, (list, tuple)):
            with self._lock:
                if self._pool is None or self._pool_pid != os.getpid():
                    self._pool = ThreadPoolExecutor(self.threads)
                    self._pool_pid = os.getpid()
            return list(self._pool.map(self._one, i))
        return self._one(i)

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_pool"] = None
        state["_lock"] = None
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._lock = threading.Lock()


class DynamicBatchSampler(Sampler):
    """Batches of indices filled up to ``max_batch_bytes`` of total size (AIStore's
    ``DynamicBatchSampler``). ``sizes``: one per sample (``ObjectDataset.sizes()``).
    A sample larger than the maximum makes a batch alone. ``shuffle`` with ``seed``
    (and ``set_epoch``) permutes the samples first. With ``drop_last``, a last batch
    filled below ``saturation_factor`` x the maximum is dropped."""

    def __init__(self, sizes, max_batch_bytes, shuffle=False, seed=0, drop_last=False, saturation_factor=0.8):
        super().__init__(None)
        if max_batch_bytes <= 0:
            raise ValueError("max_batch_bytes must be positive")
        self.sizes = list(sizes)
        self.max = max_batch_bytes
        self.shuffle, self.seed, self.epoch = shuffle, seed, 0
        self.drop_last, self.saturation = drop_last, saturation_factor

    def set_epoch(self, epoch):
        self.epoch = epoch

    def __iter__(self):
        import random
        order = list(range(len(self.sizes)))
        if self.shuffle:
            random.Random(f"{self.seed}:{self.epoch}").shuffle(order)
        batch, total = [], 0
        for i in order:
            s = self.sizes[i]
            if s > self.max:
                if batch:
                    yield batch
                    batch, total = [], 0
                yield [i]
                continue
            if total + s > self.max and batch:
                yield batch
                batch, total = [], 0
            batch.append(i)
            total += s
        if batch and not (self.drop_last and total < self.saturation * self.max):
            yield batch

    def __len__(self):
        return sum(1 for _ in self.__iter__())
