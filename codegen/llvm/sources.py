"""The hand-written LLVM IR kernels, kept as ``.ll`` files in this package (read, not imported)."""

from __future__ import annotations

from functools import cache
from importlib import resources

__all__ = ["ir_source"]


@cache
def ir_source(name: str) -> str:
    """The text of ``codegen/llvm/<name>.ll`` (e.g. ``"trees"``, ``"mlp_vector_math"``)."""
    path = resources.files(__package__).joinpath(f"{name}.ll")
    if not path.is_file():
        raise FileNotFoundError(f"no IR kernel {name!r} in {__package__}")
    return path.read_text(encoding="utf-8")
