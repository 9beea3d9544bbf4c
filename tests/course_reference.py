"""A direct, slow rendering of Kaggle's course agents (numpy grids, no pruning), for comparisons.

Written from the algorithm described in https://www.kaggle.com/code/alexisbcook/n-step-lookahead:
windows of ``inarow`` cells, the heuristic weights 1e6 / 1 / 1e2 / 1e4, and plain minimax with
``depth - 1`` plies below each root move. ``inarow - 1`` stands for the course's literal 3.
"""

from __future__ import annotations

import numpy as np


def drop_piece(grid, col, mark, rows):
    next_grid = grid.copy()
    for row in range(rows - 1, -1, -1):
        if next_grid[row][col] == 0:
            break
    next_grid[row][col] = mark
    return next_grid


def windows(grid, k):
    rows, columns = grid.shape
    for row in range(rows):
        for col in range(columns - (k - 1)):
            yield list(grid[row, col : col + k])
    for row in range(rows - (k - 1)):
        for col in range(columns):
            yield list(grid[row : row + k, col])
    for row in range(rows - (k - 1)):
        for col in range(columns - (k - 1)):
            yield list(grid[range(row, row + k), range(col, col + k)])
    for row in range(k - 1, rows):
        for col in range(columns - (k - 1)):
            yield list(grid[range(row, row - k, -1), range(col, col + k)])


def count_windows(grid, num_discs, piece, k):
    return sum(1 for w in windows(grid, k) if w.count(piece) == num_discs and w.count(0) == k - num_discs)


def heuristic(grid, mark, k, opp_line_weight):
    other = mark % 2 + 1
    return (
        count_windows(grid, k - 1, mark, k)
        - 1e2 * count_windows(grid, k - 1, other, k)
        - opp_line_weight * count_windows(grid, k, other, k)
        + 1e6 * count_windows(grid, k, mark, k)
    )


def is_terminal_node(grid, k):
    if list(grid[0, :]).count(0) == 0:
        return True
    return any(w.count(1) == k or w.count(2) == k for w in windows(grid, k))


def minimax(node, depth, maximizing, mark, k):
    rows, columns = node.shape
    if depth == 0 or is_terminal_node(node, k):
        return heuristic(node, mark, k, 1e4)
    valid = [c for c in range(columns) if node[0][c] == 0]
    if maximizing:
        return max(minimax(drop_piece(node, c, mark, rows), depth - 1, False, mark, k) for c in valid)
    return min(minimax(drop_piece(node, c, mark % 2 + 1, rows), depth - 1, True, mark, k) for c in valid)


def minimax_values(board, mark, rows, columns, k, depth):
    """``{column: value}`` as the course's ``score_move`` computes it (``board``: Kaggle's list)."""
    grid = np.asarray(board).reshape(rows, columns)
    valid = [c for c in range(columns) if grid[0][c] == 0]
    return {c: minimax(drop_piece(grid, c, mark, rows), depth - 1, False, mark, k) for c in valid}


def one_step_values(board, mark, rows, columns, k):
    """``{column: value}`` of the course's one-step lookahead (no opponent-line term)."""
    grid = np.asarray(board).reshape(rows, columns)
    valid = [c for c in range(columns) if grid[0][c] == 0]
    return {c: heuristic(drop_piece(grid, c, mark, rows), mark, k, 0) for c in valid}
