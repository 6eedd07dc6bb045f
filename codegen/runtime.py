"""codegen's process-wide runtime, for callers outside codegen: the persistent cache of compiled
code, compile counters, assembly for inspection, and stopping the background threads.

Each function imports what it needs when called, so importing :mod:`codegen` loads no llvmlite.
"""

from __future__ import annotations

from typing import Any

__all__ = ["cache_settings", "compile_statistics", "configure_cache", "emit_assembly", "shutdown"]


def cache_settings() -> dict[str, Any]:
    """What :func:`configure_cache` set in this process (pass it to ``configure_cache(**settings)``
    in a worker process to give it the same cache)."""
    from codegen.llvm import disk_cache

    return disk_cache.settings()


def configure_cache(**settings: Any) -> None:
    """Set this process's disk cache of compiled code: ``directory`` (a path, ``False`` for none,
    ``None`` for the environment's ``GECO_LLVM_CACHE``) and ``max_bytes``."""
    from codegen.llvm import disk_cache

    disk_cache.configure(**settings)


def compile_statistics() -> dict[str, Any]:
    """This process's compile counters: ``hits`` (in memory), ``misses``, ``compiles`` and
    ``compile_seconds``, loads of finished objects (``disk_hits``, ``preloaded_hits``,
    ``load_seconds``), ``disk_stores`` and ``entries`` in memory."""
    from codegen.llvm import binding

    return binding.cache_info()


def emit_assembly(ir_text: str) -> str:
    """Host assembly of an LLVM IR module (after the optimisation pipeline), for inspection."""
    from codegen.llvm import binding

    return binding.emit_assembly(ir_text)


def shutdown() -> None:
    """Stop codegen's background threads (plan building, compiles) after their queued
    work; safe to call more than once, and a later explanation starts them again."""
    from codegen.trees.threads import stop_all

    stop_all()
