"""Machine code kept on disk between processes: the object files MCJIT produced, by key.

Why: a worker process (a loky or Dask worker, the next ``geco explain`` run) would otherwise
compile again what another process already compiled - the tree kernels, an MLP kernel, hot
residuals. Loading an object file takes milliseconds.

* Key (computed by :func:`codegen.llvm.binding.disk_key`): a hash of the IR text, the opt level,
  the llvmlite and LLVM versions, the target triple and the host CPU name and features, so a
  file made by another version or another CPU is never looked up.
* Directory: :func:`configure` (from Python), else ``$GECO_LLVM_CACHE`` (``off`` disables),
  else ``$GECO_CACHE_DIR/llvm``, else ``$XDG_CACHE_HOME/geco/llvm``, else ``~/.cache/geco/llvm``
  (the same root as the CLI's cached default model).
* Files are envelopes ``magic | key | length | sha256(payload) | payload``: LLVM aborts the
  process on a damaged object file, so a file that is short, damaged, or holds another key is
  ignored (and removed), and the code is compiled again.
* Safe under concurrent processes: a file is written to a temporary name in the same directory
  and renamed over the final one (atomic), so a reader sees a whole file or none.
* Bounded: after a store the least recently used files (a hit touches its file) are removed
  until the directory holds at most 80 % of ``max_bytes`` (``$GECO_LLVM_CACHE_MAX_MB``, default
  256 MiB).

The files are trusted like any code in the user's cache directory: the checksum detects damage,
not tampering. No llvmlite import here.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import struct
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

__all__ = ["DiskCache", "configure", "current", "default_directory", "settings"]

_MAGIC = b"GECOOBJ1"
_HEADER = struct.Struct("<8s32sQ32s")  # magic, key digest, payload length, payload sha256
_SUFFIX = ".gobj"
_OFF = ("off", "0", "false", "no", "none")
DEFAULT_MAX_BYTES = 256 * 1024 * 1024
#: temporary files older than this are a crashed writer's: pruning removes them
_STALE_TMP_SECONDS = 3600.0


def default_directory() -> Path:
    """``$GECO_CACHE_DIR/llvm``, else ``$XDG_CACHE_HOME/geco/llvm``, else ``~/.cache/geco/llvm``."""
    if os.environ.get("GECO_CACHE_DIR"):
        return Path(os.environ["GECO_CACHE_DIR"]) / "llvm"
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "geco" / "llvm"


@dataclass(frozen=True)
class DiskCache:
    """One cache directory and its size bound. Every method is safe to call from several
    processes and threads at once; none raises on I/O errors (a cache only saves time)."""

    directory: Path
    max_bytes: int = DEFAULT_MAX_BYTES

    def path(self, key: str) -> Path:
        return self.directory / f"{key}{_SUFFIX}"

    def load(self, key: str) -> bytes | None:
        """The payload stored under ``key``, or None (absent, damaged or another key's file;
        a damaged file is removed)."""
        path = self.path(key)
        try:
            with open(path, "rb") as fh:
                blob = fh.read()
        except OSError:
            return None
        payload = _unwrap(blob, key)
        if payload is None:
            _remove(path)
            return None
        with contextlib.suppress(OSError):
            os.utime(path)  # recently used: pruned last
        return payload

    def store(self, key: str, payload: bytes) -> bool:
        """Write ``payload`` under ``key`` atomically, then prune; False if it could not be written."""
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.directory, prefix=f".{key[:16]}-", suffix=".tmp")
        except OSError:
            return False
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(_wrap(payload, key))
            os.replace(tmp, self.path(key))
        except OSError:
            _remove(Path(tmp))
            return False
        self.prune()
        return True

    def entries(self) -> list[tuple[Path, int, float]]:
        """(path, bytes, mtime) of every cache file."""
        out = []
        try:
            with os.scandir(self.directory) as it:
                for e in it:
                    if e.name.endswith(_SUFFIX):
                        try:
                            st = e.stat()
                        except OSError:  # removed by another process meanwhile
                            continue
                        out.append((Path(e.path), st.st_size, st.st_mtime))
        except OSError:
            pass
        return out

    def prune(self) -> int:
        """Remove least recently used files while the total exceeds ``max_bytes`` (down to 80 %),
        and stale temporary files; returns how many files were removed."""
        removed = 0
        now = time.time()
        try:
            with os.scandir(self.directory) as it:
                for e in it:
                    if e.name.endswith(".tmp"):
                        try:
                            if now - e.stat().st_mtime > _STALE_TMP_SECONDS:
                                removed += _remove(Path(e.path))
                        except OSError:
                            pass
        except OSError:
            return removed
        entries = self.entries()
        total = sum(size for _, size, _ in entries)
        if total <= self.max_bytes:
            return removed
        for path, size, _ in sorted(entries, key=lambda e: e[2]):
            if total <= 0.8 * self.max_bytes:
                break
            removed += _remove(path)
            total -= size
        return removed

    def info(self) -> dict:
        entries = self.entries()
        return {
            "directory": str(self.directory),
            "files": len(entries),
            "bytes": sum(size for _, size, _ in entries),
            "max_bytes": self.max_bytes,
        }

    def clear(self) -> int:
        """Remove every cache file; returns how many."""
        return sum(_remove(path) for path, _, _ in self.entries())


def _digest(key: str) -> bytes:
    return hashlib.sha256(key.encode()).digest()


def _wrap(payload: bytes, key: str) -> bytes:
    return _HEADER.pack(_MAGIC, _digest(key), len(payload), hashlib.sha256(payload).digest()) + payload


def _unwrap(blob: bytes, key: str) -> bytes | None:
    if len(blob) < _HEADER.size:
        return None
    magic, digest, length, checksum = _HEADER.unpack_from(blob)
    payload = blob[_HEADER.size :]
    if magic != _MAGIC or digest != _digest(key) or length != len(payload) or length == 0:
        return None
    if hashlib.sha256(payload).digest() != checksum:
        return None
    return payload


def _remove(path: Path) -> int:
    try:
        path.unlink()
        return 1
    except OSError:  # already removed by another process, or not ours to remove
        return 0


# ---------------------------------------------------------------------------- configuration
_lock = threading.Lock()
_configured: dict = {}  # set by configure(): {"directory": Path | None (off), "max_bytes": int}


def configure(directory: str | os.PathLike[str] | bool | None = None, max_bytes: int | None = None) -> None:
    """Set the cache for this process: a directory, ``False`` (no disk cache) or ``None`` (back
    to the environment's setting); ``max_bytes`` bounds its size (None: the environment's or
    the default). Batch workers started by geco receive the parent's setting."""
    if max_bytes is not None and max_bytes < 0:
        raise ValueError(f"max_bytes must be >= 0, got {max_bytes}")
    if directory is True:
        raise ValueError("directory must be a path, False (off) or None (environment), not True")
    with _lock:
        _configured.clear()
        if directory is not None:
            _configured["directory"] = None if directory is False else Path(directory)
        if max_bytes is not None:
            _configured["max_bytes"] = int(max_bytes)


def settings() -> dict:
    """What :func:`configure` set (a dict to pass to ``configure(**settings)`` in a worker)."""
    with _lock:
        out = dict(_configured)
    if "directory" in out:
        out["directory"] = False if out["directory"] is None else out["directory"]
    return out


def current() -> DiskCache | None:
    """The cache in force now (None: disabled). Read on every call, so a changed environment
    variable takes effect at once."""
    with _lock:
        conf = dict(_configured)
    if "directory" in conf:
        directory = conf["directory"]
    else:
        env = os.environ.get("GECO_LLVM_CACHE", "").strip()
        directory = None if env.lower() in _OFF and env else (Path(env) if env else default_directory())
    if directory is None:
        return None
    max_bytes = conf.get("max_bytes")
    if max_bytes is None:
        try:
            max_bytes = int(float(os.environ.get("GECO_LLVM_CACHE_MAX_MB", "")) * 1024 * 1024)
        except ValueError:
            max_bytes = DEFAULT_MAX_BYTES
    return DiskCache(Path(directory).expanduser(), max_bytes)
