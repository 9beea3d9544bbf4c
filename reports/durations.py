"""Durations as people read them: :func:`format_seconds`, for the report's facts and its tables alike."""

from __future__ import annotations

import math

__all__ = ["format_seconds"]


def format_seconds(seconds: float) -> str:
    """``0.4 ms``, ``12.3 ms``, ``1.25 s``, ``3 min 4 s``, ``2 h 05 min``: a duration for people; ``-``
    for nan, a time not measured (e.g. an agent whose imported games carry no move times)."""
    if math.isnan(seconds):
        return "-"
    if seconds < 1:
        return f"{seconds * 1000:.1f} ms" if seconds < 0.1 else f"{seconds * 1000:.0f} ms"
    if seconds < 60:
        return f"{seconds:.2f} s"
    minutes, rest = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes} min {rest} s"
    return f"{minutes // 60} h {minutes % 60:02d} min"
