"""The study's conventions, said once: how an unknown verdict counts, which interval, how strata are weighted, how the
ladder's rungs are ordered. The README prints :data:`TEXT` above its results and the report in its closing section
(``tests/test_readme.py`` checks both); the code that follows each sentence is named beside it here."""

from __future__ import annotations

TEXT = (
    # analysis.stats.rate_interval, analysis.stats.paired_both_ways
    "Every figure here follows these. Unknowns: a deal the solver left unknown counts both ways, everywhere. A share's "
    "estimate is the midpoint between every unknown lost and every unknown won, and its interval runs from the lower "
    "bound with every unknown lost to the upper bound with every unknown won (Blake & Gent's outer bounds). A paired "
    "difference A − B runs from the lower bound of its paired interval with A's unknowns lost and B's won to the upper "
    "bound with A's unknowns won and B's lost; its estimate is the midpoint of those two differences. "
    # analysis.stats.wilson, newcombe_paired; analysis.designs.quantile, combine; analysis.solvitaire
    "Intervals are 95%: a share's is Wilson's score interval (as Blake & Gent's); a paired difference's is Newcombe's "
    "hybrid score interval (his method 10, made of Wilson's); a stratified estimate's (the solver in phases, and a "
    "game's runs on disjoint deals joined) is the estimate plus or minus Student's t quantile at Satterthwaite's "
    "degrees of freedom times its standard error, each bound with its own side's (the normal 1.96 once every part of "
    "the variance rests on thousands of deals, above it when the deepest phase holds few); a rank correlation's is "
    "Fisher's z; a test against a published figure is a z-test. "
    # analysis.designs.phased_mean
    "Strata: the solver in phases weights each stratum by its realised share of the deals (those a phase settled and "
    "those it left unsettled, as counted), the unsettled stratum's win share being the mean of the random subsample "
    "that went on. Every deal plays the first phase, so these shares are known exactly; using them removes the noise "
    "of how many deals the draw happened to take, which weighting each deal by the inverse of its nominal rate would "
    "add. Runs of a game on disjoint deals are strata weighted by their deals. "
    # analysis.ladder.strength, order
    "The ladder: a game's rungs are ordered weakest first by the share of the solver's winnable deals each wins, among "
    "the deals every rung of that game played, ties broken by mean CPU a deal on the same rows (never by CPU alone, "
    "which the machine's load moves); a table across games orders them by that share over all the games. A deal's "
    "difficulty is the weakest rung that wins it, by its own game's order."
)

#: the ladder's rule in a few words, for a table's header
LADDER_RULE = "weakest first: by the share of the solver's winnable deals won on these deals, ties by CPU"
