// The game the board page keeps: its moves, the moves taken back, the opening it started from, who
// plays each side, and how a move is taken back, played again or jumped to. No drawing, no requests:
// the controller (board.js) draws and asks the server after each change.
import { legalMoves, mover, notation, outcome } from "./rules.js";

export const COLOURS = ["Red", "Yellow"];

export class Game {
  // `state`: the page's starting position as the server sends it (web.pages): moves (0-based columns),
  // first and second (sides: "human" or an agent's spec), time (seconds a move), rows, columns, inarow.
  constructor(state) {
    this.moves = state.moves.slice();
    this.takenBack = [];  // the moves taken back, the last one taken back last
    this.opening = state.moves.length;  // the moves the sides did not play themselves
    this.seconds = state.moves.map(() => null);  // each move's thinking time, null when not known
    this.sides = [state.first, state.second];
    this.time = state.time;
    this.rows = state.rows;
    this.columns = state.columns;
    this.inarow = state.inarow;
    this.forfeit = null;  // the server's forfeit ruling that ended the game, or null
    this.paused = false;
    this.turnStarted = performance.now();
  }

  outcome() { return outcome(this.moves, this); }
  over() { return this.forfeit !== null || this.outcome() !== null; }
  mover() { return mover(this.moves); }
  side(mark) { return this.sides[mark - 1]; }
  isAgent(mark) { return this.side(mark) !== "human"; }
  who(mark) { return COLOURS[mark - 1] + (this.isAgent(mark) ? " (" + this.side(mark) + ")" : ""); }
  notation() { return notation(this.moves); }
  legal() { return legalMoves(this.moves, this); }
  // One person against an agent, and the agent to move: taking back goes on to the person's turn.
  personWaits() { return this.isAgent(this.mover()) && !this.isAgent(3 - this.mover()); }

  // A move played, `seconds` its thinking time; the moves taken back are forgotten.
  play(column, seconds) {
    this.moves.push(column);
    this.seconds.push(seconds);
    this.takenBack = [];
    this.turnStarted = performance.now();
  }

  // Back, forward and a jump pause the game: an agent to move then plays only when asked (▶ resume).
  back() {  // the forfeit, or the last move (with the agent's reply before it) taken back
    if (this.forfeit) { this.forfeit = null; } else if (this.moves.length) { this.takeBack(); }
    while (this.moves.length && this.personWaits()) { this.takeBack(); }
    this.settle(true);
  }
  forward() {  // a move taken back played again (with the agent's reply after it)
    if (!this.takenBack.length || this.over()) { return; }
    do { this.playAgain(); } while (this.takenBack.length && this.personWaits() && !this.over());
    this.settle(true);
  }
  jump(ply) {  // the position after `ply` moves, of those played and taken back
    this.forfeit = null;
    while (this.moves.length > ply) { this.takeBack(); }
    while (this.moves.length < ply && this.takenBack.length) { this.playAgain(); }
    this.settle(true);
  }
  clear() {  // the empty board
    this.moves = []; this.takenBack = []; this.seconds = []; this.opening = 0;
    this.forfeit = null;
    this.settle(false);
  }
  restart() {  // the sides or the time changed: the moves so far are the new game's opening
    this.opening = this.moves.length;
    this.seconds = this.moves.map(() => null);
    this.forfeit = null;
    this.settle(false);
  }

  takeBack() { this.takenBack.push(this.moves.pop()); this.seconds.pop(); }
  playAgain() { this.moves.push(this.takenBack.pop()); this.seconds.push(null); }
  settle(paused) {
    this.paused = paused;
    this.opening = Math.min(this.opening, this.moves.length);
    this.turnStarted = performance.now();
  }

  // The page's address for this game (/board?pos=4453&first=human&second=negamax&time=2), to share it.
  address(scores) {
    const q = new URLSearchParams();
    q.set("pos", this.notation()); q.set("first", this.sides[0]); q.set("second", this.sides[1]);
    q.set("time", String(this.time));
    if (this.rows !== 6 || this.columns !== 7 || this.inarow !== 4) {
      q.set("rows", this.rows); q.set("columns", this.columns); q.set("inarow", this.inarow);
    }
    if (!scores) { q.set("scores", "0"); }
    return "/board?" + q.toString();
  }
}
