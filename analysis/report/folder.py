"""A report's folder: castle's marker in it, the check before one is replaced, and the swap that replaces it.

Every report folder castle writes holds a marker, ``castle-report.json``:
the report's own identity (a random id, the writer, castle's version) and
every file castle wrote in it, each with its SHA-256. A folder at ``--out``
is replaced only when it is empty, or when its marker is there and valid
and the folder holds nothing but the files the marker lists, each as castle
wrote it. Anything else (a folder castle did not write, one written before
reports were marked, one where a file was added or changed since) is
refused with one line, and nothing in it is touched: castle deletes only
what it can prove it wrote.

A link at ``--out`` is followed: the report is built beside the folder it
points to and swapped in there, so the link still points at the report
and nothing is left beside it.
"""

from __future__ import annotations

import contextlib
import glob
import json
import os
import re
import shutil
import uuid
from pathlib import Path

from sim.core import files

from ..load import ResultsError

MARKER = "castle-report.json"
WRITER = "castle report"
MARKER_FORMAT = 1
#: the files a report holds (a marker listing any other name was not written by castle)
LAYOUT = re.compile(r"index\.html|figures/[^/\x00]+\.png|tables/[^/\x00]+\.csv|replays/[^/\x00]+\.html")
FOLDERS = ("figures", "tables", "replays")


def place(out: Path) -> Path:
    """Where the report of ``--out`` goes: ``out``, or the folder a link at ``out`` points to."""
    if not out.is_symlink():
        return out
    real = Path(os.path.realpath(out))
    if not real.exists():
        raise ResultsError(f"{out} is a link to {real}, which does not exist: choose another --out")
    return real


def check_replaceable(folder: Path, shown: Path) -> None:
    """Refuse (a :class:`ResultsError`, one line) a ``folder`` castle may not replace; ``shown``: its name as given."""
    if not folder.exists():
        return
    if not folder.is_dir():
        raise ResultsError(f"{shown} exists and is not a castle report: choose another --out")
    if not any(folder.iterdir()):
        return
    marker = folder / MARKER
    if not marker.is_file() or marker.is_symlink():
        if (folder / "index.html").exists():
            raise ResultsError(f"{shown} holds a page but no {MARKER} (a report castle wrote before it marked its reports, or "
                               "not castle's): castle replaces only a folder it can prove it wrote; remove it or choose another --out")
        raise ResultsError(f"{shown} exists and is not a castle report: choose another --out")
    try:
        listed = read_marker(marker)
    except (OSError, ValueError) as e:
        raise ResultsError(f"{shown}/{MARKER} is not a castle report's marker ({e}): remove the folder or choose another --out") from None
    strangers, changed = [], []
    for name, kind in _entries(folder):
        if kind != "file" or name not in listed:
            strangers.append(name + ("/" if kind == "folder" else ""))
        elif files.sha256(folder / name) != listed[name]:
            changed.append(name)
    if strangers:
        more = f" and {len(strangers) - 1} more" if len(strangers) > 1 else ""
        raise ResultsError(f"{shown} holds {strangers[0]}{more}, which castle did not write there: remove "
                           f"{'them' if more else 'it'} or choose another --out")
    if changed:
        raise ResultsError(f"{shown}/{changed[0]} was changed since castle wrote it: keep your copy elsewhere, remove the "
                           "folder, or choose another --out")


def _entries(folder: Path):
    """``(relative name, kind)`` of everything in a report folder: a file, a report's subfolder (whose contents follow)
    or anything else (a link, another folder, a FIFO): never followed."""
    for entry in sorted(os.scandir(folder), key=lambda e: e.name):
        if entry.name == MARKER:
            continue
        if entry.is_dir(follow_symlinks=False) and entry.name in FOLDERS:
            inner = sorted(os.scandir(entry.path), key=lambda e: e.name)
            for e in inner:
                yield f"{entry.name}/{e.name}", "file" if e.is_file(follow_symlinks=False) else "other"
        elif entry.is_file(follow_symlinks=False):
            yield entry.name, "file"
        else:
            yield entry.name, "folder" if entry.is_dir(follow_symlinks=False) else "other"


def read_marker(path: Path) -> dict[str, str]:
    """The files a marker lists (name -> SHA-256); a ValueError if it is not a castle report's marker."""
    m = files.read_json(path, files.MANIFEST, "a report's marker")
    if not isinstance(m, dict) or m.get("written_by") != WRITER or m.get("format") != MARKER_FORMAT:
        raise ValueError("not written by castle report")
    listed = m.get("files")
    if not (isinstance(m.get("id"), str) and re.fullmatch(r"[0-9a-f]{32}", m["id"]) and isinstance(listed, dict)):
        raise ValueError("no id or no list of files")
    for name, digest in listed.items():
        if not (isinstance(name, str) and LAYOUT.fullmatch(name)):
            raise ValueError(f"it lists {str(name)[:60]!r}, which castle never writes")
        if not (isinstance(digest, str) and re.fullmatch(r"[0-9a-f]{64}", digest)):
            raise ValueError(f"no SHA-256 for {name}")
    return listed


def mark(work: Path) -> None:
    """Write the marker of the report built in ``work``: its identity and every file in it, with its SHA-256."""
    from sim.study.provenance import package_version

    listed = {}
    for name, kind in _entries(work):
        if kind != "file" or not LAYOUT.fullmatch(name):  # a section writing elsewhere: LAYOUT must learn of it first
            raise RuntimeError(f"the report wrote {name}, outside its layout (analysis/report/folder.py LAYOUT)")
        listed[name] = files.sha256(work / name)
    marker = {"written_by": WRITER, "format": MARKER_FORMAT, "id": uuid.uuid4().hex, "castle": package_version() or "unknown",
              "files": listed}
    files.write_atomic(work / MARKER, json.dumps(marker, indent=1, sort_keys=True) + "\n")


def swap(work: Path, out: Path, old: Path, shown: Path) -> None:
    """Put the finished report ``work`` in the place of ``out``: checked again (something may have been put there while the
    report was built), the old one moved aside, the new one moved in, with signals held so an interrupt never falls
    between the two (the old one goes back if the second fails)."""
    with signals_held():
        check_replaceable(out, shown)
        if out.exists():
            out.rename(old)
        try:
            work.rename(out)
        except BaseException:
            if old.exists() and not out.exists():
                old.rename(out)
            raise


def remove_stale(out: Path) -> None:
    """Temporary folders of a build of ``out`` killed outright (SIGKILL: no clearing up), found by their dead owner's id."""
    for folder in out.parent.glob(f".{glob.escape(out.name)}.*-*") if out.parent.is_dir() else ():
        kind, _, pid = folder.name.rpartition("-")
        if not (kind.endswith((".building", ".old")) and pid.isdigit()) or int(pid) == os.getpid():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            remove(folder)
        except OSError:
            pass


def remove(folder: Path) -> None:
    """Remove a temporary folder of a build (a link is removed, never followed)."""
    if folder.is_symlink() or folder.is_file():
        with contextlib.suppress(OSError):
            folder.unlink()
    else:
        shutil.rmtree(folder, ignore_errors=True)


@contextlib.contextmanager
def signals_held():
    """Ctrl-C and SIGTERM wait until the block is done, then arrive as they would have (re-raised to their handlers)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    held = (signal.SIGINT, signal.SIGTERM)
    before = {s: signal.signal(s, lambda signum, frame: caught.append(signum)) for s in held}
    try:
        yield
    finally:
        for s, handler in before.items():
            signal.signal(s, handler)
        for s in dict.fromkeys(caught):
            signal.raise_signal(s)
