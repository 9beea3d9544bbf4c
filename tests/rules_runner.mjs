// Runs the board page's rules (web/static/rules.js) on positions read from stdin and prints what they
// say, for tests/test_web_rules.py. Usage: node tests/rules_runner.mjs web/static/rules.js < cases.json
// Input: [{"board": {"rows", "columns", "inarow"}, "moves": [0-based columns]}, ...]. Output, one object a
// case: the mark to move, the legal columns, each column's landing row, the cells (Kaggle's flat list,
// row 0 on top), the outcome and the notation. The module is loaded from its text (a data: address), so
// that node takes it as an ES module without a package.json beside it.
import { readFileSync } from "node:fs";

const rules = await import("data:text/javascript," + encodeURIComponent(readFileSync(process.argv[2], "utf8")));
const cases = JSON.parse(readFileSync(0, "utf8"));
const answers = cases.map(({ board, moves }) => ({
  mover: rules.mover(moves),
  legal: rules.legalMoves(moves, board),
  landing: Array.from({ length: board.columns }, (_, column) => rules.landing(moves, board, column)),
  cells: rules.position(moves, board).grid.flat(),
  outcome: rules.outcome(moves, board),
  notation: rules.notation(moves),
}));
process.stdout.write(JSON.stringify(answers));
