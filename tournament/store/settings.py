"""A tournament's :class:`~tournament.schedule.Settings` as the store keeps them (one JSON row), and
the settings a run continues when the directory holds a tournament already (:func:`continuation`)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from tournament.schedule import Settings
from tournament.store.errors import StoreError

__all__ = ["continuation", "settings_from_json", "settings_to_json"]


def settings_to_json(settings: Settings) -> str:
    """The JSON the store keeps of ``settings``: every field, keys sorted."""
    return json.dumps(dataclasses.asdict(settings), sort_keys=True)


def settings_from_json(text: str) -> Settings:
    """Settings from their JSON; fields a tournament stored before they existed take their defaults."""
    data = json.loads(text)
    data["entrants"] = tuple(data["entrants"])
    data["openings"] = tuple(tuple(opening) for opening in data.get("openings", ()))
    if data.get("sprt") is not None:
        data["sprt"] = tuple(data["sprt"])
    return Settings(**data)


def continuation(stored: Settings, asked: Settings, directory: Path) -> Settings:
    """The settings a run of ``asked`` continues in ``directory``, which holds ``stored``.

    Equal settings resume. Settings that differ only in a larger ``games`` extend the tournament:
    the schedule is prefix-stable (:func:`tournament.schedule.schedule`), so the games already
    played keep their ids, seeds and openings and only the new ones are played. The stored openings
    are kept when ``asked`` has them as its start (random openings are drawn as many as the pairs a
    pairing plays, so a larger ``games`` draws more: later pairs cycle through the stored ones).

    Raises :class:`StoreError` for other differences (a different tournament) and for a smaller
    ``games``: its schedule would leave games already played out of the tournament the settings
    describe, and ``table`` already reports a tournament as far as it was played.
    """
    if asked == stored:
        return stored
    openings = stored.openings if asked.openings[: len(stored.openings)] == stored.openings else None
    if dataclasses.replace(asked, games=stored.games, openings=openings or asked.openings) != stored:
        raise StoreError(
            f"{directory} holds a different tournament; choose another --out or pass --overwrite"
        )
    if asked.games < stored.games:
        raise StoreError(
            f"{directory} holds this tournament with {stored.games} game pairs a pairing, more than the "
            f"{asked.games} asked; ask for {stored.games} or more to resume or extend it"
        )
    return dataclasses.replace(stored, games=asked.games)
