"""Where PLAF text comes from: a file, bytes or a string, always decoded as UTF-8.

Why here and strict: a file saved in another encoding must fail at the byte that is not UTF-8,
with its line and column, as any other error in the program does; a silently mis-decoded name
would surface later as a confusing "unknown feature".
"""

from __future__ import annotations

from pathlib import Path

from plaf_grammar.errors import PLAFSyntaxError

__all__ = ["decode", "read", "resolve"]

_BOM = "\ufeff"


def decode(data: bytes, filename: str | None = None) -> str:
    """UTF-8 bytes -> text (a leading byte-order mark is dropped). A byte sequence that is not
    UTF-8 raises :class:`PLAFSyntaxError` at its line and column."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line_start = data.rfind(b"\n", 0, e.start) + 1
        line = data.count(b"\n", 0, e.start) + 1
        prefix = data[line_start : e.start].decode("utf-8", errors="replace")
        if line == 1 and prefix.startswith(_BOM):
            prefix = prefix[1:]
        shown = data.decode("utf-8", errors="replace").removeprefix(_BOM)
        bad = data[e.start : e.end].hex(" ")
        raise PLAFSyntaxError(
            f"the text is not valid UTF-8 (byte {bad}); save the file as UTF-8",
            line, len(prefix) + 1, filename, shown,
        ) from None  # fmt: skip
    return text.removeprefix(_BOM)


def read(path: Path | str) -> str:
    """The text of a PLAF file (``FileNotFoundError`` if there is none)."""
    return decode(Path(path).read_bytes(), str(path))


def resolve(path_or_text: str | bytes | Path) -> tuple[str, str | None]:
    """(text, filename) of a ``Path``, a string naming an existing file, bytes, or PLAF text.

    A string ending in ``.plaf`` that names no file is a ``FileNotFoundError`` (a typo in a
    path should not be parsed as a program)."""
    if isinstance(path_or_text, Path):
        return read(path_or_text), str(path_or_text)
    if isinstance(path_or_text, (bytes, bytearray)):
        return decode(bytes(path_or_text)), None
    if not isinstance(path_or_text, str):
        raise TypeError(f"expected a path, bytes or PLAF text, got {type(path_or_text).__name__}")
    one_line = "\n" not in path_or_text and len(path_or_text) < 4096
    try:
        is_file = one_line and Path(path_or_text).is_file()
    except (OSError, ValueError):  # e.g. an embedded NUL byte
        is_file = False
    if is_file:
        return read(path_or_text), path_or_text
    if one_line and path_or_text.endswith(".plaf"):
        raise FileNotFoundError(f"no such PLAF file: {path_or_text}")
    return path_or_text, None
