"""The HTML pages: the runs in DIR (``/``), the board (``/board``), a run (``/runs/NAME``) and a run's
files (``/files/PATH``), with the error page every refusal gets (one sentence, the status code).

Each page is a Jinja2 template of ``web/templates`` in the reports' environment
(:func:`reports.render.html.environment`), so it shares their look and filters; a run's page
extends ``report.html.j2``, the page ``connectx report`` writes, replay player and all. Its
figures are drawn once for each state of the run (:meth:`web.runs.Runs.kept`), one page at a time.
"""

from __future__ import annotations

import mimetypes
from pathlib import Path
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from reports.exact import unavailable
from reports.render import html
from reports.stats.analysis import AnalysisError
from tournament.schedule import HUMAN
from tournament.store import StoreError
from web import inputs, runs
from web.paths import Refused, inside
from web.server import Server, server_of

__all__ = ["EXCEPTION_HANDLERS", "ROUTES"]


def _page(request: Request, template: str, status: int = 200, **context: Any) -> HTMLResponse:
    server = server_of(request)
    text = server.templates.get_template(template).render(**context)
    return HTMLResponse(text, status_code=status)


async def index(request: Request) -> Response:
    """``/``: the runs in DIR, newest first, and a way to the board."""
    server = server_of(request)
    summaries = await _thread(server.runs.summaries)
    return _page(request, "index.html.j2", summaries=summaries, root=server.root)


async def board(request: Request) -> Response:
    """``/board?pos=4453&first=human&second=negamax&time=2``: the board at that position, with those
    sides (and ``rows``, ``columns``, ``inarow`` off the standard board; ``scores=0`` hides the
    scores). HTTP 400 with a sentence for a bad value."""
    server = server_of(request)
    query = request.query_params
    try:
        position = inputs.position(query)
        geo = position.geo
        state = {
            "moves": list(position.moves),
            "rows": geo.rows,
            "columns": geo.columns,
            "inarow": geo.inarow,
            "first": inputs.side(query, "first", server.specs, HUMAN),
            "second": inputs.side(query, "second", server.specs, "negamax"),
            "time": inputs.act_timeout(query),
            "scores": query.get("scores", "1") != "0",
            "unavailable": unavailable(geo.rows, geo.columns, geo.inarow),
        }
    except inputs.BadInput as error:
        raise HTTPException(400, str(error)) from None
    choices = await _thread(server.choices)
    agents = [{"spec": c.spec, "summary": c.summary, "parameters": list(c.parameters)} for c in choices]
    return _page(request, "board.html.j2", data={"state": state, "agents": agents})


async def run(request: Request) -> Response:
    """``/runs/NAME``: the report of the run NAME (its path under DIR), and its progress while it is
    played. HTTP 404 when there is no run there."""
    server = server_of(request)
    name = request.path_params["name"].rstrip("/")
    try:
        path = runs.folder(server.root, name)
    except runs.NoRun as error:
        raise HTTPException(404, str(error)) from None
    try:
        text = await _thread(_run_page, server, path, name)
    except (StoreError, AnalysisError) as error:
        raise HTTPException(500, str(error)) from None
    return HTMLResponse(text)


def _run_page(server: Server, path: Path, name: str) -> str:
    """The HTML of a run's page, drawn once for each state of its files."""
    with server.rendering:
        report = server.runs.report(path)
        progress = server.runs.progress(path)
        kept = server.runs.kept(path)
        key = f"page:{progress.running}"
        if key not in kept:
            context: dict[str, Any] = {"name": name, "progress": progress, "path": path}
            if report is None:
                kept[key] = server.templates.get_template("waiting.html.j2").render(**context)
            else:
                template = server.templates.get_template("run.html.j2")
                kept[key] = template.render(**html.context(report), **context)
        page: str = kept[key]
        return page


async def files(request: Request) -> Response:
    """``/files/PATH``: a file under DIR (a run's ``report.html``, its CSV tables and PNG figures).
    HTTP 404 for anything else: a folder, a missing file, a path leading out of DIR."""
    server = server_of(request)
    name = request.path_params["name"]
    try:
        path = inside(server.root, name)
    except Refused as error:
        raise HTTPException(404, str(error)) from None
    if not path.is_file():
        raise HTTPException(404, f"there is no file {name!r} in the served folder")
    kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    return FileResponse(path, media_type=kind)


async def favicon(request: Request) -> Response:
    """``/favicon.ico``: the package's icon (an SVG), which browsers ask for on every page."""
    return FileResponse(Path(__file__).with_name("static") / "favicon.svg", media_type="image/svg+xml")


async def _error(request: Request, error: Exception) -> Response:
    """Every refusal: ``{"error": sentence}`` for the JSON endpoints (``/api/``), else the error page."""
    assert isinstance(error, HTTPException)
    if request.url.path.startswith("/api/"):
        return JSONResponse({"error": error.detail}, status_code=error.status_code, headers=error.headers)
    return _page(
        request,
        "error.html.j2",
        status=error.status_code,
        status_code=error.status_code,
        message=error.detail,
    )


async def _thread(function: Any, *args: Any) -> Any:
    """``function(*args)`` in a worker thread (it reads files or computes)."""
    return await run_in_threadpool(function, *args)


ROUTES = [
    Route("/", index),
    Route("/board", board),
    Route("/runs/{name:path}", run),
    Route("/files/{name:path}", files),
    Route("/favicon.ico", favicon),
]

EXCEPTION_HANDLERS = {HTTPException: _error}
