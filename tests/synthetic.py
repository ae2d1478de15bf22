"""A small synthetic result dataset in the runner's layout and schema, for analysis tests.

Rows follow the row schema the runner writes (:func:`sim.study.dataset.schema`,
every column of :data:`sim.players.record.COLUMNS` plus the solver's), so a
column added there is a column here. Wins are drawn so that Selective Castle
is easier than Streets and Alleys on the same deals, which the tests then find.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa

from sim.core.rules import STUDY_GAMES
from sim.players.builtin import SOLVER
from sim.study.dataset import MANIFEST, schema, write_atomic

GAMES = tuple(g.slug for g in STUDY_GAMES)


def write_dataset(root: Path, deals: int = 400, games=GAMES, players=("random", "greedy"), solver: bool = True,
                  judged: bool = False, seed: int = 0) -> Path:
    """A dataset of ``players`` (and the solver) on ``deals`` deals of ``games``; with ``judged``, also the rows of the
    players that judge deals (``corridor``: a difficulty index per winnable deal; ``mistakes``: the rungs' first
    mistakes) and of the solver in phases (``phased``) on the next deals. ``seed``: the deals' numbering (-1: PySol's)."""
    rng = np.random.default_rng(7 + (seed != 0))
    ease = rng.random(deals)  # one hidden difficulty per deal, shared by the games: pairs correlate
    game_p = {"selective-castle": 0.75, "streets-and-alleys": 0.5, "beleaguered-castle": 0.68, "citadel": 0.86}
    player_p = {"random": 0.05, "greedy": 0.6, "solver": 1.0}
    row_schema = schema(SOLVER.extra_columns)
    for name in games:
        game, _, dialect = name.partition("@")  # a dialect plays its sheet's deals as easily (as supermoves do)
        for player in players + (("solver",) if solver else ()):
            won = ease < game_p[game] * player_p.get(player, 0.3)
            if player == "solver":
                result = np.where(won, "won", np.where(rng.random(deals) < 0.02, "unknown", "lost"))
            else:
                result = np.where(won, "won", np.where(rng.random(deals) < 0.5, "stuck", "gave_up"))
            columns = {
                "game": [game] * deals, "player": [player] * deals, "player_params": ["{}"] * deals,
                "seed": np.full(deals, seed, np.int64), "deal": np.arange(deals, dtype=np.int64) + (seed == -1), "result": result.tolist(),
                "won": won, "moves": rng.integers(40, 300, deals), "cards_home": np.where(won, 52, rng.integers(0, 40, deals)),
                "base_rank": rng.integers(0, 13, deals) if game == "selective-castle" else [None] * deals,
                "max_empty_piles": rng.integers(0, 4, deals), "positions": rng.integers(40, 900, deals),
                "elapsed_us": rng.integers(10, 1000, deals), "cpu_us": rng.integers(10, 1000, deals),
                "dialect": [dialect or "sheet"] * deals, "rules_version": np.ones(deals), "engine_version": np.ones(deals),
                "player_version": np.ones(deals),
            }
            if player == "solver":
                columns["nodes"] = rng.integers(100, 10**6, deals)
                if game == "selective-castle":
                    columns["bases_won"] = np.where(won, rng.integers(1, 2**13, deals), 0)
            columns = _consistent(columns)
            table = pa.table({f.name: pa.array(columns.get(f.name, [None] * deals)).cast(f.type) for f in row_schema},
                             schema=row_schema)
            write_atomic(table, root / f"game={name}" / f"player={player}" / f"part-{int(seed == -1)}-{deals - 1 + (seed == -1)}.parquet")
    if judged:
        _judged(root, rng, deals, games, ease, game_p, seed)
    manifest = {"experiment": {"name": "synthetic", "games": {g: 1 for g in games}, **({"seed": seed} if seed else {})},
                "finished": "synthetic"}
    (root / MANIFEST).write_text(json.dumps(manifest))
    return root


def _consistent(columns: dict) -> dict:
    """The drawn columns made to agree as a played row's do (sim/study/values.py refuses any other): ``won`` exactly
    when ``result`` is won, 52 cards home exactly then, at most one position more than the moves."""
    won = np.asarray(columns["result"]) == "won"
    moves = np.asarray(columns["moves"])
    home = np.asarray(columns["cards_home"])
    return {**columns, "won": won, "cards_home": np.where(won, 52, np.minimum(home, 51)),
            "positions": np.minimum(np.asarray(columns["positions"]), moves + 1)}


def _judged(root: Path, rng, deals: int, games, ease, game_p, seed: int = 0) -> None:
    """The corridor, mistakes and phased players' rows (their own columns filled as those players fill them), and the
    settle player's on the phased deals left unknown at the last phase; on ``seed``'s deals (PySol's from 1)."""
    from sim.players.builtin import CORRIDOR, MISTAKES, PHASED, SETTLE
    from sim.solver.mistakes import KINDS, RUNGS

    shift = int(seed == -1)
    for name in games:
        game = name.partition("@")[0]
        won = ease < game_p[game]
        base = {"game": [game] * deals, "player_params": ["{}"] * deals, "seed": np.full(deals, seed, np.int64),
                "deal": np.arange(deals, dtype=np.int64) + shift, "result": np.where(won, "won", "lost").tolist(), "won": won,
                "moves": rng.integers(80, 300, deals), "cards_home": np.where(won, 52, 0), "base_rank": [None] * deals,
                "max_empty_piles": rng.integers(0, 4, deals), "positions": rng.integers(80, 300, deals),
                "elapsed_us": rng.integers(10**4, 10**6, deals), "cpu_us": rng.integers(10**4, 10**6, deals),
                "dialect": ["sheet"] * deals, "rules_version": np.ones(deals), "engine_version": np.ones(deals),
                "player_version": np.ones(deals), "nodes": rng.integers(100, 10**6, deals)}
        hard = (ease / game_p[game]) * 20 + rng.random(deals) * 5  # the harder the deal, the higher its index
        corridor = {**base, "player": ["corridor"] * deals, "difficulty": np.where(won, hard, np.nan),
                    "decisions": np.where(won, rng.integers(50, 200, deals), -1), "critical": np.where(won, rng.integers(0, 5, deals), -1),
                    "questions": rng.integers(500, 2000, deals), "searched": rng.integers(10, 100, deals),
                    "unknown_moves": rng.integers(0, 2, deals), "question_nodes": np.full(deals, 2_000_000)}
        corridor["decisions"] = [None if d < 0 else int(d) for d in corridor["decisions"]]
        corridor["critical"] = [None if d < 0 else int(d) for d in corridor["critical"]]
        corridor["difficulty"] = [None if d != d else float(d) for d in corridor["difficulty"]]  # (null, as the corridor writes)
        reviews = []
        for k in range(deals):
            rows = []
            for i, rung in enumerate(RUNGS):
                wins = bool(won[k] and ease[k] < game_p[game] * (i + 1) / len(RUNGS))
                row = {"rung": rung, "won": wins}
                if won[k] and not wins:
                    row.update(first_mistake=int(rng.integers(1, 40)), cards_home=int(rng.integers(0, 20)), moves=60,
                               kind=KINDS[int(rng.integers(0, len(KINDS)))], keeping=int(rng.integers(1, 6)), unresolved=None)
                rows.append(row)
            reviews.append(json.dumps(rows))
        mistakes = {**base, "player": ["mistakes"] * deals, "review": reviews}
        phase = np.where(rng.random(deals) < 0.8, 1, np.where(rng.random(deals) < 0.5, 2, 3))
        left = (phase < 3) & (rng.random(deals) < 0.5) & (phase > 1)
        phased = {**base, "player": ["phased"] * deals, "deal": np.arange(deals, 2 * deals, dtype=np.int64) + shift,
                  "player_params": [json.dumps({"middle": 2_000_000})] * deals, "phase": phase, "left": left,
                  "result": np.where(left, "unknown", base["result"]).tolist()}
        # a few deals unknown at the last phase, solved again by the settle player (its own generator: the other
        # columns stay as they were)
        again = np.flatnonzero((phase == 3) & ~left & (np.random.default_rng(99).random(deals) < 0.5))
        phased["result"] = [("unknown" if k in set(again) else r) for k, r in enumerate(phased["result"])]
        n = len(again)
        settle = {key: [v[k] for k in again] if isinstance(v, list) else v[again] for key, v in phased.items()}
        settle |= {"player": ["settle"] * n, "player_params": ["{}"] * n, "result": (["won", "lost", "unknown"] * n)[:n],
                   "phase": None, "left": None}
        for spec, cols, n_rows in ((CORRIDOR, corridor, deals), (MISTAKES, mistakes, deals), (PHASED, phased, deals),
                                   (SETTLE, settle, n)):
            if not n_rows:
                continue
            row_schema = schema(spec.extra_columns)
            cols = _consistent(cols)
            table = pa.table({f.name: pa.array(cols.get(f.name) if cols.get(f.name) is not None else [None] * n_rows).cast(f.type)
                              for f in row_schema}, schema=row_schema)
            first, last = (shift, deals - 1 + shift) if spec is not SETTLE else (int(cols["deal"].min()), int(cols["deal"].max()))
            write_atomic(table, root / f"game={name}" / f"player={spec.name}" / f"part-{first}-{last}.parquet")
