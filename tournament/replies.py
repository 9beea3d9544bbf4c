"""The replies of an agent's host process to the referee's proxy (:mod:`tournament.sandbox`).

A reply carries the agent's action as JSON, tagged with its Python type (:func:`encode`), never as a
pickle, which would run the agent's code in the referee when loaded. :func:`decode` gives the
referee a value of the same type, so kaggle-environments judges it as it would the agent's own
return value: a plain ``int`` is a move, anything else INVALID.
"""

from __future__ import annotations

from typing import NotRequired, TypedDict

import numpy as np

__all__ = ["Action", "EncodedAction", "Unreadable", "decode", "encode"]


class EncodedAction(TypedDict):
    """An action as a reply carries it (JSON): ``type``, the Python type's name (``"int"``,
    ``"None"``, ``"numpy.int64"``, or ``module.qualname`` of any other object), with ``value`` for a
    plain scalar or a numpy one (a ``str`` cut to 1000 characters), else ``repr`` (cut to 200)."""

    type: str
    value: NotRequired[bool | int | float | str]
    repr: NotRequired[str]


def encode(action: object) -> EncodedAction:
    """A reply's action: JSON-safe, tagged with its type so the referee sees what the agent returned."""
    kind = type(action)
    if action is None:
        return {"type": "None"}
    if isinstance(action, bool | int | float | str) and kind in (bool, int, float, str):
        return {"type": kind.__name__, "value": action if not isinstance(action, str) else action[:1000]}
    if isinstance(action, np.bool_ | np.integer | np.floating):
        return {"type": f"numpy.{kind.__name__}", "value": action.item()}
    return {"type": f"{kind.__module__}.{kind.__qualname__}", "repr": repr(action)[:200]}


class Unreadable:
    """What the referee gets for an action that is not a plain scalar: Kaggle judges it INVALID."""

    def __init__(self, type_name: str, text: str) -> None:
        self.type_name, self.text = type_name, text

    def __repr__(self) -> str:
        return f"<{self.type_name} {self.text}>"


Action = bool | int | float | str | np.generic | Unreadable | None
"""An agent's action as the referee gets it from a reply (:func:`decode`): of the type the agent
returned when that is ``None``, a plain scalar or a numpy scalar, else :class:`Unreadable`."""

_PLAIN: dict[str, type[bool | int | float | str]] = {"bool": bool, "int": int, "float": float, "str": str}


def decode(reply: object) -> Action:
    """The action of a reply (see :func:`encode`; ``reply`` as JSON decoded it); raises ValueError
    for a malformed one."""
    if not isinstance(reply, dict) or not isinstance(reply.get("type"), str):
        raise ValueError("malformed reply")
    kind: str = reply["type"]
    value: object = reply.get("value")
    if kind == "None":
        return None
    if kind in _PLAIN:
        plain = _PLAIN[kind]
        if type(value) is not plain and not (kind == "float" and type(value) is int):
            raise ValueError("malformed reply")
        assert isinstance(value, bool | int | float | str)
        return plain(value)
    if kind.startswith("numpy."):
        numpy_type = getattr(np, kind.removeprefix("numpy."), None)
        if not (isinstance(numpy_type, type) and issubclass(numpy_type, np.generic)):
            raise ValueError("malformed reply")
        scalar: np.generic = numpy_type(value)
        return scalar
    return Unreadable(kind, str(reply.get("repr", ""))[:200])
