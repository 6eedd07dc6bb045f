"""Command line: ``python -m plaf_grammar check FILE --dataset adult [--row N]``.

Why: a user writing constraints wants to see, before running a search, how the program reads
against the data: the groups, what it becomes for one concrete row, and the order the
implications are applied in. A bad file prints the positioned error and exits with status 1.
``python -m plaf_grammar format FILE`` prints the canonical text (syntax only).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from plaf_grammar import load, parse
from plaf_grammar.errors import PLAFError
from plaf_grammar.schema import SchemaError


def _frame(args: argparse.Namespace) -> pd.DataFrame:
    if args.dataset:
        from geco.datasets import load_dataset

        return load_dataset(args.dataset).X
    df = pd.read_csv(args.data)
    if args.target:
        df = df.drop(columns=[args.target])
    return df


def _check(args: argparse.Namespace) -> int:
    df = _frame(args)
    program = load(Path(args.file), df)
    print(f"{args.file}: OK ({len(program.statements)} statements, {len(df.columns)} features)")
    print("\ngroups:")
    for i, g in enumerate(program.groups):
        print(f"  [{i}] {', '.join(g)}")
    if not 0 <= args.row < len(df):
        print(f"error: --row {args.row} is out of range (0..{len(df) - 1})", file=sys.stderr)
        return 2
    row = df.iloc[args.row]
    print(f"\nrow {args.row}: " + ", ".join(f"{k}={v}" for k, v in row.items()))
    print("\ngrounded on that row:")
    print("  " + str(program.ground(row)).replace("\n", "\n  "))
    print("\nimplication order (applied by the action cascade):")
    order = program.implication_order
    for k, imp in enumerate(order):
        print(f"  {k + 1}. {program.source_of(imp)}")
    if not order:
        print("  (none)")
    return 0


def _format(args: argparse.Namespace) -> int:
    text = Path(args.file).read_text(encoding="utf-8")
    sys.stdout.write(str(parse(text, args.file)))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit status (0 ok, 1 bad program or input, 2 usage)."""
    ap = argparse.ArgumentParser(prog="python -m plaf_grammar", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    c = sub.add_parser("check", help="check a .plaf file against a data set and show it grounded")
    c.add_argument("file")
    src = c.add_mutually_exclusive_group(required=True)
    src.add_argument("--dataset", choices=["adult", "credit", "compas"], help="a bundled data set")
    src.add_argument("--data", help="a CSV file (schema inferred from its columns)")
    c.add_argument("--target", help="with --data: the label column to drop")
    c.add_argument("--row", type=int, default=0, help="row to ground on (default 0)")
    f = sub.add_parser("format", help="print a .plaf file in canonical form")
    f.add_argument("file")
    args = ap.parse_args(argv)
    try:
        return _check(args) if args.command == "check" else _format(args)
    except PLAFError as e:
        print(str(e), file=sys.stderr)
        return 1
    except (OSError, SchemaError, KeyError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
