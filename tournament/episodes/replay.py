"""An episode's game checked move by move: :func:`replay` plays its steps on a
:class:`~agents.engine.board.Board`, :func:`ending` reads how it ended from its last step.

Each raises :class:`~tournament.episodes.fields.EpisodeError` (one line) where the episode does not
add up: a move that is not a column, an illegal move the referee let stand, a board that is not the
moves', statuses out of turn, final statuses or rewards other than those the board, or the
forfeit, calls for (``kaggle_environments/core.py``, ``Environment.step``;
``kaggle_environments/envs/connectx/connectx.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

from agents.engine.board import Board, BoardError
from tournament.episodes.fields import TURN, EpisodeError, Step
from tournament.record import FORFEIT_STATUSES, Forfeit, Status, Termination

__all__ = ["Ending", "Sent", "ending", "replay"]


@dataclass(frozen=True, slots=True)
class Sent:
    """The call that forfeited: the ``mark`` that made it and the ``action`` it sent (as decoded
    from the episode's JSON)."""

    mark: int
    action: object


@dataclass(frozen=True, slots=True)
class Ending:
    """How an episode's game ended: ``termination``, ``offender`` (the mark that forfeited, else
    None), ``result`` (mark 1's score: 1.0, 0.5 or 0.0) and ``detail`` (on a forfeit, what the
    episode shows of it, one line; else "")."""

    termination: Termination
    offender: int | None
    result: float
    detail: str


def replay(steps: list[Step], board: Board) -> Sent | None:
    """Play the moves of ``steps`` on the empty ``board`` (left after the last move), checking each
    step's board and statuses; returns the call that forfeited, if one did (it must be the last
    step's, leaving the board as it was). The game may still be going on after the last step
    (:func:`ending` refuses it)."""
    first = steps[0]
    if first.board != board.to_kaggle():
        raise EpisodeError("step 0: the board is not empty")
    if first.statuses != TURN:
        raise EpisodeError(
            f"step 0: statuses {first.statuses[0]}, {first.statuses[1]}, not mark 1 to move "
            "(ACTIVE, INACTIVE)"
        )
    last = len(steps) - 1
    for index in range(1, len(steps)):
        before, after = steps[index - 1], steps[index]
        actor = before.statuses.index(Status.ACTIVE)  # one: step 0 and the loop check
        mark = actor + 1
        action, status = after.agents[actor].action, after.agents[actor].status
        if status in FORFEIT_STATUSES:
            if after.board != before.board:
                raise EpisodeError(f"step {index}: the board changed, yet mark {mark} forfeited ({status})")
            if index != last:
                raise EpisodeError(f"step {index}: mark {mark} forfeited ({status}), yet the episode goes on")
            return Sent(mark, action)
        _move(board, index, mark, action, status, after)
        if board.is_game_over() or index == last:
            if index != last:
                raise EpisodeError(f"step {index}: the game is over, yet the episode goes on")
            break
        statuses = after.statuses
        if statuses != TURN[:: 1 if actor else -1]:
            raise EpisodeError(
                f"step {index}: statuses {statuses[0]}, {statuses[1]} after a move of mark {mark} in a "
                "game still going on"
            )
    return None


def _move(board: Board, index: int, mark: int, action: object, status: str, after: Step) -> None:
    """Play ``mark``'s ``action`` of step ``index`` on ``board``, which must then be ``after``'s."""
    if isinstance(action, bool) or not isinstance(action, int):
        raise EpisodeError(f"step {index}: mark {mark} played {action!r}, not a column, yet is {status}")
    try:
        board.push(action)
    except BoardError as error:
        raise EpisodeError(
            f"step {index}: mark {mark} played column {action}, an illegal move ({error}) that "
            "Kaggle's referee would have forfeited"
        ) from None
    if after.board != board.to_kaggle():
        raise EpisodeError(f"step {index}: the board is not the moves' (mark {mark} played column {action})")


def ending(final: Step, board: Board, sent: Sent | None) -> Ending:
    """How the game on ``board`` (after every move) ended, by the episode's ``final`` step: a
    forfeit (its statuses and rewards must be Kaggle's for one, :class:`~tournament.record.Forfeit`;
    ``sent`` is the forfeiting call, when :func:`replay` saw it), else a line or a full board (the
    statuses ``DONE`` and the rewards of its outcome)."""
    statuses, rewards = final.statuses, final.rewards
    offenders = [mark for mark, status in ((1, statuses[0]), (2, statuses[1])) if status in FORFEIT_STATUSES]
    if len(offenders) == 2:
        raise EpisodeError(f"both agents forfeited ({statuses[0]}, {statuses[1]}); a game has one offender")
    if offenders:
        offender = offenders[0]
        status = Status(statuses[offender - 1])
        if board.is_game_over():
            raise EpisodeError(f"mark {offender} forfeited ({status}) after the game was over")
        action = sent.action if sent is not None and sent.mark == offender else None
        termination, detail = _forfeit(offender, status, action, final, board)
        ended = Forfeit(offender, termination, detail, status)
        if (statuses, rewards) != (ended.statuses, ended.rewards):
            raise EpisodeError(
                f"its final statuses {list(statuses)} and rewards {list(rewards)} are not those of a "
                f"forfeit of mark {offender}, {list(ended.statuses)} and {list(ended.rewards)}"
            )
        return Ending(termination, offender, 0.0 if offender == 1 else 1.0, detail)
    outcome = board.outcome()
    moves = len(board.moves)
    if outcome is None:
        if Status.ACTIVE in statuses:
            raise EpisodeError(
                f"the game is unfinished after {moves} moves: mark {statuses.index(Status.ACTIVE) + 1} "
                "is still to move (steps cut short?)"
            )
        raise EpisodeError(
            f"the episode ended after {moves} moves ({statuses[0]}, {statuses[1]}) with no line, "
            "no full board and no forfeit (its episodeSteps ran out?)"
        )
    if statuses != (Status.DONE, Status.DONE) or rewards != (outcome.reward(1), outcome.reward(2)):
        said = "a draw" if outcome.winner is None else f"mark {outcome.winner} wins"
        raise EpisodeError(
            f"its final statuses {list(statuses)} and rewards {list(rewards)} are not those of its "
            f"board, where {said}"
        )
    termination = Termination.DRAW if outcome.winner is None else Termination.WIN
    return Ending(termination, None, outcome.result, "")


def _forfeit(
    offender: int, status: Status, action: object, final: Step, board: Board
) -> tuple[Termination, str]:
    """The termination and detail of ``offender``'s forfeit with Kaggle ``status``, sending
    ``action`` (None when the episode does not keep it), on ``board`` (before the offending call)."""
    termination = FORFEIT_STATUSES[status]
    remaining = final.agents[offender - 1].remaining
    if termination is Termination.ERROR:
        return (
            termination,
            f"mark {offender} raised an error (Kaggle status ERROR; the episode keeps no traceback)",
        )
    if termination is Termination.TIMEOUT:
        return termination, f"mark {offender} ran out of time (Kaggle status TIMEOUT)"
    if remaining is not None and remaining < 0:  # Termination: INVALID once the bank is overdrawn
        return Termination.TIMEOUT, f"mark {offender} overdrew its overage bank (Kaggle status INVALID)"
    if isinstance(action, int) and not isinstance(action, bool) and board.mark == offender:
        from tournament.rules import invalid_action  # the runner's words

        return termination, invalid_action(offender, action, board)
    columns = board.geo.columns
    return termination, (
        f"mark {offender} returned something other than a column 0-{columns - 1}, which the episode "
        "does not keep (Kaggle status INVALID: e.g. a str or a negative number)"
    )
