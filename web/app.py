"""The web app: :func:`create_app` puts the pages (:mod:`web.pages`), the JSON endpoints
(:mod:`web.api`) and the package's static files together on Starlette, with what they share, a
:class:`web.server.Server`.

Starting: the tables' zygotes come from a fork server (:mod:`web.forkserver`), which ``connectx
serve`` starts before anything else and passes in (else the app starts one as it starts), so that no
agent's host is a copy of the server. The app answers at once; meanwhile a thread compiles the
solver's numba kernel (:func:`agents.engine.solver.warm_up`), imports every agent with its default
weights and reads the solved databases, then solves the empty board (:meth:`web.server.Server.warm`);
a table is opened once the imports are done (:attr:`web.server.Server.ready`).

Safety: only the hosts in ``hosts`` are answered (Starlette's ``TrustedHostMiddleware``), so a page
of another site that a DNS name rebinds to 127.0.0.1 gets HTTP 400; the JSON endpoints that act take
``application/json`` only, which another site's page cannot send here without the server's consent
(CORS), which it never gives.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.routing import Mount
from starlette.staticfiles import StaticFiles

from web import api, pages
from web.forkserver import ForkServer
from web.runs import Runs
from web.server import Server
from web.specs import Specs
from web.tables import EXPIRY, OpenTables

__all__ = ["LOOPBACK", "create_app"]

LOOPBACK = ("127.0.0.1", "localhost", "::1", "[::1]")
"""The names of this machine a server on a loopback address answers to."""


def create_app(
    root: Path,
    *,
    agents: Sequence[Path] = (),
    hosts: Sequence[str] | None = LOOPBACK,
    expiry: float = EXPIRY,
    forks: ForkServer | None = None,
) -> Starlette:
    """The app serving the runs in ``root`` (an existing folder), offering its ``.py`` files and
    ``agents`` to play on the board. ``hosts``: the Host names answered (None: any, for a server
    bound to another address); ``expiry``: seconds after which a silent tab's table is closed;
    ``forks``: the fork server of the tables' zygotes (None: one started with the app), which the app
    closes when it stops. ``app.state.server`` is its :class:`Server`."""
    root = root.resolve()
    tables = OpenTables(expiry=expiry, forks=forks)
    server = Server(root, Specs(root, tuple(agents)), Runs(root), tables=tables)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if tables.forks is None:
            tables.forks = ForkServer.start()
        threading.Thread(target=server.warm, name="warm-up", daemon=True).start()
        expiring = asyncio.create_task(_expire(tables, min(15.0, expiry / 4)))
        try:
            yield
        finally:
            expiring.cancel()
            await asyncio.to_thread(tables.close_all)
            await asyncio.to_thread(tables.forks.close)

    middleware = [Middleware(TrustedHostMiddleware, allowed_hosts=list(hosts))] if hosts is not None else []
    static = StaticFiles(packages=[("web", "static")])
    routes = [*pages.ROUTES, *api.ROUTES, Mount("/static", app=static, name="static")]
    app = Starlette(
        routes=routes,
        middleware=middleware,
        lifespan=lifespan,
        exception_handlers=pages.EXCEPTION_HANDLERS,
    )
    app.state.server = server
    return app


async def _expire(tables: OpenTables, every: float) -> None:
    """Close the tables of silent tabs every ``every`` seconds (:meth:`web.tables.OpenTables.expire`)."""
    while True:
        await asyncio.sleep(every)
        await asyncio.to_thread(tables.expire)
