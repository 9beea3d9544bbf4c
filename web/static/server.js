// What the board page asks the server (web.api), and its answers: JSON objects, each with the HTTP
// status added as `status`. The server plays an agent's move in a sandboxed process of the page's own
// table (POST /api/tables/ID/move), which lives as long as the tab sends a sign of life; it checks a
// side before the page takes it (GET /api/side) and gives the perfect-play scores (GET /api/scores).

function answer(response) {
  return response.json().then((json) => { json.status = response.status; return json; });
}

function post(path, body) {
  return fetch(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body || {}) })
    .then(answer);
}

// The page's table: opened at its first request, opened again when the server has closed it (410).
export class Table {
  constructor() { this.id = null; }

  open() {
    if (this.id) { return Promise.resolve(this.id); }
    return post("/api/tables").then((reply) => {
      if (reply.status !== 200) { throw new Error(reply.error); }
      this.id = reply.table;
      return this.id;
    });
  }

  // The move of the agent `body` names in the position it describes: {column, forfeit: null or
  // {mark, termination, detail}, seconds, bank}, or {error}.
  move(body, retry = true) {
    return this.open().then((id) => post("/api/tables/" + id + "/move", body)).then((reply) => {
      if (reply.status === 410 && retry) { this.id = null; return this.move(body, false); }
      return reply;
    });
  }

  save(body) { return this.open().then((id) => post("/api/tables/" + id + "/save", body)); }

  cancel() {  // the move being thought: stopped
    if (this.id) { post("/api/tables/" + this.id + "/cancel").catch(() => {}); }
  }

  ping() {  // a sign of life (every 20 s): the server closes a table that gives none
    if (this.id) {
      post("/api/tables/" + this.id + "/ping").then((reply) => { if (reply.status === 410) { this.id = null; } })
        .catch(() => {});
    }
  }

  close() {  // the page goes: its table's agents end (keepalive: the request outlives the page)
    if (!this.id) { return; }
    fetch("/api/tables/" + this.id + "/close", { method: "POST", keepalive: true,
      headers: { "Content-Type": "application/json" }, body: "{}" }).catch(() => {});
    this.id = null;
  }
}

// The side `text` as the server reads it: {side} (its spec written out) or {error}.
export function checkSide(text) {
  return fetch("/api/side?" + new URLSearchParams({ side: text })).then(answer);
}

// The perfect-play scores of the position `pos` on the board {rows, columns, inarow}: {scores: a score
// (or null for a full column) a column, words: {columns: each one's {short, long} or null, summary},
// reason: null, ply}, {scores: null, reason, ply} or {error}.
export function scores(pos, board) {
  const q = new URLSearchParams({ pos: pos, rows: board.rows, columns: board.columns, inarow: board.inarow });
  return fetch("/api/scores?" + q).then((r) => r.json());
}
