"""The Explainer ``geco serve`` loads to check the file is handed to the worker of its own process
(one worker) instead of being loaded again; a changed file, a second app or several workers
load their own."""

from __future__ import annotations

import os
import shutil

import geco
import geco.serve
from geco.cli import main
from geco.serve.app import Service
from geco.serve.handover import hand_over, take
from geco.serve.settings import ServeSettings


def _loaded(path) -> geco.Explainer:
    service = Service(ServeSettings(str(path)))
    try:
        service.load()
        return service.explainer
    finally:
        service.thread.shutdown(wait=True)


def test_the_worker_takes_the_explainer_once_and_only_from_the_same_file(explainer_file, tmp_path):
    explainer = geco.load(explainer_file)
    hand_over(explainer_file, explainer)
    assert _loaded(explainer_file) is explainer
    assert _loaded(explainer_file) is not explainer  # taken once: the next app loads the file
    copy = tmp_path / "copy.joblib"
    shutil.copy(explainer_file, copy)
    other = geco.load(copy)
    hand_over(copy, other)
    st = os.stat(copy)
    os.utime(copy, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))  # saved again since
    got = _loaded(copy)
    assert got is not other and isinstance(got, geco.Explainer)
    gone = tmp_path / "gone.joblib"
    shutil.copy(explainer_file, gone)
    hand_over(gone, other)
    gone.unlink()  # deleted since: nothing is handed (the worker's own load then says no such file)
    assert take(gone) is None


def test_the_command_line_hands_over_to_one_worker_only(explainer_file, monkeypatch):
    taken = []
    monkeypatch.setattr(geco.serve, "serve", lambda settings: taken.append(take(settings.explainer)) or 0)
    assert main(["serve", str(explainer_file), "--port", "1"]) == 0
    assert main(["serve", str(explainer_file), "--port", "1", "--workers", "2"]) == 0
    assert isinstance(taken[0], geco.Explainer) and taken[1] is None
