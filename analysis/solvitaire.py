"""Our winnability against Blake & Gent's Solvitaire, stated as a test, with what makes the two comparable.

The test: the difference of the two estimates (ours minus theirs, each the midpoint with its unknowns counted both
ways), its 95% interval (the outer bounds: our unknowns lost and theirs won at the low end, the other way at the
high end, widened by 1.96 standard errors of the difference), its z-score on the two sampling standard errors, the
two-sided p, and Holm's adjustment over the games compared. How far the unknowns of both could move the difference
is said beside it: half of each unknown share, added.

What has to hold for the difference to mean anything: the same rules (:data:`PRESETS`, Solvitaire's presets as the
fields of our rule record they fix, checked by :func:`preset_differences`), deals drawn uniformly on both sides
(ours: ``tests/test_deals.py``), and verdicts that agree with another solver (``benchmarks/fcsolve_lost.py``).
"""

from __future__ import annotations

import math

import pandas as pd
from scipy.stats import norm
from statsmodels.stats.multitest import multipletests

from sim.core.rules import EmptyPile, FoundationBase, SequenceMoves, TableauDirection, TableauSuit, find_game

from .designs import Z  # (the 95% normal quantile: one definition)
from .games import BELEAGUERED, STREETS, name
from .winnability import PUBLISHED, PUBLISHED_DEALS, PUBLISHED_EFFORT


#: Solvitaire's presets for the two games it published (its ``sol_preset_types.cpp``: the ``default`` preset, with
#: 8 tableau piles built regardless of suit, and the foundations' initial cards), as our rule record's fields: what
#: each setting says, the field, and the value it fixes
_COMMON = (("8 tableau piles, no reserve", "n_tableau", 8), ("no cells, stock or reserve", "reserves", 0),
           ("build policy any-suit", "tableau_suit", TableauSuit.ANY), ("build order descending", "tableau_direction",
           TableauDirection.DOWN), ("max rank 13, no wrap", "tableau_wrap", False),
           ("spaces policy any", "empty_pile", EmptyPile.ANY_CARD), ("move built group no", "sequence_moves", SequenceMoves.ONE_CARD),
           ("foundations' base card A", "foundation_base", FoundationBase.ACE), ("foundations never wrap", "foundation_wrap", False),
           ("foundations removable false", "foundation_to_tableau", False), ("every foundation open", "foundations_one_at_a_time", False))
PRESETS = {
    BELEAGUERED: _COMMON + (("foundations' initial cards all (the Aces)", "aces_preplaced", True),
                            ("48 cards dealt to the 8 piles", "pile_sizes", (6,) * 8)),
    STREETS: _COMMON + (("foundations' initial cards none", "aces_preplaced", False),
                        ("52 cards dealt to the 8 piles", "pile_sizes", (7, 7, 7, 7, 6, 6, 6, 6))),
}


def preset_differences(game: str) -> list[str]:
    """The settings of Solvitaire's preset for ``game`` our rule record does not share (none: the same game)."""
    rules = find_game(game)
    return [words for words, field, value in PRESETS[game] if getattr(rules, field) != value]


def preset_words() -> str:
    """Solvitaire's presets in words, as their settings read: the settings both share, then each game's own."""
    own = "; ".join(f"{name(g)}: " + ", ".join(w for w, _, _ in PRESETS[g][len(_COMMON):]) for g in PRESETS)
    return "both: " + ", ".join(w for w, _, _ in _COMMON) + "; " + own


def against(estimates: dict) -> pd.DataFrame:
    """Per game Solvitaire published (with an estimate of ours, :class:`analysis.designs.Estimate`): the test of ours
    minus theirs, in fractions (points are 100 times these)."""
    rows = []
    for game, (mid, half) in PUBLISHED.items():
        e = estimates.get(game)
        if e is None:
            continue
        theirs, their_unknown = mid / 100, PUBLISHED_EFFORT[game][0] / 100
        their_se = (half / 100 - their_unknown / 2) / Z  # their half-width less their unknowns' part: sampling alone
        our_se = max(math.sqrt(sum(c for c, _ in e.side(won))) for won in (False, True))
        se = math.hypot(our_se, their_se)
        diff = e.estimate - theirs
        moved = (e.unknown + their_unknown) / 2  # every unknown of both resolved the one way or the other
        z = diff / se
        rows.append({"game": game, "ours": e.estimate, "lo": e.lo, "hi": e.hi, "deals": e.deals, "theirs": theirs,
                     "their_half": half / 100, "their_deals": PUBLISHED_DEALS, "diff": diff, "diff_low": diff - moved - Z * se,
                     "diff_high": diff + moved + Z * se, "se": se, "z": z, "p": float(2 * norm.sf(abs(z))), "moved": moved,
                     "z_low": (diff - moved) / se, "z_high": (diff + moved) / se, "differences": preset_differences(game)})
    out = pd.DataFrame(rows)
    if len(out):
        out["p_holm"] = multipletests(out.p, method="holm")[1]
    return out


#: the seed of the random sample of lost verdicts checked against fc-solve (``benchmarks/fcsolve_lost.py``)
LOST_SAMPLE_SEED = 51


def lost_sample(rows: pd.DataFrame, game: str, n: int, seed: int = LOST_SAMPLE_SEED) -> pd.DataFrame:
    """``n`` of ``game``'s deals its exact runs (``rows``) proved lost, drawn uniformly at random with ``seed`` from
    all of them sorted by (seed, deal): a sample anyone can draw again (columns seed, deal)."""
    import numpy as np

    from .ladder import one_verdict

    v = one_verdict(rows[rows.game == game], ["seed", "deal"])
    lost = v[v.verdict == "lost"].sort_values(["seed", "deal"], ignore_index=True)
    pick = np.sort(np.random.default_rng(seed).choice(len(lost), size=min(n, len(lost)), replace=False))
    return lost.iloc[pick][["seed", "deal"]].reset_index(drop=True)
