"""The longest silences of a command: how long a person watching its terminal waits for a sign of life.

Usage: ``python -m benchmarks.silence [--top 5] [--log FILE] -- COMMAND [ARG ...]``, e.g.
``python -m benchmarks.silence -- .venv/bin/connectx`` (the README's first command).

The command runs on a pseudo-terminal (:func:`pty.fork`), as in a person's terminal, so that it
draws its progress bars as it would there (tqdm redraws on a terminal, not in a pipe). Every chunk
of output is stamped with the time it arrived; a silence is the time between two chunks, or from
the start to the first one, or from the last one to the end. Prints the wall time, the load average
at the start and end (``os.getloadavg``: other work on the machine lengthens silences), and the
``--top`` longest silences, each with the last output line before it, so that one can tell which
step was silent. ``--log`` writes every chunk with its time, for a closer look.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import re
import struct
import sys
import termios
import time

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def record(command: list[str]) -> tuple[list[tuple[float, str]], float, int]:
    """Run ``command`` on a pseudo-terminal; return its output chunks with the seconds since the
    start at which each arrived, the total seconds, and its exit status."""
    start = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:  # the command, with the pseudo-terminal as its stdin, stdout and stderr
        try:
            os.execvp(command[0], command)
        finally:
            os._exit(127)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))  # 120 columns, 40 rows
    chunks: list[tuple[float, str]] = []
    while True:
        try:
            data = os.read(fd, 65536)
        except OSError:  # EIO: the command closed the terminal
            break
        if not data:
            break
        chunks.append((time.perf_counter() - start, data.decode("utf-8", errors="replace")))
    _, status = os.waitpid(pid, 0)
    return chunks, time.perf_counter() - start, os.waitstatus_to_exitcode(status)


def last_line(text: str) -> str:
    """The last non-blank line of terminal output ``text`` (a carriage return starts a line), without
    colour codes, cut to 100 characters."""
    lines = [line.strip() for line in re.split(r"[\r\n]", ANSI.sub("", text)) if line.strip()]
    return lines[-1][:100] if lines else ""


def silences(chunks: list[tuple[float, str]], total: float) -> list[tuple[float, float, str]]:
    """Every silence as ``(seconds, began, the last line shown before it)``, longest first."""
    out, shown, previous = [], "", 0.0
    for at, text in chunks:
        out.append((at - previous, previous, last_line(shown) or "(the start)"))
        shown, previous = shown[-2000:] + text, at
    out.append((total - previous, previous, last_line(shown) or "(the start)"))
    return sorted(out, reverse=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--top", type=int, default=5, help="silences to print (default 5)")
    parser.add_argument("--log", help="write every chunk of output with its time to this file")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the command, after --")
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command after --")
    load = os.getloadavg()
    chunks, total, status = record(command)
    if args.log:
        with open(args.log, "w", encoding="utf-8") as log:
            log.writelines(f"{at:9.3f} {text!r}\n" for at, text in chunks)
    print(
        f"{' '.join(command)}: exit {status}, {total:.1f} s, {len(chunks)} chunks of output; load average "
        f"{load[0]:.2f} at the start, {os.getloadavg()[0]:.2f} at the end",
        file=sys.stderr,
    )
    for seconds, began, line in silences(chunks, total)[: args.top]:
        print(f"{seconds:6.1f} s silent from {began:6.1f} s, after: {line}", file=sys.stderr)


if __name__ == "__main__":
    main()
