"""The ctypes signature of an IR function, read from its ``define`` line.

Why: a hand-written kernel's parameter list is a contract with the Python that calls it; writing
the ctypes types a second time by hand lets the two drift (an argument shifted by one is a wrong
address, not an error). Reading them from the text that is compiled keeps one declaration.
"""

from __future__ import annotations

import ctypes
import re

__all__ = ["ctypes_signature"]

#: LLVM parameter / return types -> ctypes (None: void)
_CTYPES = {
    "ptr": ctypes.c_void_p,
    "i64": ctypes.c_int64,
    "i32": ctypes.c_int32,
    "double": ctypes.c_double,
    "float": ctypes.c_float,
    "void": None,
}


def ctypes_signature(ir_text: str, name: str) -> tuple[object, tuple[object, ...]]:
    """``(restype, argtypes)`` of the function ``@name`` defined in ``ir_text`` (parameter
    attributes such as ``noalias`` are skipped). Raises ``KeyError`` if no such definition exists
    and ``ValueError`` for a type ctypes cannot pass."""
    m = re.search(rf"^define\s+(?:[a-z_]+\s+)*?(\w+)\s+@{re.escape(name)}\(([^)]*)\)", ir_text, re.M)
    if m is None:
        raise KeyError(f"no definition of @{name}")
    ret, params = m.group(1), [p.split() for p in m.group(2).split(",") if p.strip()]
    try:
        return _CTYPES[ret], tuple(_CTYPES[p[0]] for p in params)
    except KeyError as e:
        raise ValueError(f"@{name}: no ctypes type for {e.args[0]!r}") from None
