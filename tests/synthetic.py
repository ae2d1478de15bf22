"""A small synthetic result dataset in the runner's layout, for analysis tests.

Rows follow the runner's schema; wins are drawn so that Selective Castle is
easier than Streets and Alleys on the same deals, which the tests then find.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

GAMES = ("selective-castle", "streets-and-alleys", "beleaguered-castle")


def write_dataset(root: Path, deals: int = 400, games=GAMES, players=("random", "greedy"), solver: bool = True) -> Path:
    rng = np.random.default_rng(7)
    ease = rng.random(deals)  # one hidden difficulty per deal, shared by the games: pairs correlate
    game_p = {"selective-castle": 0.75, "streets-and-alleys": 0.5, "beleaguered-castle": 0.68}
    player_p = {"random": 0.05, "greedy": 0.6, "solver": 1.0}
    for game in games:
        for player in players + (("solver",) if solver else ()):
            p = game_p[game] * player_p[player]
            won = ease < p
            result = np.where(won, "won", np.where(rng.random(deals) < 0.5, "stuck", "gave_up"))
            if player == "solver":
                result = np.where(won, "won", np.where(rng.random(deals) < 0.02, "unknown", "lost"))
            df = pd.DataFrame({
                "player_params": "{}", "seed": 0, "deal": np.arange(deals, dtype=np.int64), "result": result,
                "won": won, "moves": rng.integers(40, 300, deals), "cards_home": np.where(won, 52, rng.integers(0, 40, deals)),
                "base_rank": pd.array(rng.integers(0, 13, deals) if game == "selective-castle" else [None] * deals, dtype="Int8"),
                "max_empty_piles": rng.integers(0, 4, deals), "positions": rng.integers(40, 900, deals),
                "elapsed_us": rng.integers(10, 1000, deals), "rules_version": 1, "engine_version": 1,
            })
            if player == "solver":
                df["nodes"] = rng.integers(100, 10**6, deals)
                if game == "selective-castle":
                    df["bases_won"] = np.where(won, rng.integers(1, 2**13, deals), 0)
            folder = root / f"game={game}" / f"player={player}"
            folder.mkdir(parents=True, exist_ok=True)
            pq.write_table(pa.Table.from_pandas(df, preserve_index=False), folder / f"part-0-{deals - 1}.parquet")
    (root / "manifest.json").write_text(json.dumps({"name": "synthetic", "games": list(games), "players": list(players)}))
    return root
