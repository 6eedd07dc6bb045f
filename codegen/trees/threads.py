"""Single background threads, each started on first use and shared by every scorer of the process.

Native code (binding x, building plans, LLVM compiles) releases the GIL, so one extra thread per
kind of work runs beside the search without contending with it for Python.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

__all__ = ["LazyThread"]


class LazyThread:
    """A one-worker executor named ``name``, created the first time :meth:`get` is called."""

    def __init__(self, name: str):
        self.name = name
        self._executor: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()

    def get(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._executor is None:
                self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=self.name)
            return self._executor
