"""A Kaggle-style skill rating: the games replayed, in the order they were played, through a Gaussian
skill update as Kaggle's simulation leaderboard describes its own.

What Kaggle publishes (the ConnectX competition's Evaluation page,
https://www.kaggle.com/competitions/connectx/overview/evaluation): each submission's skill is a
Gaussian N(μ, σ²); a new submission starts at **μ0 = 600**; after an episode the winner's μ rises
and the loser's falls, and a draw moves the two μ toward their mean, each by an amount that grows
with the surprise of the result (against what the μ values expected) and with the submission's σ;
σ shrinks with the information the result brings. The pairing (similar ratings) and the number of
episodes are Kaggle's; the games here are the ladder's.

What it does not publish, and this module therefore assumes (:class:`KaggleParameters`, each of
which the user may set): the starting **σ0** (here 200, μ0 / 3 as in TrueSkill's and openskill's
defaults, 25 and 25/3), the performance spread **β** (here σ0 / 2 = 100) and the dynamics **τ**
added to σ before each game (here σ0 / 100 = 2), and the draw margin ε (openskill's default ratio to
σ0, 0.1 / (25/3), here 2.4; it scales with σ0).

The update is openskill's Thurstone-Mosteller model with full pairing
(:class:`openskill.models.ThurstoneMostellerFull`; Weng & Lin 2011, "A Bayesian approximation
method for online ranking", JMLR 12): Gaussian performances as in TrueSkill, a draw when they fall
within ε of each other. Of openskill's models it is the one whose likelihood is TrueSkill's. A
forfeit counts as the result recorded (a loss of the offender); a game of an entrant against
itself is left out, as everywhere.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from openskill.models import ThurstoneMostellerFull, ThurstoneMostellerFullRating

from tournament.record import GameRecord

__all__ = ["MU0", "KaggleParameters", "Skill", "replay"]

MU0 = 600.0
"""Kaggle's published starting μ."""

_DRAW_MARGIN = 0.1 / (25.0 / 3.0)
"""openskill's default draw margin ε as a fraction of its default σ0."""


@dataclass(frozen=True, slots=True)
class KaggleParameters:
    """The replay's parameters: ``mu`` is Kaggle's published μ0; ``sigma`` (σ0), ``beta`` (β) and
    ``tau`` (τ) are assumptions (module docstring). Raises ValueError unless each is finite and
    positive (``tau`` may be 0)."""

    mu: float = MU0
    sigma: float = MU0 / 3
    beta: float = MU0 / 6
    tau: float = MU0 / 300

    def __post_init__(self) -> None:
        for name in ("mu", "sigma", "beta", "tau"):
            value = getattr(self, name)
            if not math.isfinite(value) or value < 0 or (value == 0 and name != "tau"):
                raise ValueError(f"the Kaggle-style {name} must be positive and finite, got {value!r}")

    def describe(self) -> str:
        """``μ0 600 (Kaggle's), σ0 200, β 100, τ 2 (assumed)``."""
        return f"μ0 {self.mu:g} (Kaggle's), σ0 {self.sigma:g}, β {self.beta:g}, τ {self.tau:g} (assumed)"


@dataclass(frozen=True, slots=True)
class Skill:
    """One entrant's Kaggle-style skill after the replay: ``mu`` ± ``sigma`` over ``games`` games."""

    name: str
    mu: float
    sigma: float
    games: int


def replay(
    records: Iterable[GameRecord], parameters: KaggleParameters = KaggleParameters()
) -> dict[str, Skill]:  # noqa: B008
    """Every entrant's skill after replaying ``records`` in game-id order (the order a ladder played
    them), each starting at ``parameters.mu`` ± ``parameters.sigma`` (module docstring)."""
    model = ThurstoneMostellerFull(
        mu=parameters.mu,
        sigma=parameters.sigma,
        beta=parameters.beta,
        tau=parameters.tau,
        epsilon=_DRAW_MARGIN * parameters.sigma,
    )
    skills: dict[str, ThurstoneMostellerFullRating] = {}
    games: dict[str, int] = {}
    for record in sorted(records, key=lambda record: record.game_id):
        if record.first == record.second:
            continue
        a, b = (skills.setdefault(name, model.rating(name=name)) for name in (record.first, record.second))
        ranks = {1.0: [0.0, 1.0], 0.5: [0.0, 0.0], 0.0: [1.0, 0.0]}[record.result]
        [[a], [b]] = model.rate([[a], [b]], ranks=ranks)
        skills[record.first], skills[record.second] = a, b
        for name in (record.first, record.second):
            games[name] = games.get(name, 0) + 1
    return {name: Skill(name, rating.mu, rating.sigma, games[name]) for name, rating in skills.items()}
