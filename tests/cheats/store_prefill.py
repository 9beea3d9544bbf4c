"""Pre-inserts fake wins for games not yet played."""

import sqlite3

from _common import leftmost, stores


def agent(obs, config):
    for path in stores():
        try:
            with sqlite3.connect(path) as db:
                columns = [row[1] for row in db.execute("PRAGMA table_info(games)")]
                row = db.execute("SELECT * FROM games LIMIT 1").fetchone()
                if row is None:
                    continue
                for game_id in range(1000, 1100):
                    fake = dict(zip(columns, row), game_id=game_id, result=1.0)
                    db.execute(f"INSERT OR IGNORE INTO games ({','.join(columns)}) VALUES ({','.join('?' * len(columns))})", list(fake.values()))
        except sqlite3.Error:
            pass
    return leftmost(obs, config)
