"""The built-in players: one spec each, with its parameters and defaults.

A compiled player names its decision kernel (:mod:`sim.kernels.players`);
this module loads none of them, so ``castle players`` lists the ladder
without compiling anything. Adding a compiled player: its decision in
:mod:`sim.kernels.players` (a kind and a line in ``decide``), a field for
each new parameter in the parameter record (:mod:`sim.kernels.params`, one
line each; the kernels read it by name), and a spec here.
"""

from __future__ import annotations

from dataclasses import replace

from ..core.limits import DEFAULT_BUDGET_NODES, DEFAULT_BUDGET_SECONDS, DEFAULT_TABLE_SIZE, check_limits
from .spec import EXACT, JUDGE, MAX_MOVES_PARAM, Param, PlayerSpec

#: the evaluation's weights (:func:`sim.kernels.evaluate.evaluate`), shared by every player that scores positions
EVAL_PARAMS = (
    Param("home", 10.0, "score per card on the foundations"),
    Param("empty", 3.0, "score per empty tableau pile"),
    Param("dig", 1.0, "penalty per card above each suit's next needed card"),
    Param("block", 1.0, "penalty per card lying above a card needed before it"),
    Param("seq", 0.5, "score per card resting on a card it could be built on"),
    Param("mobility", 0.5, "score per legal move (up to 16); a position without one scores -1e6 (0: neither, and no move generation)"),
    Param("last", 0.0, "penalty per card under a card of the rank below the base (Kings where the base is the Ace): it goes home last"),
)


def _check_depth(params: dict) -> str | None:
    from ..kernels.players import MAX_SEARCH_DEPTH  # (only when a player is chosen: listing loads no kernel)

    if not 1 <= params["depth"] <= MAX_SEARCH_DEPTH:
        return f"depth must be 1 to {MAX_SEARCH_DEPTH}, got {params['depth']}"
    return None


def _check_solver(params: dict) -> str | None:
    return check_limits(params["budget_nodes"], params["budget_seconds"], params["table_size"])


RANDOM = PlayerSpec("random", "Uniform random legal move: the floor every other player must beat.", kernel="random", salt=1)


def _searching(name: str, summary: str, depth: int, depth_help: str, salt: int) -> PlayerSpec:
    """Greedy and lookahead: the same kernel and parameters, different default depths and streams."""
    return PlayerSpec(
        name,
        summary,
        EVAL_PARAMS + (
            Param("depth", depth, depth_help),
            Param("width", 0, "children searched per position, best first (0: all)", lo=0),
        ),
        kernel="greedy",
        salt=salt,
        check=_check_depth,
    )


GREEDY = _searching("greedy", "A foundation move whenever one exists, else the best-scoring move to an unseen position.",
                    1, "moves searched ahead (1: one move; more: as lookahead)", 2)
LOOKAHEAD = _searching("lookahead", "Greedy's score searched several moves ahead (depth; width: only the best children).",
                       3, "moves searched ahead", 3)

def with_defaults(params: tuple[Param, ...], **defaults: float) -> tuple[Param, ...]:
    """``params`` with some defaults changed (a player that weighs the same terms differently)."""
    unknown = set(defaults) - {p.name for p in params}
    assert not unknown, unknown
    return tuple(replace(p, default=type(p.default)(defaults[p.name])) if p.name in defaults else p for p in params)


_BASE_HELP = "how the base rank is chosen (Selective Castle): 1 from the whole board (its four cards shallowest), 0 the first card founded, 2 at random"

STRATEGIST = PlayerSpec(
    "strategist",
    "The rule sheet's human advice: chosen base, even banking, the wrap, the rank below the base, empty piles kept.",
    with_defaults(EVAL_PARAMS, last=1.0) + (
        Param("balance", 1.0, "penalty per card the leading suit is ahead of the last"),
        Param("wrap", 2.0, "bonus for putting a King on an Ace (games whose tableau wraps)"),
        Param("keep_empty", 2.0, "cost of filling an empty pile with anything but a King without uncovering a card that can then move"),
        Param("even", 1, "1: bank evenly (a card goes home at once only when all four one place lower are home); 0: as soon as it can", lo=0, hi=1),
        Param("choose_base", 1, _BASE_HELP, lo=0, hi=2),
    ),
    kernel="strategist",
    salt=4,
    version=2,
)

MAX_BUDGET = 1_000_000_000
MAX_LEVEL = 3


#: the evaluation's weights for the planning players, tuned for the beam on training deals 1,000,000-1,000,149
#: of each game of the study (``benchmarks/tune_weights.py``): cards home count less, blockers and cards
#: under the last rank more, and no mobility term (it changed no result and cost half of each evaluation)
PLANNING_WEIGHTS = {"home": 5.0, "empty": 3.0, "dig": 1.0, "block": 2.0, "seq": 0.5, "mobility": 0.0, "last": 1.0}


def _planning(name: str, salt: int, summary: str, *own: Param, budget_help: str = "nodes (positions scored) at most per deal; then greedy") -> PlayerSpec:
    """Beam, rollout and nmcs: the evaluation's weights, their own parameters, a node budget per deal, the base aim."""
    return PlayerSpec(
        name,
        summary,
        with_defaults(EVAL_PARAMS, **PLANNING_WEIGHTS) + own + (
            Param("budget", 2_000_000, budget_help, lo=1, hi=MAX_BUDGET),
            Param("choose_base", 1, _BASE_HELP + " (the evaluation aims at it)", lo=0, hi=2),
        ),
        kernel=name,
        salt=salt,
        version=2,
    )


BEAM = _planning(
    "beam", 5,
    "Beam search over the evaluation, each position once; plays the first won line found, else the line to the best position.",
    Param("width", 16, "positions kept per layer (the first beam's)", lo=1, hi=1 << 16),
    Param("grow", 2, "after a beam without a win, another this many times wider while budget is left (1: none)", lo=1, hi=16),
    Param("patience", 50, "a beam stops after this many layers without a new card home", lo=1),
    Param("spread", 0, "children of one position kept in a layer at most, for diversity (0: any number)", lo=0),
    budget_help="nodes (positions scored) at most per deal",
)
ROLLOUT = _planning(
    "rollout", 6,
    "Iterated rollouts: each move to the child whose level-1-lower playout ends best (level 0: greedy).",
    Param("level", 1, "nesting level (1: greedy playouts from every child)", lo=1, hi=MAX_LEVEL),
)
NMCS = _planning(
    "nmcs", 7,
    "Nested Monte-Carlo search over noisy greedy playouts, the best line of each level remembered and followed.",
    Param("level", 1, "nesting level (1: one playout from every child; each level costs about 15 times the one below)", lo=1, hi=MAX_LEVEL),
    Param("noise", 3.0, "playouts add a uniform draw below this to each child's score", lo=0.0),
)

HIDDEN = PlayerSpec(
    "hidden",
    "Cannot see the face-down cards (PySol's Castles in Spain: three under each top card): guesses them, plans each guess with the beam.",
    (
        Param("hidden", 3, "cards dealt face down at the bottom of each pile, under its top card (0: an open deal, the beam's game)", lo=0, hi=51),
        Param("samples", 8, "guesses of the hidden cards planned each time one turns up; the first move most of their plans win with is played", lo=1, hi=1000),
        Param("budget", 250_000, "the beam's nodes at most per guess", lo=1, hi=MAX_BUDGET),
        Param("width", 16, "the beam's width", lo=1, hi=1 << 16),
        MAX_MOVES_PARAM,
    ),
    factory="sim.players.hidden:HiddenCards",
)

SOLVER = PlayerSpec(
    "solver",
    "The exact solver: won (with a replayed solution), lost (proved) or unknown (budget spent).",
    (
        Param("budget_nodes", DEFAULT_BUDGET_NODES, "nodes searched at most per deal"),
        Param("budget_seconds", DEFAULT_BUDGET_SECONDS, "CPU seconds at most per deal"),
        Param("table_size", DEFAULT_TABLE_SIZE, "transposition table capacity (slots; 16 bytes each; all bases together)"),
        Param("bases", 0, "1: solve each base rank of Selective Castle (bases_won, bases_unknown columns)", lo=0, hi=1),
        Param("portfolio", 1, "1: a deal unsettled after a million positions is given to the strongest beam once (its wins replayed)", lo=0, hi=1),
        Param("most_home", 0, "1: also the most cards home of any reachable position (most_home column; no pruning, no portfolio)", lo=0, hi=1),
        Param("dead_end", 0, "1: a position from which no card can ever go home again is proved lost at once (pruning rule 5)", lo=0, hi=1),
    ),
    play_deal="sim.solver.player:play_deal",
    role=EXACT,
    version=2,
    extra_columns=(("nodes", "int64"), ("bases_won", "int16"), ("bases_unknown", "int16"), ("most_home", "int8")),
    check=_check_solver,
)

#: the deep solves' last parameters, the same in settle and phased (a table of 16-byte slots, the portfolio, rule 5)
_DEEP_TAIL = (
    Param("table_size", DEFAULT_TABLE_SIZE, "transposition table capacity (slots; 16 bytes each)"),
    Param("portfolio", 1, "1: a deal unsettled after a million positions is given to the strongest beam once", lo=0, hi=1),
    Param("dead_end", 1, "1: pruning rule 5 (a position from which no card can go home again is lost)", lo=0, hi=1),
)

SETTLE = PlayerSpec(
    "settle",
    "The solver again, deeper, on the deals other exact runs left unknown (an experiment's unknowns_of): each verdict "
    "it finds replaces that unknown in the game's winnability (analysis/designs.py); not a player of its own.",
    (
        Param("budget_nodes", 1_000_000_000, "nodes searched at most per deal"),
        Param("budget_seconds", 7200.0, "CPU seconds at most per deal (a guard: the positions bind first)"),
        *_DEEP_TAIL,
    ),
    play_deal="sim.solver.player:settle_deal",
    role=EXACT,
    extra_columns=(("nodes", "int64"),),
    check=_check_solver,
)


def _check_phased(params: dict) -> str | None:
    """The budgets' rule, then the phases': each budget above the one before, the rates shares of deals."""
    first, middle, full = params["first"], params["middle"], params["budget_nodes"]
    if problem := check_limits(full, params["budget_seconds"], params["table_size"]):
        return problem
    if not first < full:
        return f"first ({first}) must be below budget_nodes ({full})"
    if middle and not first < middle < full:
        return f"middle ({middle}) must lie between first ({first}) and budget_nodes ({full}), or be 0"
    for name in ("rate", "rate2"):
        if not 0 < params[name] <= 1:
            return f"{name} must be above 0 and at most 1, not {params[name]}"
    return None


#: the phased player's defaults (kept in sim.solver.phased beside the design they belong to)
_FIRST, _MIDDLE, _RATE, _RATE2 = 50_000, 2_000_000, 0.15, 0.25

PHASED = PlayerSpec(
    "phased",
    "The solver in phases (double sampling): a short budget on every deal, a middle one on a seeded share of the "
    "deals it leaves unsettled, the full one on a share of the rest; for precise winnability at little CPU.",
    (
        Param("first", _FIRST, "positions of the short first phase, on every deal", lo=1),
        Param("middle", _MIDDLE, "positions of the middle phase (0: none, two phases)", lo=0),
        Param("rate", _RATE, "share of the deals the first phase leaves unsettled that go on (a draw keyed by seed and deal)",
              lo=0.0, hi=1.0),
        Param("rate2", _RATE2, "share of the deals the middle phase leaves unsettled that get the full budget", lo=0.0, hi=1.0),
        Param("budget_nodes", 200_000_000, "positions of the last phase"),
        Param("budget_seconds", 1800.0, "CPU seconds at most per phase (a guard: the positions bind first)"),
        *_DEEP_TAIL,
    ),
    play_deal="sim.solver.phased:play_deal",
    role=EXACT,
    extra_columns=(("nodes", "int64"), ("phase", "int8"), ("left", "bool")),
    check=_check_phased,
)

CORRIDOR = PlayerSpec(
    "corridor",
    "The solver, then every move of every position along its win judged (keeps the deal winnable, loses it, or "
    "unknown): the deal's difficulty index, decision points and critical moves (sim/solver/corridor.py).",
    (
        Param("budget_nodes", 60_000_000, "positions to solve the deal"),
        Param("question_nodes", 2_000_000, "positions at most for each move judged by a search", lo=1),
        Param("look_ahead", 2, "moves a child may take to reach a position known won (no search needed)", lo=0, hi=4),
        Param("budget_seconds", 600.0, "CPU seconds at most for the solve, and for each question (a guard)"),
        Param("table_size", DEFAULT_TABLE_SIZE, "transposition table capacity (slots; 16 bytes each)"),
    ),
    play_deal="sim.solver.corridor:play_deal",
    role=JUDGE,
    extra_columns=(("nodes", "int64"), ("difficulty", "float32"), ("decisions", "int16"), ("critical", "int16"),
                   ("questions", "int32"), ("searched", "int32"), ("unknown_moves", "int32"), ("question_nodes", "int64")),
    check=_check_solver,
)

MISTAKES = PlayerSpec(
    "mistakes",
    "Where players go wrong: the solver's verdict, then each rung of the ladder (sim/solver/mistakes.py: RUNGS) plays "
    "the deal and, where it loses a winnable one, its first mistake is found and classified (column review, JSON).",
    (
        Param("budget_nodes", 60_000_000, "positions to solve the deal"),
        Param("question_nodes", 2_000_000, "positions at most for each position the review asks about", lo=1),
        Param("budget_seconds", 600.0, "CPU seconds at most for the solve (a guard)"),
        Param("table_size", DEFAULT_TABLE_SIZE, "transposition table capacity (slots; 16 bytes each)"),
    ),
    play_deal="sim.solver.mistakes:play_deal",
    role=JUDGE,
    extra_columns=(("nodes", "int64"), ("review", "string")),
    check=_check_solver,
)

BUILTIN_PLAYERS: tuple[PlayerSpec, ...] = (RANDOM, GREEDY, STRATEGIST, LOOKAHEAD, BEAM, ROLLOUT, NMCS, HIDDEN, SOLVER, SETTLE,
                                           PHASED, CORRIDOR, MISTAKES)
