"""The ``castle`` command line: one module per command group, each loading only what it uses.

Every command reports bad input as one line on stderr and exits with status
2; no traceback reaches the user. Adding a command: a module here with a
``register(app)`` function, named in :data:`COMMAND_MODULES`, its commands
named in :data:`COMMANDS`. A call loads only its command's module (``castle
solve`` never reads the report's code); help and unknown names load them all.

A standard stream closed (``>&-``, ``2>&-``, ``<&-``) is opened on
``/dev/null`` before anything runs, so no file the command opens takes its
number (a C library writing to "standard error" would write into it).
Then: with standard output closed, a command whose output is what it
prints (every command but ``run``, ``report``, ``replay``, and ``show`` with
``--out``) says so in one line and exits 2 before doing any work; those
write their files and exit 0, what they would print discarded. With
standard error closed, every command runs as usual: its messages are
discarded, its exit status still says how it ended. With standard input
closed, a ``-`` that reads it (``--board -``, ``--moves -``) is one line.
"""

from __future__ import annotations

import os
import re
import sys
from typing import Optional

import typer
import typer.exceptions

from ..core.board import BoardError
from ..core.cards import CardError
from ..core.deals import DealError
from ..core.moves import IllegalMoveError, MoveError
from ..core.rules import UnknownDialectError, UnknownGameError
from ..players.spec import UnknownPlayerError
from .errors import Interrupted, UserError, cut

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
    help="Play, deal, solve and measure games of the Beleaguered Castle family.",
)

#: errors that are the user's input, not our bug: one line, exit 2
USER_ERRORS = (UserError, UnknownGameError, UnknownDialectError, UnknownPlayerError, DealError, BoardError, CardError, MoveError,
               IllegalMoveError, OSError)

#: the command groups, in the order ``castle --help`` lists them
COMMAND_MODULES = ("deal", "deals", "play", "solve", "explain", "rate", "run", "summary", "bench", "show", "replay")
#: each command, and the module of COMMAND_MODULES that registers it
COMMANDS = {"games": "deal", "deal": "deal", "deals": "deals", "play": "play", "players": "play", "solve": "solve",
            "explain": "explain", "rate": "rate", "run": "run", "report": "run", "summary": "summary", "bench": "bench",
            "show": "show", "replay": "replay"}


def _version(value: bool) -> None:
    if value:
        from ..study.provenance import package_version

        typer.echo(f"castle {package_version() or 'unknown'}")
        raise typer.Exit()


@app.callback()
def _main(version: Optional[bool] = typer.Option(None, "--version", callback=_version, is_eager=True,
                                                 help="print the version and exit")) -> None:
    """Play, deal, solve and measure games of the Beleaguered Castle family."""


def full_app() -> typer.Typer:
    """The app with every command registered (what a test or a program driving the app in process needs: ``main``
    registers only the command it runs)."""
    _register_commands([])
    return app


def _register_commands(args: list[str]) -> None:
    """Register the command ``args`` name (its module alone), or every command when they name none."""
    import importlib

    name = next((a for a in args if not a.startswith("-")), None)
    for module in [COMMANDS[name]] if name in COMMANDS else COMMAND_MODULES:
        if module not in _REGISTERED:
            importlib.import_module(f"{__name__}.{module}").register(app)
            _REGISTERED.append(module)


#: the modules whose commands ``app`` holds (a process may call :func:`main` more than once)
_REGISTERED: list[str] = []


def main(argv: Optional[list[str]] = None) -> None:
    """Entry point: run the app, turning user errors into one line and exit 2."""
    args = sys.argv[1:] if argv is None else list(argv)
    problem = _closed_streams(args)
    if problem:
        _say(problem)
        _leave(2)
    _register_commands(args)
    command = typer.main.get_command(app)
    try:
        rv = command.main(args=argv, prog_name="castle", standalone_mode=False)
    except typer.Exit as e:
        _leave(getattr(e, "exit_code", 0))
    except typer.Abort:
        _leave(130)
    except typer.exceptions.TyperException as e:  # usage errors (typer's own click)
        _say(_usage(e, args))
        _leave(2)
    except USER_ERRORS as e:
        _say(_one_line(e))
        _leave(2)
    except Interrupted as e:
        print(f"castle: interrupted ({e.left})", file=sys.stderr)
        _leave(130)
    except KeyboardInterrupt:
        print(f"castle: interrupted ({_INTERRUPTED})", file=sys.stderr)
        _leave(130)
    if rv == 130:  # typer's exit code for Ctrl-C (or a SIGTERM during a run)
        print(f"castle: interrupted ({_INTERRUPTED})", file=sys.stderr)
    _leave(rv if isinstance(rv, int) else 0)


def _say(problem: str) -> None:
    """The one line of an error: ``castle: ...``, cut to :data:`~.errors.MOST` characters."""
    print(cut(f"castle: {problem}"), file=sys.stderr)


#: the commands whose work is files: with standard output closed they still do it (what they print is discarded)
_WRITERS = ("run", "report", "replay")
#: the commands that write a file with ``--out`` and print it without
_OUT_WRITERS = ("show",)


def _closed_streams(args: list[str]) -> str | None:
    """Open ``/dev/null`` on each closed standard stream (see the module's docstring); what makes the command unable to
    run without it, or None."""
    closed = []
    for fd, mode in ((0, os.O_RDONLY), (1, os.O_WRONLY), (2, os.O_WRONLY)):
        try:
            os.fstat(fd)
        except OSError:
            opened = os.open(os.devnull, mode)
            if opened != fd:
                os.dup2(opened, fd)
                os.close(opened)
            closed.append(fd)
    for fd, name in ((0, "stdin"), (1, "stdout"), (2, "stderr")):
        if getattr(sys, name) is None:
            setattr(sys, name, open(fd, "r" if fd == 0 else "w", encoding="utf-8", errors="replace", closefd=False,
                                    buffering=-1 if fd == 0 else 1))
    name = next((a for a in args if not a.startswith("-")), None)
    if 1 in closed and not (name in _WRITERS or name in _OUT_WRITERS and any(a == "--out" or a.startswith("--out=") for a in args)):
        return ("standard output is closed: nothing to print to (give the command an output: > FILE, or > /dev/null to "
                "discard it)")
    reads = any(a == "-" and b in ("--board", "--moves") for b, a in zip(args, args[1:])) or \
        any(a in ("--board=-", "--moves=-") for a in args)
    if 0 in closed and reads:
        return "standard input is closed: nothing to read '-' from (pipe the board or the moves in, or give a file)"
    return None


#: modules whose presence means worker processes may have been started: their shutdown needs the normal exit
_POOLS = ("joblib", "distributed", "multiprocessing.pool", "concurrent.futures.process")


def _leave(code: int) -> None:
    """Exit with ``code``; when only compiled kernels are loaded, without the interpreter's teardown.

    Tearing down numba's loaded kernels takes 0.15-0.2 s at the end of every
    command that played or solved, and nothing needs it: the command's
    files are closed and its output is flushed here. Where a pool of
    worker processes may exist (``--jobs``, Dask), the normal exit runs, so
    they are shut down cleanly.
    """
    if "numba" in sys.modules and not any(m in sys.modules for m in _POOLS):
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except (OSError, ValueError):  # a closed pipe: the normal exit reports it as Python does
            sys.exit(code)
        os._exit(code)
    sys.exit(code)


#: what an interrupted command says it left, unless it says more (:class:`~.errors.Interrupted`)
_INTERRUPTED = "what is on disk is whole: rerun to resume"

#: the commands whose arguments are deals: a negative number there is a deal, not an option
_DEAL_COMMANDS = ("deal", "play", "solve", "show", "replay")


def _usage(e: BaseException, args: list[str]) -> str:
    """A usage error's message, as one line; a negative number (which click reads as unknown options: ``-12`` as
    ``-1`` and ``-2``) said plainly, as a bad deal where the arguments are deals."""
    message = " ".join((e.format_message() if hasattr(e, "format_message") else str(e)).split())
    name = getattr(e, "option_name", None)
    command = getattr(getattr(getattr(e, "ctx", None), "command", None), "name", None)
    if isinstance(name, str) and re.fullmatch(r"-[0-9]", name):
        token = next((a for a in args if re.fullmatch(r"-[0-9]+", a) and a.startswith(name)), name)
        if command in _DEAL_COMMANDS:
            return f"bad deal {token!r}: deal numbers run from 0 to 2**63-1"
        return f"No such option: {token} (a number cannot start with '-' here)"
    return message


def _one_line(e: BaseException) -> str:
    if isinstance(e, OSError) and e.filename:
        return f"{e.filename}: {e.strerror or e}"
    if isinstance(e, OSError) and e.strerror:
        return e.strerror
    return " ".join(str(e).split())
