// The board page of connectx serve: a game in the browser, each side a person or an agent. This is its
// controller: what a click, a key or the server's answer does to the game (game.js), which it then
// draws (view.js, scores.js), keeping the address (/board?pos=4453&first=human&second=negamax&time=2)
// in step, so that it can be shared. The server plays an agent's move and gives the perfect-play
// scores (server.js); the page's rules (rules.js) only say what a person may click and what to draw.
import { Game } from "./game.js";
import { showScores } from "./scores.js";
import { Table, checkSide, scores as askScores } from "./server.js";
import { $, View } from "./view.js";

const data = JSON.parse($("board-data").textContent);
const unavailable = data.state.unavailable;  // why the server has no scores, or nothing
const game = new Game(data.state);
const table = new Table();
const view = new View(game, { column: humanMove, hover: (column) => { view.hover(column, personToMove()); }, jump });
let thinking = null;  // the agent's move being asked for: {mark, cancelled, timer}, or null
let clocks = { 1: "", 2: "" };
const scoreCache = {}, asking = {};

function personToMove() { return !game.over() && !game.isAgent(game.mover()) && !thinking; }

function draw() {
  const address = game.address($("scores-on").checked);
  view.draw(thinking ? thinking.mark : null, clocks, address);
  $("evaluate").hidden = $("scores-on").checked || game.over() || Boolean(unavailable);
  history.replaceState(null, "", address);
  scores();
}

// ---- perfect-play scores: asked of the server once a position, when on (or asked once: evaluate) -----
function scores(asked) {
  const key = game.notation(), wanted = asked || $("scores-on").checked;
  const show = (answer) => { showScores($("scores"), $("scores-line"), game, answer, key); };
  if (unavailable) { show({ scores: null, reason: unavailable }); return; }
  if (!wanted || game.over()) { show(null); return; }
  if (scoreCache[key]) { show(scoreCache[key]); return; }
  $("scores-line").textContent = "solving…";
  if (asking[key]) { return; }
  asking[key] = true;
  askScores(key, game).then((answer) => {
    delete asking[key];
    if (answer.error) { $("scores-line").textContent = answer.error; return; }
    scoreCache[key] = answer;
    if (key === game.notation()) { scores(asked); }  // still wanted? (the box may have been unticked)
  }).catch(() => { delete asking[key]; $("scores-line").textContent = "the scores could not be had (is the server running?)"; });
}

// ---- the agents' moves ------------------------------------------------------------------------------
function cancelThinking() {
  if (!thinking) { return; }
  thinking.cancelled = true;
  clearInterval(thinking.timer);
  table.cancel();
  clocks[thinking.mark] = "";
  thinking = null;
}

// Let the agent to move play, unless the game is over, paused, or a move is being thought.
function next() {
  if (game.over() || thinking || game.paused || !game.isAgent(game.mover())) { return; }
  const mark = game.mover(), key = game.notation(), began = performance.now();
  const ask = { mark: mark, cancelled: false };
  ask.timer = setInterval(() => {
    clocks[mark] = "thinking " + ((performance.now() - began) / 1000).toFixed(1) + " s";
    $("clock" + mark).textContent = clocks[mark];
  }, 100);
  thinking = ask;
  clocks[mark] = "thinking…";
  draw();
  const body = { side: game.side(mark), pos: key, rows: game.rows, columns: game.columns, inarow: game.inarow, time: game.time };
  table.move(body).then((answer) => {
    if (ask.cancelled || thinking !== ask || game.notation() !== key) { return; }
    clearInterval(ask.timer); thinking = null;
    if (answer.status !== 200) {
      clocks[mark] = ""; $("error" + mark).textContent = answer.error || "the server refused the move";
      game.paused = true; draw(); return;
    }
    $("error" + mark).textContent = "";
    clocks[mark] = "its move: " + answer.seconds.toFixed(2) + " s · bank " + answer.bank.toFixed(1) + " s";
    if (answer.forfeit) {
      game.forfeit = answer.forfeit;
      game.turnStarted = performance.now();
    } else {
      game.play(answer.column, answer.seconds);
    }
    draw();
    setTimeout(next, game.isAgent(game.mover()) && game.isAgent(3 - game.mover()) ? 300 : 0);  // two agents: a pace to watch
  }).catch((error) => {
    if (thinking !== ask) { return; }
    clearInterval(ask.timer); thinking = null; clocks[mark] = "";
    $("error" + mark).textContent = String(error.message || error); game.paused = true; draw();
  });
}

// ---- what the person does ---------------------------------------------------------------------------
function humanMove(column) {
  if (!personToMove() || !game.legal().includes(column)) { return; }
  game.play(column, (performance.now() - game.turnStarted) / 1000);
  game.paused = false;
  draw(); next();
}
function undo() { cancelThinking(); game.back(); draw(); }
function redo() { cancelThinking(); game.forward(); draw(); }
function jump(ply) { cancelThinking(); game.jump(ply); draw(); }
function newGame() {
  cancelThinking();
  game.clear();
  clocks = { 1: "", 2: "" };
  draw(); next();
}
function swap() {  // a new game, or the position so far, with the colours swapped
  cancelThinking();
  game.sides.reverse();
  $("first").value = game.sides[0]; $("second").value = game.sides[1];
  if (game.over()) { newGame(); return; }
  game.restart(); draw(); next();
}

// A side typed or picked: checked by the server before it is taken.
function setSide(mark, input) {
  checkSide(input.value.trim() || "human").then((answer) => {
    if (answer.status !== 200) { $("error" + mark).textContent = answer.error; return; }
    $("error" + mark).textContent = "";
    input.value = answer.side;
    if (answer.side === game.side(mark)) { return; }
    cancelThinking();
    game.sides[mark - 1] = answer.side; clocks[mark] = "";
    game.restart(); draw(); next();
  });
}

function setTime() {
  const value = Number($("time").value);
  if (!(value > 0 && value <= 600)) { $("time").value = game.time; return; }
  cancelThinking(); game.time = value; clocks = { 1: "", 2: "" }; game.restart(); draw(); next();
}

function save() {
  const body = { first: game.sides[0], second: game.sides[1], rows: game.rows, columns: game.columns, inarow: game.inarow,
    time: game.time, pos: game.notation(), opening: game.opening,
    seconds: game.seconds.slice(game.opening).map((v) => (v === null ? 0 : v)),
    name: $("save-name").value.trim() };
  $("saved").textContent = "saving…";
  table.save(body).then((answer) => {
    const box = $("saved");
    box.textContent = "";
    if (answer.status !== 200) { box.textContent = answer.error; return; }
    box.appendChild(document.createTextNode("stored as game " + answer.game + " in " + answer.run + ": "));
    const a = document.createElement("a"); a.href = answer.url; a.textContent = "replay it"; box.appendChild(a);
  });
}

// ---- wiring -----------------------------------------------------------------------------------------
view.offer(data.agents);
[1, 2].forEach((mark) => {
  const input = $(mark === 1 ? "first" : "second");
  input.value = game.side(mark);
  input.addEventListener("change", () => { setSide(mark, input); });
  input.addEventListener("focus", () => { view.help(input, data.agents); });
  input.addEventListener("input", () => { view.help(input, data.agents); });
});
$("time").value = game.time;
$("time").addEventListener("change", setTime);
$("scores-on").checked = data.state.scores;
$("scores-on").addEventListener("change", draw);
$("evaluate").addEventListener("click", () => { scores(true); });
$("undo").addEventListener("click", undo);
$("redo").addEventListener("click", redo);
$("new").addEventListener("click", newGame);
$("swap").addEventListener("click", swap);
$("resume").addEventListener("click", () => { game.paused = false; draw(); next(); });
$("save-button").addEventListener("click", save);
document.addEventListener("keydown", (event) => {
  if (event.target.tagName === "INPUT") { return; }
  if (event.key === "ArrowLeft") { undo(); event.preventDefault(); }
  else if (event.key === "ArrowRight") { redo(); event.preventDefault(); }
  else if (/^[1-9]$/.test(event.key) && Number(event.key) <= game.columns) { humanMove(Number(event.key) - 1); }
});
// The server's table lives as long as the tab: a sign of life every 20 s, closed when the page goes.
setInterval(() => { table.ping(); }, 20000);
window.addEventListener("pagehide", () => { cancelThinking(); table.close(); });
window.addEventListener("pageshow", (event) => { if (event.persisted) { next(); } });

draw();
next();
