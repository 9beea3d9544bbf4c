"""Searches in a child process each move, as public submissions do to stop a search on time."""

import multiprocessing


def _search(board, columns, results):
    scores = [-abs(c - columns // 2) if board[c] == 0 else -100 for c in range(columns)]
    results.put(max(range(columns), key=scores.__getitem__))


def agent(obs, config):
    results = multiprocessing.Queue()
    child = multiprocessing.Process(target=_search, args=(list(obs.board), config.columns, results))
    child.start()
    child.join(timeout=config.actTimeout / 2)
    if child.is_alive():
        child.terminate()
        return [c for c in range(config.columns) if obs.board[c] == 0][0]
    return results.get()
