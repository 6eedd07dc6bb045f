"""bench_versions.py's machinery: two source trees imported side by side in one process, each
call resolving to its own tree's modules (lazy imports included), the process's own modules
restored afterwards; the paired ratio's interval and the answer digest."""

import shutil
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))

import bench_versions  # noqa: E402


@pytest.fixture
def own_modules():
    """The process's geco, codegen and plaf_grammar modules, put back whatever the test does."""
    saved = {k: v for k, v in sys.modules.items() if k.split(".")[0] in bench_versions.ROOTS}
    path = list(sys.path)
    yield saved
    for name in [k for k in sys.modules if k.split(".")[0] in bench_versions.ROOTS]:
        del sys.modules[name]
    sys.modules.update(saved)
    sys.path[:] = path


def test_two_trees_import_their_own_code_side_by_side(tmp_path, own_modules):
    copy = tmp_path / "copy"
    for package in bench_versions.ROOTS:
        shutil.copytree(REPO / package, copy / package, ignore=shutil.ignore_patterns("__pycache__", "data"))
    (copy / "geco" / "copy_marker.py").write_text("WHERE = 'copy'\n")
    head, base = bench_versions.Tree(REPO), bench_versions.Tree(copy)
    geco_head, geco_base = head.load(), base.load()
    assert geco_head is not geco_base
    assert Path(geco_base.__file__).is_relative_to(copy) and Path(geco_head.__file__).is_relative_to(REPO)

    base.enter()
    try:  # a module the copy imports lazily, after its load: found in the copy
        import geco.copy_marker

        import geco.search.ranking as ranking

        assert geco.copy_marker.WHERE == "copy"
        assert Path(ranking.__file__).is_relative_to(copy)
    finally:
        base.leave()
    assert "geco.copy_marker" in base.modules

    head.enter()
    try:
        import geco
        import geco.search.ranking as ranking

        assert geco is geco_head and Path(ranking.__file__).is_relative_to(REPO)
        with pytest.raises(ImportError):
            import geco.copy_marker  # only the copy has it
    finally:
        head.leave()


def test_a_tree_that_imports_another_trees_geco_is_refused(tmp_path, own_modules):
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises((RuntimeError, ImportError)):
        bench_versions.Tree(empty).load()  # no geco here: found elsewhere or not at all


def test_bootstrap_interval_of_the_median():
    ratios = np.random.default_rng(1).normal(0.95, 0.03, 200)
    lo, hi = bench_versions.bootstrap_median(ratios)
    assert lo < np.median(ratios) < hi and hi - lo < 0.02
    assert bench_versions.bootstrap_median(np.full(50, 0.9)) == (0.9, 0.9)


def _result(table, outcome="found", bound=0.4, gap=0.0):
    return SimpleNamespace(counterfactuals=pd.DataFrame(table), outcome=outcome, bound=bound, gap=gap, x_probability=0.2)


def test_answers_differ_when_a_counterfactual_or_the_certificate_differs():
    same = bench_versions.answer(_result({"age": [40]}))
    assert same == bench_versions.answer(_result({"age": [40]}))
    assert same != bench_versions.answer(_result({"age": [41]}))
    assert same != bench_versions.answer(_result({"age": [40]}, bound=0.41))
    assert same != bench_versions.answer(_result({"age": [40]}, gap=0.1))


def _found(distances, changed=1, success=True):
    table = {"distance": distances, "counterfactual": [True] * len(distances), "n_changed": [changed] * len(distances)}
    return SimpleNamespace(counterfactuals=pd.DataFrame(table), success=success)


def test_quality_is_compared_row_by_row():
    q = bench_versions.quality
    base = [q(_found([0.1, 0.3])), q(_found([0.2, 0.4, 0.6], changed=2)), q(_found([0.5])), q(_found([], success=False))]
    head = [q(_found([0.1, 0.5])), q(_found([0.1, 0.4, 0.6], changed=1)), q(_found([0.5])), q(_found([0.9]))]
    out = bench_versions.compare_quality(base, head)
    assert out["found"] == (3, 4)
    assert (out["best"]["worse"], out["best"]["better"], out["best"]["max"]) == (0, 1, 1.0)
    assert (out["mean"]["worse"], out["mean"]["better"]) == (1, 1)  # 0.2 -> 0.3; 0.4 -> 0.3667
    assert out["mean"]["max"] == pytest.approx(1.5)
    assert out["mean"]["geo"] == pytest.approx((1.5 * (1.1 / 1.2)) ** (1 / 3))
    assert out["options"] == (2.0, 2.0) and out["changed"] == (4 / 3, 1.0)  # over the rows both found


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--base", "HEAD", "--settings", "adult-rf,nope"], "unknown setting(s) nope; known: adult-rf"),
        (["--base", "no-such-revision-here"], "cannot check out --base 'no-such-revision-here'"),
        (["--base", "HEAD", "--n", "0"], "--n must be at least 1, got 0"),
        (["--base", "HEAD", "--k", "0"], "--k must be at least 1, got 0"),
    ],
)
def test_bad_arguments_are_refused_with_the_reason(monkeypatch, capsys, argv, message):
    monkeypatch.setattr(sys, "argv", ["bench_versions.py", *argv])
    with pytest.raises(SystemExit) as exit_:
        bench_versions.main()
    assert exit_.value.code == 2 and message in capsys.readouterr().err


def test_more_options_raise_the_mean_but_not_the_shared_mean():
    """Head finds a third, farther option on the first row: its mean over the options rises,
    the mean over the two both return does not; on the second row head's second option is
    nearer, but its third (farther) raises its mean: only the shared mean shows the gain."""
    q = bench_versions.quality
    base = [q(_found([0.1, 0.2])), q(_found([0.1, 0.4]))]
    head = [q(_found([0.1, 0.2, 0.9])), q(_found([0.1, 0.3, 0.5]))]
    out = bench_versions.compare_quality(base, head)
    assert (out["mean"]["worse"], out["mean"]["better"]) == (2, 0)  # 0.15 -> 0.4; 0.25 -> 0.3
    assert (out["shared"]["worse"], out["shared"]["better"]) == (0, 1)  # 0.15 -> 0.15; 0.25 -> 0.2
    assert out["shared"]["geo"] == pytest.approx((0.2 / 0.25) ** 0.5)
    assert out["options"] == (2.0, 3.0)
