"""Fit a draft to the program it will be added to: an active law that program already states,
or that the program cannot take (a group sharing a column with one of its groups, or joining
an implication's condition and consequence), becomes a comment saying why."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import pandas as pd

import plaf_grammar
from geco.laws.law import Law

__all__ = ["fit_to_base"]


def _check(text: str, X: pd.DataFrame) -> None:
    plaf_grammar.load(text.encode("utf-8"), X)  # bytes: always program text, never a path


def fit_to_base(laws: Sequence[Law], X: pd.DataFrame, text: str) -> list[Law]:
    """``laws`` with every active one the program ``text`` already states or rejects turned
    into a comment. Raises PLAFError when the program itself does not check against ``X``."""
    _check(text, X)
    stated = {" ".join(line.split("#")[0].split()) for line in text.splitlines()}
    accepted = text
    out = []
    for law in laws:
        if not law.active:
            out.append(law)
        elif law.statement in stated:
            out.append(dataclasses.replace(law, active=False, note=f"{law.note}; your program states it already"))
        else:
            try:
                _check(accepted + "\n" + law.statement, X)
            except plaf_grammar.PLAFError as exc:
                reason = str(exc).splitlines()[0].split(": ", 1)[-1]
                out.append(dataclasses.replace(law, active=False, note=f"{law.note}; your program cannot take it: {reason}"))
                continue
            accepted += "\n" + law.statement
            out.append(law)
    return out
