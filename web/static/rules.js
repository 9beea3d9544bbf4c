// Connect Four's rules for the board page, on a game's moves: 0-based columns, mark 1 (red) first.
// The server plays and judges every agent's move (agents.engine.board, the one engine of the project);
// these functions only tell the page what its person may click and what to draw. They must agree with
// the Python board on every position: tests/test_web_rules.py runs them under node on positions the
// Python board played and compares. A board is {rows, columns, inarow}; row 0 is the top row, as in
// Kaggle's obs.board. This module imports nothing, so that node can load it on its own.

const DIRECTIONS = [[0, 1], [1, 0], [1, 1], [1, -1]];  // across, down, and the two diagonals

// The cells after `moves`: grid[row][column] holds 0 (empty), 1 or 2; heights[column] counts the stones
// of a column; placed[k] is the [row, column] of the k-th stone.
export function position(moves, board) {
  const grid = [], heights = new Array(board.columns).fill(0), placed = [];
  for (let r = 0; r < board.rows; r++) { grid.push(new Array(board.columns).fill(0)); }
  moves.forEach((column, k) => {
    const row = board.rows - 1 - heights[column]++;
    grid[row][column] = k % 2 + 1;
    placed.push([row, column]);
  });
  return { grid, heights, placed };
}

// The mark (1 or 2) to move after `moves`.
export function mover(moves) { return moves.length % 2 + 1; }

// The row a stone dropped into `column` lands on, or -1 when the column is full.
export function landing(moves, board, column) {
  return board.rows - 1 - position(moves, board).heights[column];
}

// The columns that are not full, in increasing order (whether the game is over aside, as
// Board.legal_moves).
export function legalMoves(moves, board) {
  const heights = position(moves, board).heights;
  return heights.map((h, c) => (h < board.rows ? c : -1)).filter((c) => c >= 0);
}

// The cells of every line of `inarow` or more through (row, column) of its stone's mark, or [].
function lines(grid, board, row, column) {
  const mark = grid[row][column];
  let found = [];
  DIRECTIONS.forEach((d) => {
    const run = [[row, column]];
    [1, -1].forEach((sign) => {
      let r = row + sign * d[0], c = column + sign * d[1];
      while (r >= 0 && r < board.rows && c >= 0 && c < board.columns && grid[r][c] === mark) {
        run.push([r, c]); r += sign * d[0]; c += sign * d[1];
      }
    });
    if (run.length >= board.inarow) { found = found.concat(run); }
  });
  return found;
}

// How the game ended: {winner: 1 or 2, cells: the winning line's [row, column]s} when the last stone
// made a line, {winner: 0, cells: []} for a full board without one, null while the game goes on.
export function outcome(moves, board) {
  const n = moves.length;
  if (n > 0) {
    const state = position(moves, board), last = state.placed[n - 1];
    const won = lines(state.grid, board, last[0], last[1]);
    if (won.length) { return { winner: (n - 1) % 2 + 1, cells: won }; }
  }
  if (n === board.rows * board.columns) { return { winner: 0, cells: [] }; }
  return null;
}

// The moves in Pons' notation, as Board.notation writes them: one 1-based column digit a move ("4453");
// the page's boards have at most 9 columns (web.inputs.LIMITS).
export function notation(moves) {
  return moves.map((c) => c + 1).join("");
}
