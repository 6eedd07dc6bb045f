"""Where PLAF text comes from: a file, bytes or a string, always decoded as UTF-8.

Why here and strict: a file saved in another encoding must fail at the byte that is not UTF-8,
with its line and column, as any other error in the program does; a silently mis-decoded name
would surface later as a confusing "unknown feature". Likewise a string that looks like a path
(``rules.txt``, ``./my_rules``) but names no file is reported as such, never parsed as PLAF.
"""

from __future__ import annotations

import re
from pathlib import Path

from plaf_grammar.errors import PLAFFileNotFoundError, PLAFSyntaxError
from plaf_grammar.printer import KEYWORDS

__all__ = ["byte_line", "decode", "line_ends", "looks_like_path", "read", "resolve"]

#: Characters only PLAF text holds (operators, sets, strings, comments), never a usual path.
_PLAF_CHARS = frozenset('=<>!{}()",;#*')
#: PLAF words; ``cf`` and ``x`` count only as the start of a reference (``cf.age``). ``cost``
#: is a keyword only where a statement starts, so it is no keyword of the printer's.
_PLAF_WORDS = (KEYWORDS | {"cost"}) - {"cf", "x"}
#: ``cf.NAME`` / ``x.NAME`` not inside a path component (``conf/x.plaf`` holds no reference).
_REFERENCE = re.compile(r"(?<![\w./\\~-])(?:cf|x)\.[^\W\d]")
#: A file extension on the last path component: ``rules.txt``, ``conf/adult.rules``.
_EXTENSION = re.compile(r"[^./\\]\.[A-Za-z0-9_]+\Z")

_BOM = "\ufeff"
#: a carriage return not followed by a newline (a line end of classic Mac OS text)
_LONE_CR = re.compile(r"\r(?!\n)")
#: a line end in bytes: CR LF, LF or a lone CR
_LINE_END = re.compile(rb"\r\n?|\n")


def line_ends(text: str) -> str:
    """``text`` with each lone carriage return made a newline (``\r\n`` the grammar reads as
    one): the same length, so every position stays where it was."""
    return _LONE_CR.sub("\n", text)


def byte_line(data: bytes, pos: int) -> tuple[int, int]:
    """The line (1-based) of byte ``pos`` of ``data``, and where that line starts; a line ends in
    CR LF, LF or a lone CR."""
    ends = [m.end() for m in _LINE_END.finditer(data, 0, pos)]
    return len(ends) + 1, (ends[-1] if ends else 0)


def decode(data: bytes, filename: str | None = None) -> str:
    """UTF-8 bytes -> text (a leading byte-order mark is dropped). A byte sequence that is not
    UTF-8 raises :class:`PLAFSyntaxError` at its line and column."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line, line_start = byte_line(data, e.start)
        prefix = data[line_start : e.start].decode("utf-8", errors="replace")
        if line == 1 and prefix.startswith(_BOM):
            prefix = prefix[1:]
        shown = line_ends(data.decode("utf-8", errors="replace").removeprefix(_BOM))
        bad = data[e.start : e.end].hex(" ")
        raise PLAFSyntaxError(
            f"the text is not valid UTF-8 (byte {bad}); save the file as UTF-8",
            line, len(prefix) + 1, filename, shown,
        ) from None  # fmt: skip
    return text.removeprefix(_BOM)


def read(path: Path | str) -> str:
    """The text of a PLAF file (``FileNotFoundError`` if there is none)."""
    return decode(Path(path).read_bytes(), str(path))


def looks_like_path(text: str) -> bool:
    """Whether a one-line string is meant as a file name rather than PLAF text: it ends in
    ``.plaf``, or it holds no PLAF operator, keyword or ``cf.``/``x.`` reference and has a path
    separator, a leading ``~`` or a file extension. ``fixed age`` and ``cf.flag`` are PLAF;
    ``rules.txt``, ``./my_rules`` and ``conf/adult_rules`` are paths."""
    s = text.strip()
    if not s or "\n" in s:
        return False
    if s.endswith(".plaf"):
        return True
    if _PLAF_CHARS.intersection(s) or _PLAF_WORDS.intersection(s.split()) or _REFERENCE.search(s):
        return False
    return "/" in s or "\\" in s or s.startswith("~") or _EXTENSION.search(s) is not None


def resolve(path_or_text: str | bytes | Path) -> tuple[str, str | None]:
    """(text, filename) of a ``Path``, a string naming an existing file, bytes, or PLAF text.

    A ``Path`` that names no file, or a string that names none but :func:`looks_like_path`, raises
    :class:`PLAFFileNotFoundError` (a ``PLAFError`` and a ``FileNotFoundError``): a typo in a
    path is reported as one, not parsed as a program."""
    if isinstance(path_or_text, (bytes, bytearray)):
        return decode(bytes(path_or_text)), None
    given_path = isinstance(path_or_text, Path)  # a Path is a file name, never PLAF text
    if given_path:
        path, label, one_line = path_or_text, str(path_or_text), True
    elif isinstance(path_or_text, str):
        label, one_line = path_or_text, "\n" not in path_or_text and len(path_or_text) < 4096
        path = Path(path_or_text.strip()).expanduser() if one_line and path_or_text.strip() else None
    else:
        raise TypeError(f"expected a path, bytes or PLAF text, got {type(path_or_text).__name__}")
    try:
        is_file = path is not None and path.is_file()
        is_dir = path is not None and not is_file and path.is_dir()
    except (OSError, ValueError):  # e.g. an embedded NUL byte
        is_file = is_dir = False
    if is_file:
        return read(path), label
    if is_dir:
        raise PLAFFileNotFoundError(label, "it is a directory; give a .plaf file in it")
    if given_path:
        raise PLAFFileNotFoundError(label, "the constraints file given")
    if one_line and looks_like_path(path_or_text):
        raise PLAFFileNotFoundError(path_or_text)
    return path_or_text, None
