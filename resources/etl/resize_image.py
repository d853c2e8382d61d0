#!/usr/bin/python3
"""io:// transformer: an image (PNG, JPEG, ... anything PIL reads) resized to
fit SIZE x SIZE and re-encoded as JPEG.

Usage (spec command): ["resize_image.py", "64"] or ["resize_image.py", "64", "90"]
(size in pixels, JPEG quality).
- One process per object (framing "none"): the image on stdin, the JPEG on
  stdout; etl_args "NxN" overrides the size per request.
- Long-lived (framing "length", TESSERA_ETL_FRAMING=length): frames on stdin
  (8-byte big-endian length, then the image), the same framing on stdout.
"""
import io
import os
import struct
import sys

from PIL import Image


def resize(data: bytes, size: int, quality: int) -> bytes:
    img = Image.open(io.BytesIO(data))
    img.load()
    img = img.convert("RGB").resize((size, size), Image.BILINEAR)
    out = io.BytesIO()
    img.save(out, format="JPEG", quality=quality)
    return out.getvalue()


def read_exact(stream, n: int) -> bytes:
    parts = []
    while n > 0:
        chunk = stream.read(n)
        if not chunk:
            return b""
        parts.append(chunk)
        n -= len(chunk)
    return b"".join(parts)


def framed(size: int, quality: int) -> int:
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    while True:
        head = read_exact(stdin, 8)
        if not head:
            return 0  # the node closed the stream
        data = read_exact(stdin, struct.unpack(">Q", head)[0])
        try:
            out = resize(data, size, quality)
        except Exception as e:  # a bad image: exit, the node reports it and starts a new worker
            print(f"resize_image: cannot decode the input ({len(data)} bytes): {e}", file=sys.stderr, flush=True)
            return 1
        stdout.write(struct.pack(">Q", len(out)))
        stdout.write(out)
        stdout.flush()


def main() -> int:
    size = int(sys.argv[1]) if len(sys.argv) > 1 else 64
    quality = int(sys.argv[2]) if len(sys.argv) > 2 else 90
    if os.environ.get("TESSERA_ETL_FRAMING") == "length":
        return framed(size, quality)
    args = os.environ.get("TESSERA_ETL_ARGS", "")
    if args:
        size = int(args.split("x")[0])
    data = sys.stdin.buffer.read()
    try:
        out = resize(data, size, quality)
    except Exception as e:  # not an image: a clear error, exit 1
        print(f"resize_image: cannot decode the input ({len(data)} bytes): {e}", file=sys.stderr)
        return 1
    sys.stdout.buffer.write(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
