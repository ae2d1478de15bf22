"""The kernels' numba cache is dropped when any source they compile in changes, kept otherwise."""

from __future__ import annotations

from sim.kernels import drop_stale_cache


def test_cache_is_dropped_only_when_a_source_changes(tmp_path):
    kernels, core = tmp_path / "kernels.py", tmp_path / "rules.py"
    kernels.write_text("x = 1\n")
    core.write_text("y = 1\n")
    cache = tmp_path / "__pycache__"
    drop_stale_cache(tmp_path, [kernels, core])
    entry = cache / "kernels.f-1.py311.nbi"
    entry.write_text("compiled")
    assert not drop_stale_cache(tmp_path, [kernels, core])
    assert entry.exists()  # nothing changed: the cache stays
    core.write_text("y = 2\n")
    assert drop_stale_cache(tmp_path, [kernels, core])
    assert not entry.exists()  # a source the kernels read changed: the stale kernel is gone


def test_a_cold_cache_is_told_to_a_terminal_only(tmp_path, monkeypatch):
    """The first command compiles for minutes: a person at a terminal is told why; a pipe or a log is not."""
    import io

    from sim.kernels import cache_is_cold, say_compiling

    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    (tmp_path / "__pycache__").mkdir()
    assert cache_is_cold(tmp_path)
    (tmp_path / "__pycache__" / "search.f-1.py311.nbi").write_text("compiled")
    assert not cache_is_cold(tmp_path)

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    pipe, terminal = io.StringIO(), Terminal()
    assert not say_compiling(pipe) and pipe.getvalue() == ""
    assert say_compiling(terminal)
    assert terminal.getvalue().startswith("castle: compiling the engine (first run only, about ")


def test_cached_kernels_load_without_the_whole_target():
    """A command that only loads cached kernels leaves numba's typing of every feature, and SciPy, unloaded."""
    import subprocess
    import sys

    probe = ("import sys; from sim.game import Game; g = Game('beleaguered-castle'); s = g.deal(3); "
             "print(len(list(s.legal_moves)) > 0, 'scipy' in sys.modules, 'numba.np.linalg' in sys.modules)")
    for _ in range(2):  # (the first may compile, on a cold cache: the second loads what it cached)
        out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=900)
        assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "False", "False"]
