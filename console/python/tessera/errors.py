"""Typed errors of the Tessera client.

Every HTTP error answer of a node becomes a :class:`HTTPError` subclass chosen
by its status; the node's JSON error body (``{"status","message","caused_by"}``)
is kept in ``message``, ``caused_by`` and ``body``. Failures below HTTP (refused
or dropped connections, timeouts) are :class:`ConnectionLost`.
"""

import json


class TesseraError(Exception):
    """Base of every error this package raises on purpose."""


class ConnectionLost(TesseraError):
    """The connection failed, timed out or was cut, and the retries (if any) ran out."""


class ShardChanged(TesseraError):
    """A shard was rewritten while it was being read; resuming would mix two versions."""


class HTTPError(TesseraError):
    """An error answer. ``status``: the HTTP status; ``message``/``caused_by``: the
    node's JSON error fields (or the first line of a foreign answer); ``method``/``url``:
    the request that got it; ``retry_after``: seconds, when the answer named them."""

    def __init__(self, status, message, caused_by="", method="", url="", body=b"", retry_after=None):
        self.status = status
        self.message = message
        self.caused_by = caused_by
        self.method = method
        self.url = url
        self.body = body
        self.retry_after = retry_after
        text = f"{method} {url}: HTTP {status}: {message}"
        if caused_by:
            text += f" ({caused_by})"
        super().__init__(text)


class BadRequest(HTTPError):
    """400."""


class Unauthorized(HTTPError):
    """401: no token, or a token refused."""


class Forbidden(HTTPError):
    """403: the token lacks the permission."""


class NotFound(HTTPError):
    """404: no such bucket, object, shard member, job or endpoint."""


class MethodNotAllowed(HTTPError):
    """405."""


class Conflict(HTTPError):
    """409: exists already, name collision, a job of that kind running."""


class TooLarge(HTTPError):
    """413."""


class RangeNotSatisfiable(HTTPError):
    """416."""


class Corruption(HTTPError):
    """422: stored bytes do not match their checksum, a damaged or unsafe shard."""


class TooManyRequests(HTTPError):
    """429: too many failed logins; ``retry_after`` says how long to wait."""


class ServerError(HTTPError):
    """500 and other 5xx not named below."""


class Unavailable(HTTPError):
    """503: the owner is away, a listing incomplete, a map change in flight; retried first."""


class Timeout(HTTPError):
    """504."""


class NoSpace(HTTPError):
    """507."""


_BY_STATUS = {
    400: BadRequest,
    401: Unauthorized,
    403: Forbidden,
    404: NotFound,
    405: MethodNotAllowed,
    409: Conflict,
    413: TooLarge,
    416: RangeNotSatisfiable,
    422: Corruption,
    429: TooManyRequests,
    503: Unavailable,
    504: Timeout,
    507: NoSpace,
}


def from_response(status, headers, body, method, url):
    """The typed error for an error answer. ``headers``: a dict with lower-case keys."""
    message, caused_by = "", ""
    try:
        doc = json.loads(body.decode("utf-8")) if body else None
    except (UnicodeDecodeError, ValueError):
        doc = None
    if isinstance(doc, dict) and isinstance(doc.get("message"), str):
        message = doc["message"]
        caused_by = doc.get("caused_by", "") if isinstance(doc.get("caused_by"), str) else ""
    else:
        # A foreign answer (a proxy in between): its first line only, never a whole page.
        first = body.decode("utf-8", "replace").strip().splitlines()[:1] if body else []
        message = first[0][:200] if first else "(no body)"
    retry_after = None
    if "retry-after" in headers:
        try:
            retry_after = float(headers["retry-after"])
        except ValueError:
            retry_after = None
    cls = _BY_STATUS.get(status, ServerError if status >= 500 else HTTPError)
    return cls(status, message, caused_by, method, url, body, retry_after)
