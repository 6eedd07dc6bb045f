"""Checking a request before it reaches the search: the body is JSON, the knobs are known and
in range, each row has exactly the model's columns with values of the right JSON type that
geco's schema accepts. Every refusal is a :class:`RequestError` naming the field."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

import pandas as pd
from pydantic import BaseModel, ConfigDict, Field, StrictFloat, StrictInt, ValidationError

from geco.serve.jsonvalues import json_kind
from plaf_grammar import Schema, SchemaError

__all__ = ["ExplainJob", "ExplainOptions", "ExplainRequest", "RequestError", "parse_body", "parse_request"]


class RequestError(Exception):
    """A request refused before any work: HTTP ``status`` and the ``field`` at fault (a dotted
    path such as ``rows[0].age``, or ``body``)."""

    def __init__(self, status: int, message: str, field: str = "body"):
        super().__init__(message)
        self.status = status
        self.field = field


Number = StrictFloat | StrictInt


class ExplainOptions(BaseModel):
    """Per-request overrides of the Explainer's search knobs (see :class:`geco.Explainer`),
    bounded so one request cannot take a worker for hours. ``random_state``: the seed; without
    one the service derives it from the row and the API key, so a repeated question gets the
    same answer."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    random_state: StrictInt | None = Field(None, ge=0, lt=2**64)
    k: StrictInt | None = Field(None, ge=1, le=50)
    q: StrictInt | None = Field(None, ge=1, le=2000)
    m_init: StrictInt | None = Field(None, ge=1, le=1000)
    m_mut: StrictInt | None = Field(None, ge=1, le=200)
    min_generations: StrictInt | None = Field(None, ge=0, le=1000)
    max_generations: StrictInt | None = Field(None, ge=1, le=1000)
    threshold: Number | None = Field(None, ge=0.0, lt=1.0)
    norm_weights: list[Number] | None = Field(None, min_length=4, max_length=4)
    representation: Literal["delta", "full"] | None = None
    mutate_top: StrictInt | None = Field(None, ge=1, le=2000)
    seeds: StrictInt | None = Field(None, ge=0, le=1000)
    patience: StrictInt | None = Field(None, ge=1, le=1000)
    diversity: Number | None = Field(None, ge=0.0, le=1.0)

    def overrides(self) -> dict[str, Any]:
        """The knobs this request sets (``random_state`` apart)."""
        return self.model_dump(exclude_none=True, exclude={"random_state"})


class ExplainRequest(ExplainOptions):
    """The body of ``POST /explain`` (this model documents it in OpenAPI): ``rows`` is one
    record (column -> value, the data's column names) or a list of them, plus optional knobs."""

    rows: dict[str, Any] | list[dict[str, Any]]


@dataclass
class ExplainJob:
    """A checked request: one-row frames of the model's columns (index = position in the
    request), the records as sent (for seeds), whether a single record was sent, the options."""

    frames: list[pd.DataFrame]
    records: list[dict[str, Any]]
    single: bool
    options: ExplainOptions
    overrides: dict[str, Any] = field(default_factory=dict)


def parse_body(body: bytes) -> Any:
    """The body as JSON; NaN and Infinity (which Python's json accepts) are refused."""

    def refuse(name: str) -> Any:
        raise RequestError(400, f"body: {name} is not a JSON number; send finite numbers only")

    try:
        return json.loads(body.decode("utf-8"), parse_constant=refuse)
    except UnicodeDecodeError:
        raise RequestError(400, "body: not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise RequestError(400, f"body: malformed JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    except RecursionError:
        raise RequestError(400, "body: JSON nested too deeply") from None


def parse_request(data: Any, schema: Schema, ignored: set[str], max_rows: int) -> ExplainJob:
    """``data`` (parsed JSON) checked as an ExplainRequest against ``schema``: RequestError 422
    naming the field, or 413 for more than ``max_rows`` rows. Columns in ``ignored`` (of the
    Explainer's X, not read by the model) are accepted and dropped."""
    if not isinstance(data, dict):
        raise RequestError(422, f"body: expected a JSON object with 'rows', got {json_kind(data)}")
    if "rows" not in data:
        unknown = sorted(k for k in data if k not in ExplainOptions.model_fields)
        also = f"; the body has {unknown[0]!r}, which is no field" if len(unknown) == 1 else (
            f"; the body has {unknown}, which are no fields" if unknown else "")  # fmt: skip
        raise RequestError(422, f"rows: missing (one record or a list of records){also}", "rows")
    rows = data["rows"]
    try:
        options = ExplainOptions.model_validate({k: v for k, v in data.items() if k != "rows"})
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "body"
        raise RequestError(422, f"{where}: {err['msg']}", where) from None
    single = isinstance(rows, dict)
    records = [rows] if single else rows
    if not isinstance(records, list):
        raise RequestError(422, f"rows: expected a record or a list of records, got {json_kind(rows)}", "rows")
    if not records:
        raise RequestError(422, "rows: the list is empty", "rows")
    if len(records) > max_rows:
        raise RequestError(413, f"rows: {len(records)} rows; this service takes at most {max_rows} a request", "rows")
    frames = [_frame(schema, ignored, record, i, single) for i, record in enumerate(records)]
    return ExplainJob(frames, records, single, options, options.overrides())


def row_field(i: int, single: bool, column: str | None = None) -> str:
    """The field path of a row (and column): ``rows.age`` for a single record, ``rows[3].age``."""
    base = "rows" if single else f"rows[{i}]"
    return base if column is None else f"{base}.{column}"


def _frame(schema: Schema, ignored: set[str], record: Any, i: int, single: bool) -> pd.DataFrame:
    where = row_field(i, single)
    if not isinstance(record, dict):
        raise RequestError(422, f"{where}: expected a record (column -> value), got {json_kind(record)}", where)
    unknown = [c for c in record if c not in schema and c not in ignored]
    if unknown:
        raise RequestError(
            422, f"{row_field(i, single, unknown[0])}: unknown column {unknown[0]!r} (columns: {list(schema.names)})",
            row_field(i, single, unknown[0]),
        )  # fmt: skip
    values: dict[str, list[Any]] = {}
    for f in schema.features:
        at = row_field(i, single, f.name)
        if f.name not in record:
            raise RequestError(422, f"{at}: missing column {f.name!r}", at)
        v = record[f.name]
        expected = _expected_kinds(f.categories)
        if json_kind(v) not in expected:
            raise RequestError(422, f"{at}: expected {' or '.join(sorted(expected))}, got {json_kind(v)} {v!r}", at)
        if f.categories is None and isinstance(v, float) and f.dtype.startswith(("int", "uint", "Int", "UInt")) and not v.is_integer():
            raise RequestError(422, f"{at}: expected an integer (the column holds {f.dtype}), got {v!r}", at)
        try:
            schema.encode_value(f.name, v, what=where)  # geco's own check of the value
        except SchemaError as exc:
            raise RequestError(422, str(exc), at) from None
        values[f.name] = [v]
    return pd.DataFrame(values, index=[i])


def _expected_kinds(categories: tuple[Any, ...] | None) -> set[str]:
    """The JSON kinds a column takes: numbers for a numeric one, its categories' kinds else."""
    if categories is None:
        return {"number"}
    return {json_kind(c) for c in categories}
