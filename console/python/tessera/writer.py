"""Pack a map-style dataset into WebDataset shards and upload them to their
owning targets: the day-one path of an ML engineer.

``write_shards(client, dataset, "bucket", workers=4, max_shard_bytes=64 << 20)``
splits the dataset's indices into ``workers`` contiguous ranges; each worker
process packs its range, in index order, into ``.tar`` shards of at most
``max_shard_bytes`` (a sample bigger than that gets a shard of its own) and
``max_shard_samples`` samples, and PUTs each shard straight to its owner.
Shards are named ``<prefix><worker:04d>-<n:06d>.tar``. A sample's key is
``<key_prefix><index:09d>``; ``to_sample(item)`` turns a dataset item into
``{extension: bytes}`` (the default handles ``(PIL image or tensor, label)``
pairs such as torchvision's ``ImageFolder``: ``png`` and ``cls``).
"""

import io
import multiprocessing

from .tar import ShardWriter, estimate_sample_size


def default_to_sample(item):
    """(image, label) -> {"png": bytes, "cls": bytes}; bytes/str/int/dict values
    under their keys when ``item`` is already a dict."""
    if isinstance(item, dict):
        out = {}
        for k, v in item.items():
            if isinstance(v, (bytes, bytearray)):
                out[k] = bytes(v)
            elif isinstance(v, str):
                out[k] = v.encode()
            elif isinstance(v, int):
                out[k] = str(v).encode()
            else:
                import json
                out[k] = json.dumps(v).encode()
        return out
    image, label = item
    return {"png": _png(image), "cls": str(int(label)).encode()}


def _png(image):
    from PIL import Image
    if not isinstance(image, Image.Image):
        import numpy as np
        arr = image.numpy() if hasattr(image, "numpy") else np.asarray(image)
        if arr.ndim == 3 and arr.shape[0] in (1, 3):
            arr = arr.transpose(1, 2, 0)
        if arr.ndim == 3 and arr.shape[2] == 1:
            arr = arr[:, :, 0]
        if arr.dtype != np.uint8:
            arr = (arr.clip(0, 1) * 255).round().astype(np.uint8)
        image = Image.fromarray(arr)
    buf = io.BytesIO()
    image.save(buf, format="PNG")
    return buf.getvalue()


_JOBS = []  # set before forking: the workers inherit it (a client does not pickle)


def _pack_job(w):
    return _pack(_JOBS[w])


def _pack(args):
    client, dataset, bucket, prefix, key_prefix, worker, lo, hi, max_bytes, max_samples, to_sample = args
    written = []
    writer, n = ShardWriter(), 0

    def flush():
        nonlocal writer, n
        if writer.samples:
            name = f"{prefix}{worker:04d}-{n:06d}.tar"
            data = writer.finish()
            client.put(bucket, name, data)
            written.append((name, writer.samples, len(data)))
            n += 1
        writer = ShardWriter()

    for i in range(lo, hi):
        key = f"{key_prefix}{i:09d}"
        files = to_sample(dataset[i])
        size = estimate_sample_size(key, files)
        if writer.samples and (writer.size + size > max_bytes or writer.samples >= max_samples):
            flush()
        writer.add(key, files)
    flush()
    return written


def write_shards(client, dataset, bucket, prefix="shard-", key_prefix="", workers=4, max_shard_bytes=64 << 20,
                 max_shard_samples=100000, to_sample=default_to_sample):
    """Packs and uploads; returns ``[(shard name, samples, bytes)]`` in name order.
    ``workers`` processes (forked: the dataset and client are inherited)."""
    n = len(dataset)
    workers = max(1, min(workers, n or 1))
    bounds = [n * w // workers for w in range(workers + 1)]
    jobs = [(client, dataset, bucket, prefix, key_prefix, w, bounds[w], bounds[w + 1], max_shard_bytes,
             max_shard_samples, to_sample) for w in range(workers)]
    if workers == 1:
        results = [_pack(jobs[0])]
    else:
        ctx = multiprocessing.get_context("fork")
        _JOBS[:] = jobs
        try:
            with ctx.Pool(workers) as pool:
                results = pool.map(_pack_job, range(workers))
        finally:
            _JOBS.clear()
    return sorted(x for r in results for x in r)
