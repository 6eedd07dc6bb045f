"""Numbers as people read them, the same way in cards, tables and charts.

Thousands separators instead of exponents (``28,400``, never ``2.84e+04``); below 1,000 four
significant digits (``0.1234``, ``12.35``); from 1,000 up the whole integer part, so two values
a card shows as different never print alike; a sign on every change (``+28,400``, ``-3``)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["format_change", "format_count", "format_number", "format_probability", "format_value"]

SIGNIFICANT = 4


def format_number(v: float, significant: int = SIGNIFICANT) -> str:
    """A number with thousands separators: integers exact, other values to ``significant``
    digits but never fewer than their integer part; non-finite values as ``nan``/``inf``."""
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, (bool, np.bool_)):
        return str(v)
    if isinstance(v, int):
        return f"{v:,}"
    v = float(v)
    if not math.isfinite(v):
        return str(v)
    if v == 0:
        return "0"
    if abs(v) >= 10 ** (significant - 1):
        return f"{round(v):,}"
    decimals = significant - 1 - math.floor(math.log10(abs(v)))
    if decimals > 10:  # tiny: an exponent is clearer than a row of zeros
        return f"{v:.{significant - 1}e}"
    text = f"{v:,.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def format_change(v: float, significant: int = SIGNIFICANT) -> str:
    """A signed change: ``+28,400``, ``-3``, ``0``."""
    text = format_number(v, significant)
    return text if text.startswith("-") or text in ("0", "nan") else f"+{text}"


def format_count(n: int) -> str:
    """A count: ``12,000``."""
    return f"{int(n):,}"


def format_value(v: Any) -> str:
    """A feature value: numbers by :func:`format_number`, anything else (categories, text,
    booleans) as it is."""
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return str(v)
    return format_number(v)


def format_probability(p: float) -> str:
    """A probability to three decimals (``0.612``); ``–`` when unknown (a row that errored)."""
    p = float(p)
    return f"{p:.3f}" if math.isfinite(p) else "–"
