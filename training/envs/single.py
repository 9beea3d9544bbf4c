"""``ConnectXEnv``: ConnectX as a Gymnasium environment, one learner against a fixed opponent.

The learner plays one mark; every :meth:`~ConnectXEnv.step` plays its column, then the opponent's
reply (:class:`~training.envs.opponent.Opponent`: an agent spec or callable, called and judged as in a
tournament), and returns the position the learner moves in next. The board is the project's one
:class:`~agents.engine.board.Board`, which decides wins and draws.

* Observation: ``(2, rows, columns)`` float32 planes, the learner's stones then the opponent's, row 0
  on top (:func:`training.envs.view.planes`).
* Action: ``Discrete(columns)``, a 0-based column. ``info["action_mask"]`` (int8, 1 = playable) holds
  the legal columns, and :meth:`~ConnectXEnv.action_masks` returns it as booleans (sb3-contrib's
  ``MaskablePPO`` reads it there).
* **Invalid action**: a full column. As on Kaggle, where the referee ends the game with the offender's
  status INVALID, the episode ends (``terminated``) with the reward ``invalid`` of the scheme and
  ``info["termination"] == "invalid"``, ``info["offender"] == "learner"``. An action outside the
  action space is a programming error: ``ValueError``.
* The opponent's forfeit (INVALID, TIMEOUT, ERROR; :func:`tournament.rules.rule_on`) ends the episode as
  a win for the learner, ``info["offender"] == "opponent"``.
* Rewards: a :class:`~training.envs.rewards.Rewards` scheme, by name ``"kaggle"`` (default: +1, -1, 0)
  or ``"course"`` (Kaggle Learn's ConnectX course: +1 win, -1 any other end, 1/42 a move, -10 an
  invalid move).
* Colour: ``mark=1`` or ``2``, or ``"alternate"`` (mark 1 in the first episode after each seeded
  reset, then 2, 1, ...). When the opponent is to move first, it moves inside :meth:`ConnectXEnv.reset`.
* Openings: each episode starts from the empty board, or from ``openings`` (a sequence of move lists,
  one drawn per episode, or a callable ``rng -> moves`` given the environment's ``np_random``), or
  from ``reset(options={"opening": moves})``. An opening drawn from ``openings`` after which the game
  ends before the learner's first move is drawn again (at most 100 times); one given in ``options``
  raises ``ValueError``.
* ``info`` always has ``action_mask``, ``mark`` (the learner's) and ``moves`` (every column played,
  the opening's included); at the end also ``result`` (1.0 win, 0.5 draw, 0.0 loss, for the
  learner), ``termination`` (a :class:`tournament.record.Termination` value: ``win``, ``draw``,
  ``invalid``, ``timeout``, ``error``) and ``offender`` (``"learner"``, ``"opponent"`` or None).
* Render modes ``"ansi"`` (text) and ``"rgb_array"`` (a picture, :func:`training.envs.view.rgb`).

Registered as ``connectx/ConnectX-v0`` (:mod:`training.envs`): ``gymnasium.make("connectx/ConnectX-v0",
opponent="one_step")`` after ``import training.envs``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal

import gymnasium
import numpy as np
from gymnasium import spaces

from agents.engine.board import Board, geometry
from agents.kit.adapter import Agent, Clock
from tournament.record import Forfeit, Termination
from training.envs import view
from training.envs.opponent import Opponent
from training.envs.rewards import Rewards, rewards

__all__ = ["ConnectXEnv", "Openings"]

Openings = Sequence[Sequence[int]] | Callable[[np.random.Generator], Sequence[int]]
"""Where episodes start: move lists (0-based columns) to draw from, or a function drawing one."""

REDRAWS = 100
"""Openings drawn at most per reset, when the game keeps ending before the learner's first move."""


class ConnectXEnv(gymnasium.Env[np.ndarray, np.int64]):
    """A ConnectX game against a fixed opponent (the module docstring says what is observed, played and
    rewarded).

    ``rows``, ``columns``, ``inarow``: the board (any size Kaggle allows, ``ValueError`` otherwise);
    ``opponent``: an agent spec such as ``"random"``, ``"negamax"``, ``"kaggle-negamax"`` or
    ``"my_agent.py"``, or a callable ``agent(obs, config)``; ``mark``: 1, 2 or ``"alternate"``;
    ``reward``: ``"kaggle"``, ``"course"`` or a :class:`~training.envs.rewards.Rewards`;
    ``openings``: see the module docstring; ``clock`` and ``timed``: what the opponent is shown and
    whether it may forfeit on time (:class:`~training.envs.opponent.Opponent`); ``in_process``: a
    spec opponent plays in this process rather than in the tournament's sandbox (for speed; trusted
    agents only); ``render_mode``: None, ``"ansi"`` or ``"rgb_array"``. :meth:`close` ends the
    sandbox's processes.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi", "rgb_array"], "render_fps": 2}

    def __init__(
        self,
        rows: int = 6,
        columns: int = 7,
        inarow: int = 4,
        *,
        opponent: str | Agent = "random",
        mark: int | Literal["alternate"] = 1,
        reward: str | Rewards = "kaggle",
        openings: Openings | None = None,
        clock: Clock | None = None,
        timed: bool = True,
        in_process: bool = False,
        render_mode: str | None = None,
    ) -> None:
        self.geo = geometry(rows, columns, inarow)
        if mark not in (1, 2, "alternate"):
            raise ValueError(f"mark must be 1, 2 or 'alternate', got {mark!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None, 'ansi' or 'rgb_array', got {render_mode!r}")
        self.rewards = rewards(reward, self.geo)
        self.opponent = Opponent(opponent, clock=clock, timed=timed, in_process=in_process)
        self.mark_setting = mark
        self.openings = openings
        self.render_mode = render_mode
        self.observation_space = spaces.Box(0.0, 1.0, (2, rows, columns), np.float32)
        self.action_space = spaces.Discrete(columns)
        self.reward_range = self.rewards.range
        self.board = Board(rows, columns, inarow)
        self.mark = 1
        self._episodes = 0
        self._over = True

    # --- the Gymnasium API -------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start an episode: the opening, the opponent's first move when it has it. ``options`` may
        give ``"opening"`` (move list) and ``"mark"`` (1 or 2) for this episode."""
        super().reset(seed=seed)
        if seed is not None:
            self._episodes = 0
        options = options or {}
        mark = options.get("mark", self.mark_setting)
        if mark == "alternate":
            mark = 1 + self._episodes % 2
        if mark not in (1, 2):
            raise ValueError(f"mark must be 1 or 2, got {mark!r}")
        self.mark = int(mark)
        self._episodes += 1
        given = "opening" in options
        for _ in range(1 if given else REDRAWS):
            opening = list(options["opening"]) if given else self._draw_opening()
            self.board = self._opening_board(opening)
            self.opponent.new_game(int(self.np_random.integers(2**31)), 3 - self.mark)
            self._over = False
            if self.board.is_game_over():
                ended = "the opening ends the game"
            elif self.board.mark != self.mark and self._opponent_turn()[1]:
                ended = "the game ends before the learner's first move"
            else:
                return self._observation(), self._info()
        raise ValueError(f"{ended}: opening {opening}" if given else f"{REDRAWS} openings drawn: {ended}")

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Play the learner's column, then the opponent's reply."""
        if self._over:
            raise RuntimeError("step after the episode ended: call reset")
        if not self.action_space.contains(action):
            raise ValueError(f"action {action!r} is not in {self.action_space}")
        column = int(action)
        if not self.board.can_play(column):
            return self._end(self.rewards.invalid, Termination.INVALID, "learner")
        self.board.push(column)
        if self.board.is_game_over():
            return self._end_on_board()
        end, over = self._opponent_turn()
        if over:
            assert end is not None
            return end
        return self._observation(), self.rewards.step, False, False, self._info()

    def render(self) -> str | np.ndarray | None:  # type: ignore[override]
        """The board as text (``"ansi"``) or a picture (``"rgb_array"``); None without a render mode."""
        if self.render_mode == "ansi":
            return view.ansi(self.board)
        if self.render_mode == "rgb_array":
            return view.rgb(self.board)
        return None

    def action_masks(self) -> np.ndarray:
        """The legal columns as booleans, shape ``(columns,)`` (the method ``MaskablePPO`` calls)."""
        return view.action_mask(self.board).astype(bool)

    # --- inside -------------------------------------------------------------------------------

    def _draw_opening(self) -> list[int]:
        if self.openings is None:
            return []
        if callable(self.openings):
            return list(self.openings(self.np_random))
        if not self.openings:
            return []
        return list(self.openings[int(self.np_random.integers(len(self.openings)))])

    def _opening_board(self, opening: list[int]) -> Board:
        geo = self.geo
        board = Board(geo.rows, geo.columns, geo.inarow)
        try:
            for column in opening:
                board.push(column)
        except ValueError as error:
            raise ValueError(f"opening {opening}: {error}") from None
        return board

    def _opponent_turn(self) -> tuple[tuple[np.ndarray, float, bool, bool, dict[str, Any]] | None, bool]:
        """The opponent's move: ``(the step's return, True)`` when it ends the episode, else
        ``(None, False)``."""
        ruling = self.opponent.move(self.board)
        if isinstance(ruling, Forfeit):
            return self._end(self.rewards.win, ruling.termination, "opponent", ruling.detail), True
        self.board.push(ruling)
        if self.board.is_game_over():
            return self._end_on_board(), True
        return None, False

    def _end_on_board(self) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        outcome = self.board.outcome()
        assert outcome is not None
        if outcome.winner is None:
            return self._end(self.rewards.draw, Termination.DRAW, None)
        won = outcome.winner == self.mark
        return self._end(self.rewards.win if won else self.rewards.loss, Termination.WIN, None, won=won)

    def _end(
        self,
        reward: float,
        termination: Termination,
        offender: str | None,
        detail: str = "",
        *,
        won: bool = False,
    ) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        self._over = True
        if offender is not None:
            result = 1.0 if offender == "opponent" else 0.0
        else:
            result = 0.5 if termination is Termination.DRAW else float(won)
        info = self._info() | {"result": result, "termination": termination.value, "offender": offender}
        if detail:
            info["detail"] = detail
        return self._observation(), float(reward), True, False, info

    def close(self) -> None:
        """End the opponent's sandbox, if any (:meth:`~training.envs.opponent.Opponent.close`)."""
        self.opponent.close()

    def _observation(self) -> np.ndarray:
        return view.planes(self.board, self.mark)

    def _info(self) -> dict[str, Any]:
        mask = view.action_mask(self.board) if not self._over else np.zeros(self.geo.columns, np.int8)
        return {"action_mask": mask, "mark": self.mark, "moves": self.board.moves}
