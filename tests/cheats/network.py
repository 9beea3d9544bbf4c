"""Reaches for the network at every move: connects to every TCP listener it can find on the machine
(``/proc/net/tcp`` and ``tcp6``), to those in ``PORTS`` on 127.0.0.1 and to a public address, and
sends a UDP datagram to each of ``UDP_PORTS`` on 127.0.0.1 (the tests set both and count what
arrives). It plays leftmost, and raises what it reached instead, if anything: a game like any other
proves it reached nothing (a listener of its own, on a loopback of its own, is no one else's)."""

import socket

PORTS = []
UDP_PORTS = []
OUTSIDE = ("1.1.1.1", 53)


def _listening(table):
    """The ports of the TCP sockets listening, from /proc/net/tcp or tcp6."""
    try:
        with open(f"/proc/net/{table}") as file:
            lines = file.read().splitlines()[1:]
    except OSError:
        return []
    fields = [line.split() for line in lines]
    return [int(field[1].rsplit(":", 1)[1], 16) for field in fields if field[3] == "0A"]  # TCP_LISTEN


def _connects(host, port):
    try:
        with socket.create_connection((host, port), timeout=0.2):
            return True
    except OSError:
        return False


def agent(obs, config):
    ports = sorted(set(PORTS + _listening("tcp") + _listening("tcp6")))
    reached = [f"127.0.0.1:{port}" for port in ports[:20] if _connects("127.0.0.1", port)]
    if _connects(*OUTSIDE):
        reached.append(f"{OUTSIDE[0]}:{OUTSIDE[1]}")
    for port in UDP_PORTS:
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
                udp.sendto(b"hello from an agent", ("127.0.0.1", port))
        except OSError:
            pass
    if reached:
        raise RuntimeError(f"reached {reached}")
    return [c for c in range(config.columns) if obs.board[c] == 0][0]  # leftmost
