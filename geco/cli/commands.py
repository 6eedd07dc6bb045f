"""One function per ``geco`` subcommand: ``cmd_<name>(args) -> exit status``. Each imports the
heavy modules it needs when it runs, so that ``geco --help`` answers at once."""

from __future__ import annotations

import argparse
import importlib.util
import sys
import warnings
from pathlib import Path

from geco.cli.batch import (
    explain_batch,
    first_undesired,
    goal_words,
    open_writer,
    output_format,
    parse_rows,
    undesired_rows,
)
from geco.cli.inputs import (
    data_rows,
    load_data,
    load_model,
    positions,
    read_csv_data,
    row_frame,
    text_as_categories,
)
from geco.cli.status import EXIT_NOT_FOUND, EXIT_OK, EXIT_PROVEN_NONE, CLIError

__all__ = ["cmd_check", "cmd_data", "cmd_explain", "cmd_ir", "cmd_report", "cmd_serve", "cmd_suggest"]


def cmd_explain(args: argparse.Namespace) -> int:
    from geco import Explainer

    batch = args.rows is not None or args.all_undesired
    if args.resume and (args.out is None or args.out.suffix.lower() not in (".jsonl", ".csv")):
        raise CLIError("--resume needs --out with a .jsonl or .csv file (the rows already there are skipped)")
    out_format = output_format(args.out) if args.out is not None else None  # fail before the work
    if not batch and (args.n_jobs != 1 or args.backend != "loky" or args.scheduler):
        raise CLIError("--n-jobs, --backend and --scheduler need a batch: --rows or --all-undesired")
    if not batch and (args.limit is not None or args.resume):
        raise CLIError("--limit and --resume need a batch: --rows or --all-undesired")
    if args.limit is not None and args.limit < 1:
        raise CLIError(f"--limit {args.limit}: give a positive number of rows")
    if args.scheduler is not None and args.backend != "dask":
        raise CLIError("--scheduler needs --backend dask")
    if args.backend == "dask" and importlib.util.find_spec("distributed") is None:
        raise CLIError("--backend dask needs dask.distributed: pip install 'geco-cf[dask]'")
    X, y, desired, default_constraints, name = load_data(args, desired=args.desired_range is None)
    n_data = data_rows(args, X)
    constraints = args.constraints if args.constraints is not None else default_constraints
    rows = positions(args, X, parse_rows(args.rows, n_data)) if args.rows is not None else None
    model = load_model(args, X, y)
    options = {
        k: getattr(args, k) for k in ("k", "q", "max_generations", "time_budget", "threshold") if getattr(args, k) is not None
    }
    if args.desired_range is not None:
        options["desired_range"] = args.desired_range
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        explainer = Explainer(model, X, constraints, desired_class=desired, engine=args.engine, **options)
    for w in caught:
        if issubclass(w.category, UserWarning):
            print(f"geco: warning: {w.message}", file=sys.stderr)
    print(f"(engine: {explainer.engine_reason})", file=sys.stderr)
    if batch:
        if rows is None:
            rows = undesired_rows(explainer)
            limit = (f"--limit {args.limit}: the first {min(args.limit, len(rows))}"
                     if args.limit is not None else "--limit N explains the first N only")  # fmt: skip
            print(f"(--all-undesired: {len(rows)} of {len(X)} rows are not {goal_words(explainer)}; "
                  f"{limit})", file=sys.stderr)  # fmt: skip
        if args.limit is not None:
            rows = rows[: args.limit]
        ignored = set(explainer.ignored_columns)  # already named in the warning above
        batch_rows = X.iloc[rows].drop(columns=[c for c in X.columns if str(c) in ignored])
        meta = {
            "dataset": f"{name} ({n_data} rows; {len(batch_rows)} explained)",
            "model": str(args.model) if args.model is not None else "default random forest",
            "engine": explainer.engine,
            "constraints_file": str(constraints) if constraints else "",
            "plaf": Path(constraints).read_text(encoding="utf-8") if constraints else "",
        }
        return explain_batch(args, explainer, batch_rows, out_format, meta)
    if args.row is None:
        first = first_undesired(explainer)
        args.row = first if not getattr(args, "dropped_rows", None) else int(X.index[first])
        print(f"(--row not given: row {args.row} is the first not {goal_words(explainer)})", file=sys.stderr)
    result = explainer.explain(row_frame(args, X), random_state=args.seed, exact=args.exact)
    if out_format is not None:
        writer = open_writer(args.out, out_format, {"engine": explainer.engine}, append=False)
        writer.write(result)
        writer.close()
        print(f"wrote {args.out}", file=sys.stderr)
    elif args.json:
        print(result.to_json(indent=2))
    else:
        print(f"{name}, row {args.row}; constraints: {constraints or 'none'}")
        print(result)
    already_desired = bool(explainer.target.meets(result.x_probability))
    if result.success or already_desired:
        return EXIT_OK
    return EXIT_PROVEN_NONE if result.outcome == "proven_none" else EXIT_NOT_FOUND


def cmd_check(args: argparse.Namespace) -> int:
    import plaf_grammar

    X, _, _, _, _ = load_data(args, desired=False)
    program = plaf_grammar.load(args.file, X)
    row = row_frame(args, X)  # a bad --row is refused before anything is printed
    print(f"{args.file}: OK ({len(program.groups)} groups)")
    print("groups:")
    for i, g in enumerate(program.groups):
        print(f"  {i:>2}: {', '.join(g)}")
    if not program.costs.is_uniform:
        print(f"costs: {'; '.join(program.costs.describe())} (every other change costs 1)")
    ground = program.ground(row)
    print(f"grounded on row {args.row}:")
    print("  " + str(ground).replace("\n", "\n  "))
    return EXIT_OK


def cmd_ir(args: argparse.Namespace) -> int:
    from geco import Explainer

    X, y, desired, _, _ = load_data(args, desired=args.desired_range is None)
    model = load_model(args, X, y)
    explainer = Explainer(model, X, None, desired_class=desired, desired_range=args.desired_range, engine="auto")
    delta = [d.strip() for d in args.delta.split(",") if d.strip()]
    if not delta:
        raise CLIError("--delta needs at least one feature name")
    text = explainer.ir(row_frame(args, X), delta, optimized=args.optimized or args.asm)
    if args.asm:
        from codegen import emit_assembly

        text = emit_assembly(text)
    print(text)
    return EXIT_OK


def cmd_data(args: argparse.Namespace) -> int:
    from geco import datasets

    if args.name is not None and args.dataset is not None and args.name != args.dataset:
        raise CLIError(f"two data sets named: {args.name} and --dataset {args.dataset}")
    ds = datasets.load_dataset(args.name or args.dataset or "adult")
    print(ds.summary())
    print(f"\nexample constraints: {ds.constraints}")
    return EXIT_OK


def cmd_report(args: argparse.Namespace) -> int:
    from geco.report import report
    from geco.result import read_jsonl

    if not args.results.is_file():
        raise CLIError(f"{args.results}: no such file")
    if args.results.suffix.lower() in (".csv", ".parquet"):
        raise CLIError(f"{args.results}: geco report reads a JSON Lines file (.jsonl), not "
                       f"{args.results.suffix.lower()[1:].upper()}: write the batch with "
                       "geco explain --out RESULTS.jsonl (or --json)")  # fmt: skip
    try:
        explanations, meta = read_jsonl(args.results)  # ValueError names the bad line
    except ValueError as exc:
        raise CLIError(f"{exc}; geco report reads JSON Lines (.jsonl: one explanation per line, "
                       "as geco explain --out RESULTS.jsonl or --json writes them)") from exc
    if not explanations:
        raise CLIError(f"{args.results}: no explanations in the file")
    out = args.output if args.output is not None else args.results.with_suffix(".html")
    if out.resolve() == args.results.resolve():
        raise CLIError(f"the report would overwrite its input {args.results}; give -o")
    extra = {"title": args.title} if args.title else {}
    try:
        report(explanations, out, **{**meta, **extra})
    except ImportError as exc:
        raise CLIError(str(exc)) from exc
    print(f"wrote {out} ({len(explanations)} instances, {out.stat().st_size / 1e3:.0f} kB)")
    return EXIT_OK


def cmd_suggest(args: argparse.Namespace) -> int:
    from geco.laws import suggest

    if args.data is not None and args.target is None:  # no label: every column is a feature
        X, name = read_csv_data(args.data), str(args.data)
        text_as_categories(X)
    else:
        X, _, _, _, name = load_data(args, desired=False)
    text = suggest(X, entity=args.entity, base=args.constraints, source=name)
    if args.output is None:
        print(text, end="")
    else:
        args.output.write_text(text, encoding="utf-8")
        active = sum(1 for line in text.splitlines() if line and not line.startswith("#"))
        print(f"wrote {args.output}: {active} active statements; review it before use", file=sys.stderr)
    return EXIT_OK

def cmd_serve(args: argparse.Namespace) -> int:
    """``geco serve``: the HTTP decision service (geco.serve; needs geco-cf[serve])."""
    if importlib.util.find_spec("fastapi") is None or importlib.util.find_spec("uvicorn") is None:
        raise CLIError("geco serve needs fastapi and uvicorn: pip install 'geco-cf[serve]'")
    from geco.explainer import load
    from geco.serve import ServeSettings, serve

    explainer = load(args.explainer)  # a file that is no saved Explainer is refused here, not in a worker's traceback
    if args.workers == 1:  # uvicorn runs the one worker in this process: it takes this one
        from geco.serve.handover import hand_over

        hand_over(args.explainer, explainer)
    del explainer  # with several workers each loads its own; this process only supervises
    settings = ServeSettings(
        str(args.explainer), host=args.host, port=args.port, workers=args.workers, max_rows=args.max_rows,
        max_body=args.max_body, keys=str(args.keys) if args.keys else None, access_log=args.access_log,
    )  # fmt: skip
    print(f"geco serve: {args.explainer} on http://{args.host}:{args.port} ({args.workers} worker(s); "
          "docs at /docs)", file=sys.stderr)  # fmt: skip
    return serve(settings)
