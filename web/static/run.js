// A run's page in connectx serve: the report's replay player gets "continue from here", and a run being
// played keeps its progress up to date (GET /api/progress every second) and reloads when it ends.
(function () {
  "use strict";
  var $ = function (id) { return document.getElementById(id); };
  var run = null;

  // "Continue from here": the board at the ply the replay shows, the side to move a person, the other
  // side the agent that played it in this game, at the run's time a move. This script runs before the
  // report's player, whose every drawing sends a "replay" event.
  var shown = null, link = null;
  function follow() {
    if (!link || !shown) { return; }
    var d = shown, toMove = d.ply % 2;  // 0: the first player moves next
    if (d.board[1] > 9) { link.hidden = true; return; }
    var sides = d.sides.map(function (name, k) { return k === toMove ? "human" : name; });
    var q = new URLSearchParams({ pos: d.moves.map(function (c) { return c + 1; }).join(""),
      first: sides[0], second: sides[1], time: run.dataset.time });
    if (d.board[0] !== 6 || d.board[1] !== 7 || d.board[2] !== 4) {
      q.set("rows", d.board[0]); q.set("columns", d.board[1]); q.set("inarow", d.board[2]);
    }
    link.hidden = false;
    link.href = "/board?" + q.toString();
  }
  document.addEventListener("replay", function (event) { shown = event.detail; follow(); });
  document.addEventListener("DOMContentLoaded", function () {
    run = $("web-run");
    if (run && $("ply-label")) {
      link = document.createElement("a");
      link.id = "continue"; link.textContent = "continue from here ↗";
      link.title = "open the board at this position: you take the side to move";
      $("ply-label").insertAdjacentElement("afterend", link);
      follow();
    }
    watch();
  });

  // A run being played.
  var live = null;
  function cell(row, text, numeric) {
    var td = document.createElement("td"); td.textContent = text; if (numeric) { td.className = "n"; } row.appendChild(td);
  }
  function eta(seconds) {
    if (seconds === null || seconds === undefined) { return ""; }
    var s = Math.round(seconds), h = Math.floor(s / 3600), m = Math.floor(s % 3600 / 60);
    return "· about " + (h ? h + " h " + m + " min" : m ? m + " min " + (s % 60) + " s" : s + " s") + " to go";
  }
  function show(p) {
    $("live-games").textContent = p.games + (p.scheduled ? " of " + p.scheduled : "");
    $("live-eta").textContent = eta(p.eta);
    var table = $("live-standings");
    table.textContent = "";
    var head = document.createElement("tr");
    ["#", "agent", "Elo", "95 % interval", "games", "W", "D", "L", "score", "inv/time/err"].forEach(function (text, k) {
      var th = document.createElement("th"); th.textContent = text; if (k !== 1 && k !== 3) { th.className = "n"; } head.appendChild(th);
    });
    table.appendChild(head);
    p.standings.forEach(function (r) {
      var row = document.createElement("tr");
      cell(row, r.rank, true); cell(row, r.agent); cell(row, r.elo, true); cell(row, r.interval);
      cell(row, r.games, true); cell(row, r.wins, true); cell(row, r.draws, true); cell(row, r.losses, true);
      cell(row, r.score, true); cell(row, r.forfeits, true);
      table.appendChild(row);
    });
    var latest = $("live-latest");
    latest.textContent = "";
    p.latest.forEach(function (g) {
      var li = document.createElement("li");
      li.value = g.game;
      li.textContent = g.first + " v " + g.second + ": " + g.result + ", " + g.ending + ", " + g.plies + " plies";
      latest.appendChild(li);
    });
  }
  function poll() {
    fetch("/api/progress?" + new URLSearchParams({ run: live.dataset.run })).then(function (r) { return r.json(); })
      .then(function (p) {
        if (p.error) { return; }
        show(p);
        if (!p.running) { location.reload(); return; }
        setTimeout(poll, 1000);
      }).catch(function () { setTimeout(poll, 5000); });
  }
  function watch() {
    live = $("live");
    if (live && !live.hidden) { poll(); }
  }
})();
