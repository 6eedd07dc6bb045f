"""An Explainer the command line has loaded, handed to the worker in its own process.

``geco serve`` loads the file once to refuse a bad one before any worker starts; with one worker
uvicorn runs the app in that same process, which then loaded the file a second time (seconds
and twice the memory at start-up for an Explainer over a large table). The command line leaves
the loaded object here; the worker takes it if the file is still the one it was loaded from
(same path, size and modification time), and loads the file otherwise. Taken once: a later
app in the process loads its own.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from geco.explainer import Explainer

__all__ = ["hand_over", "take"]

_lock = threading.Lock()
_handed: dict[str, tuple[tuple[int, int], Explainer]] = {}


def _stamp(path: str | Path) -> tuple[str, tuple[int, int]]:
    real = os.path.realpath(path)
    st = os.stat(real)
    return real, (st.st_mtime_ns, st.st_size)


def hand_over(path: str | Path, explainer: Explainer) -> None:
    """Leave ``explainer``, loaded from ``path``, for the worker of this process."""
    real, stamp = _stamp(path)
    with _lock:
        _handed[real] = (stamp, explainer)


def take(path: str | Path) -> Explainer | None:
    """The Explainer handed over for ``path`` if the file has not changed since (once); None
    otherwise (the caller loads the file)."""
    try:
        real, stamp = _stamp(path)
    except OSError:
        return None
    with _lock:
        handed = _handed.pop(real, None)
    return handed[1] if handed is not None and handed[0] == stamp else None
