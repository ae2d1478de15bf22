"""What every section reads: the rows, the manifests, and the few results several sections share.

Shared results are cached properties computed on first use, so a section
never depends on another having run before it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Callable

import pandas as pd

from .. import compare, designs, ladder, picks, plots, stats, winnability
from ..labels import short_names
from ..load import unfinished
from ..scan import CheapRows
from .page import Artifacts


@dataclass
class Section:
    """One part of the page: its heading, its template (a file of ``templates/``) and what the template draws.

    ``source``: the template's text itself, instead of a file (a section made outside this package).
    """

    title: str
    template: str = ""
    context: dict = field(default_factory=dict)
    source: str = ""
    anchor: str = ""
    incomplete: list[str] = field(default_factory=list)  #: unfinished experiments whose rows this section uses
    html: str = ""  #: the rendered template (set when the page is made)


@dataclass
class Report:
    """The dataset and what is made of it once.

    ``df`` holds the judged rows whole (the solver's, the solver in phases', the corridor's, the mistake
    finder's: seconds of search each, so few); ``cheap`` the heuristic players' rows where they lie, asked
    only for aggregates (:mod:`analysis.scan`), so a report of millions of games takes no more memory than
    one of thousands.
    """

    df: pd.DataFrame
    manifests: dict[str, dict]
    data: Path
    out: Artifacts
    reference: pd.DataFrame | None = None  #: solver rows of the shipped study (used for games this dataset did not solve)
    reference_name: str = ""
    replay: Callable | None = None  #: writes a replay page: (game, deal, player, path) -> None
    games: list[str] = field(default_factory=list)  #: the games here, the study's first
    players: list[str] = field(default_factory=list)  #: the heuristic players here, weakest first
    cheap: CheapRows | None = None  #: the heuristic players' rows (None: ``df`` holds every row, as a notebook's frame)

    # ---- rows -------------------------------------------------------------------------------------------------

    @cached_property
    def solver(self) -> pd.DataFrame:
        """The solver's rows (any ``solver`` label)."""
        return self.df[stats.solver_mask(self.df.player)]

    @cached_property
    def held(self) -> pd.DataFrame:
        """Each (game, heuristic player) held: its games, wins and CPU (microseconds)."""
        return self.cheap.pairs()

    def solver_rows(self, game: str) -> tuple[pd.DataFrame, str]:
        """The solver's rows of ``game``: this dataset's, else the shipped study's; and where they come from."""
        own = self.solver[self.solver.game == game]
        if len(own) or self.reference is None:
            return own, "this dataset"
        ref = self.reference[self.reference.game == game]
        return ref[stats.solver_mask(ref.player)], self.reference_name

    @cached_property
    def exact(self) -> pd.Series:
        """Which rows of ``df`` are exact runs (:func:`analysis.designs.exact_mask`): asked once, not per game."""
        return designs.exact_mask(self.df.player)

    def exact_rows(self, game: str) -> tuple[pd.DataFrame, str]:
        """Every exact run of ``game`` (the solver's and the solver in phases'): this dataset's, else the shipped
        study's; and where they come from."""
        own = self.df[(self.df.game == game) & self.exact]
        if len(own) or self.reference is None:
            return own, "this dataset"
        return self.reference[self.reference.game == game], self.reference_name

    @cached_property
    def estimates(self) -> dict[str, designs.Estimate]:
        """Each game's winnability over all its exact runs, each in its design (:func:`analysis.designs.perfect_play`):
        the numbers the answer, the README and ``castle summary`` give."""
        out = {}
        for game in self.games:
            rows, _ = self.exact_rows(game)
            if len(rows) and (e := designs.perfect_play(rows, game)) is not None:
                out[game] = e
        return out

    @cached_property
    def perfect(self) -> pd.DataFrame:
        """The solver's rows of every game here: this dataset's, and the shipped study's for the games it did not solve."""
        frames = [self.solver_rows(g)[0] for g in self.games]
        frames = [f for f in frames if len(f)]
        return pd.concat(frames, ignore_index=True) if frames else self.solver

    @cached_property
    def verdicts(self) -> pd.DataFrame:
        """One verdict per solved deal, every solver run of it combined (:func:`analysis.ladder.verdicts`)."""
        return ladder.verdicts(self.perfect)

    # ---- players ----------------------------------------------------------------------------------------------

    @cached_property
    def rungs(self) -> list[str]:
        """The players the answer shows (:func:`analysis.compare.headline_players`), weakest first."""
        return compare.headline_players(self.held, self.players)

    @cached_property
    def names(self) -> dict[str, str]:
        """Every player label's short name in tables and figures (the legend at the end maps them back)."""
        labels = (list(self.df.player.unique()) + list(self.held.player.unique())
                  + (list(self.reference.player.unique()) if self.reference is not None else []))
        return short_names(list(dict.fromkeys(labels))) | {compare.PERFECT: compare.PERFECT}

    def name(self, player: str) -> str:
        return self.names.get(player, player)

    @cached_property
    def colours(self) -> dict[str, str]:
        """A player's colour in every figure (:mod:`analysis.palette`): the rungs first, as the notebooks take them,
        then the variants of one game's experiments (the advice's)."""
        return plots.player_colours(self.rungs, [p for p in self.players if p not in self.rungs])

    # ---- shared results ---------------------------------------------------------------------------------------

    @cached_property
    def rates(self) -> pd.DataFrame:
        """Win rates of every player per game, and perfect play (on all its deals, and on the rungs' deals)."""
        return compare.rates(self.cheap, self.perfect, self.rungs)

    @cached_property
    def game_pairs(self) -> pd.DataFrame:
        """Selective Castle minus the other games of the study, per rung and under perfect play."""
        return compare.game_pairs(self.cheap, self.perfect, self.rungs)

    @cached_property
    def ladder_games(self) -> list[str]:
        """The games two rungs or more played (a dialect one player played has no ladder)."""
        h = self.held[self.held.player.isin(self.rungs)]
        played = h.groupby("game").player.nunique()
        return [g for g in self.games if played.get(g, 0) >= 2]

    @cached_property
    def ladder_pick(self) -> picks.Pick:
        """The rungs' rows in :attr:`ladder_games`."""
        return picks.pick(self.ladder_games, self.rungs)

    @cached_property
    def ladder_strength(self) -> pd.DataFrame:
        """Each rung's strength in each ladder game, on the deals every rung of it played (:func:`analysis.ladder.strength`)."""
        return ladder.strength(self.cheap, self.verdicts, self.ladder_games, self.rungs)

    @cached_property
    def ladder_order(self) -> list[str]:
        """The rungs of the ladder, weakest first across its games (:func:`analysis.ladder.order`)."""
        return ladder.order(self.ladder_strength)

    def game_order(self, game: str) -> list[str]:
        """The rungs that played ``game``, weakest first by their strength in it: what a deal's difficulty there uses."""
        return ladder.order(self.ladder_strength, game)

    @cached_property
    def difficulty(self) -> pd.DataFrame:
        """Per game, how many deals every rung of it played have each weakest winning rung
        (:func:`analysis.ladder.difficulty_by_rung`, counted where the rows lie): game, difficulty, n."""
        frames = []
        if len(self.ladder_order) >= 2:
            for game in self.ladder_games:
                c = self.cheap.cheapest_rung(game, self.game_order(game), self.verdicts)
                frames.append(c.assign(game=game))
        if not frames:
            return pd.DataFrame(columns=["game", "difficulty", "n"])
        return pd.concat(frames, ignore_index=True)[["game", "difficulty", "n"]]

    def difficulty_pairs(self, a: str, b: str) -> pd.DataFrame:
        """The same deals' weakest winning rung in games ``a`` (rows) and ``b`` (columns), each by its own order, counted."""
        counted = self.cheap.cheapest_rung(a, self.game_order(a), self.verdicts, pair_with=(b, self.game_order(b)))
        return ladder.paired_difficulty_of_counts(counted, self.ladder_order, a, b)

    @cached_property
    def solver_only(self) -> pd.DataFrame:
        """The deals every rung of their game played and lost and the solver won (game, seed, deal)."""
        frames = []
        won = self.verdicts[self.verdicts.verdict == "won"]
        if len(self.ladder_order) >= 2:
            for game in self.ladder_games:
                d = self.cheap.cheapest_rung(game, self.game_order(game), self.verdicts, keys=won[won.game == game])
                frames.append(d[d.difficulty == stats.SOLVER_ONLY].assign(game=game))
        frames = [f for f in frames if len(f)]
        if not frames:
            return pd.DataFrame(columns=["game", "seed", "deal", "difficulty"])
        out = pd.concat(frames, ignore_index=True)[["game", "seed", "deal", "difficulty"]]
        return out.sort_values(["game", "seed", "deal"], ignore_index=True)

    @cached_property
    def perfect_pairs(self) -> list[tuple[str, str, winnability.PerfectPlayPair]]:
        """The study's games compared under perfect play, deal by deal, where both were solved."""
        from ..games import BELEAGUERED, SELECTIVE, STREETS

        pairs = [(SELECTIVE, STREETS), (SELECTIVE, BELEAGUERED), (STREETS, BELEAGUERED)]
        return [(a, b, pp) for a, b in pairs if (pp := winnability.perfect_play_pair(self.solver, a, b)) is not None]

    @property
    def published(self) -> dict[str, str]:
        """A game's published winnability, in words (Blake & Gent's Solvitaire)."""
        return {g: f"Solvitaire {p:.2f}% ± {h:.2f} (2,000,000 deals)" for g, (p, h) in winnability.PUBLISHED.items()}

    # ---- completeness -----------------------------------------------------------------------------------------

    @cached_property
    def unfinished(self) -> dict[str, tuple[int, int]]:
        """Experiment folder -> (games it holds, games its experiment plays), for each run that has not finished."""
        return {label: (have, expected) for label, have, expected in unfinished(self.df, self.manifests)}

    def incomplete(self, rows: pd.DataFrame | None = None, cheap: picks.Pick | None = None) -> list[str]:
        """A line for each unfinished experiment whose rows change what ``rows`` (judged rows) and ``cheap`` (a pick
        of the heuristic players' rows) say: one that holds deals (of a game and player) no finished experiment
        among them holds too. Said where the numbers are used."""
        if not self.unfinished:
            return []
        rows = rows if rows is not None and "dataset" in rows.columns else self.df.iloc[:0]
        held = set(rows.dataset.unique()) | (self.cheap.held_by(cheap) if cheap is not None else set())
        lines = []
        for label, (have, expected) in self.unfinished.items():
            if label not in held:
                continue
            if not self._adds(rows, label) and not (cheap is not None and self.cheap.not_elsewhere(
                    label, [d for d in held if d not in self.unfinished], cheap, ["game", "player", "seed", "deal"])):
                continue  # every one of its games is also in a finished experiment
            lines.append(f"{label} holds {have:,} of {expected:,} games of its experiment: its numbers here are of the games "
                         f"played so far (rerun the experiment to resume it)")
        return lines

    def _adds(self, rows: pd.DataFrame, label: str) -> bool:
        """Do the judged ``rows`` of dataset ``label`` hold a deal no finished experiment among them holds?"""
        mine = rows[rows.dataset == label]
        if mine.empty:
            return False
        others = rows[~rows.dataset.isin(self.unfinished)]
        key = ["game", "player", "seed", "deal"] if not stats.solver_mask(mine.player).all() else ["game", "seed", "deal"]
        return len(mine.merge(others[key].drop_duplicates(), on=key)) != len(mine)

    def running(self, rows: pd.DataFrame | None = None, cheap: picks.Pick | None = None) -> list[str]:
        """:meth:`incomplete` in a few words each (``precision-streets: 4,000 of 590,000 games so far``)."""
        return [f"{line.split(' holds ')[0]}: {line.split(' holds ')[1].split(' games')[0]} games so far"
                for line in self.incomplete(rows, cheap)]
