"""Structured access logs: one JSON line per request (time, method, path, status, latency in ms,
request id, key id - never the key -, rows explained, worker pid), written whole with one
``write`` so the lines of several workers appending to one file never interleave."""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

__all__ = ["AccessLog"]


class AccessLog:
    """Appends JSON lines to ``path`` (None: stderr)."""

    def __init__(self, path: str | None = None):
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644) if path else None

    def write(self, **fields: Any) -> None:
        record = {"ts": round(time.time(), 3), "pid": os.getpid(), **fields}
        line = json.dumps(record, default=str, separators=(",", ":")) + "\n"
        if self._fd is not None:
            os.write(self._fd, line.encode("utf-8"))
        else:
            sys.stderr.write(line)
            sys.stderr.flush()

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
