"""How fast ``connectx serve`` answers a person in a real browser (Playwright driving Debian's Chromium).

1. The first response after start: from starting ``connectx serve DIR --port 0`` to the first page.
2. The server's memory once its warm-up is done (the databases read, the solver compiled, every agent's
   module and default weights loaded, the empty board solved): its resident set (RSS), and its
   proportional share (PSS, shared pages split between the processes sharing them) from
   ``/proc/PID/smaps_rollup``.
3. The time to show the scores of positions no one asked before, early (2-10 stones: searched down to
   the databases' 12), at the databases (11 stones: every column's position is in them), mid (12-22)
   and late (23-38): from the click that makes the position on the board to every column's score on
   it, and the server's share (the solve, as ``/api/scores`` reports it).
4. The time from a click to an agent's reply at ``--time`` seconds a move, for each of ``--agents``:
   the person plays a random legal column, and the clock runs until the agent's stone is on the
   board; the agent's own time (its call, as the server measured it) is given beside it.

    python -m benchmarks.web
    python -m benchmarks.web --agents negamax network --time 2 --games 2 --positions 10
"""

from __future__ import annotations

import argparse
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

from agents.engine.board import Board
from benchmarks.browser import ARGUMENTS, find_chromium

DISCS = "document.querySelectorAll('#board .cell.p1, #board .cell.p2').length"
STATUS = "document.getElementById('status').textContent"


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=60) as answer:
        return answer.read()


def _memory(pid: int) -> str:
    rollup = Path(f"/proc/{pid}/smaps_rollup").read_text()
    fields = {
        line.split(":")[0]: int(line.split()[1]) for line in rollup.splitlines()[1:] if line.endswith("kB")
    }
    return f"RSS {fields['Rss'] / 1024:.0f} MiB, PSS {fields['Pss'] / 1024:.0f} MiB"


def _positions(rng: random.Random, low: int, high: int, count: int) -> list[str]:
    """``count`` positions of random moves with ``low`` to ``high`` stones, the game on."""
    found: list[str] = []
    while len(found) < count:
        board, plies = Board(), rng.randint(low, high)
        while board.ply < plies and not board.is_game_over():
            safe = [c for c in board.legal_moves() if not board.is_winning_move(c)]
            if not safe:
                break
            board.push(rng.choice(safe))
        moves = "".join(str(c + 1) for c in board.moves)
        if board.ply == plies and not board.is_game_over() and moves not in found:
            found.append(moves)
    return found


def _scores(page: Page, url: str, moves: str) -> tuple[float, float]:
    """Seconds from the click that makes the position ``moves`` on the board (a game between two
    people) to its scores shown, and the server's part (the solve, as ``/api/scores`` reports it)."""
    page.goto(f"{url}board?pos={moves[:-1]}&first=human&second=human")
    page.wait_for_selector(f'#scores[data-pos="{moves[:-1]}"]')
    with page.expect_response(re.compile(r"/api/scores\?pos=" + moves + "&")) as response:
        began = time.perf_counter()
        page.click(f'#board .cell[data-column="{int(moves[-1]) - 1}"] >> nth=0')
        page.wait_for_selector(f'#scores[data-pos="{moves}"]')
        shown = time.perf_counter() - began
    return shown, float(response.value.json()["seconds"])


def _replies(
    page: Page, url: str, agent: str, seconds: float, rng: random.Random
) -> list[tuple[float, float]]:
    """One game against ``agent``: (click to reply, the agent's own time) for each of its moves."""
    page.goto(f"{url}board?first=human&second={agent}&time={seconds:g}&scores=0")
    found = []
    while True:
        page.wait_for_function(f"/click a column$|^(1-0|0-1|½-½)/.test({STATUS})", timeout=600_000)
        if page.evaluate(STATUS)[:3] in ("1-0", "0-1", "½-½"):
            return found
        cells = page.evaluate("Array.from(document.querySelectorAll('#board .cell')).map(c => c.className)")
        column = rng.choice([c for c in range(7) if "p" not in cells[c].replace("cell", "")])
        discs = page.evaluate(DISCS)
        began = time.perf_counter()
        page.click(f'#board .cell[data-column="{column}"] >> nth=0')
        page.wait_for_function(f"{DISCS} >= {discs + 2} || /^(1-0|0-1|½-½)/.test({STATUS})", timeout=600_000)
        spent = time.perf_counter() - began
        if page.evaluate(DISCS) >= discs + 2:
            clock = page.text_content("#clock2") or ""
            found.append((spent, float(re.search(r"its move: ([\d.]+) s", clock).group(1))))


def _summary(values: list[float]) -> str:
    values = sorted(values)
    p90 = values[min(len(values) - 1, int(0.9 * len(values)))]
    return (
        f"median {statistics.median(values):.3f} s, p90 {p90:.3f} s, max {values[-1]:.3f} s ({len(values)})"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", nargs="+", default=["negamax", "network"])
    parser.add_argument("--time", type=float, default=2.0, help="seconds a move (default 2)")
    parser.add_argument("--games", type=int, default=2, help="games against each agent (default 2)")
    parser.add_argument("--positions", type=int, default=10, help="positions of each stage (default 10)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    executable = find_chromium()
    if executable is None:
        parser.error("no Chromium on PATH: apt-get install chromium")
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="connectx-benchmark-") as folder:
        began = time.perf_counter()
        server = subprocess.Popen(
            [sys.executable, "-m", "connectx", "serve", folder, "--port", "0"],
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert server.stdout is not None
            url = re.search(r"at (http://\S+/) ", server.stdout.readline()).group(1)
            _get(url)
            print(f"first response after start: {time.perf_counter() - began:.2f} s")
            while b'"cached":true' not in _get(url + "api/scores?pos="):
                time.sleep(0.2)
            warm = time.perf_counter() - began
            print(f"warm-up done after {warm:.1f} s; server memory: {_memory(server.pid)}")
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=executable, args=ARGUMENTS)
                page = browser.new_page(viewport={"width": 1280, "height": 800})
                stages = (("early", 2, 10), ("at the databases", 11, 11), ("mid", 12, 22), ("late", 23, 38))
                for name, low, high in stages:
                    times = [_scores(page, url, m) for m in _positions(rng, low, high, args.positions)]
                    shown, solved = _summary([t[0] for t in times]), _summary([t[1] for t in times])
                    print(f"scores shown, {name} ({low}-{high} stones): {shown}; the solve alone: {solved}")
                for agent in args.agents:
                    replies = [
                        r for _ in range(args.games) for r in _replies(page, url, agent, args.time, rng)
                    ]
                    click, own = _summary([r[0] for r in replies]), _summary([r[1] for r in replies])
                    print(f"click to {agent}'s reply at {args.time:g} s a move: {click}; its own time: {own}")
                print(f"server memory after the games: {_memory(server.pid)}")
                browser.close()
        finally:
            server.send_signal(2)
            server.wait(timeout=60)
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
