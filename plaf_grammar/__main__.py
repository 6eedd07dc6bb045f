"""Command line: ``python -m plaf_grammar check FILE [--data file.csv [--target COL] [--row N]]``.

Why: a user writing constraints wants to see, before running a search, how the program reads
against the data: the groups, what it becomes for one concrete row, and the order the
implications are applied in. Without ``--data`` only the syntax is checked. The bundled data
sets belong to geco, which this package does not import: ``--dataset`` is refused with a usage
error (status 2) naming ``geco check FILE --dataset NAME``, which does that check. A bad file
prints the positioned error and exits with status 1. ``python -m plaf_grammar format FILE``
prints the canonical text.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Sequence

import pandas as pd

from plaf_grammar import check, parse, source
from plaf_grammar.errors import PLAFError
from plaf_grammar.schema import SchemaError


class _InputError(Exception):
    """Bad data or arguments: one line on stderr, exit status 1."""


def _frame(args: argparse.Namespace) -> pd.DataFrame:
    try:
        header = pd.read_csv(args.data, header=None, nrows=1, dtype=str).iloc[0].tolist()
        df = pd.read_csv(args.data)
    except (OSError, ValueError, IndexError) as e:  # pandas' parser errors are ValueErrors
        raise _InputError(f"{args.data}: cannot read CSV ({e})") from None
    dup = [name for name, n in Counter(h for h in header if isinstance(h, str)).items() if n > 1]
    if dup:  # pandas would rename the second 'a' to 'a.1', and the program would not see it
        raise _InputError(f"{args.data}: duplicate column name(s) {dup} in the header row")
    if args.target:
        if args.target not in df.columns:
            raise _InputError(f"--target {args.target!r} is not a column of {args.data}")
        df = df.drop(columns=[args.target])
    return df


def _check(args: argparse.Namespace) -> int:
    program = parse(source.read(args.file), args.file)
    if args.data is None:
        print(f"{args.file}: syntax OK ({len(program.statements)} statements; pass --data FILE.csv "
              "to check names and types against data)")  # fmt: skip
        return 0
    df = _frame(args)
    checked = check(program, df)
    print(f"{args.file}: OK ({len(program.statements)} statements, {len(df.columns)} features)")
    print("\ngroups:")
    for i, g in enumerate(checked.groups):
        print(f"  [{i}] {', '.join(g)}")
    if not checked.costs.is_uniform:
        print(f"\ncosts: {'; '.join(checked.costs.describe())} (every other change costs 1)")
    if not 0 <= args.row < len(df):
        raise _InputError(f"--row {args.row} is out of range (0..{len(df) - 1})")
    row = df.iloc[args.row]
    print(f"\nrow {args.row}: " + ", ".join(f"{k}={v}" for k, v in row.items()))
    print("\ngrounded on that row:")
    print("  " + str(checked.ground(row)).replace("\n", "\n  "))
    print("\nimplication order (applied by the action cascade):")
    for k, imp in enumerate(checked.analysis.implications):
        print(f"  {k + 1}. {imp.source.text}")
    if not checked.analysis.implications:
        print("  (none)")
    return 0


def _format(args: argparse.Namespace) -> int:
    sys.stdout.write(str(parse(source.read(args.file), args.file)))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit status (0 ok, 1 bad program or input, 2 usage)."""
    ap = argparse.ArgumentParser(prog="python -m plaf_grammar", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    c = sub.add_parser("check", help="check a .plaf file (against a CSV's columns if given)")
    c.add_argument("file")
    c.add_argument("--data", help="a CSV file (schema inferred from its columns)")
    c.add_argument("--target", help="with --data: the label column to drop")
    c.add_argument("--row", type=int, default=0, help="with --data: row to ground on (default 0)")
    c.add_argument("--dataset", metavar="NAME", help="not here: the bundled data sets are geco's; "
                   "use 'geco check FILE --dataset NAME'")  # fmt: skip
    f = sub.add_parser("format", help="print a .plaf file in canonical form")
    f.add_argument("file")
    args = ap.parse_args(argv)
    if getattr(args, "dataset", None) is not None:
        c.error(
            f"--dataset is not available here (the bundled data sets belong to geco): run "
            f"'geco check {args.file} --dataset {args.dataset}', or pass --data FILE.csv "
            "[--target COL] to check against your own data"
        )
    try:
        return _check(args) if args.command == "check" else _format(args)
    except PLAFError as e:
        print(str(e), file=sys.stderr)
        return 1
    except (OSError, SchemaError, _InputError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
