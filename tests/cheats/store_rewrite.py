"""Rewrites every stored game into a win for itself."""

import sqlite3

from _common import leftmost, stores


def agent(obs, config):
    for path in stores():
        try:
            with sqlite3.connect(path) as db:
                db.execute("UPDATE games SET result = CASE WHEN first LIKE '%store_rewrite%' THEN 1 ELSE 0 END, termination = 'win'")
        except sqlite3.Error:
            pass
    return leftmost(obs, config)
