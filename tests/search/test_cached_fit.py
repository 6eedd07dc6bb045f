"""geco.models.cached_fit: fits once, loads after, refits over a corrupt file, survives a cache
it cannot write."""

from geco.models import cached_fit


def test_fits_once_then_loads(tmp_path):
    calls = []
    path = tmp_path / "m" / "model.joblib"
    first = cached_fit(path, lambda: calls.append(1) or {"w": [1, 2]})
    again = cached_fit(path, lambda: calls.append(1) or {"w": [9]})
    assert first == again == {"w": [1, 2]} and calls == [1]
    assert [p.name for p in path.parent.iterdir()] == ["model.joblib"]  # no temporary left behind


def test_a_corrupt_file_is_refitted_and_replaced(tmp_path):
    path = tmp_path / "model.joblib"
    path.write_bytes(b"not a pickle")
    assert cached_fit(path, lambda: [3]) == [3]
    assert cached_fit(path, lambda: [4]) == [3]


def test_an_unwritable_cache_still_returns_the_model(tmp_path):
    (tmp_path / "blocker").write_text("a file where the cache directory would go")
    assert cached_fit(tmp_path / "blocker" / "model.joblib", lambda: [5]) == [5]
