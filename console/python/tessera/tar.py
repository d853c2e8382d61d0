"""Streaming tar: read members as bytes arrive, write WebDataset shards.

The reader needs only ``read(n)`` (no seek), so a shard is parsed while it
downloads and never held whole; it yields each regular file's name, bytes and
the offset of its header in the stream, which is where a later read can start
again. It understands ustar (``prefix`` + ``name``), pax ``path`` records and
GNU long names; links, directories and other entries are skipped.
"""

import io
import tarfile

BLOCK = 512


class TarFormatError(ValueError):
    """The bytes are not a tar stream this reader understands."""


def _read_exact(f, n):
    chunks = []
    left = n
    while left > 0:
        c = f.read(left)
        if not c:
            break
        chunks.append(c)
        left -= len(c)
    data = b"".join(chunks) if len(chunks) != 1 else chunks[0]
    return data


def _octal(field):
    field = field.rstrip(b"\0 ").strip()
    if not field:
        return 0
    if field[0] & 0x80:  # base-256 (GNU) for big sizes
        return int.from_bytes(field, "big") & ~(0x80 << (8 * (len(field) - 1)))
    return int(field, 8)


def _pad(size):
    return (BLOCK - size % BLOCK) % BLOCK


def _pax_path(data):
    i = 0
    path = None
    while i < len(data):
        sp = data.index(b" ", i)
        length = int(data[i:sp])
        rec = data[sp + 1:i + length - 1]
        k, _, v = rec.partition(b"=")
        if k == b"path":
            path = v.decode("utf-8")
        i += length
    return path


def iter_members(f, start_offset=0):
    """Yields ``(name, bytes, header_offset)`` for each regular file of the tar
    stream ``f`` (positioned at a header, ``start_offset`` bytes into the shard).
    Ends at the end-of-archive marker or at the end of the bytes."""
    offset = start_offset
    long_name = None
    entry_offset = None
    while True:
        hdr = _read_exact(f, BLOCK)
        if len(hdr) < BLOCK or hdr == b"\0" * BLOCK:
            return
        if entry_offset is None:
            entry_offset = offset
        offset += BLOCK
        chksum = _octal(hdr[148:156])
        if chksum != sum(hdr[:148]) + 256 + sum(hdr[156:]):
            raise TarFormatError(f"bad tar header checksum at byte {offset - BLOCK}")
        size = _octal(hdr[124:136])
        kind = hdr[156:157]
        payload = _read_exact(f, size)
        if len(payload) < size:
            raise TarFormatError(f"tar member cut short at byte {offset + len(payload)}")
        pad = _pad(size)
        if pad:
            _read_exact(f, pad)
        offset += size + pad
        if kind in (b"x", b"L"):
            long_name = _pax_path(payload) if kind == b"x" else payload.rstrip(b"\0").decode("utf-8")
            continue
        if kind == b"g":
            continue
        if kind in (b"0", b"\0", b"7"):
            if long_name is not None:
                name = long_name
            else:
                name = hdr[0:100].split(b"\0", 1)[0].decode("utf-8")
                if hdr[257:262] == b"ustar":
                    prefix = hdr[345:500].split(b"\0", 1)[0].decode("utf-8")
                    if prefix:
                        name = prefix + "/" + name
            if name.startswith("./"):
                name = name[2:]
            yield name, payload, entry_offset
        long_name = None
        entry_offset = None


def sample_key(name):
    """WebDataset's key and extension: ``train/0001.jpg`` -> (``train/0001``, ``jpg``)."""
    slash = name.rfind("/")
    dot = name.find(".", slash + 1)
    if dot < 0:
        return name, ""
    return name[:dot], name[dot + 1:]


def iter_samples(members):
    """Groups consecutive members of one key: yields ``(key, {ext: bytes}, offset)``."""
    key, files, first = None, None, None
    for name, payload, off in members:
        k, ext = sample_key(name)
        if k != key:
            if key is not None:
                yield key, files, first
            key, files, first = k, {}, off
        files[ext] = payload
    if key is not None:
        yield key, files, first


def member_span(name, size):
    """Bytes one member takes in a ustar stream (header + data + padding), or None
    when the name needs an extended header (its size depends on the writer)."""
    raw = name.encode("utf-8")
    if len(raw) > 100 or not name.isascii():
        return None
    return BLOCK + size + _pad(size)


class ShardWriter:
    """Writes one ``.tar`` in memory, sample by sample (``add(key, {ext: bytes})``),
    members of a sample in extension order. ``size`` is the bytes so far; the
    finished shard adds only the 1 KiB end-of-archive marker (no padding to
    tar's 10 KiB records, which shards do not need)."""

    def __init__(self, mtime=0):
        self._buf = io.BytesIO()
        self._mtime = mtime
        self.samples = 0

    @property
    def size(self):
        return self._buf.tell()

    def add(self, key, files):
        for ext in sorted(files):
            data = files[ext]
            info = tarfile.TarInfo(f"{key}.{ext}" if ext else key)
            info.size = len(data)
            info.mtime = self._mtime
            info.mode = 0o644
            self._buf.write(info.tobuf(tarfile.PAX_FORMAT, "utf-8", "surrogateescape"))
            self._buf.write(data)
            self._buf.write(b"\0" * _pad(len(data)))
        self.samples += 1

    def finish(self):
        self._buf.write(b"\0" * (2 * BLOCK))
        return self._buf.getvalue()


def estimate_sample_size(key, files):
    return sum(BLOCK + len(d) + _pad(len(d)) for d in files.values())
