"""``geco`` command line: explain a row or a batch of rows, check a .plaf file, inspect
generated IR, show data, report on a batch of explanations.

Exit status (every command):

* 0 - success; for ``explain``: counterfactuals found, or the row already has the desired class
* 3 - ``explain`` found no counterfactual (the printed reason says why)
* 4 - ``explain`` proved that no counterfactual exists within the rules (the reason gives the bound)
* 1 - the constraints are not a valid PLAF program (the message names file, line and column)
* 2 - bad usage or data: unknown option, missing file, a row out of range, a model that cannot
  score the data
* 130 - interrupted (Ctrl-C); a batch written with ``--out`` keeps every finished row and
  ``--resume`` explains the rest

The package: :mod:`.status` (exit statuses, the user error), :mod:`.inputs` (data, model, row),
:mod:`.batch` (batches and their outputs), :mod:`.commands` (one function per subcommand),
:mod:`.parser` (the argument parser); :func:`main` runs one command line.
"""

from __future__ import annotations

import os
import sys

# Heavy modules (numpy, pandas, scikit-learn, llvmlite, geco.explainer) are imported by the
# commands that use them, so that ``geco --help`` and a bad option answer at once.
from geco.cli.parser import build_parser
from geco.cli.status import (
    DATASET_NAMES,
    ENGINE_NAMES,
    EXIT_BAD_CONSTRAINTS,
    EXIT_BAD_USAGE,
    EXIT_INTERRUPTED,
    EXIT_NOT_FOUND,
    EXIT_OK,
    EXIT_PROVEN_NONE,
    CLIError,
)

__all__ = [
    "DATASET_NAMES", "ENGINE_NAMES", "EXIT_BAD_CONSTRAINTS", "EXIT_BAD_USAGE", "EXIT_INTERRUPTED",
    "EXIT_NOT_FOUND", "EXIT_OK", "EXIT_PROVEN_NONE", "build_parser", "main",
]  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(argv)
    args.argv = argv  # for the command that resumes an interrupted batch
    from codegen import UnsupportedModel as UnsupportedModelError
    from plaf_grammar import PLAFError, PLAFFileNotFoundError, SchemaError

    try:
        status = args.func(args)
        sys.stdout.flush()  # a closed pipe shows here, not at exit
        return status
    except KeyboardInterrupt:
        print("geco: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        _silence_stdout()
        return 141  # as a command killed by SIGPIPE
    except PLAFFileNotFoundError as exc:  # no program to be invalid: a path that names no file
        print(f"geco: error: {exc}", file=sys.stderr)
        return EXIT_BAD_USAGE
    except PLAFError as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_BAD_CONSTRAINTS
    except (CLIError, SchemaError, UnsupportedModelError, ValueError, TypeError, OSError) as exc:
        print(f"geco: error: {exc}", file=sys.stderr)
        return EXIT_BAD_USAGE


def _silence_stdout() -> None:
    """The reader of stdout went away (``geco explain ... | head``): send what is still buffered
    to /dev/null, so Python's flush at exit does not print a BrokenPipeError."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # stdout without a file descriptor (tests)
        pass
