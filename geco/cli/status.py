"""The command line's exit statuses, the names its parser offers, and its one-line user error."""

from __future__ import annotations

__all__ = [
    "DATASET_NAMES", "ENGINE_NAMES", "EXIT_BAD_CONSTRAINTS", "EXIT_BAD_USAGE", "EXIT_INTERRUPTED",
    "EXIT_NOT_FOUND", "EXIT_OK", "EXIT_PROVEN_NONE", "CLIError",
]  # fmt: skip

EXIT_OK = 0
EXIT_BAD_CONSTRAINTS = 1
EXIT_BAD_USAGE = 2
EXIT_NOT_FOUND = 3
EXIT_PROVEN_NONE = 4
EXIT_INTERRUPTED = 130  # as a shell reports a command stopped by Ctrl-C (SIGINT)

#: the bundled data sets (``geco.datasets.DATASETS``) and the engines (``codegen.ENGINES``),
#: named here so that building the parser imports neither (a test keeps them equal)
DATASET_NAMES: tuple[str, ...] = ("adult", "compas", "credit")
ENGINE_NAMES: tuple[str, ...] = ("auto", "jit", "numpy", "blackbox")

class CLIError(Exception):
    """A user error the CLI reports in one line (exit status ``EXIT_BAD_USAGE``)."""
