// The board page drawn from its game (game.js): the cells, the line that won, the status line, the
// moves in Pons' notation, each side's clock, and which buttons apply. It reads the game and the page's
// elements; what a click does is the controller's (board.js), handed in as `on`.
import { COLOURS } from "./game.js";
import { landing, position } from "./rules.js";

export const $ = (id) => document.getElementById(id);

export class View {
  // `on`: {column(c): a column clicked, hover(c): the pointer over column c (undefined: off the board),
  // jump(ply): a move of the notation clicked}.
  constructor(game, on) {
    this.game = game;
    this.on = on;
    this.cells = [];
    const board = $("board");
    board.style.setProperty("--columns", game.columns);
    $("scores").style.setProperty("--columns", game.columns);
    board.textContent = "";
    for (let i = 0; i < game.rows * game.columns; i++) {
      const cell = document.createElement("div");
      cell.className = "cell"; cell.dataset.column = i % game.columns; cell.setAttribute("role", "gridcell");
      board.appendChild(cell); this.cells.push(cell);
    }
    const column = (event) => (event.target.dataset ? event.target.dataset.column : undefined);
    board.addEventListener("click", (event) => { if (column(event) !== undefined) { on.column(Number(column(event))); } });
    board.addEventListener("mouseover", (event) => { on.hover(column(event)); });
    board.addEventListener("mouseleave", () => { on.hover(undefined); });
  }

  cell(row, column) { return this.cells[row * this.game.columns + column]; }

  // Mark where a stone dropped into `column` would land, when `playable` (a person's turn).
  hover(column, playable) {
    this.cells.forEach((cell) => { cell.classList.remove("hover"); });
    if (column === undefined || !playable) { return; }
    const c = Number(column), row = landing(this.game.moves, this.game, c);
    if (row >= 0) { this.cell(row, c).classList.add("hover"); }
  }

  // Everything drawn again. `thinking`: the mark whose agent is thinking, or null; `clocks`: each
  // agent's clock line by mark; `address`: the game's address, for the link that shares it.
  draw(thinking, clocks, address) {
    const game = this.game, n = game.moves.length, state = position(game.moves, game), end = game.outcome();
    const over = game.over();
    this.cells.forEach((cell, i) => {
      const mark = state.grid[Math.floor(i / game.columns)][i % game.columns];
      cell.className = "cell" + (mark ? " p" + mark : "");
    });
    if (n > 0) { this.cell(...state.placed[n - 1]).classList.add("last"); }
    if (end) { end.cells.forEach((rc) => { this.cell(...rc).classList.add("win"); }); }
    $("board").classList.toggle("over", over);
    $("board").classList.toggle("waiting", !over && (game.isAgent(game.mover()) || thinking !== null));
    this.status(end, thinking);
    this.notation();
    [1, 2].forEach((mark) => {
      $("side" + mark).classList.toggle("to-move", !over && game.mover() === mark);
      $("clock" + mark).textContent = game.isAgent(mark) ? clocks[mark] : "a person: click a column";
      $("clock" + mark).classList.toggle("thinking", thinking === mark);
    });
    $("undo").disabled = n === 0;
    $("redo").disabled = game.takenBack.length === 0;
    $("resume").hidden = !(game.paused && !over && game.isAgent(game.mover()));
    $("share").href = address;
    $("save").hidden = !(over && game.sides[0] !== game.sides[1] && n > game.opening);
    if ($("save").hidden) { $("saved").textContent = ""; }
  }

  status(end, thinking) {
    const game = this.game;
    let text;
    $("forfeit-detail").hidden = !game.forfeit;
    if (game.forfeit) {
      const f = game.forfeit, winner = 3 - f.mark;
      text = (winner === 1 ? "1-0" : "0-1") + " · " + game.side(f.mark) + " (" + COLOURS[f.mark - 1] + ") forfeited (" +
        f.termination + "): " + f.detail.split("\n")[0] + "; " + game.who(winner) + " wins";
      $("forfeit-detail").textContent = f.detail;
    } else if (end) {
      text = end.winner === 1 ? "1-0 · " : end.winner === 2 ? "0-1 · " : "½-½ · ";
      text += end.winner ? game.who(end.winner) + " wins with " + game.inarow + " in a row" : "a draw: the board is full";
    } else {
      const m = game.mover();
      text = thinking ? game.who(m) + " is thinking…" : game.isAgent(m) ? game.who(m) + " to move" + (game.paused ? " (paused)" : "")
        : game.who(m) + " to move: click a column";
    }
    $("status").textContent = text;
  }

  notation() {  // the moves played, then those taken back (to play again), each a link to its position
    const game = this.game, box = $("notation"), all = game.moves.concat(game.takenBack.slice().reverse());
    box.textContent = "";
    all.forEach((column, k) => {
      const span = document.createElement("span");
      span.textContent = column + 1;
      span.title = "ply " + (k + 1) + ": " + COLOURS[k % 2] + ", column " + (column + 1);
      if (k < game.opening) { span.className = "opening"; }
      if (k >= game.moves.length) { span.className = "redo"; }
      if (k === game.moves.length - 1) { span.classList.add("current"); }
      span.addEventListener("click", () => { this.on.jump(k + 1); });
      box.appendChild(span);
    });
    if (!all.length) { box.textContent = "(the empty board)"; }
  }

  // The agents a side may be, offered as the side inputs' suggestions (a person first).
  offer(agents) {
    const list = $("agents");
    [{ spec: "human", summary: "a person, clicking", parameters: [] }].concat(agents).forEach((agent) => {
      const option = document.createElement("option");
      option.value = agent.spec; option.label = agent.summary; list.appendChild(option);
    });
  }

  // What the agent named in `input` is and which parameters it takes, under the sides.
  help(input, agents) {
    const name = input.value.split(":")[0], agent = agents.find((a) => a.spec === name);
    $("agent-help").textContent = agent ? agent.spec + ": " + agent.summary +
      (agent.parameters.length ? " Parameters: " + agent.parameters.join(", ") + " (e.g. " + agent.spec + ":" + agent.parameters[0].split(":")[0] + "=…)." : "") : "";
  }
}
