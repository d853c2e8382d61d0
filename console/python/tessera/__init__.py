"""Tessera's Python client: ``from tessera import Client``.

The core (:mod:`tessera.client`, :mod:`tessera.hrw`, :mod:`tessera.tar`,
:mod:`tessera.shards`) needs the standard library only; :mod:`tessera.torch`
needs PyTorch (and numpy/PIL for image decoding).
"""

from .client import Client, ListPage, ObjectReader
from .errors import (BadRequest, Conflict, ConnectionLost, Corruption, Forbidden, HTTPError, MethodNotAllowed,
                     NoSpace, NotFound, RangeNotSatisfiable, ServerError, ShardChanged, TesseraError, Timeout,
                     TooLarge, TooManyRequests, Unauthorized, Unavailable)

__all__ = ["Client", "ListPage", "ObjectReader", "BadRequest", "Conflict", "ConnectionLost", "Corruption", "Forbidden",
           "HTTPError", "MethodNotAllowed", "NoSpace", "NotFound", "RangeNotSatisfiable", "ServerError",
           "ShardChanged", "TesseraError", "Timeout", "TooLarge", "TooManyRequests", "Unauthorized", "Unavailable"]
__version__ = "0.1.0"
