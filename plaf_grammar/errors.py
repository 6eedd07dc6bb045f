"""Errors of the PLAF language.

Why one hierarchy: a user who writes a bad ``.plaf`` file must get a message that points at the
place (``file:line:col``), shows the line and a caret, and never a Python traceback. Every error
the parser, the checker and the grounding raise is a :class:`PLAFError`; callers catch one class.
"""

from __future__ import annotations

__all__ = [
    "PLAFCycleError",
    "PLAFError",
    "PLAFFileNotFoundError",
    "PLAFNameError",
    "PLAFSyntaxError",
    "PLAFTypeError",
    "PLAFValueError",
]


class PLAFError(ValueError):
    """A bad PLAF program. ``str()`` is ``file:line:col: message``, the source line and a caret.

    ``line`` and ``column`` are 1-based (``None`` when the error has no place, e.g. an empty
    schema); ``end_column`` (exclusive, same line) widens the caret to the whole token.
    """

    def __init__(
        self,
        message: str,
        line: int | None = None,
        column: int | None = None,
        filename: str | None = None,
        source: str | None = None,
        end_column: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column
        self.filename = filename
        self.source = source
        self.end_column = end_column

    def with_context(self, filename: str | None, source: str | None) -> PLAFError:
        """Fill in the file name and text if the raiser did not know them (returns self)."""
        if self.filename is None:
            self.filename = filename
        if self.source is None:
            self.source = source
        return self

    def source_line(self) -> str | None:
        """The text of the offending line, or None if unknown (lines end at '\\n' only, as
        the parser counts them)."""
        if self.source is None or self.line is None:
            return None
        lines = self.source.split("\n")
        if 1 <= self.line <= len(lines):
            return lines[self.line - 1].removesuffix("\r")
        return None

    def __str__(self) -> str:
        where = self.filename or "<string>"
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        out = f"{where}: {self.message}"
        text = self.source_line()
        if text is not None and self.column is not None:
            col = max(1, self.column)
            end = col + 1
            if self.end_column is not None and self.end_column > col:
                end = min(self.end_column, len(text) + 1)
            text, col, end = _window(text, col, end)
            text = "".join(c if c.isprintable() else " " for c in text)  # keeps the caret aligned
            out += f"\n    {text}\n    {' ' * (col - 1)}^{'~' * max(0, end - col - 1)}"
        return out

    def __reduce__(self):  # keep the attributes when pickled (multiprocessing)
        return (
            type(self),
            (self.message, self.line, self.column, self.filename, self.source, self.end_column),
        )


_WIDTH = 100  # longest source excerpt shown under a message


def _window(text: str, col: int, end: int) -> tuple[str, int, int]:
    """At most _WIDTH characters of a long line around columns [col, end), with '...' marks;
    returns the excerpt and the columns moved into it."""
    if len(text) <= _WIDTH:
        return text, col, end
    start = max(0, min(col - 1 - _WIDTH // 2, len(text) - _WIDTH))
    stop = start + _WIDTH
    head = "..." if start > 0 else ""
    tail = "..." if stop < len(text) else ""
    shift = len(head) - start
    return head + text[start:stop] + tail, col + shift, min(end, stop + 1) + shift


class PLAFSyntaxError(PLAFError):
    """The text is not PLAF: an unexpected token or character, an unterminated string."""


class PLAFNameError(PLAFError):
    """A feature name problem: unknown feature, a name twice, a feature in two groups."""


class PLAFTypeError(PLAFError):
    """An expression mixes kinds: ``<`` on an unordered categorical, arithmetic on a string, ..."""


class PLAFValueError(PLAFError):
    """A value problem: unknown category, a rule without ``cf``, a number out of range."""


class PLAFCycleError(PLAFError):
    """Implications whose group dependencies form a cycle (or a group depending on itself)."""


class PLAFFileNotFoundError(PLAFError, FileNotFoundError):
    """Constraints given as a path that names no file: a path is never parsed as PLAF text.

    Also a ``FileNotFoundError`` (callers catching ``OSError`` keep working); ``filename`` is
    the path. ``str()`` is ``no such file: PATH`` and why the text was taken for a path."""

    def __init__(
        self, path: str, reason: str = "it looks like a path, so it is not read as PLAF text"
    ) -> None:
        super().__init__(f"no such file: {path} ({reason})", filename=path)
        self.reason = reason

    def __str__(self) -> str:
        return self.message

    def __reduce__(self):
        return (type(self), (self.filename, self.reason))
