"""What the pages and endpoints of the app share: :class:`Server`, found from a request by
:func:`server_of`."""

from __future__ import annotations

import gc
import threading
from dataclasses import dataclass, field
from pathlib import Path

from jinja2 import Environment, PackageLoader
from starlette.requests import Request

from agents.engine.solver import warm_up
from agents.registry import BUILTIN, parse_spec
from reports.exact import ExactScores
from reports.render import html
from web.runs import Runs
from web.specs import Choice, Specs
from web.tables import OpenTables

__all__ = ["READY_TIMEOUT", "Server", "server_of"]

READY_TIMEOUT = 300.0
"""Seconds a request waits for the warm-up (:attr:`Server.ready`) before it is refused."""

SCORES_KEPT = 200_000
"""The positions whose perfect-play scores the server keeps (the least recently asked dropped first)."""


@dataclass
class Server:
    """What the pages and endpoints share: the folder served (``root``, resolved), its runs, the
    agents a page may ask for, the scores, the open tables, the templates, ``ready``, set once the
    warm-up has imported all it imports (:meth:`warm`), and ``rendering``, held while a run's page
    is drawn (matplotlib draws one figure at a time)."""

    root: Path
    specs: Specs
    runs: Runs
    scores: ExactScores = field(default_factory=lambda: ExactScores(keep=SCORES_KEPT))
    tables: OpenTables = field(default_factory=OpenTables)
    templates: Environment = field(
        default_factory=lambda: html.environment(PackageLoader("web", "templates"))
    )
    ready: threading.Event = field(default_factory=threading.Event)
    rendering: threading.Lock = field(default_factory=threading.Lock)
    _choices: list[Choice] = field(default_factory=list)

    def choices(self) -> list[Choice]:
        """The agents a page offers (:meth:`web.specs.Specs.choices`), read once."""
        if not self._choices:
            self._choices = self.specs.choices()
        return self._choices

    def warm(self) -> None:
        """Everything a page would otherwise wait for, done once at start (see :mod:`web.app`):
        compile the solver (:func:`agents.engine.solver.warm_up`), import every agent and read its
        default weights (checking a spec builds its agent: :func:`agents.registry.parse_spec`), read
        the databases; then set :attr:`ready`, since nothing is imported after it, and solve the
        empty board (:meth:`reports.exact.ExactScores.warm`)."""
        try:
            warm_up()
            self.choices()
            for name in BUILTIN:
                parse_spec(name)
            self.scores.prepare()
        finally:
            self.ready.set()
        self.scores.warm()
        gc.freeze()  # what the warm-up made lives as long as the server: no collection need visit it


def server_of(request: Request) -> Server:
    """The :class:`Server` of the app that received ``request``."""
    server: Server = request.app.state.server
    return server
