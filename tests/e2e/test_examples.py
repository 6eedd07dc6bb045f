"""The quick example scripts run and print real explanations."""

import runpy
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_own_data_example(capsys):
    runpy.run_path(str(EXAMPLES / "own_data.py"), run_name="__main__")
    out = capsys.readouterr().out
    assert out.count("Counterfactuals found") >= 2


def test_inspect_ir_example(capsys):
    pytest.importorskip("llvmlite")
    runpy.run_path(str(EXAMPLES / "inspect_ir.py"), run_name="__main__")
    out = capsys.readouterr().out
    assert "PriorsCount" in out and out.count("define") >= 2
