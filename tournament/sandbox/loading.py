"""The callable a host plays for its spec: the agent as kaggle-environments builds it, or a pickled one.

A host loads its agent before it is confined, in the runner's directory and as its user
(:func:`tournament.sandbox.host.fork_host`): a spec's relative path means what it meant on the
command line, and a file is read even where the agent could not read it. No code of the agent
runs then:

* a ``.py`` file agent is read and, as on Kaggle, executed at its first move
  (``kaggle_environments.agent.build_agent``), once the host is confined;
* a ``.pkl`` file agent (:func:`agents.registry.pickled`: a callable that ``connectx.entrants``
  pickled by value with cloudpickle) is read as bytes here and unpickled at its first move, also
  once the host is confined: unpickling a cloudpickled function runs code (its ``__reduce__``s,
  the imports it names), so no byte of it is unpickled before. It is then called as Kaggle calls a
  file's agent (with as many of ``obs, config`` as its code takes). A pickle that does not unpickle
  is the agent's ``ERROR`` at its first move, with the reason (:class:`UnpicklingFailed`).

The runner process never unpickles: it handles a pickled agent by its spec, as it handles a file.
Unpickling imports cloudpickle; :func:`preload` imports it in the forking process when a
tournament has a pickled entrant, so that every host inherits it (after the runner's imports it
adds 2 modules and 0.05 MiB, in 1 to 9 ms: ``python -m benchmarks.callable_agents``).
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Iterable
from typing import Any

from agents.registry import load_agent, parse_spec, pickled
from tournament.environments import BUILTIN_AGENTS, build_agent

__all__ = ["UnpicklingFailed", "load", "preload"]


class UnpicklingFailed(RuntimeError):
    """A pickled agent that does not unpickle in its host (a module it names is not importable
    there, its file is no pickle...): its ``ERROR``, at its first move."""


def load(spec_text: str, seed: int) -> Callable[..., Any]:
    """The callable a host plays for ``spec_text`` (module docstring); ``seed`` goes to one of our
    agents. A spec that fails to load gives an agent that raises the failure at its first move."""
    try:
        spec = parse_spec(spec_text)
        if pickled(spec):
            with open(spec.name, "rb") as file:
                return _Unpickled(spec.name, file.read())
        raw = load_agent(spec, seed=seed)
        if callable(raw):
            return raw
        built: Callable[..., Any] = build_agent(raw, BUILTIN_AGENTS, "connectx")[0]
        return built
    except Exception as error:  # noqa: BLE001 - the agent's ERROR, reported at its first move
        failure = error

        def failed(obs: Any, config: Any) -> Any:
            raise failure

        return failed


def preload(specs: Iterable[str]) -> None:
    """Import cloudpickle here when one of ``specs`` is a pickled agent, so that the hosts forked
    from this process have it before they are confined (module docstring)."""
    for text in specs:
        try:
            is_pickle = pickled(parse_spec(text))
        except ValueError:
            continue
        if is_pickle:
            import cloudpickle  # noqa: F401 - for the hosts to inherit

            return


class _Unpickled:
    """A pickled agent, unpickled at its first call (module docstring)."""

    def __init__(self, path: str, data: bytes) -> None:
        self.path, self.data = path, data
        self.agent: Callable[..., Any] | None = None
        import cloudpickle  # noqa: F401 - before the host is confined (inherited when preloaded)

    def __call__(self, obs: Any, config: Any) -> Any:
        if self.agent is None:
            try:
                self.agent = pickle.loads(self.data)  # noqa: S301 - in the confined host only
            except Exception as error:  # noqa: BLE001 - the agent's ERROR, with its reason
                why = f"{self.path} does not unpickle in its host: {type(error).__name__}: {error}"
                raise UnpicklingFailed(f"the pickled agent {why}") from error
            self.data = b""
        args = [obs, config]
        code = getattr(self.agent, "__code__", None)
        if code is not None and hasattr(code, "co_argcount"):  # as Kaggle calls a file's agent
            args = args[: code.co_argcount]
        return self.agent(*args)
