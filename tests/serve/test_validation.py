"""The request checks on their own (no server): JSON parsing, options, rows, seeds."""

from __future__ import annotations

import pytest

from geco.batch import row_seeds
from geco.serve.seeds import derived_seed, request_seeds
from geco.serve.settings import ServeSettings
from geco.serve.validation import RequestError, parse_body, parse_request
from plaf_grammar import Schema


@pytest.fixture(scope="module")
def schema(adult_small):
    _, X, _ = adult_small
    return Schema.from_dataframe(X)


def test_parse_body_refuses_non_finite_and_garbage():
    assert parse_body(b'{"a": 1.5}') == {"a": 1.5}
    for body in (b'{"a": NaN}', b"[Infinity]", b"{", b"\xff\xfe", b"[" * 100_000):
        with pytest.raises(RequestError) as exc:
            parse_body(body)
        assert exc.value.status == 400 and exc.value.field == "body"


def test_parse_request_frames_in_schema_order(schema, records):
    job = parse_request({"rows": [dict(reversed(list(records[0].items()))), records[1]], "k": 2}, schema, set(), 10)
    assert not job.single and job.overrides == {"k": 2} and job.options.random_state is None
    assert [list(f.columns) for f in job.frames] == [list(schema.names)] * 2
    assert [f.index[0] for f in job.frames] == [0, 1]


def test_a_body_without_rows_names_the_keys_it_has_instead(schema, records):
    cases = (({"record": records[0]}, "; the body has 'record', which is no field"),
             ({"record": records[0], "row": 1, "k": 2}, "; the body has ['record', 'row'], which are no fields"),
             ({"k": 2}, ""))  # fmt: skip
    for data, also in cases:
        with pytest.raises(RequestError) as exc:
            parse_request(data, schema, set(), 10)
        assert exc.value.status == 422 and exc.value.field == "rows"
        assert str(exc.value) == f"rows: missing (one record or a list of records){also}"


def test_ignored_columns_accepted_and_dropped(schema, records):
    job = parse_request({"rows": dict(records[0], customer_id=7)}, schema, {"customer_id"}, 10)
    assert job.single and "customer_id" not in job.frames[0].columns


def test_norm_weights_and_representation(schema, records):
    job = parse_request({"rows": records[0], "norm_weights": [1, 0, 0, 0], "representation": "full"}, schema, set(), 1)
    assert job.overrides == {"norm_weights": [1, 0, 0, 0], "representation": "full"}
    with pytest.raises(RequestError) as exc:
        parse_request({"rows": records[0], "norm_weights": [1, 0]}, schema, set(), 1)
    assert exc.value.field == "norm_weights"


def test_seeds_follow_the_library():
    records = [{"a": 1}, {"a": 2}]
    assert request_seeds(records[:1], True, 5, "k") == [5]
    assert [s.spawn_key for s in request_seeds(records, False, 5, "k")] == [s.spawn_key for s in row_seeds(5, 2)]
    derived = request_seeds(records, False, None, "k")
    assert derived == [derived_seed(r, "k") for r in records] and derived[0] != derived[1]
    assert derived_seed({"a": 1, "b": 2}, "k") == derived_seed({"b": 2, "a": 1}, "k") != derived_seed({"a": 1, "b": 2}, "j")


def test_settings_round_trip_and_checks(tmp_path):
    s = ServeSettings("e.joblib", workers=2, keys=str(tmp_path / "keys.json"))
    assert ServeSettings.from_json(s.to_json()) == s and s.usage == f"{s.keys}.usage.sqlite"
    with pytest.raises(ValueError, match="workers"):
        ServeSettings("e.joblib", workers=0)
    with pytest.raises(FileNotFoundError, match="explainer"):
        s.check_files()


def test_plain_gives_numpy_scalars_as_python_values_and_leaves_the_rest():
    import numpy as np

    from geco.result import plain
    from geco.serve.jsonvalues import json_kind

    assert type(plain(np.int64(3))) is int and type(plain(np.float32(0.5))) is float
    assert type(plain(np.bool_(True))) is bool and plain(np.array(2.5)) == 2.5
    arr = np.arange(3)
    assert plain(arr) is arr  # an array stays one (stats may hold them)
    assert plain("a") == "a" and plain(None) is None
    assert json_kind(np.int64(1)) == "number" and json_kind(np.bool_(False)) == "boolean"
    assert json_kind(np.float64("inf")) == "non-finite number"
