// The board to play on in a notebook (connectx.playing.BoardWidget), an anywidget front end. The kernel
// owns the game: it checks and plays every move (agents.engine.board), asks the agent in its sandboxed
// host, solves the scores and words the status line; this module draws the model's state and sends what
// the person does ({type: "play", column}, {type: "undo"}, {type: "restart"}, {type: "scores", on}).
// connectx/playing.py prepends the board page's rules.js (position, outcome, landing, notation) and
// scores.js (showScores) to it: one module, no build step, nothing fetched.
//
// Stable selectors (the browser tests drive these): .connectx-board (data-position: the moves in Pons'
// notation, data-thinking: "1" while the agent thinks), .connectx-status, .connectx-grid .cell
// (data-row, data-column, 0-based; class p1/p2 for a stone), .connectx-scores .score (data-score),
// .connectx-scores-line, .connectx-clock, .connectx-detail, button.connectx-undo, button.connectx-restart,
// input.connectx-scores-toggle.

function element(tag, className, parent) {
  const node = document.createElement(tag);
  node.className = className;
  if (parent) { parent.appendChild(node); }
  return node;
}

function render({ model, el }) {
  const root = element("div", "connectx-board", el);
  const status = element("div", "connectx-status", root);
  status.setAttribute("aria-live", "polite");
  const grid = element("div", "connectx-grid", root);
  grid.setAttribute("role", "grid");
  const box = element("div", "connectx-scores", root);
  const line = element("div", "connectx-scores-line", root);
  const controls = element("div", "connectx-controls", root);
  const undo = element("button", "connectx-undo", controls);
  undo.textContent = "↶ undo"; undo.title = "take back your last move and the agent's reply";
  const restart = element("button", "connectx-restart", controls);
  restart.textContent = "restart"; restart.title = "the position the board started from";
  const toggle = element("label", "connectx-toggle", controls);
  const checkbox = element("input", "connectx-scores-toggle", toggle);
  checkbox.type = "checkbox";
  toggle.appendChild(document.createTextNode(" perfect-play scores"));
  const clock = element("div", "connectx-clock", root);
  const detail = element("pre", "connectx-detail", root);

  const board = () => ({ rows: model.get("rows"), columns: model.get("columns"), inarow: model.get("inarow") });
  let cells = [], shape = "";
  let hovered;

  function build() {  // the cells, again when the board's size changed
    const b = board(), now = b.rows + "x" + b.columns;
    if (now === shape) { return; }
    shape = now;
    grid.style.setProperty("--columns", b.columns);
    box.style.setProperty("--columns", b.columns);
    grid.textContent = ""; cells = [];
    for (let i = 0; i < b.rows * b.columns; i++) {
      const cell = element("div", "cell", grid);
      cell.dataset.row = Math.floor(i / b.columns); cell.dataset.column = i % b.columns;
      cell.setAttribute("role", "gridcell");
      cells.push(cell);
    }
  }

  function personToMove() {
    const moves = model.get("moves");
    return !model.get("over") && !model.get("thinking") && moves.length % 2 + 1 === model.get("person");
  }

  function draw() {
    build();
    const b = board(), moves = model.get("moves"), state = position(moves, b), end = outcome(moves, b);
    cells.forEach((cell, i) => {
      const mark = state.grid[Math.floor(i / b.columns)][i % b.columns];
      cell.className = "cell" + (mark ? " p" + mark : "");
    });
    if (moves.length) { const [r, c] = state.placed[moves.length - 1]; cells[r * b.columns + c].classList.add("last"); }
    if (end) { end.cells.forEach(([r, c]) => { cells[r * b.columns + c].classList.add("win"); }); }
    if (hovered !== undefined && personToMove()) {
      const row = landing(moves, b, hovered);
      if (row >= 0) { cells[row * b.columns + hovered].classList.add("hover"); }
    }
    root.dataset.position = notation(moves);
    root.dataset.thinking = model.get("thinking") ? "1" : "0";
    grid.classList.toggle("waiting", !personToMove());
    status.textContent = model.get("status");
    clock.textContent = model.get("clock");
    detail.textContent = model.get("detail");
    detail.hidden = !model.get("detail");
    undo.disabled = moves.length === 0 && !model.get("thinking");
    checkbox.checked = model.get("scores_on");
    const answer = model.get("scores");
    if (model.get("scores_on") && answer && answer.pos !== undefined) {
      showScores(box, line, { notation: () => notation(moves) }, answer, answer.pos);
      if (answer.pos !== notation(moves) && !model.get("over")) { line.textContent = "solving…"; }
    } else {
      showScores(box, line, { notation: () => "" }, null, "");
    }
  }

  grid.addEventListener("click", (event) => {
    const column = event.target.dataset ? event.target.dataset.column : undefined;
    if (column !== undefined) { model.send({ type: "play", column: Number(column) }); }
  });
  grid.addEventListener("mouseover", (event) => {
    const column = event.target.dataset ? event.target.dataset.column : undefined;
    hovered = column === undefined ? undefined : Number(column);
    draw();
  });
  grid.addEventListener("mouseleave", () => { hovered = undefined; draw(); });
  undo.addEventListener("click", () => { model.send({ type: "undo" }); });
  restart.addEventListener("click", () => { model.send({ type: "restart" }); });
  checkbox.addEventListener("change", () => { model.send({ type: "scores", on: checkbox.checked }); });

  const fields = ["moves", "status", "thinking", "over", "clock", "detail", "scores", "scores_on", "rows", "columns"];
  fields.forEach((name) => { model.on("change:" + name, draw); });
  draw();
  return () => { fields.forEach((name) => { model.off("change:" + name, draw); }); };
}

export default { render };
