"""A kernel module's numba cache is dropped when a module it inlines changes, kept otherwise."""

from __future__ import annotations

from sim.numba_cache import drop_stale_cache


def test_cache_is_dropped_only_when_a_source_changes(tmp_path):
    (tmp_path / "kernels.py").write_text("x = 1\n")
    (tmp_path / "engine.py").write_text("y = 1\n")
    cache = tmp_path / "__pycache__"
    drop_stale_cache(str(tmp_path / "kernels.py"), "engine.py")
    entry = cache / "kernels.f-1.py311.nbi"
    entry.write_text("compiled")
    drop_stale_cache(str(tmp_path / "kernels.py"), "engine.py")
    assert entry.exists()  # nothing changed: the cache stays
    (tmp_path / "engine.py").write_text("y = 2\n")
    drop_stale_cache(str(tmp_path / "kernels.py"), "engine.py")
    assert not entry.exists()  # the inlined engine changed: the stale kernel is gone
