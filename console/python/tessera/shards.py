"""Shard indexes and the epoch plan behind :class:`tessera.torch.ShardDataset`.
Standard library only, so the plan can be checked without PyTorch.

The global order of an epoch
----------------------------
1. The shards, sorted by name, are permuted by ``Random(f"{seed}:{epoch}")``
   (unless ``shuffle`` is off) and their samples concatenated in shard order:
   N samples.
2. That sequence is cut into units of ``batch_size`` samples: ``N // batch_size``
   full units, and one partial unit of the ``N % batch_size`` last samples.
3. The full units are dealt, in contiguous spans, to ``streams`` canonical
   streams (stream c gets ``U // C`` units, one more for ``c < U % C``); the
   partial unit goes to the stream that the round-robin below reaches last.
4. With ``shuffle``, each stream's samples are shuffled in blocks of
   ``shuffle_block`` samples, each block by ``Random(f"{seed}:{epoch}:{c}:{block}")``.
5. The global order is the round-robin over the streams, one unit at a time,
   skipping a stream that has run out.

Nothing in that depends on how many ranks and workers read it. With P = ranks
× workers partitions (P must divide ``streams``), partition p = rank + ranks ×
worker reads the streams c with c mod P = p, round-robin. A DataLoader hands
out its workers' batches round-robin, and merging the ranks step by step
(rank 0's batch, rank 1's, ...) gives back exactly the global order, because
stream lengths differ by at most one unit and the longer ones come first.

A resumed epoch skips the first ``samples_seen`` samples of the global order:
each stream starts after the units it already gave, and the streams are
rotated so that the round-robin goes on where it stopped (rotation keeps the
"longer first, at most one unit apart" property). A stream resumes inside its
current shuffle block, which it reads again from the block's start (at most
``shuffle_block`` samples read twice); without shuffle it starts right at the
next sample's bytes.
"""

import os
import random

from . import tar


class ShardInfo:
    """A shard: its name, and per sample its key and the byte offsets where the
    sample's first member starts and where its last ends (``offsets`` is None when
    they cannot be computed from the listing: long or non-ASCII member names)."""

    __slots__ = ("name", "keys", "offsets", "bucket")

    def __init__(self, name, keys, offsets, bucket=None):
        self.name = name
        self.keys = keys
        self.offsets = offsets  # len(keys) + 1 offsets, or None
        self.bucket = bucket  # None for a local file

    def __len__(self):
        return len(self.keys)


def _group(name, members):
    """members: [(member name, size)] in shard order -> ShardInfo."""
    keys, offsets = [], []
    pos = 0
    last_key = None
    exact = True
    for mname, size in members:
        key, _ = tar.sample_key(mname)
        if key != last_key:
            keys.append(key)
            offsets.append(pos)
            last_key = key
        span = tar.member_span(mname, size)
        if span is None:
            exact = False
            span = 0
        pos += span
    offsets.append(pos)
    return ShardInfo(name, keys, offsets if exact else None)


def remote_index(client, bucket, names):
    """The index of ``names`` (shards of ``bucket``) from the bucket's listing with
    members (``archive=true``), one pass over the pages under their common prefix."""
    wanted = set(names)
    prefix = os.path.commonprefix(list(names)) if names else ""
    members = {}
    current = None
    for e in client.list_objects(bucket, prefix=prefix, archive=True, page_size=10000):
        flags = e.get("flags", 0)
        if flags & 128:
            if current is not None:
                members[current].append((e["name"][len(current) + 1:], e.get("size", 0)))
            continue
        current = e["name"] if e["name"] in wanted else None
        if current is not None:
            if flags & 4096:
                from .errors import Corruption
                raise Corruption(422, f"shard {bucket}/{current} cannot be read: {e.get('error', '')}", "", "GET",
                                 f"{bucket}/{current}")
            members[current] = []
    missing = [n for n in names if n not in members]
    if missing:
        from .errors import NotFound
        raise NotFound(404, f"{len(missing)} shard(s) not in bucket {bucket}: {', '.join(missing[:5])}", "", "GET",
                       bucket)
    out = []
    for n in sorted(names):
        info = _group(n, members[n])
        info.bucket = bucket
        out.append(info)
    return out


def local_index(paths):
    """The index of tar files on disk (headers read, payloads skipped)."""
    out = []
    for path in sorted(paths):
        members = []
        with open(path, "rb") as f:
            for name, size in _scan_headers(f):
                members.append((name, size))
        info = _group(path, members)
        out.append(info)
    return out


def _scan_headers(f):
    """(name, size) of each regular member (one sequential pass)."""
    for name, payload, _off in tar.iter_members(f):
        yield name, len(payload)


def expand_template(template):
    """Brace template -> names, as ``shared/spec/brace_template.cpp`` expands it:
    ``{A..B}`` and ``{A..B..STEP}``, zero-padded to A's width when A has leading
    zeros or is as wide as B; several ranges, the last varying fastest."""
    parts = []  # literal strings and lists of numbers (as strings)
    i = 0
    lit = ""
    while i < len(template):
        ch = template[i]
        if ch == "{":
            j = template.index("}", i)
            body = template[i + 1:j]
            fields = body.split("..")
            if len(fields) not in (2, 3) or not all(f.isdigit() for f in fields):
                raise ValueError(f"bad range {{{body}}} in template {template!r}")
            a, b = fields[0], fields[1]
            step = int(fields[2]) if len(fields) == 3 else 1
            if int(a) > int(b) or step < 1:
                raise ValueError(f"bad range {{{body}}} in template {template!r}")
            width = len(a) if (len(a) > 1 and a[0] == "0") or len(a) == len(b) else 0
            parts.append(lit)
            lit = ""
            parts.append([str(n).zfill(width) for n in range(int(a), int(b) + 1, step)])
            i = j + 1
        elif ch == "}":
            raise ValueError(f"unbalanced '}}' in template {template!r}")
        else:
            lit += ch
            i += 1
    parts.append(lit)
    names = [""]
    for p in parts:
        if isinstance(p, str):
            names = [n + p for n in names]
        else:
            names = [n + x for n in names for x in p]
    return names


class Segment:
    """Samples [first, end) of shard ``shard`` (an index into the shard list)."""

    __slots__ = ("shard", "first", "end")

    def __init__(self, shard, first, end):
        self.shard, self.first, self.end = shard, first, end

    def __repr__(self):
        return f"Segment({self.shard}, {self.first}, {self.end})"


class Stream:
    """A canonical stream of an epoch: its segments, its length in samples and
    in units, and where it starts (``skip`` samples of its shuffled sequence)."""

    def __init__(self, index, segments, batch_size):
        self.index = index
        self.segments = segments
        self.samples = sum(s.end - s.first for s in segments)
        self.units = -(-self.samples // batch_size)
        self.skip = 0

    def remaining_units(self, batch_size):
        return self.units - self.skip // batch_size


def shard_order(n_shards, seed, epoch, shuffle):
    order = list(range(n_shards))
    if shuffle:
        random.Random(f"{seed}:{epoch}").shuffle(order)
    return order


def plan_epoch(shards, seed, epoch, shuffle, streams, batch_size):
    """The canonical streams of an epoch (see the module's docstring)."""
    if streams < 1 or batch_size < 1:
        raise ValueError("streams and batch_size must be at least 1")
    seq = []  # (shard index, first, end) runs in global order
    for si in shard_order(len(shards), seed, epoch, shuffle):
        if len(shards[si]):
            seq.append((si, 0, len(shards[si])))
    total = sum(e - f for _, f, e in seq)
    full_units = total // batch_size
    tail = total - full_units * batch_size
    per, extra = divmod(full_units, streams)
    lengths = [(per + (1 if c < extra else 0)) * batch_size for c in range(streams)]

    def take(n, pos):
        """Segments for the next n samples from run position pos=(run, offset)."""
        segs = []
        run, off = pos
        while n > 0:
            si, f, e = seq[run]
            start = f + off
            k = min(n, e - start)
            segs.append(Segment(si, start, start + k))
            n -= k
            off += k
            if start + k == e:
                run, off = run + 1, 0
        return segs, (run, off)

    pos = (0, 0)
    out = []
    for c in range(streams):
        segs, pos = take(lengths[c], pos)
        out.append(segs)
    if tail:
        # The stream the round-robin reaches last gets the partial unit.
        last = (extra - 1) if extra > 0 else streams - 1
        segs, pos = take(tail, pos)
        out[last].extend(segs)
    return [Stream(c, segs, batch_size) for c, segs in enumerate(out)]


def resume_streams(streams, batch_size, samples_seen):
    """Applies ``samples_seen`` (of the global order) to the streams: sets each
    stream's ``skip`` and returns them in the order the round-robin goes on."""
    if samples_seen <= 0:
        return list(streams)
    left = samples_seen
    consumed = [0] * len(streams)
    c = 0
    n = len(streams)
    # Walk the round-robin unit by unit (cheap: units, not samples).
    while left > 0:
        progressed = False
        for k in range(n):
            idx = (c + k) % n
            s = streams[idx]
            if consumed[idx] < s.units:
                size = min(batch_size, s.samples - consumed[idx] * batch_size)
                if size > left:
                    raise ValueError(f"samples_seen={samples_seen} is not at a batch boundary "
                                     f"(batch_size {batch_size})")
                consumed[idx] += 1
                left -= size
                c = (idx + 1) % n
                progressed = True
                break
        if not progressed:
            raise ValueError(f"samples_seen={samples_seen} is more than the epoch's samples")
    for i, s in enumerate(streams):
        s.skip = consumed[i] * batch_size
    return [streams[(c + k) % n] for k in range(n)]


def partition_plan(shards, seed, epoch, shuffle, streams, batch_size, partitions, p, samples_seen=0):
    """The streams partition p of P reads in an epoch, in its round-robin order."""
    plan = plan_epoch(shards, seed, epoch, shuffle, streams, batch_size)
    return partition_streams(resume_streams(plan, batch_size, samples_seen), partitions, p)


def partition_streams(ordered, partitions, p):
    """The streams partition p of P reads, in its round-robin order."""
    if len(ordered) % partitions:
        raise ValueError(f"ranks x workers = {partitions} must divide streams = {len(ordered)}")
    return ordered[p::partitions]


def stream_order(stream, seed, epoch, shuffle, shuffle_block):
    """The positions (0..samples-1 within the stream) in the order the stream
    yields them, from ``stream.skip`` on, as (block start, [positions]) groups."""
    n = stream.samples
    block = shuffle_block if shuffle else n or 1
    start_block = (stream.skip // block) * block
    for b0 in range(start_block, n, block):
        pos = list(range(b0, min(b0 + block, n)))
        if shuffle:
            random.Random(f"{seed}:{epoch}:{stream.index}:{b0 // block}").shuffle(pos)
        if b0 <= stream.skip < b0 + block:
            pos = pos[stream.skip - b0:]
        yield b0, pos


def global_order(shards, seed, epoch, shuffle, streams, batch_size, shuffle_block, samples_seen=0):
    """The global order as (shard index, sample index) pairs, computed without
    reading anything: what a 1 x 1 run yields. For tests and for checking a run."""
    plan = plan_epoch(shards, seed, epoch, shuffle, streams, batch_size)
    ordered = resume_streams(plan, batch_size, samples_seen)
    iters = [_stream_positions(s, seed, epoch, shuffle, shuffle_block) for s in ordered]
    out = []
    active = list(range(len(iters)))
    while active:
        nxt = []
        for i in active:
            unit = []
            for _ in range(batch_size):
                v = next(iters[i], None)
                if v is None:
                    break
                unit.append(v)
            out.extend(unit)
            if len(unit) == batch_size:
                nxt.append(i)
        active = nxt
    return out


def _stream_positions(stream, seed, epoch, shuffle, shuffle_block):
    flat = []
    for seg in stream.segments:
        flat.extend((seg.shard, i) for i in range(seg.first, seg.end))
    for _b0, pos in stream_order(stream, seed, epoch, shuffle, shuffle_block):
        for p in pos:
            yield flat[p]
