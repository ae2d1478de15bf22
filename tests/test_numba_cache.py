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
