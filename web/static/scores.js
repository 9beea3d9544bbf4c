// The perfect-play scores under the board: a chip a column with its score and what it means, and the
// position's value in a sentence. A score is Pons': the mover's, after playing the column; positive
// wins, 0 draws, negative loses, the larger the sooner (http://blog.gamesolver.org).
import { COLOURS } from "./game.js";

const ORD = (n) => {
  const t = n % 100, u = n % 10;
  return n + (t >= 11 && t <= 13 ? "th" : u === 1 ? "st" : u === 2 ? "nd" : u === 3 ? "rd" : "th");
};

// A column's score in words: its outcome and how far it is.
function meaning(game, score, ply) {
  const half = Math.floor((game.rows * game.columns + 2) / 2), m = game.mover(), other = 3 - m;
  if (score === 0) { return { kind: "draw", short: "draw", long: COLOURS[m - 1] + " draws with best play" }; }
  const stone = half - Math.abs(score);
  if (score > 0) {
    return { kind: "win", short: "wins with its " + ORD(stone) + " stone",
             long: COLOURS[m - 1] + " wins with its " + ORD(stone) + " stone (" + (stone - Math.floor(ply / 2)) + " moves from now, this one included)" };
  }
  const away = stone - Math.ceil(ply / 2);
  return { kind: "loss", short: "loses in " + away,
           long: COLOURS[m - 1] + " loses: " + COLOURS[other - 1] + " wins with its " + ORD(stone) + " stone, its " + ORD(away) + " move from now" };
}

// The position's value in a sentence: who wins or draws, and with which column(s).
function summary(game, best, columns) {
  const m = COLOURS[game.mover() - 1], other = COLOURS[2 - game.mover()], half = Math.floor((game.rows * game.columns + 2) / 2);
  const which = (columns.length > 1 ? "columns " + columns.slice(0, -1).join(", ") + " or " : "column ") + columns[columns.length - 1];
  const stone = ORD(half - Math.abs(best));
  if (best > 0) { return m + " wins with its " + stone + " stone, playing " + which + "."; }
  if (best === 0) { return m + " draws, playing " + which + "."; }
  return m + " loses whatever it plays; " + which + " holds out longest (" + other + " wins with its " + stone + " stone).";
}

// Show the server's `answer` (server.js: scores) for the position `key` (its notation) in `box` and
// `line`; nothing (or the reason there are none) when there are no scores or the game has moved on.
export function showScores(box, line, game, answer, key) {
  box.textContent = "";
  if (!answer || answer.scores === null || key !== game.notation()) {
    line.textContent = answer && answer.reason && answer.reason !== "the game is over" ? answer.reason : "";
    box.dataset.pos = "";
    return;
  }
  const values = answer.scores, best = Math.max(...values.filter((v) => v !== null));
  values.forEach((value, column) => {
    const chip = document.createElement("div");
    if (value === null) { chip.className = "score full"; box.appendChild(chip); return; }
    const words = meaning(game, value, answer.ply);
    chip.className = "score " + words.kind + (value === best ? " best" : "");
    chip.title = "column " + (column + 1) + ": " + words.long + " (score " + (value > 0 ? "+" : "") + value + ")";
    const b = document.createElement("b");
    b.textContent = (value > 0 ? "+" : "") + value;
    chip.appendChild(b); chip.appendChild(document.createTextNode(words.short));
    chip.dataset.score = value;
    box.appendChild(chip);
  });
  const bestColumns = [];
  values.forEach((v, c) => { if (v === best) { bestColumns.push(c + 1); } });
  line.textContent = "Perfect play: " + summary(game, best, bestColumns);
  box.dataset.pos = key;
}
