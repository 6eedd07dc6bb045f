"""Single background threads, each started on first use and shared by every scorer of the process.

Native code (binding x, building plans, LLVM compiles) releases the GIL, so one extra thread per
kind of work runs beside the search without contending with it for Python. :func:`stop_all` ends
every such thread (a later use starts it again).
"""

from __future__ import annotations

import threading
import weakref
from concurrent.futures import ThreadPoolExecutor

__all__ = ["LazyThread", "stop_all"]

#: every LazyThread of the process, for stop_all
_ALL: weakref.WeakSet[LazyThread] = weakref.WeakSet()


class LazyThread:
    """A one-worker executor named ``name``, created the first time :meth:`get` is called."""

    def __init__(self, name: str):
        self.name = name
        self._executor: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()
        _ALL.add(self)

    def get(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._executor is None:
                self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=self.name)
            return self._executor

    def stop(self) -> None:
        """Finish the queued work and end the thread; the next :meth:`get` starts a new one."""
        with self._lock:
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True)


def stop_all() -> None:
    """:meth:`LazyThread.stop` every background thread of the process (safe to call again)."""
    for lazy in list(_ALL):
        lazy.stop()
