"""Batches: explainers that pickle (per engine, in a new process too), explain_many's order,
seeds and failed rows, local worker processes and a Dask cluster, the tidy frame."""

import copy
import json
import os
import pickle
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import GradientBoostingClassifier, RandomForestClassifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.neighbors import KNeighborsClassifier
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

import geco
from geco.batch import explanations_frame, row_seeds, shutdown_pool
from geco.models import categorical_columns, one_hot_pipeline
from plaf_grammar import SchemaError

ROOT = Path(__file__).resolve().parents[2]


def _mlp(X, y):
    cats = categorical_columns(X)
    nums = [c for c in X.columns if c not in cats]
    pre = ColumnTransformer([("oh", OneHotEncoder(handle_unknown="ignore"), cats), ("sc", StandardScaler(), nums)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return Pipeline([("pre", pre), ("mlp", MLPClassifier((16,), max_iter=40, random_state=0))]).fit(X, y)


def _knn(X, y):
    return one_hot_pipeline(X, KNeighborsClassifier(15)).fit(X, y)


MODELS = {  # name: (fit, engine, the engine it must get)
    "trees": (lambda X, y: one_hot_pipeline(X, RandomForestClassifier(20, max_depth=6, random_state=0)).fit(X, y), "auto", "trees-auto"),
    "trees-numpy": (lambda X, y: one_hot_pipeline(X, RandomForestClassifier(20, max_depth=6, random_state=0)).fit(X, y), "numpy", "trees-numpy"),
    "boosting": (lambda X, y: one_hot_pipeline(X, GradientBoostingClassifier(n_estimators=15, max_depth=3, random_state=0)).fit(X, y), "auto", "trees-auto"),
    "mlp": (_mlp, "jit", "mlp-jit"),
    "blackbox": (_knn, "auto", "blackbox"),
    "xgboost": (lambda X, y: one_hot_pipeline(X, pytest.importorskip("xgboost").XGBClassifier(n_estimators=15, max_depth=3)).fit(X, y), "auto", "trees-auto"),
    "lightgbm": (lambda X, y: one_hot_pipeline(X, pytest.importorskip("lightgbm").LGBMClassifier(n_estimators=15, verbose=-1)).fit(X, y), "auto", "trees-auto"),
}  # fmt: skip


@pytest.fixture(scope="module")
def adult():
    ds = geco.datasets.load_adult()
    return ds, ds.X.iloc[:3000], ds.y.iloc[:3000]


class _Explainers(dict):
    """name -> (Explainer, undesired rows of X[:400]), built on first use."""

    def __init__(self, adult):
        super().__init__()
        self.adult = adult

    def __missing__(self, name):
        ds, X, y = self.adult
        fit, engine, _ = MODELS[name]
        model = fit(X, y)
        undesired = np.flatnonzero(model.predict_proba(X.iloc[:400])[:, 1] <= 0.5)
        self[name] = (geco.Explainer(model, X, ds.constraints, 1, engine=engine), undesired)
        return self[name]


@pytest.fixture(scope="module")
def explainers(adult):
    return _Explainers(adult)


@pytest.fixture(scope="module")
def trees(explainers, adult):
    """The RF explainer and a batch: 5 undesired rows, one already desired, one with a NaN."""
    _, X, _ = adult
    explainer, undesired = explainers["trees"]
    desired = np.flatnonzero(explainer.blackbox.predict(explainer.data[:400]) > 0.5)
    batch = X.iloc[[*undesired[:3], desired[0], *undesired[3:5], undesired[5]]].copy()
    batch.iloc[-1, batch.columns.get_loc("age")] = np.nan
    return explainer, batch


def _same(a, b):
    assert a.success == b.success and a.reason == b.reason
    pd.testing.assert_frame_equal(a.counterfactuals, b.counterfactuals)
    pd.testing.assert_frame_equal(a.x, b.x)


# ---------------------------------------------------------------------------- pickling
@pytest.mark.parametrize("name", sorted(MODELS))
def test_pickle_and_deepcopy_give_the_same_explanations(explainers, adult, name):
    _, X, _ = adult
    explainer, undesired = explainers[name]
    assert explainer.engine == MODELS[name][2], explainer.engine_reason
    rows = undesired[:2]
    assert len(rows) == 2
    want = [explainer.explain(X.iloc[[r]], random_state=int(r)) for r in rows]
    unpickled = pickle.loads(pickle.dumps(explainer))
    twice = pickle.loads(pickle.dumps(unpickled))  # pickled again before its kernels were rebuilt
    for other in (unpickled, twice, copy.deepcopy(explainer)):
        assert other.engine == explainer.engine
        for r, w in zip(rows, want):
            _same(other.explain(X.iloc[[r]], random_state=int(r)), w)


def test_explanations_pickle(explainers, adult):
    _, X, _ = adult
    explainer, undesired = explainers["trees"]
    e = explainer.explain(X.iloc[[undesired[0]]], random_state=0)
    back = pickle.loads(pickle.dumps(e))
    _same(back, e)
    assert back.stats == e.stats


def test_saved_explainer_explains_alike_in_a_new_process(explainers, adult, tmp_path):
    """geco.load in a fresh interpreter: kernels rebuilt there, same explanations, and nothing on
    stderr at exit (no llvmlite destructor tracebacks, also after a deepcopy)."""
    _, X, _ = adult
    cases, want = [], {}
    for name in ("trees", "mlp"):
        explainer, undesired = explainers[name]
        row = int(undesired[0])
        cases.append((name, str(explainer.save(tmp_path / f"{name}.joblib")), row))
        want[name] = (explainer.engine, json.loads(explainer.explain(X.iloc[[row]], random_state=3).to_json()))
    script = textwrap.dedent(f"""
        import copy, json
        import geco
        X = geco.datasets.load_adult().X
        out = {{}}
        for name, path, row in {cases!r}:
            e = geco.load(path)
            r = e.explain(X.iloc[[row]], random_state=3)
            copy.deepcopy(e).explain(X.iloc[[row]], random_state=3)
            out[name] = [e.engine, r.to_dict()]
        print(json.dumps(out, default=str))
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT,
                          timeout=120, env=_env())  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    got = json.loads(proc.stdout)
    assert sorted(got) == ["mlp", "trees"]
    for name, (engine, result) in want.items():
        assert got[name][0] == engine
        assert got[name][1]["counterfactuals"] == result["counterfactuals"]


def _env():
    import os

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH", "")]))
    return env


def test_load_refuses_other_objects(tmp_path):
    import joblib

    joblib.dump({"not": "an explainer"}, tmp_path / "x.joblib")
    with pytest.raises(TypeError, match="holds a dict, not a geco Explainer"):
        geco.load(tmp_path / "x.joblib")
    with pytest.raises(FileNotFoundError):
        geco.load(tmp_path / "missing.joblib")
    with pytest.raises(IsADirectoryError, match="is a directory; expected a file written by Explainer.save"):
        geco.load(tmp_path)
    (tmp_path / "other.joblib").write_bytes(b"cno_such_module_geco\nThing\n(tR.")  # saved with a library not here
    with pytest.raises(ValueError, match=r"other.joblib: cannot load: it needs what this Python lacks \(ModuleNotFoundError"):
        geco.load(tmp_path / "other.joblib")
    for junk in (b"junk", b"", b"\x80\x04garbage"):  # text, empty, a broken pickle
        (tmp_path / "junk.joblib").write_bytes(junk)
        with pytest.raises(ValueError, match=r"junk.joblib: not a file written by Explainer.save \(cannot unpickle"):
            geco.load(tmp_path / "junk.joblib")


# ---------------------------------------------------------------------------- explain_many
def test_explain_many_order_seeds_and_failed_rows(trees, capsys):
    explainer, batch = trees
    results = explainer.explain_many(batch, random_state=11, progress=True)
    assert capsys.readouterr().err == ""  # no bar when stderr is not a terminal
    assert [r.x.index[0] for r in results] == list(batch.index)
    seeds = row_seeds(11, len(batch))
    for i in range(len(batch) - 1):
        _same(results[i], explainer.explain(batch.iloc[[i]], random_state=seeds[i]))
    assert [r.success for r in results[:3]] == [True, True, True]
    assert "already classified as the desired class" in results[3].reason
    failed = results[-1]
    assert not failed.success and len(failed.counterfactuals) == 0
    assert "failed" in failed.reason and "'age'" in failed.reason and "NaN" in failed.reason
    assert failed.stats["error"].startswith("SchemaError")
    assert np.isnan(failed.x_probability)
    # a row's seed depends on its position only, not on the batch's length
    again = explainer.explain_many(batch.iloc[:2], random_state=11, progress=False)
    _same(again[1], results[1])


def test_progress_bar_in_a_terminal(trees, monkeypatch):
    """A bar on stderr when it is a terminal and the batch takes over a second; none with
    progress=False."""
    import io
    import time

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    explainer, batch = trees
    explain = explainer.explain

    def slow(*args, **kwargs):
        time.sleep(0.4)
        return explain(*args, **kwargs)

    monkeypatch.setattr(explainer, "explain", slow)
    for progress in (True, False):
        err = Terminal()
        monkeypatch.setattr(sys, "stderr", err)
        explainer.explain_many(batch.iloc[:4], random_state=0, progress=progress)
        monkeypatch.setattr(sys, "stderr", sys.__stderr__)
        assert ("4/4" in err.getvalue() and "explaining" in err.getvalue()) == progress


def test_failed_rows_survive_jsonl_and_the_report(trees, tmp_path):
    from geco.result import read_jsonl, write_jsonl

    explainer, batch = trees
    results = explainer.explain_many(batch.iloc[[0, 3, 6]], random_state=1)
    write_jsonl(results, tmp_path / "r.jsonl", meta={"engine": explainer.engine})
    back, _ = read_jsonl(tmp_path / "r.jsonl")
    assert [b.reason for b in back] == [r.reason for r in results]
    assert back[2].stats["error"] == results[2].stats["error"] and np.isnan(back[2].x_probability)
    pytest.importorskip("matplotlib")
    out = geco.report(tmp_path / "r.jsonl", tmp_path / "r.html")
    assert "explaining this row failed" in out.read_text(encoding="utf-8")


def test_row_seeds_follow_seedsequence_spawn():
    seeds = row_seeds(5, 3)
    assert [s.spawn_key for s in seeds] == [(0,), (1,), (2,)]
    want = np.random.SeedSequence(5).spawn(3)
    assert [s.generate_state(2).tolist() for s in seeds] == [s.generate_state(2).tolist() for s in want]
    given = np.random.SeedSequence(9)
    row_seeds(given, 2)
    assert given.n_children_spawned == 0  # the caller's SeedSequence is not advanced


def test_explain_many_bad_arguments(trees):
    explainer, batch = trees
    with pytest.raises(ValueError, match="backend must be one of"):
        explainer.explain_many(batch, backend="spark")
    with pytest.raises(TypeError, match="unknown option"):
        explainer.explain_many(batch, generations=3)
    with pytest.raises(SchemaError, match="missing column.*'sex'"):
        explainer.explain_many(batch.drop(columns="sex"))
    with pytest.raises(ValueError, match="n_jobs"):
        explainer.explain_many(batch, n_jobs=0)
    with pytest.raises(TypeError, match="DataFrame"):
        explainer.explain_many(batch.to_numpy())


def test_loky_two_workers_match_one_and_ship_the_explainer_once(trees, monkeypatch):
    """When the pool pays, the first rows run here (they time the batch) and the rest on two
    workers; the explanations are those of one process. Where the compiled search pays too
    (and numba is installed), the workers run it."""
    import geco.batch
    from geco.search.compiled import kernels_available

    explainer, batch = trees
    one = explainer.explain_many(batch, random_state=4, progress=False, native=False)
    monkeypatch.setattr(geco.batch, "pool_pays", lambda *args: True)
    monkeypatch.setattr(geco.batch, "kernels_pay", lambda *args: kernels_available())
    monkeypatch.setattr(geco.batch, "kernels_cached", lambda: True)  # a load in each worker, not a compile
    try:
        two = explainer.explain_many(batch, random_state=4, n_jobs=2, chunk_size=1, progress=False)
    finally:
        shutdown_pool()
    assert len(two) == len(batch)
    for a, b in zip(one, two):
        _same(a, b)
    here, there = two[:3], two[3:]
    assert not any(r.stats["batch"]["worker_pool"] or "worker" in r.stats for r in here)
    assert all(r.stats["batch"]["worker_pool"] for r in there)
    assert "2 workers" in there[0].stats["batch"]["why"]
    searched = [r for r in there if "compiled_search" in r.stats]  # not the desired row nor the NaN one
    assert len(searched) >= 2 and all(r.stats["compiled_search"] == kernels_available() for r in searched)
    assert not any(r.stats.get("compiled_search") for r in one)
    workers = {}
    for r in there:
        w = r.stats["worker"]
        workers.setdefault(w["pid"], set()).add(w["unpickle_seconds"])
        assert w["payload_bytes"] > 100_000 and w["pid"] != os.getpid()
    # 4 tasks of one row: each worker unpickled the explainer once (one install time per pid)
    assert 1 <= len(workers) <= 2 and all(len(t) == 1 for t in workers.values())


def test_free_cores_are_read_only_once_the_pool_would_pay_on_all_of_them(trees, monkeypatch):
    """Reading the free cores takes a tenth of a second: a batch the pool cannot pay for even on
    every core never reads them; one it can reads them once, then decides on what is free."""
    import geco.batch

    explainer, batch = trees
    shutdown_pool()
    reads = []
    monkeypatch.setattr(geco.batch, "free_cores", lambda: reads.append(1) or 1)
    small = explainer.explain_many(batch, random_state=4, n_jobs=2, progress=False)
    assert reads == [] and not any(r.stats["batch"]["worker_pool"] for r in small)
    monkeypatch.setattr(geco.batch, "pool_pays", lambda rows, per_row, workers, start, cores: cores > 1)
    kept = explainer.explain_many(batch, random_state=4, n_jobs=2, progress=False)
    assert reads == [1]  # read once; with one core free the pool does not pay: all rows here
    assert not any(r.stats["batch"]["worker_pool"] for r in kept)
    assert "on 1 free core(s)" in kept[-1].stats["batch"]["why"]


def test_small_batch_on_two_jobs_stays_in_this_process(trees):
    """A pool whose start-up the batch would not earn back is not started: the rows run here,
    as fast as n_jobs=1, with the same explanations; each says why."""
    explainer, batch = trees
    shutdown_pool()
    one = explainer.explain_many(batch, random_state=4, progress=False)
    two = explainer.explain_many(batch, random_state=4, n_jobs=2, progress=False)
    for a, b in zip(one, two):
        _same(a, b)
    assert not any(r.stats["batch"]["worker_pool"] for r in two)
    assert "would not save their start-up" in two[0].stats["batch"]["why"]
    assert not any("worker" in r.stats for r in two)  # no worker process ran a row


def test_pool_pays_only_when_the_saving_beats_the_start_up():
    from geco.batch import pool_pays

    assert not pool_pays(30, 0.05, 2, 5.0, cores=2)  # 0.5 s saved < 5 s to start
    assert not pool_pays(216, 0.05, 2, 5.0, cores=2)  # 3.6 s
    assert pool_pays(1000, 0.05, 2, 5.0, cores=2)  # 16.7 s saved
    assert not pool_pays(1000, 0.05, 2, 30.0, cores=2)
    assert pool_pays(10, 1.0, 4, 0.0, cores=4)
    assert not pool_pays(10_000, 1.0, 4, 1.0, cores=1)  # one core: workers only take turns


def test_extra_id_column_is_ignored_as_explain_does(adult):
    """An Explainer built on a frame with an id column the model never saw ignores it: explain
    and explain_many both take rows with it, and the batch warns once, not per row."""
    ds, X, y = adult
    model = MODELS["trees"][0](X, y)
    framed = X.assign(customer_id=np.arange(len(X)))
    with pytest.warns(UserWarning, match="customer_id"):
        explainer = geco.Explainer(model, framed, ds.constraints, 1)
    rows = framed.iloc[np.flatnonzero(model.predict_proba(X.iloc[:60])[:, 1] <= 0.5)[:3]]
    seeds = row_seeds(2, len(rows))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        many = explainer.explain_many(rows, random_state=2, progress=False)
    assert [str(w.message) for w in caught if "customer_id" in str(w.message)] == [
        "ignoring column(s) ['customer_id'] of X: the model was not fitted on them"
    ]
    for i, e in enumerate(many):
        _same(e, explainer.explain(rows.iloc[[i]], random_state=seeds[i]))
    assert "customer_id" not in many[0].x.columns


def test_a_column_the_explainers_data_lacked_is_ignored_as_explain_does(adult):
    """An Explainer built without the id column gets a batch with it: explain_many drops it with
    one warning for the batch, as explain does for a row, and answers as explain does; a
    missing column is still refused by name."""
    ds, X, y = adult
    model = MODELS["trees"][0](X, y)
    explainer = geco.Explainer(model, X, ds.constraints, 1)
    framed = X.assign(customer_id=np.arange(len(X)))
    rows = framed.iloc[np.flatnonzero(model.predict_proba(X.iloc[:60])[:, 1] <= 0.5)[:2]]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        many = explainer.explain_many(rows, random_state=3, progress=False)
    assert [str(w.message) for w in caught if "customer_id" in str(w.message)] == [
        "ignoring column(s) ['customer_id'] of X: the Explainer's X did not have them"
    ]
    seeds = row_seeds(3, len(rows))
    for i, e in enumerate(many):
        _same(e, explainer.explain(X.iloc[[rows.index[i]]], random_state=seeds[i]))
    with pytest.raises(SchemaError, match=r"missing column\(s\) \['age'\]"):
        explainer.explain_many(rows.drop(columns=["age"]), progress=False)


def test_dask_local_cluster(trees):
    distributed = pytest.importorskip("distributed")
    explainer, batch = trees
    one = explainer.explain_many(batch, random_state=4, progress=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:  # fmt: skip
        got = explainer.explain_many(batch, random_state=4, backend="dask", client=client, progress=False)
    assert len(got) == len(batch)
    for a, b in zip(one, got):
        _same(a, b)
    assert "error" in got[-1].stats and "worker" in got[0].stats


def test_dask_own_local_cluster_of_processes(trees):
    """Without a client, explain_many starts its own LocalCluster: two worker processes on
    loopback, whose nanny leaves glibc's malloc adaptive and whose profiler is off."""
    distributed = pytest.importorskip("distributed")
    from geco.batch import local_cluster

    explainer, batch = trees
    rows = batch.iloc[:4]
    one = explainer.explain_many(rows, random_state=6, progress=False)
    got = explainer.explain_many(rows, random_state=6, backend="dask", n_jobs=2, progress=False)
    for a, b in zip(one, got, strict=True):
        _same(a, b)
    assert all(r.stats["worker"]["pid"] != os.getpid() for r in got)

    def worker_settings():
        import dask

        return os.environ.get("MALLOC_TRIM_THRESHOLD_"), dask.config.get("distributed.worker.profile.enabled")

    with local_cluster(2) as cluster, distributed.Client(cluster) as client:
        settings = client.run(worker_settings)
        assert all(addr.startswith("tcp://127.0.0.1:") for addr in settings)
    assert len(settings) == 2
    assert set(settings.values()) == {(os.environ.get("MALLOC_TRIM_THRESHOLD_"), False)}


def test_tidy_frame(trees):
    explainer, batch = trees
    results = explainer.explain_many(batch.iloc[[0, 3, 6]], random_state=2)
    frame = explainer.explain_many(batch.iloc[[0, 3, 6]], random_state=2, as_frame=True)
    pd.testing.assert_frame_equal(frame, explanations_frame(results))
    n_cf = len(results[0].counterfactuals)
    assert n_cf >= 1 and len(frame) == n_cf + 2
    assert list(frame["instance"]) == [batch.index[0]] * n_cf + [batch.index[3], batch.index[6]]
    assert list(frame["rank"][:n_cf]) == list(range(1, n_cf + 1)) and frame["rank"][n_cf:].isna().all()
    assert frame.columns[:3].tolist() == ["instance", "rank", "success"]
    assert {"probability", "distance", "n_changed", "counterfactual", "x_probability", "reason"} <= set(frame.columns)
    cf = results[0].counterfactuals
    assert frame["age"].dtype == "Int64"  # an integer feature beside missing values
    assert frame["age"][:n_cf].tolist() == cf["age"].tolist()
    assert frame["workclass"].dtype == cf["workclass"].dtype  # categories kept
    assert frame["counterfactual"].tolist() == [True] * n_cf + [False, False]


def test_free_cores_leave_out_what_other_processes_keep_busy(monkeypatch):
    import geco.batch
    from geco.batch import busy_cores_now, free_cores

    now = busy_cores_now(0.05)
    assert now is None or 0.0 <= now <= (os.cpu_count() or 1)  # a real reading of /proc/stat
    monkeypatch.setattr(geco.batch, "busy_cores_now", lambda: None)  # the load average alone
    monkeypatch.setattr(os, "cpu_count", lambda: 4)
    monkeypatch.setattr(os, "getloadavg", lambda: (1.0, 1.0, 1.0))  # this process alone
    assert free_cores() == 4
    monkeypatch.setattr(os, "getloadavg", lambda: (3.2, 1.0, 1.0))
    assert free_cores() == 2
    monkeypatch.setattr(os, "getloadavg", lambda: (12.0, 1.0, 1.0))
    assert free_cores() == 1
    # a job that has just ended: the load average still counts it, the CPUs are idle now
    monkeypatch.setattr(geco.batch, "busy_cores_now", lambda: 0.1)
    assert free_cores() == 4
    monkeypatch.setattr(geco.batch, "busy_cores_now", lambda: 2.6)  # both busy: the lower counts
    assert free_cores() == 1


def test_busy_cores_now_without_proc_stat_is_none(monkeypatch):
    """Where /proc/stat cannot be read (not Linux) there is no reading, and the load average
    alone decides."""
    import geco.batch

    def refuse(*_a, **_k):
        raise OSError("no /proc/stat here")

    monkeypatch.setattr(geco.batch, "open", refuse, raising=False)
    assert geco.batch.busy_cores_now(0.01) is None
    monkeypatch.setattr(os, "cpu_count", lambda: 4)
    monkeypatch.setattr(os, "getloadavg", lambda: (3.2, 1.0, 1.0))
    assert geco.batch.free_cores() == 2


def test_tidy_frame_keeps_each_features_kind_beside_missing_values():
    """Where a failed explanation leaves a row of missing values, unsigned, bool and string
    features keep their kind (nullable UInt8, boolean, the string dtype), whichever row fails."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"u8": rng.integers(0, 200, 400).astype(np.uint8), "flag": rng.random(400) < 0.5,
                      "name": pd.array(rng.choice(["p", "q"], 400), dtype="string"), "f32": rng.normal(size=400).astype(np.float32)})  # fmt: skip
    y = (X["u8"] / 100 + X["flag"] + X["f32"] > 1.5).astype(int)
    from geco.models import one_hot_pipeline

    model = one_hot_pipeline(X, RandomForestClassifier(20, max_depth=5, random_state=0)).fit(X, y)
    explainer = geco.Explainer(model, X, "fixed name", desired_class=1)
    p = model.predict_proba(X)[:, 1]
    bad, good = int(np.flatnonzero(p < 0.5)[0]), int(np.flatnonzero(p > 0.5)[0])  # good: already desired
    found = explainer.explain(X.iloc[[bad]], random_state=0).counterfactuals
    for rows in ([bad, good], [good, bad]):
        frame = explainer.explain_many(X.iloc[rows], random_state=0, as_frame=True)
        assert {c: str(frame[c].dtype) for c in ("u8", "flag", "f32")} == {"u8": "UInt8", "flag": "boolean", "f32": "float32"}
        assert frame["name"].dtype == found["name"].dtype
        assert frame["success"].sum() == len(found) and frame["u8"].isna().sum() == 1


def test_tidy_frame_of_rows_labelled_by_a_multiindex(trees):
    """A row's label in a MultiIndex is one tuple: it fills the instance column as it is."""
    explainer, batch = trees
    rows = batch.iloc[[0, 3]]
    rows = rows.set_axis(pd.MultiIndex.from_tuples([("bank-a", 7), ("bank-b", 9)]))
    frame = explainer.explain_many(rows, random_state=2, as_frame=True)
    assert set(frame["instance"]) == {("bank-a", 7), ("bank-b", 9)}
    assert frame.groupby("instance", sort=False).size().tolist() == [max(len(r.counterfactuals), 1) for r in explainer.explain_many(rows, random_state=2)]
