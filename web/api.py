"""The JSON endpoints the pages call. Every refusal is ``{"error": sentence}`` with its status: 400 a
bad value, 404 nothing there, 409 a move cancelled, 410 a table that is closed (the page opens
another), 413 a body longer than :data:`MAX_BODY`, 415 a body that is not JSON, 503 the server cannot
take one more board.

* ``GET /api/scores?pos=4453``: the perfect-play score of every column and its words
  (:mod:`reports.exact`: ``scores``, ``words``), or why there are none (``reason``).
* ``GET /api/side?side=minimax:depth=3``: the side checked (:meth:`web.specs.Specs.check`).
* ``GET /api/progress?run=NAME``: a run's progress (:class:`web.runs.Progress`).
* ``POST /api/tables``: a table for a tab's game (:mod:`web.tables`): ``{"table": id}``; then, under
  ``/api/tables/ID/``: ``move`` (``{"side", "pos", "rows", "columns", "inarow", "time"}``: the
  agent ``side`` moves, ``{"column", "forfeit", "seconds", "bank"}``), ``cancel`` (the move being
  thought), ``ping`` (the tab is still there), ``close``, and ``save`` (:mod:`web.saving`).
"""

from __future__ import annotations

import json
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from reports.exact import unavailable, words
from tournament.schedule import HUMAN
from web import inputs, runs, saving
from web.paths import Refused, inside
from web.server import READY_TIMEOUT, server_of
from web.tables import Cancelled, Closed, Table

__all__ = ["ROUTES"]

MAX_BODY = 64 * 1024
"""The largest request body taken, in bytes."""


async def scores(request: Request) -> Response:
    server = server_of(request)
    query = request.query_params
    try:
        board = inputs.position(query)
    except inputs.BadInput as error:
        raise HTTPException(400, str(error)) from None
    geo = board.geo
    reason = unavailable(geo.rows, geo.columns, geo.inarow)
    if reason is None and board.is_game_over():
        reason = "the game is over"
    if reason is not None:
        return JSONResponse({"scores": None, "reason": reason, "ply": board.ply})
    analysed = await run_in_threadpool(server.scores.of, board)
    return JSONResponse(
        {
            "scores": list(analysed.scores),
            "words": words(analysed.scores, board.ply, geo.size),
            "reason": None,
            "ply": board.ply,
            "seconds": round(analysed.seconds, 4),
            "cached": analysed.cached,
        }  # fmt: skip
    )


async def side(request: Request) -> Response:
    server = server_of(request)
    try:
        query = request.query_params
        checked = await run_in_threadpool(lambda: inputs.side(query, "side", server.specs, "", named=False))
    except inputs.BadInput as error:
        raise HTTPException(400, str(error)) from None
    return JSONResponse({"side": checked})


async def progress(request: Request) -> Response:
    server = server_of(request)
    try:
        path = runs.folder(server.root, request.query_params.get("run", ""))
    except runs.NoRun as error:
        raise HTTPException(404, str(error)) from None
    found = await run_in_threadpool(server.runs.progress, path)
    return JSONResponse(found.json())


async def open_table(request: Request) -> Response:
    server = server_of(request)
    await _body(request)
    if not await run_in_threadpool(server.ready.wait, READY_TIMEOUT):
        raise HTTPException(503, "the server is still starting: try again in a moment")
    try:
        table = await run_in_threadpool(server.tables.open)
    except RuntimeError as error:
        raise HTTPException(503, str(error)) from None
    return JSONResponse({"table": table.id})


async def move(request: Request) -> Response:
    server = server_of(request)
    table = _table(request)
    body = await _body(request)
    try:
        side = inputs.side(body, "side", server.specs, "")
        board = inputs.position(body)
        act_timeout = inputs.act_timeout(body)
    except inputs.BadInput as error:
        raise HTTPException(400, str(error)) from None
    if side == HUMAN:
        raise HTTPException(400, "side must be an agent: a person moves by clicking")
    if board.is_game_over():
        raise HTTPException(400, "the game is over: no one moves")
    try:
        reply = await run_in_threadpool(table.move, side, board, act_timeout)
    except Cancelled:
        raise HTTPException(409, "the move was cancelled") from None
    except Closed:
        raise HTTPException(410, "this board's table is closed: reload the page") from None
    except OSError as error:
        raise HTTPException(503, f"could not start the agent's process: {error}") from None
    forfeit = reply.forfeit
    return JSONResponse(
        {
            "column": reply.column,
            "forfeit": None
            if forfeit is None
            else {
                "mark": forfeit.offender,
                "termination": str(forfeit.termination),
                "detail": forfeit.detail,
            },
            "seconds": round(reply.seconds, 4),
            "bank": round(reply.bank, 3),
        }
    )


async def cancel(request: Request) -> Response:
    table = _table(request)
    await _body(request)
    table.cancel()
    return JSONResponse({})


async def ping(request: Request) -> Response:
    _table(request)
    await _body(request)
    return JSONResponse({})


async def close(request: Request) -> Response:
    server = server_of(request)
    await _body(request)
    closed = await run_in_threadpool(server.tables.close, request.path_params["table"])
    return JSONResponse({"closed": closed})


async def save(request: Request) -> Response:
    server = server_of(request)
    table = _table(request)
    body = await _body(request)
    try:
        geo = inputs.board_of(body)
        moves = inputs.moves(body.get("pos"), geo)
        opening = inputs.integer(body, "opening", 0)
        seconds = body.get("seconds", [])
        if not isinstance(seconds, list) or not all(
            isinstance(s, int | float) and not isinstance(s, bool) and -1e9 < s < 1e9 for s in seconds
        ):
            raise inputs.BadInput("seconds must be a list of numbers, one a move after the opening")
        game = saving.Game(
            inputs.side(body, "first", server.specs, ""),
            inputs.side(body, "second", server.specs, ""),
            geo.rows,
            geo.columns,
            geo.inarow,
            inputs.act_timeout(body),
            moves,
            opening,
            tuple(float(s) for s in seconds),
        )
        name = body.get("name") or saving.default_name(game)
        if not isinstance(name, str):
            raise inputs.BadInput("name must be a folder name")
        directory = inside(server.root, name)
        game_id = await run_in_threadpool(saving.save, game, directory, table)
    except (inputs.BadInput, saving.SaveError, Refused) as error:
        raise HTTPException(400, str(error)) from None
    run = directory.relative_to(server.root).as_posix()
    return JSONResponse({"run": run, "game": game_id, "url": f"/runs/{run}#game-{game_id}"})


def _table(request: Request) -> Table:
    try:
        return server_of(request).tables.get(request.path_params["table"])
    except KeyError:
        raise HTTPException(410, "this board's table is closed: reload the page") from None


async def _body(request: Request) -> dict[str, Any]:
    """The request's JSON object (``{}`` for an empty body); 415 unless it is sent as
    ``application/json``, 413 when it is longer than :data:`MAX_BODY` (said by its
    ``Content-Length``, or found while it is read: no more than that is ever held), 400 when it is
    not a JSON object (nested too deep included)."""
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        raise HTTPException(415, "send JSON, with Content-Type: application/json")
    too_long = HTTPException(413, f"the request is longer than {MAX_BODY} bytes, the most this server reads")
    declared = request.headers.get("content-length", "0")
    if not declared.isdecimal() or len(declared) > 12 or int(declared) > MAX_BODY:
        raise too_long
    raw = bytearray()
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > MAX_BODY:
            raise too_long
    try:
        body = json.loads(raw) if raw.strip() else {}
    except (ValueError, UnicodeDecodeError):
        raise HTTPException(400, "the request is not valid JSON") from None
    except RecursionError:
        raise HTTPException(400, "the request's JSON is nested too deep") from None
    if not isinstance(body, dict):
        raise HTTPException(400, "the request must be a JSON object")
    return body


ROUTES = [
    Route("/api/scores", scores),
    Route("/api/side", side),
    Route("/api/progress", progress),
    Route("/api/tables", open_table, methods=["POST"]),
    Route("/api/tables/{table}/move", move, methods=["POST"]),
    Route("/api/tables/{table}/cancel", cancel, methods=["POST"]),
    Route("/api/tables/{table}/ping", ping, methods=["POST"]),
    Route("/api/tables/{table}/close", close, methods=["POST"]),
    Route("/api/tables/{table}/save", save, methods=["POST"]),
]
