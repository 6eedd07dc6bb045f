"""The lock that serialises the processes compiling the search's kernels into numba's cache
(:mod:`geco.search.warm_kernels`), and whether one holds it now. Standard library only: the
parent asks without importing numba or the rest of geco."""

from __future__ import annotations

import contextlib
import hashlib
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

__all__ = ["compile_running", "held_lock", "lock_path"]


def lock_path() -> Path:
    """The lock file of this installation's kernels (one per package directory and Python)."""
    here = str(Path(__file__).resolve().parent)
    key = hashlib.sha1(f"{here}|{sys.version}".encode()).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"geco-kernels-{key}.lock"


@contextlib.contextmanager
def held_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (POSIX ``flock``; elsewhere, or where the file cannot be
    opened - another user's - no lock: the processes then compile side by side, as numba's cache
    allows)."""
    try:
        import fcntl

        f = open(path, "a+b")  # noqa: SIM115 - closed below, after the lock's release
    except (ImportError, OSError):
        yield
        return
    with f:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f.fileno(), fcntl.LOCK_UN)


def compile_running() -> bool:
    """Whether some process holds the lock now (a child compiling, or loading, the kernels): the
    cache may then hold only some of them. False where there is no lock (not POSIX)."""
    try:
        import fcntl

        f = open(lock_path(), "rb")  # noqa: SIM115 - closed below
    except (ImportError, OSError):
        return False
    with f:
        try:
            fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return True
        fcntl.flock(f.fileno(), fcntl.LOCK_UN)
        return False
