"""Single-file Kaggle submissions from Python: :func:`build` writes one, :func:`check` proves it.

``connectx build`` and ``connectx check`` (:mod:`connectx.submission`) are the command line over
these two functions::

    import connectx

    def my_agent(obs, config):          # in a notebook cell
        return next(c for c in range(config.columns) if obs.board[c] == 0)

    path = connectx.build(my_agent, "main.py")
    result = connectx.check(path)       # a notebook shows PASS or FAIL and the report
    assert result                       # truthy when the check passed

An agent is one of our agent specs (``"negamax"``, ``"minimax:depth=4"``: its modules are inlined,
:mod:`submissions.build`) or a function defined in a cell or a module (its source and what it refers
to are written out, :mod:`submissions.functions`). The check plays the file the way Kaggle loads it,
in a fresh interpreter where this project cannot be imported (:mod:`submissions.check`).
"""

from __future__ import annotations

import contextlib
import html
import os
import sys
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.kit.clock import DEFAULT_ACT_TIMEOUT, DEFAULT_OVERAGE
from connectx.progress import Ticking, bar
from submissions.build import BuildError, Submission, build_spec, write
from submissions.check import OPPONENTS, CheckInputError, check_file
from submissions.functions import build_function
from submissions.kaggle_packages import environment
from submissions.report import CheckReport, format_report, headline

__all__ = ["CheckResult", "build", "check", "write_submission"]

Agent = str | os.PathLike[str] | Callable[..., Any]
"""What :func:`build` takes: an agent spec, or a function ``agent(obs, config) -> int``."""


def write_submission(agent: Agent, path: str | os.PathLike[str]) -> Submission:
    """Write the single-file submission of ``agent`` (see :func:`build`) to ``path`` and return what
    was written (:class:`submissions.build.Submission`: its text, modules, embedded data, warnings);
    the command line prints it. Raises as :func:`build` does."""
    if isinstance(agent, str | os.PathLike):
        submission = build_spec(os.fspath(agent))
    elif callable(agent):
        submission = build_function(agent)
    else:
        raise TypeError(f"an agent is a spec string, a file path or a function, not {type(agent).__name__}")
    target = Path(path)
    if target.is_dir() or not target.parent.is_dir():
        raise BuildError(f"cannot write {path}: not a file in an existing directory")
    write(submission, target)
    return submission


def build(agent: Agent, path: str | os.PathLike[str] = "main.py") -> Path:
    """Write the single-file Kaggle submission of ``agent`` to ``path`` (overwritten) and return it.

    ``agent``: one of our agent specs (``"negamax"``, ``"minimax:depth=4"``), whose modules and data
    are inlined verbatim; or a function ``agent(obs, config) -> int`` defined in a notebook cell or a
    module (or a callable object of a class defined in the notebook), written from its source with
    the helpers, classes, imports (numpy and the standard library only), closure values and
    constants it refers to -- numbers, strings, containers, objects of the notebook's classes, numpy
    arrays embedded (at most :data:`submissions.functions.MAX_DATA` bytes) -- the agent last, as
    Kaggle's loader plays the last callable of the file. The file is not checked: :func:`check` does
    that. What the user can act on (a data file not embedded) is a ``UserWarning``.

    Raises :class:`~submissions.inline.BuildError` (a ``ValueError``, one sentence) for what cannot be
    one file -- a module other than numpy and the standard library, an open file, a lock, an object of
    another class, a lambda whose source cannot be isolated, a ``.py`` file (it already is a
    submission) or a kaggle-environments built-in -- or a ``path`` that is not a file in an existing
    directory; :class:`agents.registry.SpecError` (a ``ValueError``) for an unknown spec;
    ``TypeError`` for an agent of another kind (``functools.partial``: wrap it in a function);
    ``OSError`` when the file cannot be written.

    Example::

        >>> connectx.build("minimax:depth=4", "main.py")  # doctest: +SKIP
        PosixPath('main.py')
    """
    submission = write_submission(agent, path)
    for warning in submission.warnings:
        warnings.warn(warning, stacklevel=2)
    return Path(path)


@dataclass(frozen=True, slots=True)
class CheckResult:
    """What :func:`check` found: truthy exactly when the file passed (Kaggle would not forfeit it in
    the check's games, and it met the time policy). ``report`` holds everything
    (:class:`submissions.report.CheckReport`: the games, move times in seconds, the overage bank
    each game used, warnings, Kaggle's tracebacks). ``repr`` is the report ``connectx check``
    prints; a notebook shows it as HTML, the verdict first. Example: ``result = connectx.check(path)``,
    then ``result.passed``, ``result.headline``, ``result.report.times.slowest`` (seconds)."""

    report: CheckReport

    @property
    def passed(self) -> bool:
        """Whether the file passed the check."""
        return self.report.passed

    @property
    def forfeit(self) -> bool | None:
        """Whether Kaggle would forfeit the agent (None: the check could not tell)."""
        return self.report.forfeit

    @property
    def headline(self) -> str:
        """The verdict in one line: ``PASS: ...`` or ``FAIL: ...`` and why."""
        return headline(self.report)

    def __bool__(self) -> bool:
        return self.report.passed

    def __repr__(self) -> str:
        return f"{format_report(self.report)}\n{self.report.path}: {self.headline}"

    def _repr_html_(self) -> str:
        colour = "#1a7f37" if self.passed else "#cf222e"
        return (
            f'<div><p style="color:{colour};font-weight:bold">{html.escape(self.headline)}</p>'
            f"<details><summary>{html.escape(self.report.path)}: the check's report</summary>"
            f"<pre>{html.escape(format_report(self.report))}</pre></details></div>"
        )


def check(
    path: str | os.PathLike[str],
    *,
    games: int = 2,
    act_timeout: float = DEFAULT_ACT_TIMEOUT,
    timeout: float | None = None,
    time_policy: str = "load",
    kaggle_packages: bool = False,
    progress: bool = True,
) -> CheckResult:
    """Play the submission file at ``path`` the way Kaggle loads it and say whether Kaggle would
    forfeit it (:mod:`submissions.check`): the validation episode against itself, then ``games``
    games against each of kaggle-environments' ``random`` and ``negamax``, in a fresh ``python -I``
    where this project cannot be imported.

    ``act_timeout``: Kaggle's ``actTimeout`` in seconds (each agent also has a 60 s overage bank a
    game); ``timeout``: seconds before a hung check is killed (default: the longest Kaggle lets the
    games last); ``time_policy``: what must fit in ``act_timeout`` -- ``"load"`` (executing the file),
    ``"strict"`` (that and every move) or ``"bank"`` (nothing but Kaggle's own verdict);
    ``kaggle_packages``: play it with Kaggle's versions of numba, numpy, scipy and kaggle-environments,
    in an environment made once in the user's cache folder (minutes and about 2 GB the first time);
    ``progress``: one line and a progress bar (a notebook's bar in a notebook).

    A failing file is a result, not an error: ``bool(result)`` is False and ``result.headline`` says
    why. Raises :class:`~submissions.check.CheckInputError` (a ``ValueError``) for a path that is not
    a file or an option out of range, :class:`~submissions.kaggle_packages.KagglePackagesError` when
    Kaggle's packages cannot be installed; ``KeyboardInterrupt`` propagates, the check's processes
    killed and its temporary folder removed.

    Example::

        >>> result = connectx.check("main.py")  # doctest: +SKIP
        >>> bool(result), result.report.times.slowest  # passed, the slowest move in seconds  # doctest: +SKIP
        (True, 0.012)
    """
    source = Path(path)
    if source.is_dir():
        raise CheckInputError(f"{source} is a directory: give the .py file to check")
    python, packages = None, ""
    if kaggle_packages and source.is_file():
        kaggle = environment()
        python, packages = kaggle.python, kaggle.describe()
    if progress and source.is_file():
        print(
            f"checking {source} as Kaggle loads it: the validation episode, then {games} game(s) "
            f"against each of kaggle's random and negamax, actTimeout {act_timeout:g} s and a "
            f"{DEFAULT_OVERAGE:g} s overage bank a game{f', with {packages}' if packages else ''} ...",
            flush=True,
        )
    with _shown(source, 1 + games * len(OPPONENTS), progress) as on_event:  # the validation episode first
        report = check_file(
            source, games=games, act_timeout=act_timeout, timeout=timeout, time_policy=time_policy,
            on_event=on_event, python=python, packages=packages,
        )  # fmt: skip
    return CheckResult(report)


@contextlib.contextmanager
def _shown(path: Path, games: int, progress: bool) -> Iterator[Callable[[dict], None]]:
    """A bar that says what the check of ``path`` does (a notebook's in a notebook, else the
    terminal's, ticking), closed on the way out; yields the probe's event handler."""
    if not progress:
        yield lambda event: None
        return
    description = f"checking {path.name}: starting"
    from tqdm.auto import tqdm  # in a kernel with ipywidgets, tqdm.notebook's

    notebook = sys.modules.get("tqdm.notebook")
    if notebook is not None and issubclass(tqdm, notebook.tqdm_notebook):
        shown = tqdm(desc=description, bar_format="{desc} [{elapsed}]", leave=False)
    else:
        shown = bar(desc=description, bar_format="{desc} [{elapsed}]", leave=False)
    with shown, Ticking(shown):
        yield lambda event: _show(shown, path, event, games)


def _show(shown: Any, path: Path, event: dict, games: int) -> None:
    """Say on the bar ``shown`` what the check of ``path`` does now, after its probe's ``event``
    (:mod:`submissions.probe`): loading the file, or which of its ``games`` it plays."""
    if event.get("event") == "loading":
        shown.set_description_str(f"checking {path.name}: loading it as Kaggle does")
    elif event.get("event") == "load":
        shown.set_description_str(
            f"checking {path.name}: loaded in {event['seconds']:.1f} s; starting the games"
        )
    elif event.get("event") == "start":
        shown.set_description_str(
            f"checking {path.name}: game {event['game'] + 1} of {games}, {event['label']}"
        )
