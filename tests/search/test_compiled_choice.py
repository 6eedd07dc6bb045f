"""Which search runs (geco.search.compiled): the switch, the first-use estimate, the batch's pay
rule and the rent-or-buy rule; in fresh processes, the default runs the numpy reference without
importing numba until a batch finds the compiled search pays, or the searches so far have earned
it (never under a time budget), then runs it, with the same explanations; and ``geco serve``'s
warm-up."""

import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import geco
import geco.batch
from geco.search import compiled, kernels
from geco.search.compiled import compiled_kernels, first_use_seconds, kernels_pay
from geco.search.config import SearchConfig


@pytest.mark.parametrize(
    "native, switch, expected",
    [
        (True, "", kernels), (False, "", None), (None, "", kernels),  # loaded: this module imports them
        (True, "0", None), (None, "0", None), (False, "1", kernels), (None, "1", kernels),
    ],
)  # fmt: skip
def test_switch(monkeypatch, native, switch, expected):
    monkeypatch.setenv("GECO_SEARCH_NATIVE", switch)
    assert compiled_kernels(native) is expected


def test_default_leaves_the_choice_to_the_process():
    assert SearchConfig().native is None
    SearchConfig(native=None).validate()
    with pytest.raises(ValueError, match="native must be True, False or None"):
        SearchConfig(native="yes").validate()


def _mark(cache: Path, digest: str | None = None) -> None:
    """Name the kernels' sources (``digest``, by default these) as those ``cache`` was compiled from."""
    (cache / compiled.SOURCES_MARK).write_text(f"{digest or compiled.kernels_source_digest()}\n")


def test_first_use_is_a_load_where_the_cache_holds_the_kernels(tmp_path):
    assert first_use_seconds(tmp_path) == compiled.FIRST_USE_SECONDS[1]
    (tmp_path / "bookkeeping._selection-150.py311.nbi").write_bytes(b"")
    assert first_use_seconds(tmp_path) == compiled.FIRST_USE_SECONDS[1]  # of no known sources
    _mark(tmp_path, "0" * 40)
    assert first_use_seconds(tmp_path) == compiled.FIRST_USE_SECONDS[1]  # of other sources
    _mark(tmp_path)
    assert first_use_seconds(tmp_path) == compiled.FIRST_USE_SECONDS[0]


def test_a_cache_of_other_sources_is_dropped(monkeypatch, tmp_path):
    """numba checks a cached kernel against its own file only: one calling a kernel of another
    file would keep that callee's old code after an edit there. Its cache of other sources goes."""
    monkeypatch.setattr(compiled, "kernels_cache_dir", lambda: tmp_path)
    numba_files = [tmp_path / "breed._breed-55.py311.nbi", tmp_path / "breed._breed-55.py311.1.nbc"]
    other = tmp_path / "common.cpython-311.pyc"  # the cache may be the package's __pycache__
    for f in [*numba_files, other]:
        f.write_bytes(b"x")
    _mark(tmp_path, "0" * 40)
    compiled.clear_stale_kernels()
    assert not any(f.exists() for f in numba_files) and other.exists()
    assert (tmp_path / compiled.SOURCES_MARK).read_text().strip() == compiled.kernels_source_digest()
    for f in numba_files:  # compiled again from these sources: kept
        f.write_bytes(b"x")
    compiled.clear_stale_kernels()
    assert all(f.exists() for f in numba_files) and first_use_seconds(tmp_path) == compiled.FIRST_USE_SECONDS[0]
    (tmp_path / compiled.SOURCES_MARK).unlink()  # a cache filled before its sources were named: dropped
    compiled.clear_stale_kernels()
    assert not any(f.exists() for f in numba_files)
    fresh = tmp_path / "fresh" / "__pycache__"  # a fresh install: named before numba fills it
    monkeypatch.setattr(compiled, "kernels_cache_dir", lambda: fresh)
    compiled.clear_stale_kernels()
    assert (fresh / compiled.SOURCES_MARK).read_text().strip() == compiled.kernels_source_digest()


def test_a_garbled_or_unwritable_cache_is_no_error(monkeypatch, tmp_path):
    """A name of the sources that is no text counts as another's (the cache is dropped and named
    again, the first-use estimate a compile); a cache this process cannot write is left as it
    is, with no error (numba then decides)."""
    monkeypatch.setattr(compiled, "kernels_cache_dir", lambda: tmp_path)
    index = tmp_path / "breed._breed-55.py311.nbi"
    index.write_bytes(b"x")
    (tmp_path / compiled.SOURCES_MARK).write_bytes(b"\xff\xfe\x00garbled")
    assert first_use_seconds(tmp_path) == compiled.FIRST_USE_SECONDS[1]
    compiled.clear_stale_kernels()
    assert not index.exists() and (tmp_path / compiled.SOURCES_MARK).read_text().strip() == compiled.kernels_source_digest()
    index.write_bytes(b"x")
    _mark(tmp_path, "0" * 40)

    def refuse(self, missing_ok=False):
        raise PermissionError(13, "read-only", str(self))

    monkeypatch.setattr(Path, "unlink", refuse)
    compiled.clear_stale_kernels()
    assert index.exists() and first_use_seconds(tmp_path) == compiled.FIRST_USE_SECONDS[1]


def test_the_digest_follows_every_kernel_source(monkeypatch, tmp_path):
    import importlib.util

    for name in ("breed.py", "operators.py"):
        (tmp_path / name).write_text("x = 1\n")
    spec = importlib.util.spec_from_loader(compiled._MODULE, loader=None, is_package=True)
    spec.submodule_search_locations = [str(tmp_path)]
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: spec)
    before = compiled.kernels_source_digest()
    (tmp_path / "operators.py").write_text("x = 22\n")  # a callee's file alone (another size: a stamp may keep its time)
    assert compiled.kernels_source_digest() != before


def test_the_loaded_kernels_name_their_sources():
    cache = compiled.kernels_cache_dir()
    assert (cache / compiled.SOURCES_MARK).read_text().strip() == compiled.kernels_source_digest()


def test_the_cache_is_looked_for_where_numba_keeps_it(monkeypatch, tmp_path):
    from numba.core.caching import UserProvidedCacheLocator

    monkeypatch.setattr(compiled, "_background", [None])
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    where = compiled.kernels_cache_dir()
    assert where == tmp_path / UserProvidedCacheLocator.get_suitable_cache_subpath(kernels.bookkeeping.__file__)
    assert first_use_seconds() == compiled.FIRST_USE_SECONDS[1] and not compiled.kernels_cached()
    where.mkdir()
    (where / "bookkeeping._gather-300.py311.nbi").write_bytes(b"")
    _mark(where)
    assert first_use_seconds() == compiled.FIRST_USE_SECONDS[0] and compiled.kernels_cached()
    from geco.search.kernel_lock import compile_running, held_lock, lock_path

    with held_lock(lock_path()):  # a child of another process compiling: the cache is filling
        assert compile_running() and not compiled.kernels_cached()
    assert not compile_running() and compiled.kernels_cached()
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    assert compiled.kernels_cache_dir() == Path(kernels.__file__).parent / "__pycache__"  # writable here


def test_a_background_compile_done_makes_the_first_use_a_load(monkeypatch, tmp_path):
    job = compiled.BackgroundCompile([sys.executable, "-c", "pass"])
    monkeypatch.setattr(compiled, "_background", [job])
    assert job.wait(30) == "done" and job.reason == "" and job.errors is None  # its stderr file gone
    assert first_use_seconds() == compiled.FIRST_USE_SECONDS[0] and compiled.kernels_cached()
    assert first_use_seconds(tmp_path) == compiled.FIRST_USE_SECONDS[1]  # a cache named: that one


def test_background_compile_states_and_reason(monkeypatch):
    slow = compiled.BackgroundCompile([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        assert slow.state() == "running" and slow.wait(0.05) == "running"
    finally:
        slow.process.kill()
        with pytest.warns(RuntimeWarning, match="could not be compiled in a child process .exit status -9"):
            slow.wait(10)
    assert slow.state() == "failed"  # killed; said once
    bad = compiled.BackgroundCompile([sys.executable, "-c", "import sys; print('a'); sys.stderr.write('x\\ny: why'); sys.exit(2)"])
    with pytest.warns(RuntimeWarning, match=r"\(y: why\); the numpy search runs instead"):
        assert bad.wait(30) == "failed" and bad.reason == "y: why"
    silent = compiled.BackgroundCompile([sys.executable, "-c", "raise SystemExit(5)"])
    with pytest.warns(RuntimeWarning, match="exit status 5"):
        assert silent.wait(30) == "failed" and silent.reason == "exit status 5"
    # one per process: a later call returns the job started, whatever became of it
    monkeypatch.setattr(compiled, "_background", [bad])
    assert compiled.compile_in_background() is bad
    assert compiled.load_kernels_if_compiled() is kernels  # loaded in this process already


def test_the_real_child_explains_with_the_kernels_and_exits_0():
    """``python -m geco.search.warm_kernels``, as the background compile runs it (a load from
    the cache where an earlier test compiled the kernels, else the compile this suite would
    make anyway)."""
    if not compiled.kernels_available():
        pytest.skip("numba is not installed")
    from geco.search.kernel_lock import lock_path

    job = compiled.BackgroundCompile()
    assert job.wait(300) == "done", job.reason
    assert lock_path().exists()


def test_a_process_leaving_before_its_child_leaves_no_file():
    code = ("import sys; from geco.search import compiled; "
            "job = compiled.BackgroundCompile([sys.executable, '-c', 'import time; time.sleep(5)']); print(job.errors)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    errors = Path(done.stdout.strip())
    assert errors.name.startswith("geco-kernels-") and not errors.exists()


def test_children_take_turns_on_the_lock(tmp_path):
    """Workers starting together: the second child compiles (loads) only once the first is done."""
    import time

    from geco.search.kernel_lock import held_lock

    path = tmp_path / "kernels.lock"
    code = ("import time; from pathlib import Path; from geco.search.kernel_lock import held_lock\n"
            f"with held_lock(Path({str(path)!r})): print(time.time())")  # fmt: skip
    with held_lock(path):
        child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
        time.sleep(1.0)
        released = time.time()
    assert float(child.communicate(timeout=60)[0]) >= released
    with held_lock(tmp_path / "no such directory" / "kernels.lock"):  # cannot be opened: no lock, no error
        pass


def test_where_no_child_can_start_a_batch_compiles_here_as_before(monkeypatch):
    loads = []

    def no_process(*args, **kwargs):
        raise OSError("no new processes here")

    monkeypatch.setattr(compiled, "_background", [None])
    monkeypatch.setattr(compiled, "BackgroundCompile", no_process)
    for module in (compiled, geco.batch):
        monkeypatch.setattr(module, "kernels_loaded", lambda: False)
        monkeypatch.setattr(module, "kernels_cached", lambda: False)
    monkeypatch.setattr(geco.batch, "kernels_pay", lambda rows_left, per_row: True)
    monkeypatch.setattr(compiled, "load_kernels", lambda: loads.append("here"))
    geco.batch._load_kernels_if_they_pay({}, 1000, 0.05)
    assert loads == ["here"] and compiled.background_compile() is None


def test_no_background_compile_where_the_kernels_cannot_run_or_are_cached(monkeypatch):
    monkeypatch.setattr(compiled, "_background", [None])
    monkeypatch.setattr(compiled, "kernels_loaded", lambda: False)
    monkeypatch.setattr(compiled, "kernels_cached", lambda: True)
    assert compiled.compile_in_background() is None
    monkeypatch.setattr(compiled, "kernels_cached", lambda: False)
    monkeypatch.setenv("GECO_SEARCH_NATIVE", "0")
    assert compiled.compile_in_background() is None and compiled.background_compile() is None
    assert compiled.load_kernels_if_compiled() is None


def test_pay_rule(monkeypatch):
    monkeypatch.setattr(compiled, "first_use_seconds", lambda cache=None: 1.0)
    saved = compiled.KERNELS_SAVE
    assert not kernels_pay(10, 0.05)  # 0.1 s saved: less than the load
    assert kernels_pay(1.01 / (0.05 * saved), 0.05)
    assert not kernels_pay(0.99 / (0.05 * saved), 0.05)
    monkeypatch.setenv("GECO_SEARCH_NATIVE", "0")
    assert not kernels_pay(1e6, 1.0)


SETUP = """
import json, sys, warnings
import numpy as np
from sklearn.ensemble import RandomForestClassifier
import geco
import geco.batch
from geco.search import compiled
from geco.datasets import load_dataset
from geco.models import one_hot_pipeline
warnings.simplefilter("ignore")
ds = load_dataset("adult")
X, y = ds.X.iloc[:3000], ds.y.iloc[:3000]
model = one_hot_pipeline(X, RandomForestClassifier(20, max_depth=6, random_state=0, n_jobs=1)).fit(X, y)
explainer = geco.Explainer(model, X, ds.constraints)
rows = X.iloc[np.flatnonzero(model.predict_proba(X)[:, 1] < 0.5)[:8]]
out = {"reference": [e.counterfactuals.to_csv() for e in explainer.explain_many(rows, random_state=1, native=False, progress=False)]}
out["numba_after_reference"] = "numba" in sys.modules
"""

BATCH = SETUP + """
single = explainer.explain(rows.iloc[[0]], random_state=5)
out["single_compiled"] = single.stats["compiled_search"]
out["numba_after_single"] = "numba" in sys.modules
geco.batch.kernels_pay = lambda rows_left, per_row: True  # this batch pays from its first check on
geco.batch.kernels_cached = compiled.kernels_cached = lambda: True  # in numba's cache: a load, not a child's compile
batch = explainer.explain_many(rows, random_state=1, progress=False)
out["batch"] = [e.counterfactuals.to_csv() for e in batch]
out["batch_compiled"] = [e.stats["compiled_search"] for e in batch]
print(json.dumps(out))
"""

SINGLES = SETUP + """
compiled.FIRST_USE_SECONDS = (0.001, 0.001)  # earned after 5 ms of reference searches: the first one
seeds = geco.batch.row_seeds(1, len(rows))
budgeted = [explainer.explain(rows.iloc[[i]], random_state=seeds[i], time_budget=30.0) for i in range(3)]
out["budgeted_compiled"] = [e.stats["compiled_search"] for e in budgeted]
out["numba_after_budgeted"] = "numba" in sys.modules
out["earned"] = compiled.kernels_earned()
singles = [explainer.explain(rows.iloc[[i]], random_state=seeds[i]) for i in range(len(rows))]
out["singles"] = [e.counterfactuals.to_csv() for e in singles]
out["singles_compiled"] = [e.stats["compiled_search"] for e in singles]
print(json.dumps(out))
"""


# a fresh install: the kernels not in numba's cache; the child that would compile them waits for
# a file instead (the test decides when it is done) and exits with ``status``
GATED_CHILD = """
import pathlib, tempfile
gate, status = sys.argv[1], int(sys.argv[2])
empty = pathlib.Path(tempfile.mkdtemp())
compiled.kernels_cache_dir = lambda: empty  # geco's estimate sees an empty cache; numba keeps its own
child = [sys.executable, "-c", f"import os, sys, time\\nwhile not os.path.exists({gate!r}): time.sleep(0.01)\\n"
         f"print('numba: no compiler here', file=sys.stderr)\\nsys.exit({status})"]
init = compiled.BackgroundCompile.__init__
compiled.BackgroundCompile.__init__ = lambda self, command=None: init(self, child)
"""

# single explanations that have earned the kernels on a fresh install (not in numba's cache): a
# child compiles them, gated by a file as below, while the searches go on in the reference
SINGLES_BACKGROUND = SETUP + GATED_CHILD + """
compiled.FIRST_USE_SECONDS = (0.0005, 0.001)  # earned after 5 ms of reference searches: the first one
seeds = geco.batch.row_seeds(1, len(rows))
first = [explainer.explain(rows.iloc[[i]], random_state=seeds[i]) for i in range(4)]
out["while_compiling"] = [e.stats["compiled_search"] for e in first]
out["numba_while_compiling"] = "numba" in sys.modules
out["state_while"] = compiled.background_compile().state()
open(gate, "w").close()
with warnings.catch_warnings(record=True) as said:
    warnings.simplefilter("always")
    out["state"] = compiled.background_compile().wait(60)
    singles = [explainer.explain(rows.iloc[[i]], random_state=seeds[i]) for i in range(len(rows))]
out["warnings"] = [str(w.message) for w in said]
out["singles"] = [e.counterfactuals.to_csv() for e in singles]
out["singles_compiled"] = [e.stats["compiled_search"] for e in singles]
print(json.dumps(out))
"""

# a batch on that fresh install
BACKGROUND = SETUP + GATED_CHILD + """
geco.batch.kernels_pay = lambda rows_left, per_row: True
first = explainer.explain_many(rows.iloc[:4], random_state=1, progress=False)
out["while_compiling"] = [e.stats["compiled_search"] for e in first]
out["numba_while_compiling"] = "numba" in sys.modules
out["state_while"] = compiled.background_compile().state()
open(gate, "w").close()
out["state"] = compiled.background_compile().wait(60)
out["reason"] = compiled.background_compile().reason
batch = explainer.explain_many(rows, random_state=1, progress=False)
out["batch"] = [e.counterfactuals.to_csv() for e in batch]
out["batch_compiled"] = [e.stats["compiled_search"] for e in batch]
out["children"] = compiled.background_compile() is not None
print(json.dumps(out))
"""


# the same fresh install, a batch that pays for a pool of two workers: the child compiles once
# for all of them; the workers are not told to compile too
POOL = BACKGROUND.split("first = ")[0] + """
geco.batch.pool_pays = lambda *args: True
try:
    batch = explainer.explain_many(rows, random_state=1, n_jobs=2, chunk_size=1, progress=False)
finally:
    geco.batch.shutdown_pool()
out["batch"] = [e.counterfactuals.to_csv() for e in batch]
out["on_workers"] = [e.stats["batch"]["worker_pool"] for e in batch]
out["batch_compiled"] = [e.stats["compiled_search"] for e in batch]
out["child"] = compiled.background_compile() is not None
open(gate, "w").close()
print(json.dumps(out))
"""


# numba's cache of its own (NUMBA_CACHE_DIR), empty; the child writes the index of one kernel
# there at once, as a real compile does, then waits for the test: the cache holds some kernels
PARTIAL = SETUP + """
import os
from pathlib import Path
gate = sys.argv[1]
geco.batch.kernels_pay = lambda rows_left, per_row: True
where = str(compiled.kernels_cache_dir())
out["cached_before"] = compiled.kernels_cached()
child = [sys.executable, "-c", f"import os, pathlib, time\\np = pathlib.Path({where!r}); p.mkdir(parents=True)\\n"
         f"(p / 'bookkeeping._gather-300.py311.nbi').write_bytes(b'')\\n"
         f"while not os.path.exists({gate!r}): time.sleep(0.01)"]
init = compiled.BackgroundCompile.__init__
compiled.BackgroundCompile.__init__ = lambda self, command=None: init(self, child)
first = []
for e in geco.batch.iter_explain(explainer, rows, random_state=1, progress=False):
    first.append(e.stats["compiled_search"])
    if len(first) == 4:  # the batch started the child after its third row: let it write into the cache
        import time
        t0 = time.time()
        while not any(Path(where).glob("*.nbi")) and time.time() - t0 < 30:
            time.sleep(0.01)
out["while_compiling"] = first
out["numba_while_compiling"] = "numba" in sys.modules
out["cached_while"] = compiled.kernels_cached()
out["state"] = compiled.background_compile().state()
open(gate, "w").close()
compiled.background_compile().wait(60)
print(json.dumps(out))
"""


def _fresh_process(script: str, *args: str, **env_more: str) -> dict:
    if not compiled.kernels_available():
        pytest.skip("numba is not installed")
    env = {k: v for k, v in os.environ.items() if k != "GECO_SEARCH_NATIVE"} | env_more
    done = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert not out["numba_after_reference"]  # native=False neither loads nor counts towards them
    assert all("counterfactual" in csv for csv in out["reference"])
    return out


def test_a_batch_loads_the_compiled_search_once_it_pays_with_the_same_answers():
    out = _fresh_process(BATCH)
    assert not out["numba_after_single"] and out["single_compiled"] is False
    # rows timed before the choice (one check per _TIMED_ROWS rows) run the reference, the rest compiled
    timed = geco.batch._TIMED_ROWS
    assert out["batch_compiled"] == [False] * timed + [True] * (len(out["batch"]) - timed)
    assert out["batch"] == out["reference"]


def test_a_batch_compiles_in_a_child_and_loads_the_kernels_once_it_is_done(tmp_path):
    """Not in numba's cache: the batch does not stop to compile; a child process compiles while
    the rows run the reference, and the batch loads the kernels once the child is done."""
    out = _fresh_process(BACKGROUND, str(tmp_path / "gate"), "0")
    assert out["while_compiling"] == [False] * 4 and not out["numba_while_compiling"]
    assert out["state_while"] == "running" and out["state"] == "done" and out["reason"] == ""
    timed = geco.batch._TIMED_ROWS
    assert out["batch_compiled"] == [False] * timed + [True] * (len(out["batch"]) - timed)
    assert out["batch"] == out["reference"]


def test_a_cache_the_child_is_still_filling_is_not_taken_for_a_full_one(tmp_path):
    """The child writes each kernel to the cache as it compiles it: a batch that loaded the
    kernels then would compile the rest itself (measured: an 18 s row in a CLI batch)."""
    out = _fresh_process(PARTIAL, str(tmp_path / "gate"), NUMBA_CACHE_DIR=str(tmp_path / "numba"))
    assert not out["cached_before"] and out["state"] == "running" and not out["cached_while"]
    assert not any(out["while_compiling"]) and not out["numba_while_compiling"]


def test_a_pool_on_a_fresh_install_leaves_the_compile_to_one_child(tmp_path):
    out = _fresh_process(POOL, str(tmp_path / "gate"), "0")
    assert out["child"] and any(out["on_workers"])
    assert not any(out["batch_compiled"])  # the workers were not handed native=True (each would compile)
    assert out["batch"] == out["reference"]


def test_a_failed_background_compile_leaves_the_reference_and_says_why(tmp_path):
    out = _fresh_process(BACKGROUND, str(tmp_path / "gate"), "3")
    assert out["state"] == "failed" and out["reason"] == "numba: no compiler here"
    assert not any(out["batch_compiled"]) and out["batch"] == out["reference"]  # not compiled here either


def test_single_explanations_load_it_once_earned_never_under_a_budget():
    """Rent or buy: the reference runs until what the kernels would have saved reaches their
    first use; a search with a time budget never pays the load; the answers stay the same."""
    out = _fresh_process(SINGLES)
    assert out["budgeted_compiled"] == [False] * 3 and not out["numba_after_budgeted"]
    assert out["earned"]  # the budgeted searches counted
    assert all(out["singles_compiled"])  # the first search without a budget loaded them
    assert out["singles"] == out["reference"]


@pytest.mark.parametrize("status", [0, 3])
def test_single_explanations_that_earned_the_kernels_do_not_stop_for_the_compile(tmp_path, status):
    """Earned on a fresh install, the kernels compile in a child while the searches go on in
    the reference (numba not even imported); the first search after the child is done loads
    them; a failed child leaves the reference, said once."""
    out = _fresh_process(SINGLES_BACKGROUND, str(tmp_path / "gate"), str(status))
    assert out["while_compiling"] == [False] * 4 and not out["numba_while_compiling"]
    assert out["state_while"] == "running"
    if status == 0:
        assert out["state"] == "done" and all(out["singles_compiled"]) and out["warnings"] == []
    else:
        assert out["state"] == "failed" and not any(out["singles_compiled"])
        assert len(out["warnings"]) == 1 and "numba: no compiler here" in out["warnings"][0]
    assert out["singles"] == out["reference"]


def test_earned_where_no_child_can_start_compiles_here_as_before(monkeypatch):
    def no_process(*args, **kwargs):
        raise OSError("no new processes here")

    monkeypatch.setattr(compiled, "_background", [None])
    monkeypatch.setattr(compiled, "BackgroundCompile", no_process)
    monkeypatch.setattr(compiled, "kernels_loaded", lambda: False)
    monkeypatch.setattr(compiled, "kernels_cached", lambda: False)
    monkeypatch.setattr(compiled, "kernels_earned", lambda: True)
    monkeypatch.delitem(sys.modules, "geco.search.kernels")  # restored after the test
    monkeypatch.setattr(compiled, "load_kernels", lambda: "loaded here")
    monkeypatch.delenv("GECO_SEARCH_NATIVE", raising=False)
    assert compiled_kernels(None, may_load=True) == "loaded here" and compiled.background_compile() is None
    monkeypatch.setattr(compiled, "kernels_earned", lambda: False)
    assert compiled_kernels(None, may_load=True) is None

def test_rent_or_buy_rule(monkeypatch):
    monkeypatch.setattr(compiled, "_reference_seconds", [0.0])
    monkeypatch.setattr(compiled, "first_use_seconds", lambda cache=None: 1.0)
    assert not compiled.kernels_earned()
    compiled.note_reference_search(0.99 / compiled.KERNELS_SAVE)
    assert not compiled.kernels_earned()
    compiled.note_reference_search(0.02 / compiled.KERNELS_SAVE)
    assert compiled.kernels_earned()
    monkeypatch.setenv("GECO_SEARCH_NATIVE", "0")
    assert not compiled.kernels_earned()


def test_a_failed_import_runs_the_reference_and_is_not_retried(monkeypatch):
    """numba installed but broken (the kernels' import raises): the searches run the numpy
    reference, asked for the kernels or not, and the import is not tried again."""
    monkeypatch.setattr(compiled, "_import_failed", [False])
    monkeypatch.setitem(sys.modules, "geco.search.kernels", None)  # importing it raises ImportError
    monkeypatch.delenv("GECO_SEARCH_NATIVE", raising=False)
    with pytest.warns(RuntimeWarning, match="could not be loaded .ModuleNotFoundError"):
        assert compiled.load_kernels() is None
    assert not compiled.kernels_available() and not compiled.kernels_pay(1e6, 1.0)
    assert compiled_kernels(True) is None and compiled_kernels(None, may_load=True) is None


def test_numba_without_a_cache_directory_runs_the_reference_and_says_why(monkeypatch):
    """numba refuses to define cached functions where no cache directory is writable (a
    RuntimeError at import): the numpy search runs, with a warning naming the remedy, once."""
    def no_locator(name):
        raise RuntimeError("cannot cache function '_selection': no locator available for file 'bookkeeping.py'")

    monkeypatch.setattr(compiled, "_import_failed", [False])
    monkeypatch.setattr(compiled.importlib, "import_module", no_locator)
    monkeypatch.delitem(sys.modules, "geco.search.kernels")
    monkeypatch.delenv("GECO_SEARCH_NATIVE", raising=False)
    with pytest.warns(RuntimeWarning, match="no locator available.*set NUMBA_CACHE_DIR"):
        assert compiled_kernels(True) is None
    assert compiled_kernels(True) is None and not compiled.kernels_available()  # not tried again, no warning


def test_serve_warm_up_runs_the_compiled_search(monkeypatch):
    from geco.datasets import load_dataset
    from geco.models import default_model
    from geco.serve.app import warm_up_search

    ds = load_dataset("compas")
    model = default_model(ds.X.iloc[:2000], ds.y.iloc[:2000])
    explainer = geco.Explainer(model, ds.X.iloc[:2000], ds.constraints)
    probability = explainer.setting.model_proba(explainer.table.take(slice(0, 256)))
    assert warm_up_search(explainer, probability) == "compiled search loaded and warmed"
    assert "no undesired row" in warm_up_search(explainer, np.ones(256))

    def broken(*args, **kwargs):
        raise RuntimeError("the model is unreachable")

    monkeypatch.setattr(explainer, "explain", broken)  # the service starts anyway and says why
    assert warm_up_search(explainer, probability) == (
        "compiled search loaded; warm-up failed (RuntimeError: the model is unreachable)")
    monkeypatch.setenv("GECO_SEARCH_NATIVE", "0")
    assert warm_up_search(explainer, probability).startswith("numpy search")


@pytest.mark.parametrize("status", [0, 3])
def test_serve_does_not_wait_for_the_compile_and_switches_once_it_is_done(monkeypatch, tmp_path, status):
    """A fresh install: the worker serves with the numpy search at once while a child compiles
    the kernels, then loads them before the next request (or says why it cannot)."""
    from geco.datasets import load_dataset
    from geco.models import default_model
    from geco.serve.app import Service, warm_up_search
    from geco.serve.settings import ServeSettings

    ds = load_dataset("compas")
    model = default_model(ds.X.iloc[:1000], ds.y.iloc[:1000])
    explainer = geco.Explainer(model, ds.X.iloc[:1000], ds.constraints)
    probability = explainer.setting.model_proba(explainer.table.take(slice(0, 256)))
    gate = tmp_path / "gate"
    child = [sys.executable, "-c", f"import os, sys, time\nwhile not os.path.exists({str(gate)!r}): time.sleep(0.01)\n"
             f"sys.stderr.write('no compiler')\nsys.exit({status})"]  # fmt: skip
    init = compiled.BackgroundCompile.__init__
    monkeypatch.setattr(compiled.BackgroundCompile, "__init__", lambda self, command=None: init(self, child))
    monkeypatch.setattr(compiled, "_background", [None])
    monkeypatch.setattr(compiled, "kernels_loaded", lambda: False)  # as in a worker that just started
    monkeypatch.setattr(compiled, "kernels_cached", lambda: False)
    monkeypatch.delenv("GECO_SEARCH_NATIVE", raising=False)
    assert warm_up_search(explainer, probability).startswith("numpy search while a child process compiles")
    service = Service(ServeSettings(explainer="unused", access_log=str(tmp_path / "access.log")))
    service.switch_search()
    assert not service.search_switched  # still compiling: the requests go on in the numpy search
    gate.touch()
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        compiled.background_compile().wait(30)
    assert [str(w.message) for w in said if w.category is RuntimeWarning] == (
        [] if status == 0 else ["the compiled search could not be compiled in a child process (no compiler); "
                                "the numpy search runs instead, with the same explanations"])  # fmt: skip
    service.switch_search()
    expected = ("compiled search loaded (compiled in the background)" if status == 0
                else "numpy search (the background compile failed: no compiler)")  # fmt: skip
    assert service.search_switched and service.search_warm_up == expected
    logged = json.loads((tmp_path / "access.log").read_text().splitlines()[-1])
    assert logged["event"] == "search" and logged["search"] == expected
