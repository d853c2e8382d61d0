#!/usr/bin/python3
"""io:// transformer: an image (PNG, JPEG, ... anything PIL reads) on stdin,
resized to fit SIZE x SIZE and re-encoded as JPEG on stdout.

Usage (spec command): ["resize_image.py", "64"] or ["resize_image.py", "64", "90"]
(size in pixels, JPEG quality). etl_args "NxN" overrides the size per request.
"""
import io
import os
import sys

from PIL import Image


def main() -> int:
    size = int(sys.argv[1]) if len(sys.argv) > 1 else 64
    quality = int(sys.argv[2]) if len(sys.argv) > 2 else 90
    args = os.environ.get("TESSERA_ETL_ARGS", "")
    if args:
        size = int(args.split("x")[0])
    data = sys.stdin.buffer.read()
    try:
        img = Image.open(io.BytesIO(data))
        img.load()
    except Exception as e:  # not an image: a clear error, exit 1
        print(f"resize_image: cannot decode the input ({len(data)} bytes): {e}", file=sys.stderr)
        return 1
    img = img.convert("RGB")
    img = img.resize((size, size), Image.BILINEAR)
    out = io.BytesIO()
    img.save(out, format="JPEG", quality=quality)
    sys.stdout.buffer.write(out.getvalue())
    return 0


if __name__ == "__main__":
    sys.exit(main())
