// The perfect-play scores under the board: a chip a column with its score and what it means, and the
// position's value in a sentence, both in the server's words (reports/exact.py). A score is Pons': the
// mover's, after playing the column; positive wins, 0 draws, negative loses, the larger the sooner
// (http://blog.gamesolver.org).

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
    const words = answer.words.columns[column], signed = (value > 0 ? "+" : "") + value;
    chip.className = "score " + (value > 0 ? "win" : value < 0 ? "loss" : "draw") + (value === best ? " best" : "");
    chip.title = "column " + (column + 1) + ": " + words.long + " (score " + signed + ")";
    const b = document.createElement("b");
    b.textContent = signed;
    chip.appendChild(b); chip.appendChild(document.createTextNode(words.short));
    chip.dataset.score = value;
    box.appendChild(chip);
  });
  line.textContent = "Perfect play: " + answer.words.summary;
  box.dataset.pos = key;
}
