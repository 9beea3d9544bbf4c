"""The replies of an agent's host process to the referee's proxy (:mod:`tournament.sandbox`).

A reply carries the agent's action as JSON, tagged with its Python type (:func:`encode`), never as a
pickle, which would run the agent's code in the referee when loaded. :func:`decode` gives the
referee a value of the same type, so kaggle-environments judges it as it would the agent's own
return value: a plain ``int`` is a move, anything else INVALID.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["Unreadable", "decode", "encode"]


def encode(action: Any) -> dict[str, Any]:
    """A reply's action: JSON-safe, tagged with its type so the referee sees what the agent returned."""
    kind = type(action)
    if action is None:
        return {"type": "None"}
    if kind in (bool, int, float, str):
        return {"type": kind.__name__, "value": action if kind is not str else action[:1000]}
    if isinstance(action, np.generic) and isinstance(action, np.bool_ | np.integer | np.floating):
        return {"type": f"numpy.{kind.__name__}", "value": action.item()}
    return {"type": f"{kind.__module__}.{kind.__qualname__}", "repr": repr(action)[:200]}


class Unreadable:
    """What the referee gets for an action that is not a plain scalar: Kaggle judges it INVALID."""

    def __init__(self, type_name: str, text: str) -> None:
        self.type_name, self.text = type_name, text

    def __repr__(self) -> str:
        return f"<{self.type_name} {self.text}>"


def decode(reply: Any) -> Any:
    """The action of a reply (see :func:`encode`); raises ValueError for a malformed one."""
    if not isinstance(reply, dict) or not isinstance(reply.get("type"), str):
        raise ValueError("malformed reply")
    kind, value = reply["type"], reply.get("value")
    if kind == "None":
        return None
    plain = {"bool": bool, "int": int, "float": float, "str": str}
    if kind in plain:
        if type(value) is not plain[kind] and not (kind == "float" and type(value) is int):
            raise ValueError("malformed reply")
        return plain[kind](value)
    if kind.startswith("numpy."):
        numpy_type = getattr(np, kind.removeprefix("numpy."), None)
        if not (isinstance(numpy_type, type) and issubclass(numpy_type, np.generic)):
            raise ValueError("malformed reply")
        return numpy_type(value)
    return Unreadable(kind, str(reply.get("repr", ""))[:200])
