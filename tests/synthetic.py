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


def write_dataset(root: Path, deals: int = 400, games=GAMES, players=("random", "greedy"), solver: bool = True) -> Path:
    rng = np.random.default_rng(7)
    ease = rng.random(deals)  # one hidden difficulty per deal, shared by the games: pairs correlate
    game_p = {"selective-castle": 0.75, "streets-and-alleys": 0.5, "beleaguered-castle": 0.68}
    player_p = {"random": 0.05, "greedy": 0.6, "solver": 1.0}
    row_schema = schema(SOLVER.extra_columns)
    for name in games:
        game, _, dialect = name.partition("@")  # a dialect plays its sheet's deals as easily (as supermoves do)
        for player in players + (("solver",) if solver else ()):
            won = ease < game_p[game] * player_p[player]
            if player == "solver":
                result = np.where(won, "won", np.where(rng.random(deals) < 0.02, "unknown", "lost"))
            else:
                result = np.where(won, "won", np.where(rng.random(deals) < 0.5, "stuck", "gave_up"))
            columns = {
                "game": [game] * deals, "player": [player] * deals, "player_params": ["{}"] * deals,
                "seed": np.zeros(deals, np.int64), "deal": np.arange(deals, dtype=np.int64), "result": result.tolist(),
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
            table = pa.table({f.name: pa.array(columns.get(f.name, [None] * deals)).cast(f.type) for f in row_schema},
                             schema=row_schema)
            write_atomic(table, root / f"game={name}" / f"player={player}" / f"part-0-{deals - 1}.parquet")
    manifest = {"experiment": {"name": "synthetic", "games": {g: 1 for g in games}}, "finished": "synthetic"}
    (root / MANIFEST).write_text(json.dumps(manifest))
    return root
