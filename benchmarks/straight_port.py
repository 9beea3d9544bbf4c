"""A straightforward pure-Python port of Pons' final solver, kept only as a speed baseline.

It follows the C++ structure one to one (a ``Position`` class with methods, a ``MoveSorter``
object doing insertion sort, a fixed-size ``TranspositionTable`` of two Python lists, the search as
a method), which is how a port looks before any Python-specific tuning. Same algorithm and node
counts as :mod:`agents.engine.solver` up to the table (lossy here, exact there). Scores from the side to
move, Pons' convention (http://blog.gamesolver.org/solving-connect-four/). 6x7 only.
"""

from __future__ import annotations

WIDTH, HEIGHT = 7, 6
SIZE = WIDTH * HEIGHT
MIN_SCORE = -SIZE // 2 + 3
MAX_SCORE = (SIZE + 1) // 2 - 3
BOTTOM = sum(1 << (c * (HEIGHT + 1)) for c in range(WIDTH))
BOARD = BOTTOM * ((1 << HEIGHT) - 1)


def column_mask(col: int) -> int:
    return ((1 << HEIGHT) - 1) << (col * (HEIGHT + 1))


def compute_winning_position(position: int, mask: int) -> int:
    h = HEIGHT
    r = (position << 1) & (position << 2) & (position << 3)
    for s in (h + 1, h, h + 2):
        p = (position << s) & (position << 2 * s)
        r |= p & (position << 3 * s)
        r |= p & (position >> s)
        p = (position >> s) & (position >> 2 * s)
        r |= p & (position << s)
        r |= p & (position >> 3 * s)
    return r & (BOARD ^ mask)


class Position:
    def __init__(self) -> None:
        self.current_position = 0
        self.mask = 0
        self.moves = 0

    def copy(self) -> Position:
        p = Position()
        p.current_position, p.mask, p.moves = self.current_position, self.mask, self.moves
        return p

    def play(self, move: int) -> None:
        self.current_position ^= self.mask
        self.mask |= move
        self.moves += 1

    def play_col(self, col: int) -> None:
        self.play((self.mask + (1 << (col * (HEIGHT + 1)))) & column_mask(col))

    def possible(self) -> int:
        return (self.mask + BOTTOM) & BOARD

    def winning_position(self) -> int:
        return compute_winning_position(self.current_position, self.mask)

    def opponent_winning_position(self) -> int:
        return compute_winning_position(self.current_position ^ self.mask, self.mask)

    def can_win_next(self) -> bool:
        return bool(self.winning_position() & self.possible())

    def possible_non_losing_moves(self) -> int:
        possible_mask = self.possible()
        opponent_win = self.opponent_winning_position()
        forced = possible_mask & opponent_win
        if forced:
            if forced & (forced - 1):
                return 0
            possible_mask = forced
        return possible_mask & ~(opponent_win >> 1)

    def move_score(self, move: int) -> int:
        return bin(compute_winning_position(self.current_position | move, self.mask)).count("1")

    def key(self) -> int:
        return self.current_position + self.mask


class MoveSorter:
    def __init__(self) -> None:
        self.entries: list[tuple[int, int]] = []

    def add(self, move: int, score: int) -> None:
        pos = len(self.entries)
        self.entries.append((move, score))
        while pos and self.entries[pos - 1][1] > score:
            self.entries[pos] = self.entries[pos - 1]
            pos -= 1
        self.entries[pos] = (move, score)

    def get_next(self) -> int:
        return self.entries.pop()[0] if self.entries else 0


class TranspositionTable:
    def __init__(self, size: int = 8388593) -> None:
        self.size = size
        self.keys = [0] * size
        self.values = [0] * size

    def reset(self) -> None:
        self.keys = [0] * self.size
        self.values = [0] * self.size

    def put(self, key: int, value: int) -> None:
        i = key % self.size
        self.keys[i] = key
        self.values[i] = value

    def get(self, key: int) -> int:
        i = key % self.size
        return self.values[i] if self.keys[i] == key else 0


COLUMN_ORDER = [WIDTH // 2 + (1 - 2 * (i % 2)) * (i + 1) // 2 for i in range(WIDTH)]


class Solver:
    def __init__(self) -> None:
        self.node_count = 0
        self.table = TranspositionTable()

    def negamax(self, p: Position, alpha: int, beta: int) -> int:
        self.node_count += 1
        possible = p.possible_non_losing_moves()
        if possible == 0:
            return -((SIZE - p.moves) // 2)
        if p.moves >= SIZE - 2:
            return 0
        lo = -((SIZE - 2 - p.moves) // 2)
        if alpha < lo:
            alpha = lo
            if alpha >= beta:
                return alpha
        hi = (SIZE - 1 - p.moves) // 2
        val = self.table.get(p.key())
        if val:
            if val > MAX_SCORE - MIN_SCORE + 1:
                lo = val + 2 * MIN_SCORE - MAX_SCORE - 2
                if alpha < lo:
                    alpha = lo
                    if alpha >= beta:
                        return alpha
            else:
                hi = val + MIN_SCORE - 1
                if beta > hi:
                    beta = hi
                    if alpha >= beta:
                        return beta
        moves = MoveSorter()
        for i in range(WIDTH - 1, -1, -1):
            move = possible & column_mask(COLUMN_ORDER[i])
            if move:
                moves.add(move, p.move_score(move))
        while True:
            nxt = moves.get_next()
            if not nxt:
                break
            p2 = p.copy()
            p2.play(nxt)
            score = -self.negamax(p2, -beta, -alpha)
            if score >= beta:
                self.table.put(p.key(), score + MAX_SCORE - 2 * MIN_SCORE + 2)
                return score
            if score > alpha:
                alpha = score
        self.table.put(p.key(), alpha - MIN_SCORE + 1)
        return alpha

    def solve(self, p: Position) -> int:
        if p.can_win_next():
            return (SIZE + 1 - p.moves) // 2
        lo, hi = -((SIZE - p.moves) // 2), (SIZE + 1 - p.moves) // 2
        while lo < hi:
            med = lo + (hi - lo) // 2
            half_lo = -((-lo) // 2) if lo < 0 else lo // 2
            half_hi = -((-hi) // 2) if hi < 0 else hi // 2
            if med <= 0 and half_lo < med:
                med = half_lo
            elif med >= 0 and half_hi > med:
                med = half_hi
            r = self.negamax(p, med, med + 1)
            if r <= med:
                hi = r
            else:
                lo = r
        return lo


def position_from_moves(moves: str) -> Position:
    p = Position()
    for ch in moves:
        p.play_col(int(ch) - 1)
    return p
