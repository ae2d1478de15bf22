"""The tree keeps the shape ARCHITECTURE.md draws: layers whose imports point down, no circle, small modules.

The layers are listed once, here, lowest first; ARCHITECTURE.md draws them in
the same order and names every module. Imports are read from the source
(function-level ones too: a lazy import is still an arrow), except those under
``if TYPE_CHECKING``, which never run. A ``"module:attr"`` string naming a
module of the tree (a spec's ``play_deal``, resolved when a player plays) is an
import too: it runs when it is resolved, so it is read as one.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: the layers, lowest first: a module belongs to the longest prefix that names it, and imports only from its own
#: layer or the ones below
LAYERS = (
    "sim.core",  # plain data: cards, rules, moves, board text, deals, outcomes, limits; the reference engine
    "sim.kernels",  # every @njit function, over core's numbers
    "sim.render",  # drawing a position: SVG, PNG, terminal colours (core only)
    "sim.game",  # Game and State: the kernels as Python sees them
    "sim.players",  # specs, registry, the play loop, the record
    "sim.solver",  # the exact solver and what it judges
    "sim.explain",  # why a deal is hard, before any search
    "sim.replay",  # a game as a page to step through
    "sim.study",  # experiments, the runner, the dataset
    "analysis",  # reads datasets
    "sim.precision",  # the runner until analysis's interval is narrow enough
    "sim.cli",  # the castle command
)
#: modules outside the layers: the package's lazy front door (it names what it exports as text)
OUTSIDE = {"sim"}
MAX_LINES = 400
#: a ``"module:attr"`` string naming a module of the tree (``sim.players.spec.resolve`` imports it when asked)
REFERENCE = re.compile(r"((?:sim|analysis)(?:\.[A-Za-z_]\w*)*):[A-Za-z_]\w*")
#: the arrows that still run up, each (module, the module above it it names) and why; the test fails when one goes,
#: so the list only shrinks. The built-in specs name the solver's players' code by string: the registry that lists
#: every player sits below the solver that plays five of them (issue 55: the players' list assembled above both).
KNOWN_UP = {
    ("sim.players.builtin", "sim.solver.player"): "SOLVER's and SETTLE's play_deal",
    ("sim.players.builtin", "sim.solver.phased"): "PHASED's play_deal",
    ("sim.players.builtin", "sim.solver.corridor"): "CORRIDOR's play_deal",
    ("sim.players.builtin", "sim.solver.mistakes"): "MISTAKES' play_deal",
}


def modules() -> dict[str, Path]:
    found = {}
    for path in sorted(ROOT.glob("sim/**/*.py")) + sorted(ROOT.glob("analysis/**/*.py")):
        if "notebooks" in path.parts and path.name != "__init__.py":
            continue  # (the notebooks are documents, run by test_notebooks)
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        found[name.removesuffix(".__init__")] = path
    return found


def _type_checking(node: ast.If) -> bool:
    return isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING" or (
        isinstance(node.test, ast.Attribute) and node.test.attr == "TYPE_CHECKING")


def imports(name: str, path: Path, known: dict[str, Path], strings: bool = True) -> set[str]:
    """The modules of the tree that ``name`` imports, anywhere in its body (``strings``: and names in
    ``"module:attr"`` text)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join(parts + ([node.module] if node.module else []))
            targets = [base] + [f"{base}.{a.name}" for a in node.names]
        elif strings and isinstance(node, ast.Constant) and isinstance(node.value, str) and (m := REFERENCE.fullmatch(node.value)):
            targets = [m[1]]
        else:
            targets = []
        for t in targets:
            while t and t not in known:
                t = t.rpartition(".")[0]
            if t and t != name:
                out.add(t)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text()))
    return out


def layer(name: str) -> int | None:
    best = None
    for k, prefix in enumerate(LAYERS):
        if name == prefix or name.startswith(prefix + "."):
            if best is None or len(prefix) > len(LAYERS[best]):
                best = k
    return best


def test_every_module_belongs_to_a_layer():
    assert [m for m in modules() if layer(m) is None and m not in OUTSIDE] == []


def arrows_up(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The modules of layers above ``name``'s that it imports, by statement or by ``"module:attr"`` string."""
    return {t for t in imports(name, path, known) if t not in OUTSIDE and layer(t) > layer(name)}


def test_no_module_imports_from_a_layer_drawn_above_it():
    known = modules()
    up = []
    for name, path in known.items():
        if name in OUTSIDE:
            continue
        for target in sorted(arrows_up(name, path, known)):
            if (name, target) not in KNOWN_UP:
                up.append(f"{name} ({LAYERS[layer(name)]}) imports {target} ({LAYERS[layer(target)]})")
    assert not up, "\n".join(up)


def test_the_known_arrows_up_are_still_there():
    """An arrow of :data:`KNOWN_UP` mended is taken off the list (it would otherwise hide its return)."""
    known = modules()
    gone = [pair for pair in KNOWN_UP if pair[1] not in arrows_up(pair[0], known[pair[0]], known)]
    assert not gone, f"no longer running up, take off KNOWN_UP: {gone}"


def test_a_string_naming_a_module_above_is_an_import_up(tmp_path):
    """``"module:attr"`` text runs up as an import would: a core module naming analysis is refused, one naming a
    module of its own layer or below is not, and prose mentioning a module is not a reference."""
    known = modules()
    crafted = tmp_path / "crafted.py"
    crafted.write_text('PLAY = "analysis.stats:wilson"\nDOWN = "sim.core.cards:Card"\n'
                       'def later():\n    return resolve("sim.solver.answer:solve")\n'
                       '"""A docstring naming analysis.stats:wilson in passing."""\n')
    assert arrows_up("sim.core.crafted", crafted, known) == {"analysis.stats", "sim.solver.answer"}
    assert imports("sim.core.crafted", crafted, known) == {"analysis.stats", "sim.solver.answer", "sim.core.cards"}


#: what analysis never reaches into (DESIGN.md: it reads rows, not the engine's internals): the compiled kernels,
#: and the replay pages, which play a deal again (the report is handed a writer by the command line)
ENGINE_INSIDES = ("sim.kernels", "sim.replay")


def test_analysis_never_imports_the_engines_insides():
    known = modules()
    reached = [f"{name} imports {t}" for name, path in known.items() if name.split(".")[0] == "analysis"
               for t in sorted(imports(name, path, known)) if any(t == x or t.startswith(x + ".") for x in ENGINE_INSIDES)]
    assert not reached, "\n".join(reached)


def test_no_circle_of_imports():
    """Strongly connected components of the import graph (Tarjan's), none larger than one module. Import statements
    only: a ``"module:attr"`` string is how a spec names code that imports the spec (``spec`` names ``sources``,
    ``compiled`` and ``plugin``; ``builtin`` the solver's players), so strings still close circles; the layers'
    test reads them."""
    known = modules()
    graph = {name: imports(name, path, known, strings=False) - OUTSIDE for name, path in known.items() if name not in OUTSIDE}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                circles.append(sorted(part))

    for v in graph:
        if v not in index:
            connect(v)
    assert not circles, "\n".join(" <-> ".join(c) for c in circles)


def test_no_production_module_passes_the_line_limit():
    long = {name: n for name, path in modules().items() if (n := len(path.read_text().splitlines())) > MAX_LINES}
    assert not long, "\n".join(f"{k}: {n} lines" for k, n in sorted(long.items()))


def test_the_drawing_names_every_module_and_draws_the_layers_in_order():
    text = (ROOT / "ARCHITECTURE.md").read_text()
    drawing = text.split("```")[1]
    missing = []
    for name, path in modules().items():
        word = path.parent.name + "/" if path.name == "__init__.py" else path.stem
        if not re.search(rf"(?<![\w]){re.escape(word)}(?![\w])", text):
            missing.append(name)
    assert not missing, "ARCHITECTURE.md does not name: " + ", ".join(missing)
    rows = [ln for ln in drawing.splitlines() if ln.strip() and not ln.strip().startswith("│")]
    heads = [ln.split()[0] for ln in rows if ln.startswith(" ") and ln.split()[0].endswith(("/", ".py"))]
    drawn = [h.rstrip("/").removesuffix(".py").replace("/", ".") for h in heads]
    assert drawn == list(reversed(LAYERS)), "ARCHITECTURE.md's drawing, top down, is not LAYERS reversed"


#: modules another change is rewriting, left out of the rule below until it lands (none of them imports a module of
#: the tree under one letter today); the list only shrinks: a name that is no module is refused
ONE_LETTER_LEFT: set[str] = set()  #: modules still allowed a one-letter alias of a module (none left; may only stay empty)


def one_letter_aliases(name: str, path: Path, known: dict[str, Path]) -> list[str]:
    """``import a.b as X`` and ``from a import b as X`` of a module of the tree, ``X`` one letter: a name that says
    nothing of the module, and that the next file gives to another."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            pairs = [(a.name, a.asname) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([node.module] if node.module else []))
            pairs = [(f"{base}.{a.name}", a.asname) for a in node.names]
        else:
            continue
        found += [f"{name}:{node.lineno}: {target} as {alias}" for target, alias in pairs
                  if alias and len(alias) == 1 and target in known]
    return found


def test_no_module_imports_a_module_of_the_tree_under_one_letter():
    known = modules()
    found = [line for name, path in known.items() if name not in ONE_LETTER_LEFT
             for line in one_letter_aliases(name, path, known)]
    assert not found, "\n".join(found)
    assert ONE_LETTER_LEFT <= known.keys(), f"no such module, take off ONE_LETTER_LEFT: {sorted(ONE_LETTER_LEFT - known.keys())}"
