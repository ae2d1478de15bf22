"""A player's role as analysis reads it: its spec's, else what its run's manifest recorded, else heuristic.

Rows are sorted by what a player is (:data:`sim.players.spec.ROLES`: a heuristic plays to win, an exact player
gives verdicts, a judge judges moves), never by a list of names: a new exact player or judge is read as one
because its spec says so. The registry answers for every player it knows (the built-in ones and the installed
plug-ins); a run's manifest records each player's role (``player_roles``), which answers for a player the
registry does not know here (a plug-in not installed, a file's player). A manifest from before roles were
recorded names none: its players are the registry's, or heuristic, as every other player was then.

>>> role("phased:rate=0.1"), role("greedy"), role("corridor")
('exact', 'heuristic', 'judge')
"""

from __future__ import annotations

from sim.players.registry import names_of, role_of
from sim.players.spec import HEURISTIC, ROLES

#: the roles the manifests read in this process recorded, by player name (:func:`learn`); the registry comes first
_RECORDED: dict[str, str] = {}


def learn(manifest: dict) -> None:
    """Remember the roles a manifest records (``experiment.player_roles``, by label): what :func:`role` falls back on
    for a player the registry does not know. A role that is none of :data:`ROLES` is not taken."""
    recorded = (manifest.get("experiment") or {}).get("player_roles") or {}
    for label, kind in recorded.items():
        if kind in ROLES:
            _RECORDED[name(label)] = kind


def name(label: str) -> str:
    """A player label's name, its parameters dropped: ``phased:rate=0.14`` is ``phased``."""
    return str(label).split(":", 1)[0]


def role(label: str) -> str:
    """The role of the player of ``label``: its spec's in the registry, else the one a manifest recorded, else
    heuristic."""
    return role_of(name(label)) or _RECORDED.get(name(label), HEURISTIC)


def names(*roles: str) -> list[str]:
    """Every player name known to have one of ``roles``: the registry's in its order, then the manifests'."""
    known = names_of(*roles)
    return known + [n for n, kind in _RECORDED.items() if kind in roles and n not in known and role_of(n) is None]
