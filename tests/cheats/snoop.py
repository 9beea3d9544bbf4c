"""Snoops, at its first move: reads the other agents' files and the store (their paths are on the
runner's command line, which it inherited, and the store's in its memory), /etc/shadow and other
processes' command lines in /proc, lists the folders around it, and writes a file into each. It
plays leftmost, and raises what it found, if anything, instead: a game like any other proves it
found nothing."""

import gc
import glob
import os
import sys

MARK = "snooped-by-an-agent"
found = []


def _read(path):
    try:
        with open(path, "rb") as file:
            found.append(f"read {path}: {file.read(80)!r}")
    except OSError:
        pass


def _list(folder):
    try:
        found.append(f"listed {folder}: {sorted(os.listdir(folder))[:5]}")
    except OSError:
        pass


def _write(folder):
    try:
        with open(os.path.join(folder, MARK), "x") as file:
            file.write("written by an agent")
        found.append(f"wrote into {folder}")
    except OSError:
        pass


def _command_line(own):
    """The other agents' files and the run folder, as ``connectx run`` was given them."""
    agents, out, words = [], [], sys.argv[1:]
    for index, word in enumerate(words):
        if word == "--out" and index + 1 < len(words):
            out.append(os.path.abspath(words[index + 1]))
        if word == "--agents":
            for spec in words[index + 1 :]:
                if spec.startswith("--"):
                    break
                if os.path.abspath(spec) != own:
                    agents.append(os.path.abspath(spec))
    return agents, out


def _stores():
    """The run folders of Store and PosixPath objects in its memory (inherited from the runner)."""
    folders = set()
    for obj in gc.get_objects():
        if type(obj).__name__ in ("PosixPath", "Store"):
            path = str(getattr(obj, "path", obj))
            if os.path.isfile(os.path.join(path, "tournament.db")):
                folders.add(path)
    return folders


def snoop(own):
    agents, outs = _command_line(own)
    runs = {*outs, *_stores()}
    for path in agents:
        _read(path)
        _list(os.path.dirname(path))
    for run in runs:
        _list(run)
        _read(os.path.join(run, "tournament.db"))
    _read("/etc/shadow")
    for proc in {*glob.glob("/proc/[0-9]*"), f"/proc/{os.getppid()}", "/proc/1"} - {f"/proc/{os.getpid()}"}:
        _read(f"{proc}/cmdline")
    home = os.getcwd()
    project = os.path.dirname(os.path.dirname(os.path.dirname(sys.executable)))  # .../.venv/bin/python
    for folder in (os.path.dirname(home), project, "/root", "/tmp"):
        _list(folder)
    for folder in {
        *map(os.path.dirname, agents),
        *runs,
        os.path.dirname(own),
        os.path.dirname(home),
        project,
        "/tmp",
    }:
        _write(folder)


def agent(obs, config):
    if obs.step <= 1:
        snoop(os.path.abspath(config["__raw_path__"]))
    if found:
        raise RuntimeError("found: " + "; ".join(found))
    return [c for c in range(config.columns) if obs.board[c] == 0][0]  # leftmost
