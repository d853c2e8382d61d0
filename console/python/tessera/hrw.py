"""Highest-random-weight placement, exactly as ``shared/api/hrw.cpp`` computes it.

The owner of ``bucket/name`` is the placement target (not decommissioning) with
the largest ``xxhash64("bucket/name", seed=xxhash64(target id, seed=0))``; ties
go to the smallest id (the C++ map iterates ids in order and keeps the first
maximum). Uses ``python3-xxhash`` when present, else a pure-Python xxhash64
(the same numbers, about 50 times slower).
"""

try:
    import xxhash as _xxhash
except ImportError:  # pragma: no cover - exercised by test_hrw without the module
    _xxhash = None

SNODE_AWAY = 1 << 16
SNODE_MAINTENANCE = 1 << 17
SNODE_DECOMMISSIONING = 1 << 18

_M = (1 << 64) - 1
_P1 = 11400714785074694791
_P2 = 14029467366897019727
_P3 = 1609587929392839161
_P4 = 9650029242287828579
_P5 = 2870177450012600261


def _rotl(x, r):
    return ((x << r) | (x >> (64 - r))) & _M


def _round(acc, lane):
    acc = (acc + lane * _P2) & _M
    return (_rotl(acc, 31) * _P1) & _M


def _merge(acc, val):
    acc ^= _round(0, val)
    return (acc * _P1 + _P4) & _M


def xxhash64_pure(data, seed=0):
    """The reference xxhash64 in Python (for machines without python3-xxhash)."""
    n = len(data)
    i = 0
    if n >= 32:
        v1 = (seed + _P1 + _P2) & _M
        v2 = (seed + _P2) & _M
        v3 = seed & _M
        v4 = (seed - _P1) & _M
        while i + 32 <= n:
            v1 = _round(v1, int.from_bytes(data[i:i + 8], "little"))
            v2 = _round(v2, int.from_bytes(data[i + 8:i + 16], "little"))
            v3 = _round(v3, int.from_bytes(data[i + 16:i + 24], "little"))
            v4 = _round(v4, int.from_bytes(data[i + 24:i + 32], "little"))
            i += 32
        h = (_rotl(v1, 1) + _rotl(v2, 7) + _rotl(v3, 12) + _rotl(v4, 18)) & _M
        for v in (v1, v2, v3, v4):
            h = _merge(h, v)
    else:
        h = (seed + _P5) & _M
    h = (h + n) & _M
    while i + 8 <= n:
        h ^= _round(0, int.from_bytes(data[i:i + 8], "little"))
        h = (_rotl(h, 27) * _P1 + _P4) & _M
        i += 8
    if i + 4 <= n:
        h ^= (int.from_bytes(data[i:i + 4], "little") * _P1) & _M
        h = (_rotl(h, 23) * _P2 + _P3) & _M
        i += 4
    while i < n:
        h ^= (data[i] * _P5) & _M
        h = (_rotl(h, 11) * _P1) & _M
        i += 1
    h ^= h >> 33
    h = (h * _P2) & _M
    h ^= h >> 29
    h = (h * _P3) & _M
    h ^= h >> 32
    return h


def xxhash64(data, seed=0):
    if isinstance(data, str):
        data = data.encode("utf-8")
    if _xxhash is not None:
        return _xxhash.xxh64_intdigest(data, seed)
    return xxhash64_pure(data, seed)


def uname(bucket, name):
    return f"{bucket}/{name}"


class Placement:
    """The placement targets of a cluster map, their seeds computed once.
    ``targets``: {id: snode dict} as in the map's ``tmap``."""

    def __init__(self, targets):
        ids = sorted(tid for tid, node in targets.items() if not (node.get("flags", 0) & SNODE_DECOMMISSIONING))
        self._ids = ids
        self._seeds = [xxhash64(tid) for tid in ids]

    def __len__(self):
        return len(self._ids)

    def owner(self, bucket, name):
        """Id of the target that owns bucket/name, or None without placement targets."""
        key = uname(bucket, name).encode("utf-8")
        best, best_w = None, -1
        if _xxhash is not None:
            h = _xxhash.xxh64_intdigest
            for tid, seed in zip(self._ids, self._seeds):
                w = h(key, seed)
                if w > best_w:
                    best, best_w = tid, w
        else:
            for tid, seed in zip(self._ids, self._seeds):
                w = xxhash64_pure(key, seed)
                if w > best_w:
                    best, best_w = tid, w
        return best

    def order(self, bucket, name, n=None):
        """The first ``n`` target ids of bucket/name's HRW order (the owner first)."""
        key = uname(bucket, name).encode("utf-8")
        ws = sorted(((xxhash64(key, seed), tid) for tid, seed in zip(self._ids, self._seeds)),
                    key=lambda p: (-p[0], p[1]))
        ids = [tid for _, tid in ws]
        return ids if n is None else ids[:n]
