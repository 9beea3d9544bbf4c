"""PUCT search: proofs in the tree, the prior and the value steering it, budgets, root moves, reuse,
the evaluator asked once a new node and :func:`cached`."""

from __future__ import annotations

import pytest

from agents.engine.board import Board, geometry
from agents.engine.puct import Puct, cached

GEO = geometry(6, 7, 4)


def uniform(position: int, mask: int, ply: int) -> tuple[list[float], float]:
    return [0.0] * 7, 0.0


def test_proves_a_win_in_two_and_plays_it() -> None:
    # X holds the 4th and 5th bottom cells with both ends open: columns 3 or 6 (1-based) make an
    # open three, which O cannot stop.
    result = Puct(GEO, uniform).run(Board.from_moves("4455"), visits=5000)
    assert result.column in (2, 5) and result.proven == 1
    assert result.simulations < 5000  # the search stops once the root is proven


def test_proves_a_loss_when_every_move_loses() -> None:
    # O to move against the open three of X on the bottom row: both ends cannot be blocked.
    result = Puct(GEO, uniform).run(Board.from_moves("44553"), visits=1000)
    assert result.proven == -1
    assert Board.from_moves("44553").can_play(result.column)


def test_the_prior_steers_the_search() -> None:
    def likes(column: int):
        return lambda position, mask, ply: ([5.0 if c == column else 0.0 for c in range(7)], 0.0)

    assert Puct(GEO, likes(6)).run(Board(), visits=40).column == 6
    assert Puct(GEO, likes(0)).run(Board(), visits=40).column == 0


def test_the_value_steers_the_search() -> None:
    corner = GEO.bottom_cells[1]  # the bottom cell of the second column

    def value(position: int, mask: int, ply: int) -> tuple[list[float], float]:
        other = position ^ mask  # the stones of the player who just moved
        return [0.0] * 7, (-0.9 if other & corner else 0.0)  # good for whoever holds that cell

    assert Puct(GEO, value).run(Board(), visits=200).column == 1


def test_a_visit_budget_is_met_exactly_and_repeats_itself() -> None:
    board = Board.from_moves("4453")
    results = [Puct(GEO, uniform).run(board, visits=300) for _ in range(2)]
    assert results[0].visits == 300 and results[0].simulations == 299 and results[0].reused == 0
    assert results[0] == results[1]


def test_visits_add_up_across_moves() -> None:
    # The root counts one visit of its own, the visits kept from the last tree and one a simulation.
    search = Puct(GEO, uniform)
    board = Board()
    first = search.run(board, visits=400)
    board.push(first.column)
    board.push(3)
    second = search.run(board, visits=700)
    assert first.visits == 1 + first.simulations
    assert second.visits == 700 == 1 + second.reused + second.simulations


def test_never_chooses_a_move_that_loses_at_once() -> None:
    # O (to move) must block column 4 (1-based); every other move lets X win at once.
    assert Puct(GEO, uniform).run(Board.from_moves("11223"), visits=50).column == 3


def test_refuses_a_position_won_at_once() -> None:
    with pytest.raises(ValueError, match="wins at once"):
        Puct(GEO, uniform).run(Board.from_moves("445566"), visits=10)


def test_allowed_restricts_the_root() -> None:
    search = Puct(GEO, uniform)
    assert search.run(Board(), visits=30, allowed=[0]).column == 0
    with pytest.raises(ValueError, match="no legal column"):
        search.run(Board(), visits=30, allowed=[9])


def test_the_tree_is_kept_between_moves() -> None:
    search = Puct(GEO, uniform)
    board = Board()
    board.push(search.run(board, visits=500).column)
    board.push(3)
    assert search.run(board, visits=600).reused > 0
    assert search.run(Board.from_moves("1111"), visits=50).reused == 0


def test_the_evaluator_is_asked_once_a_new_node_and_cached_once_a_position() -> None:
    seen: list[int] = []

    def counting(position: int, mask: int, ply: int) -> tuple[list[float], float]:
        seen.append(position + mask)
        return [0.0] * 7, 0.0

    result = Puct(GEO, counting).run(Board.from_moves("44"), visits=2000)
    assert result.visits >= len(seen) > len(set(seen)) > 100  # the root, then one a simulation at most
    seen.clear()
    Puct(GEO, cached(counting)).run(Board.from_moves("44"), visits=2000)
    assert len(seen) == len(set(seen)) > 100


def test_other_geometries() -> None:
    small = geometry(4, 5, 3)
    board = Board.from_moves("2", rows=4, columns=5, inarow=3)
    result = Puct(small, lambda p, m, ply: ([0.0] * 5, 0.0)).run(board, visits=3000)
    assert board.can_play(result.column)
    with pytest.raises(ValueError, match="geometry"):
        Puct(small, uniform).run(Board(), visits=10)


def test_bad_parameters() -> None:
    with pytest.raises(ValueError):
        Puct(GEO, uniform, c=-1.0)
