"""bench_first_use.py's machinery: the summary of a run of explanations around the switch to the
compiled search, the environment its fresh processes get, and its refusal of bad arguments."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import bench_first_use


def test_the_switch_and_the_slowest_row_are_found():
    out = bench_first_use.switch_summary([0.04, 0.05, 0.06, 0.45, 0.03, 0.02], [False] * 3 + [True] * 3, 9.0)
    assert (out["rows"], out["wall"], out["first"], out["slowest"], out["slowest_at"]) == (6, 9.0, 3, 0.45, 3)
    assert out["before_ms"] == pytest.approx(50.0) and out["after_ms"] == pytest.approx(25.0)  # the load left out
    never = bench_first_use.switch_summary([0.04, 0.06], [False, False], 1.0)
    assert never["first"] is None and never["before_ms"] == pytest.approx(50.0) and never["after_ms"] is None


def test_fresh_processes_get_the_cache_and_the_default_search(monkeypatch, tmp_path):
    monkeypatch.setenv("GECO_SEARCH_NATIVE", "1")
    env = bench_first_use.default_search_env(tmp_path)
    assert env["NUMBA_CACHE_DIR"] == str(tmp_path) and "GECO_SEARCH_NATIVE" not in env


@pytest.mark.parametrize("argv", [["--seconds", "0"], ["--batch-rows", "-1"], ["--loop-rows", "-5"]])
def test_bad_arguments_are_refused_with_the_reason(monkeypatch, capsys, argv):
    monkeypatch.setattr(sys, "argv", ["bench_first_use.py", *argv])
    with pytest.raises(SystemExit) as exit_:
        bench_first_use.main()
    assert exit_.value.code == 2 and "--seconds must be above 0 and --batch-rows, --loop-rows at least 0" in capsys.readouterr().err
