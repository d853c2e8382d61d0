#!/usr/bin/python3
"""The local reference of the offline ETL benchmark (tests/bench/etl.sh):
resizes every image file named on the command line to SIZE x SIZE JPEG (the
same PIL calls as resources/etl/http_server.py --op resize) into OUTDIR,
keeping the path below ROOT. Run by `xargs -P` over the files.

  etl_resize_files.py SIZE ROOT OUTDIR FILE...
"""
import io
import os
import sys

from PIL import Image


def main():
    size, root, outdir = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    for path in sys.argv[4:]:
        with open(path, "rb") as f:
            data = f.read()
        img = Image.open(io.BytesIO(data)).convert("RGB").resize((size, size), Image.BILINEAR)
        out = io.BytesIO()
        img.save(out, format="JPEG", quality=90)
        dest = os.path.join(outdir, os.path.relpath(path, root))[:-4] + ".jpg"
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        with open(dest, "wb") as f:
            f.write(out.getvalue())


if __name__ == "__main__":
    main()
