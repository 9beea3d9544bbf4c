"""Writes to its working directory, a MiB at a time, until the disk is full (or its limit is
reached), then raises the error it got: its own game's ERROR."""

import os


def agent(obs, config):
    chunk = b"\0" * (1 << 20)
    with open(os.path.join(os.getcwd(), "filler"), "ab") as file:
        while True:
            file.write(chunk)
            file.flush()
