"""The data schema: encode/decode between user DataFrames and float64 arrays, and hostile values
(NaN, inf, values a column's dtype cannot hold, duplicate names) as SchemaErrors naming the
column and the row."""

from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest

import plaf_grammar.schema as schema_module
from plaf_grammar import Feature, Schema, SchemaError


def frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "age": np.array([30, 40, 50], dtype=np.int64),
            "small": np.array([1, 2, 3], dtype=np.uint8),
            "ratio": np.array([0.5, 1.0, 1.5], dtype=np.float32),
            "income": [1.5, 2.0, 0.0],
            "edu": pd.Categorical(["lo", "mid", "hi"], categories=["lo", "mid", "hi"], ordered=True),
            "job": ["a", "b", "c"],
            "flag": [True, False, True],
        },
        index=[10, 11, 12],
    )


@pytest.fixture(scope="module")
def schema() -> Schema:
    return Schema.from_dataframe(frame())


def test_encode_decode_round_trip(schema):
    df = frame()
    enc = schema.encode(df)
    assert enc.dtype == np.float64 and enc.shape == (3, 7)
    assert enc[:, schema.index("edu")].tolist() == [0.0, 1.0, 2.0]
    back = schema.decode(enc, index=df.index)
    pd.testing.assert_frame_equal(back.drop(columns="job"), df.drop(columns="job"))
    assert back["job"].tolist() == ["a", "b", "c"]
    assert np.array_equal(schema.encode(df.iloc[[1]]), enc[[1]])  # the one-row path agrees
    assert np.array_equal(schema.encode_instance(df.iloc[1].to_dict()), enc[1])
    assert schema.decode_value("age", 40.0) == 40 and schema.decode_value("edu", 2.0) == "hi"


def test_pandas_nullable_numbers_decode_to_their_own_dtype():
    """Int64 / UInt16 / Float32 / boolean columns (pandas' nullable dtypes, what
    ``convert_dtypes`` and parquet readers give) come back in their dtype: numpy cannot cast to
    them."""
    df = pd.DataFrame({
        "i": pd.array([1, 2, 30], dtype="Int64"), "u": pd.array([7, 0, 65_535], dtype="UInt16"),
        "f": pd.array([0.5, 2.25, -3.0], dtype="Float32"), "g": pd.array([1e300, 0.1, 2.0], dtype="Float64"),
        "b": pd.array([True, False, True], dtype="boolean"),
    })  # fmt: skip
    schema = Schema.from_dataframe(df)
    assert [f.kind for f in schema.features] == ["numeric"] * 4 + ["categorical"]
    enc = schema.encode(df)
    pd.testing.assert_frame_equal(schema.decode(enc), df)
    enc[0, 0] = 2.9999999  # a search's value between integers rounds as the numpy integers do
    assert schema.decode(enc)["i"].tolist() == [3, 2, 30]
    with pytest.raises(SchemaError, match=r"column 'u' \(dtype UInt16\) cannot hold the value 70000"):
        schema.encode(df.assign(u=pd.array([1, 2, 70_000], dtype="Int64")))


def test_integers_a_float64_would_round_are_named_not_rounded():
    """An int64 past 2**53 that no float64 holds (an account number, say) would reach the model,
    and the answer, as another number: a SchemaError naming column and row, from every way in.
    One a float64 holds (2**60) is kept, exactly."""
    df = pd.DataFrame({"acct": np.array([1, 2**60, 3], dtype=np.int64), "x": [0.5, 1.0, 2.0]})
    schema = Schema.from_dataframe(df)
    pd.testing.assert_frame_equal(schema.decode(schema.encode(df)), df)
    message = r"column 'acct' \(dtype int64\) holds {} at row 1, which a float64 cannot hold exactly"
    for bad in (2**53 + 1, -(2**53) - 1, 2**62 + 1):
        frame = df.assign(acct=np.array([1, bad, 3], dtype=np.int64))
        with pytest.raises(SchemaError, match=message.format(bad)):
            schema.encode(frame)
        with pytest.raises(SchemaError, match=message.format(bad)):
            schema.encode(frame.iloc[[1]])  # one row of ints and floats: read as floats by pandas
        with pytest.raises(SchemaError, match=r"x: column 'acct' \(dtype int64\) holds .* cannot hold exactly"):
            schema.encode_instance({"acct": bad, "x": 1.0})
    nullable = pd.DataFrame({"n": pd.array([1, 2**53 + 1], dtype="Int64")})
    with pytest.raises(SchemaError, match=r"column 'n' \(dtype Int64\) holds 9007199254740993 at row 1"):
        Schema.from_dataframe(nullable).encode(nullable)


def test_decode_refuses_what_is_no_category_code_and_adds_columns(schema):
    """Decoding names the column of a categorical value that is no code (NaN, a fraction,
    negative, past the last category) instead of showing another category; ``extra`` columns
    follow the features."""
    enc = schema.encode(frame())
    j = schema.index("edu")
    for bad in (np.nan, 1.5, -1.0, 3.0):
        wrong = enc.copy()
        wrong[2, j] = bad
        with pytest.raises(ValueError, match=rf"column 'edu': {bad!r} at row 2 is no code of its 3 categories"):
            schema.decode(wrong)
    out = schema.decode(enc, index=pd.RangeIndex(1, 4, name="rank"), extra={"probability": np.array([0.1, 0.2, 0.9])})
    assert list(out.columns) == [*schema.names, "probability"] and out.index.name == "rank"
    assert out["probability"].tolist() == [0.1, 0.2, 0.9] and out["edu"].tolist() == ["lo", "mid", "hi"]


@pytest.mark.skipif(schema_module.create_dataframe_from_blocks is None, reason="pandas < 3 builds every frame from a dict")
@pytest.mark.parametrize("drop_strings", [False, True], ids=["with strings", "numbers and categories"])
@pytest.mark.parametrize("rows", [[0, 1, 2], [1], []], ids=["three rows", "one row", "no row"])
def test_decoded_frame_from_blocks_is_the_dict_constructors(monkeypatch, drop_strings, rows):
    """A decoded frame built from its blocks (numbers, bools, categoricals) is the frame the
    dict constructor builds: dtypes, columns (their Index's dtype), index and values; a string
    column takes the dict constructor (pandas infers its string dtype)."""
    df = frame().drop(columns="job") if drop_strings else frame()
    sch = Schema.from_dataframe(df)
    enc = sch.encode(df)[rows]
    extra = {"probability": np.linspace(0, 1, len(rows)), "n_changed": np.arange(len(rows)),
             "counterfactual": np.ones(len(rows), dtype=bool)}  # fmt: skip
    for index in (None, df.index[rows], [f"r{i}" for i in range(len(rows))], pd.RangeIndex(len(rows), name="rank")):
        got = sch.decode(enc, index=index, extra=extra)
        with monkeypatch.context() as m:
            m.setattr(schema_module, "create_dataframe_from_blocks", None)
            want = sch.decode(enc, index=index, extra=extra)
        pd.testing.assert_frame_equal(got, want, check_index_type=True, check_column_type=True)
        assert got.columns.dtype == want.columns.dtype and got.index.equals(want.index)
    got.columns.name = "renamed"  # each frame owns its column Index
    assert sch.decode(enc).columns.name is None
    if len(rows) > 1:  # an index of another length: the dict constructor's error
        with pytest.raises(ValueError):
            sch.decode(enc, index=list(range(len(rows) + 1)))


@pytest.mark.parametrize("rows", [slice(None), [11]], ids=["bulk", "one row"])
@pytest.mark.parametrize(
    "column, value, message",
    [
        ("income", np.inf, "column 'income' has a non-finite value (inf) at row 11"),
        ("income", -np.inf, "column 'income' has a non-finite value (-inf) at row 11"),
        ("age", 1e308, "column 'age' (dtype int64) cannot hold the value 1e+308 at row 11"),
        ("age", np.inf, "column 'age' has a non-finite value (inf) at row 11"),
        ("age", 2.0**63, "column 'age' (dtype int64) cannot hold"),
        ("small", -1, "column 'small' (dtype uint8) cannot hold the value -1"),
        ("small", 256, "column 'small' (dtype uint8) cannot hold the value 256"),
        ("age", 40.5, "column 'age' (dtype int64) cannot hold the value 40.5 at row 11"),
        ("small", 3.25, "column 'small' (dtype uint8) cannot hold the value 3.25"),
        ("ratio", 1e39, "column 'ratio' (dtype float32) cannot hold the value 1e+39"),
        ("income", np.nan, "column 'income' has a missing value (NaN) at row 11"),
    ],
)
@pytest.mark.parametrize("method", ["encode", "encode_table"])
def test_values_a_column_cannot_hold_name_column_and_row(schema, rows, column, value, message, method):
    df = frame().astype({column: object})
    df.loc[11, column] = value
    with pytest.raises(SchemaError) as ei:
        getattr(schema, method)(df.loc[rows] if rows != slice(None) else df, what="X")
    assert str(ei.value).startswith("X: ") and message in str(ei.value), str(ei.value)


def test_encoded_table_holds_the_encoded_values_in_narrow_columns(schema):
    """The column store gives back exactly ``encode``'s float64 values, keeps category codes in
    the smallest integer dtype, and neither pickles nor shares its cached full array."""
    df = pd.concat([frame()] * 50, ignore_index=True)
    table = schema.encode_table(df, what="X")
    enc = schema.encode(df, what="X")
    assert table.shape == enc.shape and len(table) == len(df)
    assert table.column(schema.index("edu")).dtype == np.int8
    assert table.column(schema.index("job")).dtype == np.int8
    assert table.column(schema.index("income")).dtype == np.float64
    assert table.nbytes < enc.nbytes
    np.testing.assert_array_equal(table.take(slice(None)), enc)
    np.testing.assert_array_equal(table.take([149, 0, 7]), enc[[149, 0, 7]])
    np.testing.assert_array_equal(table.take(slice(3, 9)), enc[3:9])
    full = table.to_array()
    np.testing.assert_array_equal(full, enc)
    part = table.take(slice(0, 2))
    part[:] = -1.0  # a copy: the cached array is untouched
    np.testing.assert_array_equal(table.to_array(), enc)
    state = pickle.loads(pickle.dumps(table))
    assert state._array is None and len(pickle.dumps(table)) < enc.nbytes
    np.testing.assert_array_equal(state.to_array(), enc)
    many = pd.DataFrame({"c": pd.Categorical([f"v{i % 300}" for i in range(600)])})
    assert Schema.from_dataframe(many).encode_table(many).column(0).dtype == np.int16


def test_encoded_table_refuses_columns_that_do_not_form_a_table():
    from plaf_grammar.table import EncodedTable

    with pytest.raises(ValueError, match=r"1-D arrays of one length, got lengths \[2, 3\]"):
        EncodedTable([np.zeros(3), np.zeros(2, dtype=np.int8)])
    with pytest.raises(ValueError, match="1-D arrays"):
        EncodedTable([np.zeros((3, 2))])
    with pytest.raises(ValueError, match=r"expected an \(n, d\) array, got shape \(4,\)"):
        EncodedTable.from_array(np.zeros(4))
    array = np.arange(12.0).reshape(4, 3)
    table = EncodedTable.from_array(array)
    assert np.shares_memory(table.column(1), array)  # views, not copies
    np.testing.assert_array_equal(table.take([3, 1]), array[[3, 1]])


def test_largest_values_a_dtype_holds_are_accepted(schema):
    df = frame().astype({"age": object, "small": object})
    df.loc[10, "age"] = 2.0**63 - 1024  # the largest float below int64's limit
    df.loc[10, "small"] = 255
    enc = schema.encode(df)
    assert schema.decode(enc)["small"].tolist() == [255, 2, 3]
    assert schema.decode(enc)["age"].iloc[0] == 2**63 - 1024


def test_python_ints_beyond_any_float_are_schema_errors(schema):
    df = frame().astype({"income": object})
    df.loc[12, "income"] = 10**400
    for part in (df, df.loc[[12]]):
        with pytest.raises(SchemaError, match="column 'income' .*cannot hold .* at row 12"):
            schema.encode(part)
    with pytest.raises(SchemaError, match="column 'income'"):
        schema.encode_instance({**frame().iloc[0].to_dict(), "income": 10**400})


def test_instances_in_every_form_reject_non_finite_values(schema):
    row = frame().iloc[0].to_dict()
    enc = schema.encode(frame())[0]
    for x in (
        {**row, "income": float("inf")},
        pd.Series({**row, "income": -np.inf}),
        pd.DataFrame([{**row, "income": np.inf}]),
    ):
        with pytest.raises(SchemaError, match="column 'income' has a non-finite value"):
            schema.encode_instance(x)
    with pytest.raises(SchemaError, match=r"'age' \(dtype int64\) cannot hold"):
        schema.encode_instance({**row, "age": 1e308})
    bad = enc.copy()
    bad[schema.index("age")] = 1e308
    with pytest.raises(SchemaError, match=r"x: column 'age' \(dtype int64\) cannot hold"):
        schema.encode_instance(bad)
    bad = enc.copy()
    bad[schema.index("edu")] = -1.0
    with pytest.raises(SchemaError, match="'edu': -1.0 is not a category code"):
        schema.encode_instance(bad)


def test_decode_value_of_a_value_the_dtype_cannot_hold(schema):
    for v in (np.inf, -np.inf, np.nan, 1e308):
        with pytest.raises(SchemaError, match=r"column 'age'"):
            schema.decode_value("age", v)
    with pytest.raises(SchemaError, match="not a category code"):
        schema.decode_value("edu", 3.0)
    assert schema.decode_value("income", np.inf) == np.inf  # float64 holds it


def test_duplicate_column_names_are_named(schema):
    df = pd.DataFrame([[1, 2, 3]], columns=["a", "b", "a"])
    with pytest.raises(SchemaError, match=r"duplicate column name\(s\): \['a'\]"):
        Schema.from_dataframe(df)
    with pytest.raises(SchemaError, match=r"duplicate column name\(s\) in schema: \['x'\]"):
        Schema([Feature("x", "numeric"), Feature("y", "numeric"), Feature("x", "numeric")])
    dup = pd.concat([frame(), frame()[["age"]]], axis=1)
    for part in (dup, dup.iloc[[0]]):
        with pytest.raises(SchemaError, match=r"X: duplicate column name\(s\) \['age'\]"):
            schema.encode(part, what="X")
    with pytest.raises(SchemaError, match="duplicate"):
        schema.encode_instance(dup.iloc[0])


def test_columns_that_cannot_be_categories():
    with pytest.raises(SchemaError, match="column 'v' holds values that cannot be categories"):
        Schema.from_dataframe(pd.DataFrame({"v": [[1], [2]]}))
    with pytest.raises(SchemaError, match=r"column names must be strings .*got 0: X.columns = X.columns.astype\(str\)"):
        Schema.from_dataframe(pd.DataFrame({0: [1.0]}))


@pytest.mark.parametrize("method", ["encode", "encode_table"])
def test_usual_errors_name_column_and_row(schema, method):
    df = frame()
    encode = getattr(schema, method)
    with pytest.raises(SchemaError, match=r"missing column\(s\) \['job'\]"):
        encode(df.drop(columns=["job"]))
    with pytest.raises(SchemaError, match=r"unexpected column\(s\) \['zzz'\]"):
        encode(df.assign(zzz=1))
    bad = df.astype({"job": object})
    bad.loc[12, "job"] = "nope"
    with pytest.raises(SchemaError, match="column 'job' has unknown category 'nope' at row 12"):
        encode(bad)
    bad = df.astype({"income": object})
    bad.loc[10, "income"] = "abc"
    with pytest.raises(SchemaError, match="column 'income' must be numeric.*'abc' at row 10"):
        encode(bad)


def test_numbers_held_as_python_objects_are_categories_with_a_warning():
    """A database driver's Decimal column (or ints in an object column) would silently become
    categories with no order or distance: said, with the conversion to write."""
    import decimal
    import warnings

    df = pd.DataFrame({
        "amount": [decimal.Decimal("10.5"), decimal.Decimal("7")], "count": pd.Series([3, 4], dtype=object),
        "city": ["a", "b"], "codes": pd.Categorical([1, 2]), "flag": pd.Series([True, False], dtype=object),
    })  # fmt: skip
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        schema = Schema.from_dataframe(df)
    said = [str(w.message) for w in caught if issubclass(w.category, UserWarning)]
    assert len(said) == 2, said
    assert said[0].startswith("column 'amount' holds numbers as Python objects (Decimal, dtype object)")
    assert "X['amount'] = X['amount'].astype(float)" in said[0]
    assert said[1].startswith("column 'count' holds numbers as Python objects (int,")
    assert schema["amount"].kind == "categorical" and schema["codes"].kind == "categorical"
