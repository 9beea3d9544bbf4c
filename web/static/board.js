// The board page of connectx serve: a game in the browser, each side a person or an agent.
// The server plays an agent's move in a sandboxed process (POST /api/tables/ID/move) and gives the
// perfect-play scores (GET /api/scores); this script keeps the game, draws it, and keeps the address
// (/board?pos=4453&first=human&second=negamax&time=2) in step with it, so that it can be shared.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("board-data").textContent);
  var $ = function (id) { return document.getElementById(id); };
  var s = data.state;
  var game = {
    moves: s.moves.slice(), redo: [], opening: s.moves.length, seconds: s.moves.map(function () { return null; }),
    sides: [s.first, s.second], time: s.time, rows: s.rows, columns: s.columns, inarow: s.inarow,
    forfeit: null, paused: false, turnStarted: performance.now()
  };
  var table = null, thinking = null, scoreCache = {}, asking = {}, clocks = {1: "", 2: ""}, cells = [];
  var COLOURS = ["Red", "Yellow"];

  // ---- the game ----------------------------------------------------------------------------------
  function grid(upto) {  // grid[row][column]: 0, 1 or 2; row 0 on top
    var g = [], heights = [];
    for (var r = 0; r < game.rows; r++) { g.push(new Array(game.columns).fill(0)); }
    for (var c = 0; c < game.columns; c++) { heights.push(0); }
    var placed = [];
    for (var k = 0; k < upto; k++) {
      var column = game.moves[k], row = game.rows - 1 - heights[column]++;
      g[row][column] = k % 2 + 1; placed.push([row, column]);
    }
    return { g: g, heights: heights, placed: placed };
  }
  function line(g, row, column) {  // the cells of the line of `inarow` through (row, column), or []
    var mark = g[row][column], found = [];
    [[0, 1], [1, 0], [1, 1], [1, -1]].forEach(function (d) {
      var run = [[row, column]];
      [1, -1].forEach(function (sign) {
        var r = row + sign * d[0], c = column + sign * d[1];
        while (r >= 0 && r < game.rows && c >= 0 && c < game.columns && g[r][c] === mark) {
          run.push([r, c]); r += sign * d[0]; c += sign * d[1];
        }
      });
      if (run.length >= game.inarow) { found = found.concat(run); }
    });
    return found;
  }
  function outcome() {  // {winner: mark or 0, cells: [...]} once the game is over, else null
    var state = grid(game.moves.length), n = game.moves.length;
    if (n > 0) {
      var last = state.placed[n - 1], won = line(state.g, last[0], last[1]);
      if (won.length) { return { winner: (n - 1) % 2 + 1, cells: won }; }
    }
    if (n === game.rows * game.columns) { return { winner: 0, cells: [] }; }
    return null;
  }
  function over() { return game.forfeit !== null || outcome() !== null; }
  function mover() { return game.moves.length % 2 + 1; }
  function side(mark) { return game.sides[mark - 1]; }
  function isAgent(mark) { return side(mark) !== "human"; }
  function who(mark) { return COLOURS[mark - 1] + (isAgent(mark) ? " (" + side(mark) + ")" : ""); }
  function canPlay(column) { return grid(game.moves.length).heights[column] < game.rows; }
  function pos(moves) { return moves.map(function (c) { return c + 1; }).join(""); }

  // ---- the address -------------------------------------------------------------------------------
  function query() {
    var q = new URLSearchParams();
    q.set("pos", pos(game.moves)); q.set("first", game.sides[0]); q.set("second", game.sides[1]);
    q.set("time", String(game.time));
    if (game.rows !== 6 || game.columns !== 7 || game.inarow !== 4) {
      q.set("rows", game.rows); q.set("columns", game.columns); q.set("inarow", game.inarow);
    }
    if (!$("scores-on").checked) { q.set("scores", "0"); }
    return "/board?" + q.toString();
  }

  // ---- drawing -----------------------------------------------------------------------------------
  function build() {
    var board = $("board");
    board.style.setProperty("--columns", game.columns);
    $("scores").style.setProperty("--columns", game.columns);
    board.textContent = ""; cells = [];
    for (var i = 0; i < game.rows * game.columns; i++) {
      var cell = document.createElement("div");
      cell.className = "cell"; cell.dataset.column = i % game.columns; cell.setAttribute("role", "gridcell");
      board.appendChild(cell); cells.push(cell);
    }
    board.addEventListener("click", function (event) {
      var column = event.target.dataset ? event.target.dataset.column : undefined;
      if (column !== undefined) { humanMove(Number(column)); }
    });
    board.addEventListener("mouseover", function (event) { hover(event.target.dataset ? event.target.dataset.column : undefined); });
    board.addEventListener("mouseleave", function () { hover(undefined); });
  }
  function hover(column) {
    cells.forEach(function (cell) { cell.classList.remove("hover"); });
    if (column === undefined || over() || isAgent(mover()) || thinking) { return; }
    var state = grid(game.moves.length), c = Number(column), row = game.rows - 1 - state.heights[c];
    if (row >= 0) { cells[row * game.columns + c].classList.add("hover"); }
  }

  function draw() {
    var n = game.moves.length, state = grid(n), end = outcome();
    cells.forEach(function (cell, i) {
      var mark = state.g[Math.floor(i / game.columns)][i % game.columns];
      cell.className = "cell" + (mark ? " p" + mark : "");
    });
    if (n > 0) { var last = state.placed[n - 1]; cells[last[0] * game.columns + last[1]].classList.add("last"); }
    if (end) { end.cells.forEach(function (rc) { cells[rc[0] * game.columns + rc[1]].classList.add("win"); }); }
    $("board").classList.toggle("over", over());
    $("board").classList.toggle("waiting", !over() && (isAgent(mover()) || thinking !== null));
    status(end);
    notation();
    [1, 2].forEach(function (mark) {
      $("side" + mark).classList.toggle("to-move", !over() && mover() === mark);
      $("clock" + mark).textContent = isAgent(mark) ? clocks[mark] : "a person: click a column";
      $("clock" + mark).classList.toggle("thinking", thinking !== null && thinking.mark === mark);
    });
    $("undo").disabled = n === 0;
    $("redo").disabled = game.redo.length === 0;
    $("resume").hidden = !(game.paused && !over() && isAgent(mover()));
    $("evaluate").hidden = $("scores-on").checked || over() || Boolean(s.unavailable);
    $("share").href = query();
    history.replaceState(null, "", query());
    $("save").hidden = !(over() && game.sides[0] !== game.sides[1] && n > game.opening);
    if ($("save").hidden) { $("saved").textContent = ""; }
    scores();
  }

  function status(end) {
    var text;
    $("forfeit-detail").hidden = !game.forfeit;
    if (game.forfeit) {
      var f = game.forfeit, winner = 3 - f.mark;
      text = (winner === 1 ? "1-0" : "0-1") + " · " + side(f.mark) + " (" + COLOURS[f.mark - 1] + ") forfeited (" +
        f.termination + "): " + f.detail.split("\n")[0] + "; " + who(winner) + " wins";
      $("forfeit-detail").textContent = f.detail;
    } else if (end) {
      text = end.winner === 1 ? "1-0 · " : end.winner === 2 ? "0-1 · " : "½-½ · ";
      text += end.winner ? who(end.winner) + " wins with " + game.inarow + " in a row" : "a draw: the board is full";
    } else {
      var m = mover();
      text = thinking ? who(m) + " is thinking…" : isAgent(m) ? who(m) + " to move" + (game.paused ? " (paused)" : "")
        : who(m) + " to move: click a column";
    }
    $("status").textContent = text;
  }

  function notation() {
    var box = $("notation"), all = game.moves.concat(game.redo.slice().reverse());
    box.textContent = "";
    all.forEach(function (column, k) {
      var span = document.createElement("span");
      span.textContent = column + 1;
      span.title = "ply " + (k + 1) + ": " + COLOURS[k % 2] + ", column " + (column + 1);
      if (k < game.opening) { span.className = "opening"; }
      if (k >= game.moves.length) { span.className = "redo"; }
      if (k === game.moves.length - 1) { span.classList.add("current"); }
      span.addEventListener("click", function () { jump(k + 1); });
      box.appendChild(span);
    });
    if (!all.length) { box.textContent = "(the empty board)"; }
  }

  // ---- perfect-play scores -----------------------------------------------------------------------
  var ORD = function (n) { var t = n % 100, u = n % 10;
    return n + (t >= 11 && t <= 13 ? "th" : u === 1 ? "st" : u === 2 ? "nd" : u === 3 ? "rd" : "th"); };
  // A column's score (Pons: the mover's, after playing it) in words: its outcome and how far it is.
  function meaning(score, ply) {
    var half = Math.floor((game.rows * game.columns + 2) / 2), m = mover(), other = 3 - m;
    if (score === 0) { return { kind: "draw", short: "draw", long: COLOURS[m - 1] + " draws with best play" }; }
    var stone = half - Math.abs(score);
    if (score > 0) {
      return { kind: "win", short: "wins with its " + ORD(stone) + " stone",
               long: COLOURS[m - 1] + " wins with its " + ORD(stone) + " stone (" + (stone - Math.floor(ply / 2)) + " moves from now, this one included)" };
    }
    var away = stone - Math.ceil(ply / 2);
    return { kind: "loss", short: "loses in " + away,
             long: COLOURS[m - 1] + " loses: " + COLOURS[other - 1] + " wins with its " + ORD(stone) + " stone, its " + ORD(away) + " move from now" };
  }
  // The position's value in a sentence: who wins or draws, and with which column(s).
  function summary(best, columns) {
    var m = COLOURS[mover() - 1], other = COLOURS[2 - mover()], half = Math.floor((game.rows * game.columns + 2) / 2);
    var which = (columns.length > 1 ? "columns " + columns.slice(0, -1).join(", ") + " or " : "column ") + columns[columns.length - 1];
    var stone = ORD(half - Math.abs(best));
    if (best > 0) { return m + " wins with its " + stone + " stone, playing " + which + "."; }
    if (best === 0) { return m + " draws, playing " + which + "."; }
    return m + " loses whatever it plays; " + which + (columns.length > 1 ? " hold" : " holds") + " out longest (" + other + " wins with its " + stone + " stone).";
  }
  function showScores(answer, key) {
    var box = $("scores");
    box.textContent = "";
    if (!answer || answer.scores === null || key !== pos(game.moves)) {
      $("scores-line").textContent = answer && answer.reason && answer.reason !== "the game is over" ? answer.reason : "";
      box.dataset.pos = "";
      return;
    }
    var values = answer.scores, best = Math.max.apply(null, values.filter(function (v) { return v !== null; }));
    values.forEach(function (value, column) {
      var chip = document.createElement("div");
      if (value === null) { chip.className = "score full"; box.appendChild(chip); return; }
      var words = meaning(value, answer.ply);
      chip.className = "score " + words.kind + (value === best ? " best" : "");
      chip.title = "column " + (column + 1) + ": " + words.long + " (score " + (value > 0 ? "+" : "") + value + ")";
      var b = document.createElement("b"); b.textContent = (value > 0 ? "+" : "") + value;
      chip.appendChild(b); chip.appendChild(document.createTextNode(words.short));
      chip.dataset.score = value;
      box.appendChild(chip);
    });
    var bestColumns = [];
    values.forEach(function (v, c) { if (v === best) { bestColumns.push(c + 1); } });
    $("scores-line").textContent = "Perfect play: " + summary(best, bestColumns);
    box.dataset.pos = key;
  }
  function scores(asked) {
    var key = pos(game.moves), wanted = asked || $("scores-on").checked;
    if (s.unavailable) { showScores({ scores: null, reason: s.unavailable }, key); return; }
    if (!wanted || over()) { showScores(null, key); return; }
    if (scoreCache[key]) { showScores(scoreCache[key], key); return; }
    $("scores-line").textContent = "solving…";
    if (asking[key]) { return; }
    asking[key] = true;
    var q = new URLSearchParams({ pos: key, rows: game.rows, columns: game.columns, inarow: game.inarow });
    fetch("/api/scores?" + q).then(function (r) { return r.json(); }).then(function (answer) {
      delete asking[key];
      if (answer.error) { $("scores-line").textContent = answer.error; return; }
      scoreCache[key] = answer;
      if (key === pos(game.moves)) { showScores(answer, key); }
    }).catch(function () { delete asking[key]; $("scores-line").textContent = "the scores could not be had (is the server running?)"; });
  }

  // ---- talking to the server ---------------------------------------------------------------------
  function post(path, body) {
    return fetch(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body || {}) })
      .then(function (r) { return r.json().then(function (json) { json.status = r.status; return json; }); });
  }
  function ensureTable() {
    if (table) { return Promise.resolve(table); }
    return post("/api/tables").then(function (answer) {
      if (answer.status !== 200) { throw new Error(answer.error); }
      table = answer.table; return table;
    });
  }
  function closeTable() {
    if (!table) { return; }
    fetch("/api/tables/" + table + "/close", { method: "POST", keepalive: true,
      headers: { "Content-Type": "application/json" }, body: "{}" }).catch(function () {});
    table = null;
  }
  function cancelThinking() {
    if (!thinking) { return; }
    thinking.cancelled = true;
    clearInterval(thinking.timer);
    if (table) { post("/api/tables/" + table + "/cancel").catch(function () {}); }
    clocks[thinking.mark] = "";
    thinking = null;
  }

  // Let the agent to move play, unless the game is over, paused, or a move is being thought.
  function next() {
    if (over() || thinking || game.paused || !isAgent(mover())) { return; }
    var mark = mover(), spec = side(mark), key = pos(game.moves), began = performance.now();
    var ask = { mark: mark, cancelled: false };
    ask.timer = setInterval(function () {
      clocks[mark] = "thinking " + ((performance.now() - began) / 1000).toFixed(1) + " s";
      $("clock" + mark).textContent = clocks[mark];
    }, 100);
    thinking = ask;
    clocks[mark] = "thinking…";
    draw();
    var body = { side: spec, pos: key, rows: game.rows, columns: game.columns, inarow: game.inarow, time: game.time };
    var attempt = function (retry) {
      return ensureTable().then(function (id) { return post("/api/tables/" + id + "/move", body); }).then(function (answer) {
        if (answer.status === 410 && retry) { table = null; return attempt(false); }
        return answer;
      });
    };
    attempt(true).then(function (answer) {
      if (ask.cancelled || thinking !== ask || pos(game.moves) !== key) { return; }
      clearInterval(ask.timer); thinking = null;
      if (answer.status !== 200) {
        clocks[mark] = ""; $("error" + mark).textContent = answer.error || "the server refused the move";
        game.paused = true; draw(); return;
      }
      $("error" + mark).textContent = "";
      clocks[mark] = "its move: " + answer.seconds.toFixed(2) + " s · bank " + answer.bank.toFixed(1) + " s";
      if (answer.forfeit) {
        game.forfeit = answer.forfeit;
      } else {
        game.moves.push(answer.column); game.seconds.push(answer.seconds); game.redo = [];
      }
      game.turnStarted = performance.now();
      draw();
      setTimeout(next, isAgent(mover()) && isAgent(3 - mover()) ? 300 : 0);  // two agents: a pace to watch
    }).catch(function (error) {
      if (thinking !== ask) { return; }
      clearInterval(ask.timer); thinking = null; clocks[mark] = "";
      $("error" + mark).textContent = String(error.message || error); game.paused = true; draw();
    });
  }

  // ---- what the person does ----------------------------------------------------------------------
  function humanMove(column) {
    if (over() || thinking || isAgent(mover()) || !canPlay(column)) { return; }
    game.moves.push(column);
    game.seconds.push((performance.now() - game.turnStarted) / 1000);
    game.turnStarted = performance.now();
    game.redo = []; game.paused = false;
    draw(); next();
  }
  function settle() { game.opening = Math.min(game.opening, game.moves.length); game.turnStarted = performance.now(); }
  function undo() {
    cancelThinking();
    if (game.forfeit) { game.forfeit = null; }
    else if (game.moves.length) { game.redo.push(game.moves.pop()); game.seconds.pop(); }
    // Back to a person's turn when one side is a person (their move and the agent's reply go).
    while (game.moves.length && isAgent(mover()) && !isAgent(3 - mover())) { game.redo.push(game.moves.pop()); game.seconds.pop(); }
    game.paused = true; settle(); draw();
  }
  function redo() {
    cancelThinking();
    if (!game.redo.length || over()) { return; }
    do { game.moves.push(game.redo.pop()); game.seconds.push(null); }
    while (game.redo.length && isAgent(mover()) && !isAgent(3 - mover()) && !over());
    game.paused = true; settle(); draw();
  }
  function jump(ply) {
    cancelThinking();
    game.forfeit = null;
    while (game.moves.length > ply) { game.redo.push(game.moves.pop()); game.seconds.pop(); }
    while (game.moves.length < ply && game.redo.length) { game.moves.push(game.redo.pop()); game.seconds.push(null); }
    game.paused = true; settle(); draw();
  }
  function newGame() {
    cancelThinking();
    game.moves = []; game.redo = []; game.seconds = []; game.opening = 0; game.forfeit = null; game.paused = false;
    Object.keys(clocks).forEach(function (k) { clocks[k] = ""; });
    settle(); draw(); next();
  }
  function swap() {  // a finished game: a new one with the colours swapped
    cancelThinking();
    game.sides.reverse();
    $("first").value = game.sides[0]; $("second").value = game.sides[1];
    if (over()) { newGame(); return; }
    restart(); draw(); next();
  }

  // A side typed or picked: checked by the server before it is taken.
  function setSide(mark, input) {
    var text = input.value.trim() || "human";
    fetch("/api/side?" + new URLSearchParams({ side: text }))
      .then(function (r) { return r.json().then(function (j) { j.status = r.status; return j; }); })
      .then(function (answer) {
        if (answer.status !== 200) { $("error" + mark).textContent = answer.error; return; }
        $("error" + mark).textContent = "";
        input.value = answer.side;
        if (answer.side === side(mark)) { return; }
        cancelThinking();
        game.sides[mark - 1] = answer.side; clocks[mark] = "";
        restart(); draw(); next();
      });
  }
  // The sides or the time changed: the moves so far are the new game's opening.
  function restart() {
    game.opening = game.moves.length; game.seconds = game.moves.map(function () { return null; });
    game.forfeit = null; game.paused = false; settle();
  }

  function save() {
    var body = { first: game.sides[0], second: game.sides[1], rows: game.rows, columns: game.columns, inarow: game.inarow,
      time: game.time, pos: pos(game.moves), opening: game.opening,
      seconds: game.seconds.slice(game.opening).map(function (v) { return v === null ? 0 : v; }),
      name: $("save-name").value.trim() };
    $("saved").textContent = "saving…";
    ensureTable().then(function (id) { return post("/api/tables/" + id + "/save", body); }).then(function (answer) {
      var box = $("saved");
      box.textContent = "";
      if (answer.status !== 200) { box.textContent = answer.error; return; }
      box.appendChild(document.createTextNode("stored as game " + answer.game + " in " + answer.run + ": "));
      var a = document.createElement("a"); a.href = answer.url; a.textContent = "replay it"; box.appendChild(a);
    });
  }

  // ---- wiring ------------------------------------------------------------------------------------
  var list = $("agents");
  [{ spec: "human", summary: "a person, clicking", parameters: [] }].concat(data.agents).forEach(function (agent) {
    var option = document.createElement("option"); option.value = agent.spec; option.label = agent.summary; list.appendChild(option);
  });
  function help(input) {
    var name = input.value.split(":")[0], agent = data.agents.filter(function (a) { return a.spec === name; })[0];
    $("agent-help").textContent = agent ? agent.spec + ": " + agent.summary +
      (agent.parameters.length ? " Parameters: " + agent.parameters.join(", ") + " (e.g. " + agent.spec + ":" + agent.parameters[0].split(":")[0] + "=…)." : "") : "";
  }
  [1, 2].forEach(function (mark) {
    var input = $(mark === 1 ? "first" : "second");
    input.value = side(mark);
    input.addEventListener("change", function () { setSide(mark, input); });
    input.addEventListener("focus", function () { help(input); });
    input.addEventListener("input", function () { help(input); });
  });
  $("time").value = game.time;
  $("time").addEventListener("change", function () {
    var value = Number($("time").value);
    if (!(value > 0 && value <= 600)) { $("time").value = game.time; return; }
    cancelThinking(); game.time = value; clocks = {1: "", 2: ""}; restart(); draw(); next();
  });
  $("scores-on").checked = s.scores;
  $("scores-on").addEventListener("change", function () { draw(); });
  $("evaluate").addEventListener("click", function () { scores(true); });
  $("undo").addEventListener("click", undo);
  $("redo").addEventListener("click", redo);
  $("new").addEventListener("click", newGame);
  $("swap").addEventListener("click", swap);
  $("resume").addEventListener("click", function () { game.paused = false; draw(); next(); });
  $("save-button").addEventListener("click", save);
  document.addEventListener("keydown", function (event) {
    if (event.target.tagName === "INPUT") { return; }
    if (event.key === "ArrowLeft") { undo(); event.preventDefault(); }
    else if (event.key === "ArrowRight") { redo(); event.preventDefault(); }
    else if (/^[1-9]$/.test(event.key) && Number(event.key) <= game.columns) { humanMove(Number(event.key) - 1); }
  });
  // The server's table lives as long as the tab: a sign of life every 20 s, closed when the page goes.
  setInterval(function () {
    if (table) { post("/api/tables/" + table + "/ping").then(function (a) { if (a.status === 410) { table = null; } }).catch(function () {}); }
  }, 20000);
  window.addEventListener("pagehide", function () { cancelThinking(); closeTable(); });
  window.addEventListener("pageshow", function (event) { if (event.persisted) { next(); } });

  build();
  draw();
  next();
})();
