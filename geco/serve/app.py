"""One worker's ASGI app: loads the Explainer once at start (compiled code from the disk cache,
the compiled search loaded and warmed where numba is installed, what is loaded then frozen out of
the garbage collector's passes), then answers ``POST /explain``, ``GET /health``, ``/ready``, ``/model`` and ``/docs``.

Explanations run on one thread of their own, one at a time (the search is CPU-bound; a worker
process is the unit of parallelism), so the event loop keeps answering health checks and
refusing bad requests while a search runs. Errors are JSON ``{"detail", "field", "request_id"}``:
400 malformed JSON, 413 too large, 422 a bad field, 401 / 403 / 429 access, 500 an error inside
an explanation (logged with its traceback; the worker goes on). With several workers an
``/explain`` answer closes its connection (``ServeSettings.close_after_explain``), so kept-alive
clients spread over the workers."""

from __future__ import annotations

import asyncio
import gc
import os
import time
import traceback
import uuid
import warnings
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from typing import Any

import numpy as np
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response

import geco
from geco.explainer import Explainer
from geco.result import Explanation, json_text
from geco.search.compiled import (
    background_compile,
    compile_in_background,
    kernels_available,
    kernels_loaded,
    load_kernels,
    load_kernels_if_compiled,
)
from geco.serve.access import AccessDenied, ApiKey, KeyRing, UsageLedger
from geco.serve.card import model_card
from geco.serve.handover import take
from geco.serve.logs import AccessLog
from geco.serve.seeds import request_seeds
from geco.serve.settings import ServeSettings
from geco.serve.validation import ExplainRequest, RequestError, parse_body, parse_request, row_field
from plaf_grammar import PLAFError, SchemaError

__all__ = ["app_from_env", "create_app"]

#: geco's own refusals of a value (raised before the search): answered 422, not 500
INPUT_ERRORS = (SchemaError, PLAFError)


class RowFailed(Exception):
    """An explanation of row ``index`` raised ``error``."""

    def __init__(self, index: int, error: BaseException):
        super().__init__(str(error))
        self.index = index
        self.error = error


class Service:
    """What a worker holds: the Explainer and its card, the explanation thread, the keys."""

    def __init__(self, settings: ServeSettings):
        self.settings = settings
        self.log = AccessLog(settings.access_log)
        self.keys = KeyRing.load(settings.keys) if settings.keys else None
        self.ledger = UsageLedger(settings.usage) if settings.keys and settings.usage else None
        self.explainer: Explainer | None = None
        self.card: dict[str, Any] = {}
        self.ignored: set[str] = set()
        self.thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="geco-explain")
        self.draining = False
        self.search_warm_up = ""
        self.search_switched = False  # a background compile's outcome taken up (switch_search)

    def load(self) -> None:
        """Load and warm the Explainer (on the explanation thread, where it will run); the one
        the command line loaded in this process, where it did (:mod:`geco.serve.handover`)."""
        explainer = take(self.settings.explainer) or geco.load(self.settings.explainer)
        if explainer.scorer.compiled:  # compile, or load from the disk cache, before serving
            explainer.scorer.warm_up(explainer.table.take(slice(0, 256)))
        probability = explainer.setting.model_proba(explainer.table.take(slice(0, 256)))
        self.search_warm_up = warm_up_search(explainer, probability)
        self.card = model_card(explainer, self.settings.explainer)
        self.ignored = set(explainer.ignored_columns)
        self.explainer = explainer
        # what is loaded lives as long as the worker: the collector's full passes skip it from
        # here on (one such pass cost ~0.1 s with sklearn and a wide table loaded, a latency spike)
        gc.freeze()

    def authorize(self, request: Request, scope: str) -> ApiKey | None:
        if self.keys is None:
            return None
        header = request.headers.get("authorization", "")
        presented = header[7:].strip() if header.lower().startswith("bearer ") else request.headers.get("x-api-key")
        key = self.keys.check(presented, scope)
        request.scope.setdefault("state", {})["key_id"] = key.id
        return key

    def switch_search(self) -> None:
        """Load the compiled search once the child compiling it at start-up is done (on the
        explanation thread, before a request: half a second, once), and log what became of it."""
        job = background_compile()
        state = job.state() if job is not None and not self.search_switched else "running"
        if state == "running":
            return
        self.search_switched = True
        if load_kernels_if_compiled() is not None:
            self.search_warm_up = "compiled search loaded (compiled in the background)"
        elif state == "done":
            self.search_warm_up = "numpy search (numba failed to import)"
        else:
            self.search_warm_up = f"numpy search (the background compile failed: {job.reason})"
        self.log.write(event="search", search=self.search_warm_up)

    def explain_all(self, frames: list, seeds: list, overrides: dict[str, Any]) -> list[Explanation]:
        assert self.explainer is not None
        self.switch_search()
        out = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            for i, (frame, seed) in enumerate(zip(frames, seeds)):
                try:
                    out.append(self.explainer.explain(frame, random_state=seed, **overrides))
                except Exception as exc:
                    raise RowFailed(i, exc) from exc
        return out


def warm_up_search(explainer: Explainer, probability: np.ndarray) -> str:
    """Load the compiled search (:mod:`geco.search.compiled`) before serving, where numba is
    installed, and run it once on the first of the data's rows the target does not meet (a
    request then finds every kernel loaded: the first use costs about half a second); what
    happened, for the log. Where numba has not compiled the kernels yet (once per install, about
    twenty seconds) the worker does not wait: a child process compiles them and the worker
    serves with the numpy search until it is done (:meth:`Service.switch_search`). A failure
    here only leaves the kernels to load on the first request."""
    if not kernels_available():
        return "numpy search (numba is not installed, or GECO_SEARCH_NATIVE=0)"
    job = compile_in_background() if os.environ.get("GECO_SEARCH_NATIVE") != "1" else None
    state = job.state() if job is not None else None
    if state == "running":
        return "numpy search while a child process compiles the compiled search (once per install)"
    if state == "failed":
        return f"numpy search (the background compile failed: {job.reason})"
    if load_kernels() is None:
        return "numpy search (numba failed to import)"
    undesired = np.flatnonzero(~explainer.config.goal.meets(probability))
    if len(undesired) == 0:
        return "compiled search loaded; not warmed (no undesired row among the data's first 256)"
    row = explainer.schema.decode(explainer.table.take(undesired[:1]))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            explainer.explain(row, random_state=0, k=1, native=True)
    except Exception as exc:  # the service works without the warm-up
        return f"compiled search loaded; warm-up failed ({type(exc).__name__}: {exc})"
    return "compiled search loaded and warmed"


def _error(status: int, message: str, request: Request, field: str | None = None) -> JSONResponse:
    body: dict[str, Any] = {"detail": message, "request_id": request.scope.get("state", {}).get("request_id")}
    if field is not None:
        body["field"] = field
    return JSONResponse(body, status_code=status)


async def _read_body(request: Request, limit: int) -> bytes:
    """The body, refused (413) past ``limit`` bytes - by its Content-Length before reading it,
    else while it streams in."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise RequestError(413, f"body: {declared} bytes; this service takes at most {limit}")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise RequestError(413, f"body: more than {limit} bytes; this service takes at most {limit}")
        chunks.append(chunk)
    return b"".join(chunks)


def create_app(settings: ServeSettings) -> FastAPI:
    """The app of one worker (see the module docstring)."""
    service = Service(settings)

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        await asyncio.get_running_loop().run_in_executor(service.thread, service.load)
        service.log.write(event="ready", engine=service.card["engine"], explainer=settings.explainer, search=service.search_warm_up,
                          gc_frozen=gc.get_freeze_count())
        yield
        service.draining = True
        service.thread.shutdown(wait=True)
        service.log.write(event="stopped")
        service.log.close()
        if service.ledger is not None:
            service.ledger.close()

    app = FastAPI(
        title="geco decision service",
        version=geco.__version__,
        description="Counterfactual explanations of a saved geco Explainer: the smallest feasible "
        "changes to a row that flip the model's decision.",
        lifespan=lifespan,
    )  # fmt: skip
    app.state.service = service

    @app.middleware("http")
    async def access_log(request: Request, call_next):
        state = request.scope.setdefault("state", {})
        state["request_id"] = rid = uuid.uuid4().hex[:16]
        t0 = time.perf_counter()
        status = 500
        try:
            response = await call_next(request)
            status = response.status_code
            response.headers["X-Request-ID"] = rid
            return response
        finally:
            service.log.write(
                method=request.method, path=request.url.path, status=status,
                latency_ms=round((time.perf_counter() - t0) * 1e3, 2), request_id=rid,
                key_id=state.get("key_id"), rows=state.get("rows"),
            )  # fmt: skip

    @app.exception_handler(RequestError)
    async def refused(request: Request, exc: RequestError) -> JSONResponse:
        return _error(exc.status, str(exc), request, exc.field)

    @app.exception_handler(AccessDenied)
    async def denied(request: Request, exc: AccessDenied) -> JSONResponse:
        request.scope.setdefault("state", {})["key_id"] = exc.key_id
        response = _error(exc.status, str(exc), request)
        if exc.status == 401:
            response.headers["WWW-Authenticate"] = "Bearer"
        return response

    @app.get("/health", summary="The worker process is up")
    async def health() -> dict[str, Any]:
        import os

        return {"status": "ok", "pid": os.getpid()}

    @app.get("/ready", summary="The Explainer is loaded and the worker takes requests")
    async def ready() -> JSONResponse:
        """Also which search the worker's requests run ("compiled" or "numpy"), and whether a
        child process is compiling the compiled search (the worker switches once it is done)."""
        if service.explainer is None or service.draining:
            return JSONResponse({"ready": False}, status_code=503)
        job = background_compile()
        return JSONResponse({
            "ready": True, "engine": service.explainer.engine, "search": "compiled" if kernels_loaded() else "numpy",
            "compiling": job is not None and job.state() == "running",
        })  # fmt: skip

    @app.get("/model", summary="Schema, PLAF program, engine and fingerprints of the served model")
    async def model(request: Request) -> dict[str, Any]:
        service.authorize(request, "model")
        return {**service.card, "limits": {"max_rows": settings.max_rows, "max_body": settings.max_body}}

    @app.post(
        "/explain",
        summary="Counterfactual explanations of one row or a list of rows",
        description="The body is an ExplainRequest. One record is answered with one object, the "
        "fields of `Explanation.to_dict()`; a list with a list of them, in order.",
        openapi_extra={"requestBody": {"required": True, "content": {"application/json": {
            "schema": ExplainRequest.model_json_schema()}}}},
        responses={400: {"description": "malformed JSON"}, 401: {"description": "no or unknown API key"},
                   403: {"description": "the key lacks the scope"}, 413: {"description": "body or rows over the limit"},
                   422: {"description": "a bad field (named in `field`)"}, 429: {"description": "the key's budget is spent"},
                   500: {"description": "an error inside an explanation (see `request_id` in the log)"}},
    )  # fmt: skip
    async def explain(request: Request) -> Response:
        key = service.authorize(request, "explain")
        if service.explainer is None:
            return _error(503, "the service is not ready", request)
        job = parse_request(
            parse_body(await _read_body(request, settings.max_body)), service.explainer.schema,
            service.ignored, settings.max_rows,
        )  # fmt: skip
        request.scope["state"]["rows"] = len(job.frames)
        key_id = key.id if key is not None else None
        seeds = request_seeds(job.records, job.single, job.options.random_state, key_id)
        if key is not None and service.ledger is not None:
            service.ledger.charge(key, len(job.frames))
        loop = asyncio.get_running_loop()
        try:
            results = await loop.run_in_executor(service.thread, service.explain_all, job.frames, seeds, job.overrides)
        except RowFailed as failed:
            where = row_field(failed.index, job.single)
            if isinstance(failed.error, INPUT_ERRORS):
                return _error(422, f"{where}: {failed.error}", request, where)
            rid = request.scope["state"]["request_id"]
            service.log.write(
                event="error", request_id=rid, key_id=key_id, row=failed.index,
                error=f"{type(failed.error).__name__}: {failed.error}",
                traceback="".join(traceback.format_exception(failed.error)),
            )  # fmt: skip
            return _error(500, f"{where}: the explanation failed (request {rid}; see the service log)", request)
        payload = results[0].to_dict() if job.single else [r.to_dict() for r in results]
        headers = {"Connection": "close"} if settings.close_after_explain else None
        return Response(json_text(payload), media_type="application/json", headers=headers)

    return app


def app_from_env() -> FastAPI:
    """The app of a worker started by ``geco serve`` (settings from the environment)."""
    return create_app(ServeSettings.from_env())
