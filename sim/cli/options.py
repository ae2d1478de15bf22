"""The options several commands share, declared once: each a function returning the typer option, so a command
says only what differs (its default, what its processes do).

>>> seed().param_decls, seed(draws=True).help
(('--seed',), "seed of the deal numbering and the player's draws")
"""

from __future__ import annotations

from typing import Any

import typer

from ..core.deals import DEFAULT_SEED


def seed(default: int | None = DEFAULT_SEED, *, draws: bool = False) -> Any:
    """``--seed``: the deals' numbering (and, where a player plays, its draws); None: the experiment file's, else 0."""
    return typer.Option(default, "--seed", help="seed of the deal numbering" + (" and the player's draws" if draws else ""),
                        show_default=default is not None)


def jobs(what: str = "processes playing at once", *, least: int | None = 1) -> Any:
    """``--jobs``: how many at once (``least``: the bound typer checks; None: the runner checks it, in its words)."""
    return typer.Option(1, "--jobs", min=least, help=what)


def games() -> Any:
    """``--game``, repeatable: the games of an experiment."""
    return typer.Option(None, "--game", help="a game to play (repeatable)", show_default=False)


def game(help: str = "game slug or alias") -> Any:
    """``--game``, one and required."""
    return typer.Option(..., "--game", help=help)


def players() -> Any:
    """``--player``, repeatable: the players of an experiment."""
    return typer.Option(None, "--player", help="a player, e.g. lookahead:depth=3 (repeatable; see `castle players`)",
                        show_default=False)


def player(help: str = "player and parameters, e.g. greedy or lookahead:depth=3 (see `castle players`) [default: random]") -> Any:
    """``--player``, one: who plays a game."""
    return typer.Option(None, "--player", help=help, show_default=False)


def deals() -> Any:
    """``--deals N``: deals 1 to N (as the study's files and PySol's game numbers count them)."""
    return typer.Option(None, "--deals", help="play deals 1 to N (the study's numbering, as PySol's; deal 0 through "
                        "--deal-range 0:N)", show_default=False)


def deal_range() -> Any:
    """``--deal-range A:B``: deals A to B-1, as an experiment file's ``deal_range``."""
    return typer.Option(None, "--deal-range", help="play deals A to B-1, given as A:B (END excluded)", show_default=False)


def as_json(help: str = "JSON (one line per deal or board) instead of text") -> Any:
    """``--json``: what the command prints, as JSON."""
    return typer.Option(False, "--json", help=help)


def boards() -> Any:
    """``--board``, a switch: the command's arguments are board files, folders or ``-`` (:mod:`.boards` reads them)."""
    return typer.Option(False, "--board", help="the arguments are board files, folders or -, not deals")
