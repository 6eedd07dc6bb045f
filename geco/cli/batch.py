"""``geco explain`` on a batch: which rows (``--rows``, ``--all-undesired``), where the answers
go (``--out`` .jsonl / .csv written row by row, .parquet at the end, or the terminal), and a
batch that stops on Ctrl-C with what it finished and resumes with ``--resume``."""

from __future__ import annotations

import importlib.util
import shlex
import sys
import time
from pathlib import Path
from typing import Any

from geco.cli.status import EXIT_INTERRUPTED, CLIError

__all__ = [
    "ParquetWriter", "TextWriter", "already_written", "explain_batch", "first_undesired", "goal_words", "open_writer",
    "output_format", "parse_rows", "print_estimate", "resume_command", "undesired_rows",
]  # fmt: skip

_OUT_FORMATS = {".csv": "csv", ".jsonl": "jsonl", ".parquet": "parquet"}


def output_format(path: Path) -> str:
    fmt = _OUT_FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise CLIError(f"--out {path}: the name must end in {', '.join(_OUT_FORMATS)}")
    if fmt == "parquet" and importlib.util.find_spec("pyarrow") is None:
        raise CLIError(f"--out {path}: writing Parquet needs pyarrow (pip install pyarrow); "
                       "or write .csv or .jsonl")  # fmt: skip
    if not path.parent.is_dir():
        raise CLIError(f"--out {path}: no such directory {path.parent}")
    return fmt


def parse_rows(spec: str, n: int) -> list[int]:
    """``--rows``: comma-separated row numbers and ``start:stop`` ranges (Python slices: stop
    excluded, either end may be left out), e.g. ``0:1000`` or ``3,7,20:30``. A row or a range's
    end outside the data is an error naming the data's size."""
    rows: list[int] = []
    size = f"the data has {n} rows: 0 to {n - 1}"
    for part in (p.strip() for p in spec.split(",")):
        try:
            if ":" in part:
                start, _, stop = part.partition(":")
                lo = int(start) if start else None
                hi = int(stop) if stop else None
                for end in (lo, hi):
                    if end is not None and not -n <= end <= n:
                        raise CLIError(f"--rows {part}: {end} is out of range ({size})")
                rows.extend(range(n)[slice(lo, hi)])
            elif part:
                i = int(part)
                if not 0 <= i < n:
                    raise CLIError(f"--rows: row {i} is out of range ({size})")
                rows.append(i)
        except ValueError:
            raise CLIError(f"--rows {spec!r}: {part!r} is not a row number or a start:stop range") from None
    if not rows:
        raise CLIError(f"--rows {spec!r} selects no row (the data has {n} rows)")
    return rows


def goal_words(explainer) -> str:
    """What a counterfactual reaches, for the command line's messages: ``scored 'yes'`` (a
    class's probability past its threshold) or ``600 <= prediction <= inf`` (a range)."""
    target = explainer.target
    return f"scored {explainer.desired_class!r}" if target.is_probability else target.describe()


def undesired_rows(explainer) -> list[int]:
    """Positions of every row the model does not already score as the desired class (or in
    the desired range)."""
    import numpy as np

    target = explainer.target
    rows: list[int] = []
    for start in range(0, len(explainer.table), 5000):
        p = explainer.blackbox.predict(explainer.table.take(slice(start, start + 5000)))
        rows.extend(start + np.flatnonzero(~target.meets(p)))
    if not rows:
        raise CLIError(f"every row is already {goal_words(explainer)}: nothing to explain")
    return [int(r) for r in rows]


def open_writer(path: Path, fmt: str, meta: dict, *, append: bool) -> Any:
    """Where ``--out`` explanations go, one ``write(explanation)`` at a time: JSON Lines and CSV
    are written and flushed row by row; Parquet is written on ``close()``."""
    from geco.batch import CsvWriter
    from geco.result import JsonlWriter

    if fmt == "jsonl":
        return JsonlWriter(path, meta, append=append)
    if fmt == "csv":
        return CsvWriter(path, append=append)
    return ParquetWriter(path)


class ParquetWriter:
    """Explanations kept until ``close()`` writes them as one Parquet table (a Parquet file is
    written whole)."""

    def __init__(self, path: Path) -> None:
        self.path, self.explanations, self.written = path, [], 0

    def write(self, explanation: Any) -> None:
        self.explanations.append(explanation)
        self.written += 1

    def close(self) -> None:
        from geco.batch import explanations_frame

        explanations_frame(self.explanations).to_parquet(self.path, index=False)


def already_written(args, X) -> list[int]:
    """``--resume``: the positions in ``X`` of the rows the output file already holds (none
    when it does not exist yet). A row there that is not in this batch is an error."""
    from geco.batch import csv_instances
    from geco.result import jsonl_instances

    if not args.out.is_file():
        return []
    try:
        labels = jsonl_instances(args.out) if args.out.suffix.lower() == ".jsonl" else csv_instances(args.out)
    except ValueError as exc:
        raise CLIError(f"--resume: {exc}") from exc
    position = {str(label): i for i, label in enumerate(X.index)}
    stray = [label for label in labels if str(label) not in position]
    if stray:
        raise CLIError(f"--resume: {args.out} holds row(s) {stray[:5]} that this batch does not "
                       "explain; is it the output of this command?")  # fmt: skip
    return sorted({position[str(label)] for label in labels})


def resume_command(args) -> str:
    argv = list(args.argv)
    return shlex.join(["geco", *argv, *([] if args.resume else ["--resume"])])


def explain_batch(args, explainer, X, out_format: str | None, meta: dict) -> int:
    from geco.batch import iter_explain, shutdown_pool
    from geco.result import JsonlWriter

    done_before = already_written(args, X) if args.resume else []
    todo = sorted(set(range(len(X))) - set(done_before))
    if args.resume:
        print(f"(--resume: {len(done_before)} of {len(X)} rows already in {args.out}; "
              f"{len(todo)} to explain)", file=sys.stderr)  # fmt: skip
    client = None
    if args.scheduler is not None:
        from distributed import Client

        client = Client(args.scheduler)
    t0 = time.perf_counter()
    results = iter_explain(
        explainer, X, n_jobs=args.n_jobs, backend=args.backend, progress=not args.no_progress,
        random_state=args.seed, client=client, positions=todo if args.resume else None,
        overrides={"exact": True} if args.exact else None,
    )  # fmt: skip
    if out_format is not None:
        writer = open_writer(args.out, out_format, meta, append=args.resume)
    elif args.json:
        writer = JsonlWriter(sys.stdout, meta=meta)
    else:
        writer = TextWriter(X.index[todo])
    done = {"rows": 0, "found": 0, "failed": 0}  # for the summary line
    interrupted = False
    try:
        for e in results:
            writer.write(e)
            done["rows"] += 1
            done["found"] += e.success
            done["failed"] += "error" in e.stats
            if args.all_undesired and done["rows"] == min(3, len(todo)) and len(todo) > 3:
                print_estimate(time.perf_counter() - t0, done["rows"], len(todo))
    except KeyboardInterrupt:
        interrupted = True
    finally:
        results.close()  # a reader that went away (| head), Ctrl-C: cancel what is queued
        shutdown_pool(kill=done["rows"] < len(todo))
        if client is not None:
            client.close()
    if interrupted and out_format == "parquet":
        writer.close()
        print(f"geco: interrupted: wrote {args.out} with the {done['rows']} of {len(X)} rows "
              "finished (a Parquet file cannot be resumed; write .jsonl or .csv for that)", file=sys.stderr)
        return EXIT_INTERRUPTED
    writer.close()
    if interrupted:
        if out_format is None:
            print(f"geco: interrupted after {done['rows']} of {len(todo)} rows (write them to a "
                  ".jsonl or .csv file with --out to resume)", file=sys.stderr)  # fmt: skip
        else:
            # read back, not counted: Ctrl-C may land between a row's write and its count
            try:
                held = len(already_written(args, X))
            except CLIError:  # a file it cannot read back: what this run counted
                held = len(done_before) + done["rows"]
            print(f"geco: interrupted: {args.out} holds {held} of {len(X)} rows ({held - len(done_before)} "
                  f"written now); resume with: {resume_command(args)}", file=sys.stderr)  # fmt: skip
        return EXIT_INTERRUPTED
    if out_format is not None:
        resumed = f" (resumed: {len(done_before)} were there)" if args.resume else ""
        print(f"wrote {args.out}: {done['rows']} rows{resumed}, {done['found']} with counterfactuals, "
              f"{done['failed']} failed ({time.perf_counter() - t0:.1f} s)", file=sys.stderr)  # fmt: skip
    return 0


class TextWriter:
    """A batch printed for a person: each row's explanation under its row number."""

    def __init__(self, labels) -> None:
        self.labels = iter(labels)

    def write(self, explanation: Any) -> None:
        print(f"row {next(self.labels)}:\n{explanation}\n")

    def close(self) -> None:
        sys.stdout.flush()


def print_estimate(seconds: float, rows: int, total: int) -> None:
    per_row = seconds / rows
    left = per_row * (total - rows)
    when = f"{left / 3600:.1f} h" if left >= 3600 else f"{left / 60:.0f} min" if left >= 60 else f"{left:.0f} s"
    print(f"(first {rows} rows: {per_row:.2f} s each; the {total - rows} left: about {when})", file=sys.stderr)


def first_undesired(explainer) -> int:
    """Position of the first row the model does not already score as the desired class (or in
    the desired range)."""
    import numpy as np

    target = explainer.target
    for start in range(0, len(explainer.table), 2000):
        p = explainer.blackbox.predict(explainer.table.take(slice(start, start + 2000)))
        hits = np.flatnonzero(~target.meets(p))
        if len(hits):
            return start + int(hits[0])
    raise CLIError(f"every row is already {goal_words(explainer)}: nothing to explain")
