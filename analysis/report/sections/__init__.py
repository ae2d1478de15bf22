"""The report's sections, in page order: each a function of the :class:`~analysis.report.model.Report` that returns
a :class:`~analysis.report.model.Section` (its title, its template, what the template draws), or None when its
data is not in the dataset.

A section computes; its template (``templates/<name>.html.j2``, autoescaped) lays out, so the prose changes
without touching the statistics, and the statistics live in ``analysis/``, not here.
"""

from __future__ import annotations

from .about import experiments, players_legend
from .answer import answer
from .difficulty import difficulty
from .effort import effort
from .explain import explain
from .family import dialects, family, hidden_cards
from .mistakes import mistakes
from .perfect_play import containment, deal_by_deal, independent, winnability_table
from .players import across_games, win_rates, within_games
from .precision import precision
from .ratings import ratings
from .replays import replays
from .rungs import cards_home, convergence, ladder_section
from .selective import advice, base_rank

#: the report's sections, in page order (the answer first: it fills the first screen)
SECTIONS = (answer, winnability_table, precision, deal_by_deal, containment, independent, win_rates, across_games, within_games,
            ladder_section, difficulty, ratings, explain, mistakes, base_rank, advice, convergence, cards_home, effort, family, hidden_cards, dialects, replays,
            players_legend, experiments)
