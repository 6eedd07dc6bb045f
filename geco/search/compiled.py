"""Which search runs: the compiled kernels (:mod:`geco.search.kernels`, numba) or the numpy
reference. Both give the same explanation for the same seed, so the choice is one of cost only:
the kernels save about a fifth of an explanation's time, and their first use in a process costs
about half a second (importing numba and loading the kernels from numba's disk cache; compiling
them the first time after an install, about twenty). ``SearchConfig.native``:

* ``True`` / ``False``: the kernels (where numba is installed) / the reference;
* ``None`` (the default): the kernels when they are already loaded in this process, else the
  reference. A job long enough to pay for them loads them (:func:`load_kernels`): a batch once
  its first rows' time shows it pays (:func:`kernels_pay`), ``geco serve`` at start-up, and any
  search once what they would have saved on this process's reference searches so far reaches
  what their first use costs (the rent-or-buy rule: at most twice the cost of the better choice
  in hindsight, however many explanations follow; :func:`kernels_earned`). Never inside a
  search with a time budget.

The environment variable ``GECO_SEARCH_NATIVE=1`` turns the kernels on for every search, ``0``
off.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

__all__ = ["FIRST_USE_SECONDS", "KERNELS_SAVE", "compiled_kernels", "first_use_seconds", "kernels_available",
           "kernels_earned", "kernels_loaded", "kernels_pay", "load_kernels", "note_reference_search"]

_MODULE = "geco.search.kernels"
#: the share of an explanation's time the kernels save (bench_native: 1.23-1.45x, i.e. 19-31 %)
KERNELS_SAVE = 0.2
#: the kernels' first use in a process: (numba's disk cache filled, empty) in CPU seconds, what
#: they add to a fresh process's first compiled explanation as bench_native measures it on a
#: 2-core AMD EPYC (0.40-0.48 s and 18.9-20.7 s: every kernel a search runs)
FIRST_USE_SECONDS = (0.5, 19.0)


def _switch() -> str:
    return os.environ.get("GECO_SEARCH_NATIVE", "")


#: set when importing the kernels failed (numba installed but broken): not tried again
_import_failed = [False]


def kernels_available() -> bool:
    """Whether the kernels can run here: numba is installed (and did not fail to import) and
    ``GECO_SEARCH_NATIVE`` is not "0" (checked without importing numba)."""
    return _switch() != "0" and not _import_failed[0] and importlib.util.find_spec("numba") is not None


def kernels_loaded() -> bool:
    """Whether this process has loaded the kernels already (their use then costs nothing more)."""
    return _MODULE in sys.modules


def load_kernels() -> ModuleType | None:
    """Import the kernels (numba with them); None where they cannot run."""
    if not kernels_available():
        return None
    try:
        return importlib.import_module(_MODULE)
    except ImportError:
        _import_failed[0] = True
        return None


#: seconds the searches of this process spent in the numpy reference under the default
_reference_seconds = [0.0]


def note_reference_search(seconds: float) -> None:
    """Count a search the default ran in the numpy reference (``seconds`` long): the kernels
    would have saved ``KERNELS_SAVE`` of it (the rent the rent-or-buy rule adds up)."""
    _reference_seconds[0] += seconds


def kernels_earned() -> bool:
    """Whether the reference searches of this process have spent what the kernels would have
    saved on them as much as their first use costs (then loading them is the buy of the
    rent-or-buy rule); False where they cannot run."""
    saved = _reference_seconds[0] * KERNELS_SAVE
    return saved >= FIRST_USE_SECONDS[0] and kernels_available() and saved >= first_use_seconds()


def compiled_kernels(native: bool | None = True, may_load: bool = False) -> ModuleType | None:
    """The kernels a search with ``SearchConfig.native`` = ``native`` runs, or None for the
    numpy reference (see the module docstring); under the default, ``may_load``: load them
    here when this process has earned them (:func:`kernels_earned`)."""
    switch = _switch()
    if switch == "0" or (native is False and switch != "1"):
        return None
    if native is None and switch != "1":
        loaded = sys.modules.get(_MODULE)
        if loaded is None and may_load and kernels_earned():
            return load_kernels()
        return loaded
    return load_kernels()


def first_use_seconds(cache: Path | None = None) -> float:
    """What loading the kernels into this process is expected to cost: a load from numba's
    disk cache when ``cache`` (default: the directory numba writes beside the kernels' files)
    holds them, else a compile (the cache may live in numba's user directory instead: then this
    over-estimates, and a batch waits longer before it switches)."""
    if cache is None:
        spec = importlib.util.find_spec(_MODULE)
        if spec is None or not spec.submodule_search_locations:
            return FIRST_USE_SECONDS[1]
        cache = Path(next(iter(spec.submodule_search_locations)), "__pycache__")
    return FIRST_USE_SECONDS[0] if any(cache.glob("*.nbi")) else FIRST_USE_SECONDS[1]


def kernels_pay(rows_left: float, seconds_per_row: float) -> bool:
    """Whether a process that has not loaded the kernels would gain by loading them for
    ``rows_left`` more explanations of about ``seconds_per_row`` each: what they save exceeds
    their first use. False where they cannot run."""
    return kernels_available() and rows_left * seconds_per_row * KERNELS_SAVE > first_use_seconds()
