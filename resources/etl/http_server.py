#!/usr/bin/python3
"""An hpush:// / hpull:// transformer written with Python's standard library.

  http_server.py --port {port} [--op md5|upper|identity|resize] [--size N]

hpush://  POST /<bucket>/<object>   body: the object's bytes -> the result
hpull://  GET  /<bucket>/<object>   reads the object from the target
          (TESSERA_TARGET_URL/v1/objects/<bucket>/<object>) -> the result
GET /health answers 200 once the server is up.
A request's etl_args arrive as the query parameter etl_args.
"""
import argparse
import hashlib
import io
import os
import sys
import urllib.parse
import urllib.request
import ssl
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# On a TLS cluster the target names the CA of its certificate; None (the
# system's store) on a plain one, where the target URL is http.
TARGET_TLS = (ssl.create_default_context(cafile=os.environ["TESSERA_CA_FILE"])
              if os.environ.get("TESSERA_CA_FILE") else None)


def transform(op, data, size):
    if op == "md5":
        return hashlib.md5(data).hexdigest().encode()
    if op == "upper":
        return data.upper()
    if op == "resize":
        from PIL import Image
        img = Image.open(io.BytesIO(data)).convert("RGB").resize((size, size), Image.BILINEAR)
        out = io.BytesIO()
        img.save(out, format="JPEG", quality=90)
        return out.getvalue()
    return data


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Small answers go out at once (no Nagle delay waiting for an ACK).
    disable_nagle_algorithm = True
    op = "identity"
    size = 64

    def log_message(self, fmt, *args):  # quiet: stderr is the ETL's log
        pass

    def reply(self, status, body, ctype="application/octet-stream"):
        # The head is buffered by send_header; head and body leave in one write.
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self._headers_buffer.append(b"\r\n")
        self._headers_buffer.append(body)
        self.flush_headers()

    def do_GET(self):
        path = urllib.parse.urlsplit(self.path)
        if path.path == "/health":
            return self.reply(200, b"ok", "text/plain")
        # hpull: read the object from the target, same query minus nothing.
        target = os.environ["TESSERA_TARGET_URL"]
        url = target + "/v1/objects" + path.path + ("?" + path.query if path.query else "")
        try:
            with urllib.request.urlopen(url, timeout=30, context=TARGET_TLS) as r:
                data = r.read()
        except Exception as e:
            print(f"http_server: cannot read {url}: {e}", file=sys.stderr, flush=True)
            return self.reply(502, f"cannot read the object: {e}".encode(), "text/plain")
        self.answer(data)

    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        self.answer(self.rfile.read(n))

    def answer(self, data):
        try:
            out = transform(self.op, data, self.size)
        except Exception as e:
            print(f"http_server: {self.op} failed: {e}", file=sys.stderr, flush=True)
            return self.reply(500, f"{self.op} failed: {e}".encode(), "text/plain")
        self.reply(200, out)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, default=int(os.environ.get("TESSERA_ETL_PORT", "0")))
    p.add_argument("--host", default=os.environ.get("TESSERA_ETL_HOST", "127.0.0.1"))
    p.add_argument("--op", default="identity", choices=["md5", "upper", "identity", "resize"])
    p.add_argument("--size", type=int, default=64)
    a = p.parse_args()
    Handler.op = a.op
    Handler.size = a.size
    server = ThreadingHTTPServer((a.host, a.port), Handler)
    server.daemon_threads = True
    print(f"http_server: {a.op} on {a.host}:{a.port}", file=sys.stderr, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
