"""Fuzz PLAF: feed many hostile programs to ``plaf_grammar.load`` and count what each raised.

Programs are mutations of the bundled examples (deletions, inserted tokens, odd characters,
duplicated spans, bytes that are not UTF-8, huge numbers, deep nesting, long lines), random
bytes, and random token sequences. Each is loaded against its data set; a program that loads
must print and re-parse to itself, ground on a row, and agree with the reference evaluator on a
few rows. Anything other than PLAFError (or such a disagreement) is a bug: the first example of
each is printed, and the exit status is 1.

    python benchmarks/fuzz_plaf.py --n 100000 [--seed 0]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import traceback
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from geco import datasets  # noqa: E402
from plaf_grammar import PLAFError, Schema, holds, load, parse  # noqa: E402

NAMES = ("adult", "credit", "compas")
TOKENS = [
    "cf.", "x.", "(", ")", "{", "}", ",", ";", "\n", "\r\n", '"', "'", "if ", " then ", " and ",
    " or ", "not ", " in ", " not in ", "==", "=", "<", "<=", ">", ">=", "!=", "-", "+", "*", "/",
    "0", "4", "-1", "2.5", ".5e-3", "1e3", "1e999", "9" * 400, "0" * 5000 + "7", "abs(", "group ",
    "fixed ", "immutable ", "increasing ", "decreasing ", "true", "false", "age", "sex", '"Male"',
    '"Female"', "AgeGroup", "Race", "isMale", "education", "education_num", "workclass",
    '"Never-worked"', "#", "\\", "@", "\t", "\x0c", "\x00", "é", "\u2028", "\ufeff", "😀",
]  # fmt: skip
NOT_UTF8 = [b"\xff", b"\xfe", b"\xc0\xaf", b"\x80", b"\xc3", b"\xe9", b"\xed\xa0\x80",
            b"\xf4\x90\x80\x80", b"\xe2\x82"]  # fmt: skip


def mutate(rng: random.Random, text: str) -> str:
    """A few random edits of ``text``."""
    for _ in range(rng.randint(1, 6)):
        i = rng.randint(0, len(text))
        kind = rng.choice(["delete", "insert", "insert", "char", "dup", "nest"])
        if kind == "delete":
            text = text[:i] + text[i + rng.randint(1, 12) :]
        elif kind == "insert":
            text = text[:i] + rng.choice(TOKENS) + text[i:]
        elif kind == "char":
            text = text[:i] + chr(rng.choice([rng.randint(0, 255), rng.randint(0, 0x10FFFF)])) + text[i + 1 :]
        elif kind == "dup":
            j = rng.randint(i, min(len(text), i + 40))
            text = text[:j] + text[i:j] * rng.randint(1, 3) + text[j:]
        else:  # nesting: operators or parentheses around what follows
            text = text[:i] + rng.choice(["-", "not ", "(", "abs("]) * rng.randint(1, 300) + text[i:]
    return text


def generate(rng: random.Random, examples: dict[str, str]) -> tuple[str, str, str | bytes]:
    """(kind, data set, source) of one hostile program."""
    name = rng.choice(NAMES)
    r = rng.random()
    if r < 0.55:
        return "mutation", name, mutate(rng, examples[name])
    if r < 0.70:
        text = mutate(rng, examples[name])
        i = rng.randint(0, len(text))
        head, tail = (t.encode("utf-8", "surrogatepass") for t in (text[:i], text[i:]))
        return "not UTF-8", name, head + rng.choice(NOT_UTF8) + tail
    if r < 0.85:
        return "tokens", name, "".join(rng.choice(TOKENS) for _ in range(rng.randint(0, 60)))
    if r < 0.98:
        return "random bytes", name, bytes(rng.randrange(256) for _ in range(rng.randint(0, 300)))
    token = rng.choice([*TOKENS, "cf.age > 1; ", "cf.age + ", "x.age * "])
    return "long line", name, "cf.age > 1 " + token * (rng.randint(1_000, 30_000) // len(token) + 1)


class Target:
    """A data set prepared once: its schema, and some rows as dicts and encoded."""

    def __init__(self, name: str) -> None:
        ds = datasets.load_dataset(name)
        self.example = ds.constraints.read_text(encoding="utf-8")
        self.schema = Schema.from_dataframe(ds.X)
        rows = ds.X.sample(500, random_state=0)
        self.records = rows.to_dict("records")
        self.encoded = self.schema.encode(rows)


def run_one(source: str | bytes, target: Target, rng: random.Random) -> str:
    """Load ``source`` against the target's schema; the outcome's name ("loaded", the
    PLAFError subclass, or the bug)."""
    try:
        p = load(source, target.schema)
    except PLAFError as e:
        str(e)  # formatting must not fail either
        return type(e).__name__
    if parse(str(p)) != p.program:
        raise AssertionError(f"round trip changed the program:\n{p}")
    idx = [rng.randrange(len(target.records)) for _ in range(8)]
    g = p.ground(target.encoded[idx[0]])
    got = g.check(dict(zip(p.schema.names, target.encoded[idx].T))).tolist()
    x = target.records[idx[0]]
    want = [holds(p, x, target.records[j]) for j in idx]
    if got != want:
        raise AssertionError(f"vectorised check {got} != reference {want} for:\n{p}")
    return "loaded"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=100_000, help="programs to try (default 100000)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    targets = {n: Target(n) for n in NAMES}
    examples = {n: t.example for n, t in targets.items()}
    outcomes: Counter[tuple[str, str]] = Counter()
    first_bug: dict[str, str] = {}
    t0 = time.perf_counter()
    for k in range(args.n):
        kind, name, source = generate(rng, examples)
        try:
            outcome = run_one(source, targets[name], rng)
        except Exception as e:  # a bug: anything but PLAFError
            outcome = f"BUG {type(e).__name__}"
            first_bug.setdefault(outcome, f"{source[:300]!r}\n{traceback.format_exc(limit=6)}")
        outcomes[(kind, outcome)] += 1
        if (k + 1) % 10_000 == 0:
            print(f"  {k + 1} programs, {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    seconds = time.perf_counter() - t0

    kinds = sorted({k for k, _ in outcomes})
    results = sorted({o for _, o in outcomes}, key=lambda o: (o.startswith("BUG"), o != "loaded", o))
    print(f"{args.n} programs in {seconds:.0f} s (seed {args.seed})\n")
    width = max(len(r) for r in results)
    print(f"{'outcome':<{width}}  " + "  ".join(f"{k:>12}" for k in kinds) + f"  {'total':>8}")
    for r in results:
        cells = "  ".join(f"{outcomes[(k, r)]:>12}" for k in kinds)
        print(f"{r:<{width}}  {cells}  {sum(outcomes[(k, r)] for k in kinds):>8}")
    bugs = sum(c for (_, r), c in outcomes.items() if r.startswith("BUG"))
    print(f"\nexceptions other than PLAFError: {bugs}")
    for outcome, example in first_bug.items():
        print(f"\n--- first {outcome}:\n{example}")
    return 1 if bugs else 0


if __name__ == "__main__":
    sys.exit(main())
