"""``ConnectXAECEnv``: ConnectX as a PettingZoo AEC environment, two learners taking turns (self-play).

In the shape of PettingZoo's ``connect_four_v3`` (``pettingzoo/classic/connect_four``): agents
``player_0`` (mark 1, moves first) and ``player_1`` (mark 2); each observation is a dict of
``"observation"`` and ``"action_mask"`` (int8, 1 for the columns the agent may play, all 0 when it is
not its turn); actions ``Discrete(columns)``. The rules are :class:`~training.envs.single.ConnectXEnv`'s,
on the project's one :class:`~agents.engine.board.Board`, with any ``rows``, ``columns`` and
``inarow``:

* ``"observation"`` is the same channel-first ``(2, rows, columns)`` float32 planes (the observing
  agent's stones first; :func:`training.envs.view.planes`), where ``connect_four_v3`` has
  ``(6, 7, 2)`` int8: a policy trained in one environment plays in the other;
* rewards from a :class:`~training.envs.rewards.Rewards` scheme, ``"kaggle"`` by default: +1 to the
  winner and -1 to the loser, 0 each in a draw (``connect_four_v3``'s), ``step`` to the mover of every
  move that does not end the game;
* an invalid action (a full column) ends the game as a forfeit: ``invalid`` (-1) to the offender and
  ``win`` (+1) to the other, who wins by Kaggle's rules as the tournament counts them
  (``connect_four_v3`` gives the other 0). ``infos`` then say ``termination`` ``"invalid"`` and the
  ``offender``.

Render modes ``"ansi"`` and ``"rgb_array"``, as :class:`~training.envs.single.ConnectXEnv`.
``ConnectXAECEnv(...)`` is the environment; :func:`env` the same wrapped in PettingZoo's
``OrderEnforcingWrapper`` (which refuses ``step`` before ``reset``), as PettingZoo's ``env()``
constructors return.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from agents.engine.board import Board, geometry
from tournament.record import Termination
from training.envs import view
from training.envs.rewards import Rewards, rewards

__all__ = ["ConnectXAECEnv", "env"]

AGENTS = ("player_0", "player_1")
"""The agents, by mark: ``player_0`` is mark 1."""


class ConnectXAECEnv(AECEnv[str, dict[str, np.ndarray], int]):
    """Two agents playing ConnectX on a ``rows`` x ``columns`` board, ``inarow`` to connect (the
    module docstring says what they observe and get); ``reward``: ``"kaggle"``, ``"course"`` or a
    :class:`~training.envs.rewards.Rewards`; ``render_mode``: None, ``"ansi"`` or ``"rgb_array"``.
    ``reset(options={"opening": moves})`` starts from the 0-based columns ``moves`` (``ValueError``
    if illegal or finished) with the side they leave to move."""

    metadata: dict[str, Any] = {
        "render_modes": ["ansi", "rgb_array"],
        "name": "connectx_v0",
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(
        self,
        rows: int = 6,
        columns: int = 7,
        inarow: int = 4,
        *,
        reward: str | Rewards = "kaggle",
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        self.geo = geometry(rows, columns, inarow)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None, 'ansi' or 'rgb_array', got {render_mode!r}")
        self.scheme = rewards(reward, self.geo)
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(0.0, 1.0, (2, rows, columns), np.float32),
                    "action_mask": spaces.Box(0, 1, (columns,), np.int8),
                }
            )
            for agent in AGENTS
        }
        self.action_spaces = {agent: spaces.Discrete(columns) for agent in AGENTS}
        self.board = Board(rows, columns, inarow)
        self._reset_state()

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        mark = 1 + AGENTS.index(agent)
        mask = (
            view.action_mask(self.board)
            if agent == self.agent_selection
            else np.zeros(self.geo.columns, np.int8)
        )
        return {"observation": view.planes(self.board, mark), "action_mask": mask}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        geo = self.geo
        self.board = Board(geo.rows, geo.columns, geo.inarow)
        opening = list((options or {}).get("opening", ()))
        try:
            for column in opening:
                self.board.push(column)
        except ValueError as error:
            raise ValueError(f"opening {opening}: {error}") from None
        if self.board.is_game_over():
            raise ValueError(f"opening {opening} ends the game")
        self._reset_state()

    def _reset_state(self) -> None:
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.agent_selection = AGENTS[self.board.mark - 1]

    def step(self, action: int | None) -> None:
        """Play ``action`` (a 0-based column) for the agent to move; None for an agent whose game is
        over (PettingZoo's way of removing it)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None or not self.action_spaces[agent].contains(action):
            raise ValueError(f"action {action!r} of {agent} is not in {self.action_spaces[agent]}")
        other = AGENTS[1 - AGENTS.index(agent)]
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        column = int(action)
        if not self.board.can_play(column):
            self.rewards[agent], self.rewards[other] = self.scheme.invalid, self.scheme.win
            self._finish(Termination.INVALID, offender=agent)
        else:
            self.board.push(column)
            outcome = self.board.outcome()
            if outcome is None:
                self.rewards[agent] = self.scheme.step
                self.agent_selection = other
            elif outcome.winner is None:
                self.rewards[agent] = self.rewards[other] = self.scheme.draw
                self._finish(Termination.DRAW, offender=None)
            else:
                self.rewards[agent], self.rewards[other] = self.scheme.win, self.scheme.loss
                self._finish(Termination.WIN, offender=None)
        self._accumulate_rewards()

    def _finish(self, termination: Termination, offender: str | None) -> None:
        self.terminations = dict.fromkeys(self.agents, True)
        for agent in self.agents:
            self.infos[agent] = {"termination": termination.value, "offender": offender}
        self.agent_selection = AGENTS[self.board.mark - 1] if offender is None else offender

    def render(self) -> str | np.ndarray | None:
        if self.render_mode == "ansi":
            return view.ansi(self.board)
        if self.render_mode == "rgb_array":
            return view.rgb(self.board)
        return None

    def close(self) -> None:
        pass


def env(**kwargs: Any) -> AECEnv[str, dict[str, np.ndarray], int]:
    """A :class:`ConnectXAECEnv` made with ``kwargs``, in PettingZoo's ``OrderEnforcingWrapper``."""
    wrapped: AECEnv[str, dict[str, np.ndarray], int] = wrappers.OrderEnforcingWrapper(
        ConnectXAECEnv(**kwargs)
    )
    return wrapped
