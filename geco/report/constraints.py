"""Which PLAF program the report's explanations were made under, and its block on the page.

The program comes from what the caller says (``plaf`` text, else the text of
``constraints_file``), else from the explanations themselves (``stats["plaf"]``, kept where an
explanation is made). When neither says, the report says the constraints are unknown - never
that there were none."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any

from geco.report.numbers import format_count
from geco.result import Explanation

__all__ = ["ProgramsUsed", "constraints_block", "programs_used"]


@dataclass
class ProgramsUsed:
    """The programs behind a batch: ``texts`` maps each distinct program text ("" for no
    constraints) to how many explanations it is known for (given by the caller: all of them);
    ``unknown`` counts explanations that record none; ``files`` the constraint files named."""

    texts: dict[str, int]
    unknown: int
    files: list[str]


def programs_used(explanations: Sequence[Explanation], meta: Mapping[str, Any]) -> ProgramsUsed:
    """The programs of ``explanations``: the caller's ``plaf`` / ``constraints_file`` in
    ``meta`` when given (a file that cannot be read counts as not given), else each
    explanation's ``stats``."""
    files = [Path(str(meta["constraints_file"])).name] if meta.get("constraints_file") else []
    text = meta.get("plaf")
    if text is None and meta.get("constraints_file"):
        path = Path(str(meta["constraints_file"]))
        text = path.read_text(encoding="utf-8") if path.is_file() else None
    if text is not None:
        return ProgramsUsed({str(text): len(explanations)}, 0, files)
    texts: Counter = Counter()
    unknown = 0
    for e in explanations:
        if "plaf" in e.stats:
            texts[str(e.stats["plaf"])] += 1
        else:
            unknown += 1
    if not files:
        files = sorted({str(e.stats["constraints_file"]) for e in explanations if e.stats.get("constraints_file")})
    return ProgramsUsed(dict(texts.most_common()), unknown, files)


def _program(text: str, ident: str) -> str:
    if not text.strip():
        return '<p class="note">No constraints: every feature could change.</p>'
    lines = text.rstrip("\n").split("\n")
    body = "".join(
        f'<span class="l"><span class="ln">{i}</span>{escape(line)}</span>' for i, line in enumerate(lines, 1)
    )
    return f'<pre class="plaf" id="{ident}">{body}</pre>'


def constraints_block(used: ProgramsUsed) -> str:
    """The HTML of the constraints: the program with line numbers; one per program when the
    batch mixes several; "unknown" for the explanations that do not say."""
    if not used.texts:
        return ('<p class="note" id="plaf-unknown">Constraints unknown: these explanations do not record '
                "the PLAF program they were made under (pass <code>plaf=</code> to say).</p>")  # fmt: skip
    parts = []
    several = len(used.texts) > 1 or used.unknown
    for i, (text, n) in enumerate(used.texts.items()):
        if several:
            parts.append(f'<p class="note">Used for {format_count(n)} row{"" if n == 1 else "s"}:</p>')
        parts.append(_program(text, "plaf" if i == 0 else f"plaf-{i + 1}"))
    if used.unknown:
        n = used.unknown
        parts.append(f'<p class="note" id="plaf-unknown">Constraints unknown for {format_count(n)} '
                     f'row{"" if n == 1 else "s"}: {"its" if n == 1 else "their"} explanation'
                     f'{"" if n == 1 else "s"} do{"es" if n == 1 else ""} not record the program.</p>')  # fmt: skip
    return "".join(parts)
