"""Leaves a note for the other agent in ``/dev/shm``, and looks for one there, at every move: its
own ``from-UID-MARK``, and any other ``from-*``. It plays leftmost, and raises the note it read
instead, if any: a game like any other, even against itself, proves the two never met."""

import os


def agent(obs, config):
    folder = "/dev/shm"
    mine = f"from-{os.getuid()}-{obs.mark}"
    try:
        with open(os.path.join(folder, mine), "w") as file:
            file.write(f"hello from uid {os.getuid()}, mark {obs.mark}")
    except OSError:
        pass
    found = []
    try:
        names = os.listdir(folder)
    except OSError:
        names = []
    for name in names:
        if name.startswith("from-") and name != mine:
            try:
                with open(os.path.join(folder, name)) as file:
                    found.append(file.read(100))
            except OSError:
                pass
    if found:
        raise RuntimeError(f"read the other agent's notes: {found}")
    return [c for c in range(config.columns) if obs.board[c] == 0][0]  # leftmost
