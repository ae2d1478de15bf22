"""Model files of ``castle explain`` mutated every way the test asks: ``python tests/model_fuzz.py FOLDER``.

Each field of a booster model (Beleaguered Castle's, its booster cut to three trees so the run is quick) and of a
constant model (Castles End's), each key of their ``training`` and ``holdout``, and each line of the booster's text
are changed several ways (other types, out-of-range numbers, NaN and infinities, a line deleted, doubled, cut, a
child pointing back up). Every mutated file must be refused with a one-line :class:`~sim.explain.model.ModelError`
naming the file, or explain deals with probabilities in [0, 1] and finite pushes. Prints ``refused served``; exits
1 on anything else (tests/test_bad_input.py runs it in a process of its own, so a segmentation fault fails the test).
"""

from __future__ import annotations

import gzip
import json
import re
import sys
import traceback
from pathlib import Path

import numpy as np

from sim.explain import model as explain_model
from sim.explain.features import features
from sim.explain.reasons import constant_reason, explain
from sim.game import Game

VALUES = [None, True, -1, 0, 7.5, 1e308, float("nan"), float("inf"), "ab", "", [], [1.0], [0.5, 2.0, 3.0], {}, {"a": 1},
          [[[]]], "x" * 300]
INNER = [None, "ab", -1, 7.5, float("nan"), [], {}, [[5, 2]]]
TOKENS = ["999999", "-1", "-999999", "0", "nan", "inf", "1e309", "x", "", "2147483648"]


def small(text: str, trees: int = 3) -> str:
    """The booster's text with its first ``trees`` trees only (a valid booster, quicker to check and load)."""
    blocks = re.split(r"\n(?=Tree=\d+\n)", text.split("end of trees")[0].rstrip("\n") + "\n")
    return "\n".join(blocks[: trees + 1]).rstrip("\n") + "\n\n\nend of trees\n"


def line_mutations(text: str):
    """Each line of the header and the first tree deleted, doubled, its key alone, its first value replaced by odd
    tokens, its last dropped, one added; the text cut short at 25 places."""
    lines = text.split("\n")
    for i, line in enumerate(lines[: lines.index("Tree=1")]):
        yield "\n".join(lines[:i] + lines[i + 1:])
        yield "\n".join(lines[:i] + [line, line] + lines[i + 1:])
        key, sep, value = line.partition("=")
        if not sep:
            continue
        yield "\n".join(lines[:i] + [key] + lines[i + 1:])
        words = value.split(" ")
        for token in TOKENS:
            yield "\n".join(lines[:i] + [f"{key}={' '.join([token] + words[1:])}"] + lines[i + 1:])
        yield "\n".join(lines[:i] + [f"{key}={' '.join(words[:-1])}"] + lines[i + 1:])
        yield "\n".join(lines[:i] + [f"{key}={value} 1"] + lines[i + 1:])
    for cut in range(7, len(text), max(len(text) // 25, 1)):  # the text cut short
        yield text[:cut]


def field_mutations(d: dict):
    for key in list(d):
        for value in VALUES:
            yield {**d, key: value}
        yield {k: v for k, v in d.items() if k != key}
        if isinstance(d[key], dict):
            for inner in list(d[key]):
                for value in INNER:
                    yield {**d, key: {**d[key], inner: value}}
    yield {**d, "surprise": 1}


def main(folder: Path) -> int:
    refused = served = 0
    for game, name in (("beleaguered-castle", "booster"), ("castles-end", "constant")):
        d = json.loads(gzip.decompress(explain_model.model_path(game).read_bytes()))
        g = Game(game)
        states = [g.deal(n) for n in (3, 4)]
        X = features(g, states)
        mutants = list(field_mutations(d))
        if d["booster_text"]:
            d["booster_text"] = small(d["booster_text"])
            mutants = [{**d, **m, "booster_text": small(m["booster_text"])} if isinstance(m.get("booster_text"), str)
                       and m["booster_text"] else {**d, **m} for m in mutants]
            mutants += [{**d, "booster_text": t} for t in line_mutations(d["booster_text"])]
        mutants.insert(0, d)
        for k, m in enumerate(mutants):
            path = folder / f"{name}-{k}.json.gz"
            path.write_bytes(gzip.compress(json.dumps(m).encode()))
            try:
                model = explain_model.load(path, g.rules)
                if k % 10 == 0:  # the whole of castle explain now and then; its model's questions every time
                    explain(g, states, model)
                p, pushes = model.predict(X), model.contributions(X).to_numpy()
                if model.constant:
                    constant_reason(model)
                assert np.isfinite(p).all() and ((p >= 0) & (p <= 1)).all(), p
                assert np.isfinite(pushes).all(), pushes
                served += 1
            except explain_model.ModelError as e:
                text = str(e)
                if "\n" in text or not text.startswith(str(path)):
                    print(f"{path}: not one line naming the file: {text!r}", file=sys.stderr)
                    return 1
                refused += 1
            except Exception:
                print(f"{path} (mutant {k} of the {name} model):", file=sys.stderr)
                traceback.print_exc()
                return 1
            path.unlink()
        if k and refused == 0:
            return 1
    print(refused, served)
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
