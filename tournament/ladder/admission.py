"""Who may join a ladder, checked before anything is stored: a file agent must get through a
validation game as Kaggle's validation episode, and every newcomer must play on the ladder's board."""

from __future__ import annotations

from pathlib import Path

from tournament.ladder.roster import Candidate, LadderError
from tournament.limits import Limits
from tournament.record import GameRecord
from tournament.schedule import GameTask, Settings

__all__ = ["same_board", "validate"]


def validate(candidate: Candidate, settings: Settings, limits: Limits = Limits()) -> None:  # noqa: B008
    """Play a file agent ``candidate`` against itself once on the board and time control of
    ``settings``, as Kaggle's validation episode does (not stored); our agents need none
    (:func:`~agents.registry.parse_spec` built them). Raises :class:`LadderError` when the game ends
    in a forfeit: the file does not load, raises, times out or plays an illegal move."""
    if candidate.spec not in candidate.files:
        return
    from tournament.runner import run_games  # the referee (kaggle-environments): not for `ladder show`

    s = settings
    task = GameTask(game_id=0, pair_id=0, first=candidate.spec, second=candidate.spec, rows=s.rows,
                    columns=s.columns, inarow=s.inarow, act_timeout=s.act_timeout, hang_limit=s.hang_limit,
                    seed=s.seed)  # fmt: skip
    for result in run_games([task], 1, limits):
        if not isinstance(result, GameRecord):
            raise LadderError(f"{candidate.spec}: its validation game failed in the referee: {result}")
        if result.offender is not None:
            detail = (result.detail.strip().splitlines() or [""])[-1]
            raise LadderError(
                f"{candidate.spec} does not play: its validation game against itself ended by "
                f"{result.termination.value} ({detail})"
            )


def same_board(stored: Settings, asked: Settings, directory: Path) -> None:
    """Raise :class:`LadderError` unless ``asked`` has the board of the ladder in ``directory``."""
    board = (asked.rows, asked.columns, asked.inarow)
    if (stored.rows, stored.columns, stored.inarow) != board:
        raise LadderError(
            f"{directory} holds a ladder of {stored.rows}x{stored.columns} boards, {stored.inarow} in a "
            f"row; not {asked.rows}x{asked.columns}, {asked.inarow} in a row"
        )
