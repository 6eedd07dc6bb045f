"""The one way Python writes LLVM IR text: exact double literals and a function's lines.

Why one module: the tree and MLP emitters write the same kinds of lines (a signature, labelled
blocks, two-space-indented instructions, ``;`` comments), and the text must stay byte-stable (disk
cache keys and golden files depend on it). Lines are collected in a list and joined once, so a
module of hundreds of thousands of lines is built in linear time; ``instrs`` writes several lines
in one call to keep the per-line cost of large tree modules low.
"""

from __future__ import annotations

import struct

__all__ = ["FunctionText", "hex_double", "module_comment"]

_DOUBLE = struct.Struct("<d")
_BITS = struct.Struct("<Q")


def hex_double(v: float) -> str:
    """``v`` as LLVM's exact hexadecimal double literal (``0x3FF0000000000000`` for 1.0); NaN and
    infinities included, no rounding through decimal."""
    return f"0x{_BITS.unpack(_DOUBLE.pack(float(v)))[0]:016X}"


def module_comment(text: str) -> str:
    """A top-level comment line (``; text``)."""
    return f"; {text}"


class FunctionText:
    """The lines of one function definition, from its signature to its closing brace.

    ``signature`` is the ``define`` line without the opening brace. Instructions are indented by
    two spaces, labels are not; ``note`` puts a trailing ``  ; note`` comment on a line."""

    __slots__ = ("lines",)

    def __init__(self, signature: str):
        self.lines: list[str] = [signature + " {"]

    def label(self, name: str, note: str | None = None) -> None:
        """Open the basic block ``name``."""
        self.lines.append(f"{name}:" if note is None else f"{name}:  ; {note}")

    def instr(self, text: str, note: str | None = None) -> None:
        """One instruction line."""
        self.lines.append("  " + text if note is None else f"  {text}  ; {note}")

    def instrs(self, *texts: str, note: str | None = None) -> None:
        """Several instruction lines in one call (``note`` comments the last one)."""
        line = "  " + "\n  ".join(texts)
        self.lines.append(line if note is None else f"{line}  ; {note}")

    def comment(self, text: str) -> None:
        """A comment line in the body, one per line of ``text``."""
        for ln in text.splitlines():
            self.lines.append(f"  ; {ln}")

    def text(self) -> str:
        """The whole definition, closed, without a trailing newline."""
        return "\n".join(self.lines) + "\n}"
