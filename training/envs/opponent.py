"""The fixed opponent of :class:`~training.envs.single.ConnectXEnv`, called as a tournament calls an agent.

An opponent is an agent spec (:mod:`agents.registry`: one of ours, ``kaggle-random`` /
``kaggle-negamax``, a ``.py`` file loaded as Kaggle loads it) or any callable ``agent(obs, config)``.
Each move it is shown the observation and configuration Kaggle shows it
(:func:`agents.kit.adapter.as_player`, the project's one adapter, with its overage bank): it is
called as :func:`tournament.call.ask` calls an agent wherever one plays, the referee's games and
``connectx play`` included, and its answer is ruled on by Kaggle's rules: the column, or a forfeit
(INVALID, TIMEOUT, ERROR). So a game in the environment is the referee's game with the learner's
moves.

Where it runs: a spec plays in the tournament's sandbox (:mod:`tournament.sandbox`), a host process
of its own for every game, forked by a zygote of the environment's own (made at the first game, with
a game slot of the machine's, so its user is no other agent's: :func:`tournament.sandbox.claim_slots`),
so a downloaded Kaggle agent reads, writes and reaches what it would in a tournament and nothing of
the training process. Asked for by name, ``in_process=True``, a spec is loaded in this process instead,
as a callable always is (for speed in self-play: no process, no pipe). Either way, as the tournament's
agent hosts do, the process compiles the solver's numba kernel before the first game of one of our
agents that searches with it (:func:`agents.engine.solver.warm_up`, about 2 s once per process):
``negamax`` solves under a deadline, so a compilation inside its first hard move would change that
move. A sandboxed opponent also gives up on a move at its limit (``actTimeout``, its bank and the
proxy's grace, by the wall clock), untimed or not: the proxy cannot wait for ever.
"""

from __future__ import annotations

import contextlib
import time
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from agents.engine.board import Board
from agents.engine.solver import warm_up
from agents.kit.adapter import Agent
from agents.kit.clock import Clock
from agents.registry import AgentSpec, SpecError, load_agent, parse_spec, uses_solver
from tournament.call import Timer, ask
from tournament.rules import Ruling

if TYPE_CHECKING:
    from tournament.sandbox import AgentProcess, Zygote

__all__ = ["Opponent", "kaggle_callable"]


def kaggle_callable(spec: AgentSpec, seed: int | None) -> Callable[..., Any]:
    """The callable kaggle-environments plays for ``spec``: our agents made with ``seed``
    (:func:`agents.registry.load_agent`), Kaggle's built-ins and files resolved by kaggle's own
    ``build_agent``, as the tournament's agent hosts resolve them (:mod:`tournament.sandbox.host`)."""
    raw = load_agent(spec, seed=seed)
    if callable(raw):
        return raw
    from tournament.environments import BUILTIN_AGENTS, build_agent  # imports kaggle_environments (1.2 s)

    built: Callable[..., Any] = build_agent(raw, BUILTIN_AGENTS, "connectx")[0]
    return built


def _untimed() -> float:
    """The timer of an untimed opponent: every call takes 0 s."""
    return 0.0


class _Hosts:
    """The sandbox of a spec opponent (module docstring): a game slot held, a zygote forked at the
    first game, and the host of the game being played (:class:`~tournament.sandbox.AgentProcess`)."""

    def __init__(self, spec: AgentSpec) -> None:
        from tournament import sandbox  # imports kaggle_environments (1.2 s), for sandboxed opponents only

        self._sandbox = sandbox
        self.spec = spec
        self._stack = contextlib.ExitStack()
        self._zygote: Zygote | None = None
        self._slot = 0
        self.proxy: AgentProcess | None = None

    def new_game(self, mark: int, seed: int) -> AgentProcess:
        """The host of a new game, the last game's gone (its processes killed)."""
        if self._zygote is None:
            (self._slot,) = self._stack.enter_context(self._sandbox.claim_slots(1))
            if uses_solver(self.spec.text):
                warm_up()  # compiled once, before the zygote forks: a host cannot write numba's cache
            self._zygote = self._sandbox.Zygote()
            self._stack.callback(self._zygote.close)
        elif self.proxy is not None:
            self.proxy.close()
            self._zygote.clear(1)  # the game's one host
        self.proxy = self._sandbox.AgentProcess(
            self.spec.text, mark, seed=seed, global_seed=seed, slot=self._slot, zygote=self._zygote
        )
        return self.proxy

    def close(self) -> None:
        """Kill the host, end the zygote (every process it forked with it) and free the slot."""
        if self.proxy is not None:
            self.proxy.close()
            self.proxy = None
        self._stack.close()
        self._zygote = None


class Opponent:
    """An agent to play against, game after game.

    ``agent`` is a spec (``ValueError`` when :func:`agents.registry.parse_spec` refuses it) or a
    callable. A spec is loaded again at every :meth:`new_game`, with that game's seed, as a tournament
    starts a fresh agent for every game, in a sandboxed host of its own, or in this process with
    ``in_process`` (module docstring); a callable is kept as given (its state, if any, is its own).
    :meth:`close` ends the sandbox's processes (they also end with this process).
    ``clock`` is what the agent is shown (Kaggle's 2 s a move and 60 s bank by default); with
    ``timed`` its calls are ruled on with their measured time, so an agent that overdraws its bank
    forfeits by TIMEOUT as in a tournament (``timer`` times them); without, no call is late (the
    environment's results then never depend on the machine's load).
    """

    def __init__(
        self,
        agent: str | Agent,
        *,
        clock: Clock | None = None,
        timed: bool = True,
        in_process: bool = False,
        timer: Timer = time.perf_counter,
    ) -> None:
        self.spec: AgentSpec | None = None
        self._hosts: _Hosts | None = None
        self.fixed: Agent | None = None
        if isinstance(agent, str):
            try:
                self.spec = parse_spec(agent)
            except SpecError as error:
                raise ValueError(f"opponent: {error}") from None
        elif callable(agent):
            self.fixed = agent
        else:
            raise TypeError(f"an opponent is an agent spec or a callable agent(obs, config), got {agent!r}")
        self.clock = clock or Clock()
        self.timer: Timer = timer if timed else _untimed
        self.bank = self.clock.overage
        self._agent: Agent | None = self.fixed
        if self.spec is not None and not in_process:
            self._hosts = _Hosts(self.spec)
            weakref.finalize(self, self._hosts.close)

    @property
    def name(self) -> str:
        """The spec as written, or the callable's name."""
        if self.spec is not None:
            return self.spec.text
        return getattr(self.fixed, "__name__", type(self.fixed).__name__)

    @property
    def sandboxed(self) -> bool:
        """True when the opponent plays in the sandbox (a spec, not ``in_process``)."""
        return self._hosts is not None

    def new_game(self, seed: int, mark: int = 2) -> None:
        """Start a game: a fresh agent from the spec (made with ``seed``; in its sandbox, the host of
        ``mark``, the opponent's) and a full overage bank."""
        if self._hosts is not None:
            self._agent = self._hosts.new_game(mark, seed)
        elif self.spec is not None:
            if self._agent is None and self.spec.kind == "builtin" and uses_solver(self.spec.text):
                warm_up()  # not for one that never searches with it (random: 2 s for nothing)
            self._agent = kaggle_callable(self.spec, seed)
        self.bank = self.clock.overage

    def move(self, board: Board) -> Ruling:
        """The opponent's answer for ``board`` (its mark to move), called and ruled on as in a
        tournament (:func:`tournament.call.ask`), its bank charged: a column that may be played, or a
        :class:`~tournament.record.Forfeit`. An exception the agent raises is its ERROR."""
        if self._agent is None:
            raise RuntimeError("Opponent.move before new_game")
        made = ask(self._agent, board, Clock(self.clock.act_timeout, self.bank), timer=self.timer)
        self.bank = made.bank
        return made.ruling

    def close(self) -> None:
        """End the sandbox's processes, if any (a game after it starts them again)."""
        if self._hosts is not None:
            self._hosts.close()
