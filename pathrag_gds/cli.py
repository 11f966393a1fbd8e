"""Command line: `python -m pathrag_gds <command> ...`.

Each command lives in `pathrag_gds/commands/<name>.py` with a `register(subparsers)` function that
adds its parser and sets `func` (heavy imports wait inside `func`, so `--help` stays quick). Errors a
user can cause print one line and exit with status 2. Output piped into a reader that stops early
(`... | head`, `... | grep -q`) ends the command quietly with status 141, as a shell tool ends.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import logging
import os
import sys
from collections.abc import Callable, Sequence

from pathrag_gds import __version__
from pathrag_gds.errors import PathRagError

#: Command modules, in the order `--help` lists them.
COMMAND_MODULES = [
    "demo",
    "db",
    "models",
    "load",
    "adopt",
    "drop",
    "index",
    "communities",
    "info",
    "query",
    "eval",
    "intent",
    "tune",
    "serve",
    "mcp",
]


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser (every command registered)."""
    parser = argparse.ArgumentParser(
        prog="python -m pathrag_gds",
        description="Path retrieval for Neo4j knowledge graphs (server-side beam search, ONNX scoring).",
    )
    parser.add_argument("--version", action="version", version=f"pathrag_gds {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress details")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(f"pathrag_gds.commands.{name}").register(sub)
    return parser


#: Modules the neo4j driver imports at its own import when installed (graphdatascience brings them).
DATAFRAME_MODULES = ("pandas", "pyarrow", "pyarrow.compute")


def import_driver_without_dataframes() -> None:
    """Import the neo4j driver with pandas and pyarrow hidden: ~0.3-0.45 s less for each CLI process.

    The driver imports both only to accept pandas values as query parameters, which no command
    sends; `Result.to_df()` (how graphdatascience reads results) imports pandas itself when
    called, and graphdatascience imports both itself. The CLI owns its process, so it may; the
    library leaves the driver of a service that imports it as it is. Nothing happens when the
    driver or pandas is imported already.
    """
    if "neo4j" in sys.modules or "pandas" in sys.modules:
        return
    for name in DATAFRAME_MODULES:
        sys.modules[name] = None  # type: ignore[assignment]  # `import pandas` raises ImportError
    try:
        import neo4j  # noqa: F401
    except ImportError:  # the driver is missing: the command that needs it says so
        pass
    finally:
        for name in DATAFRAME_MODULES:
            if name in sys.modules and sys.modules[name] is None:
                del sys.modules[name]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the process exit status."""
    import_driver_without_dataframes()
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    func: Callable[[argparse.Namespace], int] | None = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return 0 if args.command is None else 2
    try:
        return func(args)
    except PathRagError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return _reader_gone()


def _reader_gone() -> int:
    """The reader of stdout went away: no traceback, nothing more written; 128 + SIGPIPE."""
    with contextlib.suppress(OSError, ValueError):  # the interpreter's last flush would raise again
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 141


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
