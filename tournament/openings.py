"""Openings: the short move sequences every game pair starts from.

Deterministic agents replay the same game from the empty board, so a tournament of them repeats one
game per pairing and colour, and its statistics count the copies as new evidence. As in cutechess-cli
and fastchess, each game pair therefore starts from an opening, played once with each colour.

Sources (:func:`resolve`):

* ``auto`` (the default): on the standard 6x7 board, four in a row, the built-in suite
  ``tournament/data/openings-6x7.txt``: 350 openings of 6 to 8 plies that our solver scores within
  2 of a draw (Pons' score, http://blog.gamesolver.org/solving-connect-four/), mirror images once,
  made by ``python -m scripts.make_openings``; on any other board, seeded random openings of
  :data:`DEFAULT_PLIES` plies (:func:`random_openings`; fewer on boards too small for them);
* ``drawn``: on the standard 6x7 board, the built-in suite's openings whose score is 0, a draw with
  perfect play (91 of the 350). With the others each pair gives one side a won position, so a
  perfect player loses the pair's second game whenever its opponent converts: its expected score
  is capped below 100 % by the opponent's play. From a drawn opening a perfect player never
  loses, so its score against a weaker agent measures the weaker agent's mistakes alone;
* a file: one opening a line, Pons' notation (:meth:`agents.engine.board.Board.from_notation`: 1-based
  column digits, mark 1 first, e.g. ``4453``);
  only the first whitespace-separated token of a line counts, blank lines and ``#`` comments are
  skipped;
* ``none``: every game starts from the empty board;
* ``plies=N`` (``--opening-plies N``): seeded random openings of ``N`` plies on any board.

Every opening must be legal, must not end the game and must leave the side to move without a
winning move ("no immediate win on the board"). Openings are tuples of 0-based columns.

Which opening a pair plays (:func:`pair_openings`): the openings are shuffled once by the tournament
seed; the k-th pair of every pairing plays the k-th of them (cycling when there are more pairs than
openings), so every pairing meets the same openings.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from importlib.resources import files
from pathlib import Path

from agents.engine.board import Board, BoardError, Geometry

__all__ = ["OpeningError", "pair_openings", "parse_openings", "random_openings", "resolve"]

Opening = tuple[int, ...]

DEFAULT_PLIES = 4
"""Length of the default random openings (shorter on boards too small for it)."""

SUITE = "openings-6x7.txt"
"""The built-in suite of balanced 6x7 openings, in ``tournament/data``."""


class OpeningError(ValueError):
    """An opening file or option that cannot be used (see the message)."""


def check(moves: str, geo: Geometry) -> Board:
    """The position after the opening ``moves`` (Pons' notation, :meth:`Board.from_notation
    <agents.engine.board.Board.from_notation>`); raises :class:`OpeningError` unless it is a usable
    opening."""
    try:
        board = Board.from_notation(moves, rows=geo.rows, columns=geo.columns, inarow=geo.inarow)
    except BoardError as error:
        raise OpeningError(f"opening {moves}: {error}") from None
    if board.is_game_over():
        raise OpeningError(f"opening {moves} ends the game")
    if board.winning_moves():
        raise OpeningError(f"opening {moves} leaves the side to move a winning move")
    return board


def parse_openings(text: str, geo: Geometry, *, origin: str = "openings") -> tuple[Opening, ...]:
    """Openings from text, one a line (see the module docstring); raises :class:`OpeningError`.

    Duplicates are kept once, in their first place. An empty list is an error.
    """
    openings: dict[Opening, None] = {}
    for number, line in enumerate(text.splitlines(), 1):
        token = line.split("#", 1)[0].split()
        if not token:
            continue
        try:
            board = check(token[0], geo)
        except OpeningError as error:
            raise OpeningError(f"{origin} line {number}: {error}") from None
        openings.setdefault(board.moves)
    if not openings:
        raise OpeningError(f"{origin} holds no opening")
    return tuple(openings)


def random_openings(geo: Geometry, plies: int, count: int, seed: int) -> tuple[Opening, ...]:
    """Up to ``count`` distinct random openings of ``plies`` plies, drawn by ``seed``.

    Each ply is a uniformly random legal column; sequences that end the game or leave the side to
    move a winning move are drawn again, and a position or its mirror image already drawn counts
    once. Fewer than ``count`` come back when the board has fewer such positions (none when it has
    none; ``plies=0`` gives the empty opening). Raises ValueError for ``plies < 0`` or ``count < 1``.
    """
    if plies < 0 or count < 1:
        raise ValueError("plies must be >= 0 and count >= 1")
    if plies == 0:
        return ((),)
    rng = random.Random(f"openings:{seed}:{geo.rows}x{geo.columns}:{geo.inarow}:{plies}")
    found: dict[int, Opening] = {}
    mirror = geo.columns - 1
    for _ in range(50 * count):
        if len(found) == count:
            break
        board, moves = Board(geo.rows, geo.columns, geo.inarow), list[int]()
        while len(moves) < plies and not board.is_game_over():
            column = rng.choice(board.legal_moves())
            board.push(column)
            moves.append(column)
        if len(moves) < plies or board.is_game_over() or board.winning_moves():
            continue
        flipped = Board(geo.rows, geo.columns, geo.inarow)
        for column in moves:
            flipped.push(mirror - column)
        key = min(board.key(), flipped.key())
        found.setdefault(key, tuple(moves))
    return tuple(found.values())


def _suite(geo: Geometry, *, drawn: bool) -> tuple[Opening, ...]:
    """The built-in suite's openings; with ``drawn``, only those whose stored score is 0."""
    lines = files("tournament").joinpath("data", SUITE).read_text().splitlines()
    if drawn:
        lines = [line for line in lines if line.split()[1:2] == ["0"]]
    return parse_openings("\n".join(lines), geo, origin=SUITE)


def resolve(source: str, geo: Geometry, *, pairs: int, seed: int) -> tuple[str, tuple[Opening, ...]]:
    """The openings of a tournament: ``(description, openings)``.

    ``source`` is ``auto``, ``drawn``, ``none``, ``plies=N`` or a file path (module docstring).
    ``pairs`` is the number of pairs a pairing plays (random openings are drawn that many). Raises
    :class:`OpeningError` for a missing or bad file, random openings that the board cannot hold,
    or ``drawn`` on another board than 6x7 four in a row.
    """
    standard = (geo.rows, geo.columns, geo.inarow) == (6, 7, 4)
    if source == "none":
        return "none (every game starts from the empty board)", ()
    if source == "drawn":
        if not standard:
            raise OpeningError("drawn openings exist for the standard 6x7 board, four in a row, only")
        suite = _suite(geo, drawn=True)
        return f"built-in suite, drawn ({len(suite)} openings of 6-8 plies scored 0)", suite
    if source == "auto":
        if standard:
            suite = _suite(geo, drawn=False)
            return f"built-in suite ({len(suite)} balanced openings of 6-8 plies)", suite
        for plies in range(min(DEFAULT_PLIES, geo.size // 4), 0, -1):
            openings = random_openings(geo, plies, pairs, seed)
            if openings:
                return f"random, {plies} plies", openings
        return "none (the board is too small for openings)", ()
    if source.startswith("plies="):
        plies = int(source.removeprefix("plies="))
        openings = random_openings(geo, plies, pairs, seed)
        if not openings:
            raise OpeningError(f"no opening of {plies} plies on this board leaves the game open")
        return f"random, {plies} plies", openings
    path = Path(source)
    if not path.is_file():
        raise OpeningError(f"openings file not found: {source}")
    return f"file {source}", parse_openings(path.read_text(), geo, origin=source)


def pair_openings(openings: Sequence[Opening], pairs: int, seed: int) -> list[Opening]:
    """The opening of each of ``pairs`` pairs of a pairing: the openings shuffled by ``seed``, cycled.

    With no openings, every pair gets the empty opening.
    """
    if not openings:
        return [()] * pairs
    order = list(openings)
    random.Random(f"opening-order:{seed}").shuffle(order)
    return [order[k % len(order)] for k in range(pairs)]
