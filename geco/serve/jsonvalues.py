"""The JSON kind of a value (what a request's field must be), read as JSON reads numpy's scalars."""

from __future__ import annotations

import math
from typing import Any

from geco.result import plain

__all__ = ["json_kind"]


def json_kind(v: Any) -> str:
    """``number``, ``string``, ``boolean``, ``null``, ``array``, ``object`` - or ``non-finite
    number`` for a float beyond float64 (``1e999`` parses to inf)."""
    v = plain(v)
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "number"
    if isinstance(v, float):
        return "number" if math.isfinite(v) else "non-finite number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    if isinstance(v, dict):
        return "object"
    return type(v).__name__
