"""`python -m pathrag_gds serve`: the HTTP API (FastAPI + uvicorn), OpenAPI docs at `/docs`.

The listen address is tried before anything starts: a port in use (another `serve`?) or an address
not of this machine ends with one line naming it and exit status 1. uvicorn found out only after the
app had started its threads, and its exit then aborted the process (`terminate called without an
active exception`, status 134).
"""

from __future__ import annotations

import argparse
import errno
import os
import shutil
import socket
import sys
import tempfile
from pathlib import Path

from pathrag_gds.errors import ConfigError


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `serve` command."""
    p = sub.add_parser(
        "serve",
        help="serve the HTTP API (docs at /docs)",
        description="Serve the HTTP API. Beyond loopback it needs PATHRAG_API_TOKEN or "
        "PATHRAG_API_TOKENS_FILE (clients send 'Authorization: Bearer <token>').",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument(
        "--workers",
        type=int,
        default=None,
        help="worker processes (default: one a core, at most 4; one when sessions are kept in memory); "
        "each loads its own models (~0.5 GB); sessions are shared via SQLite or Neo4j",
    )
    p.add_argument("--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"])
    p.set_defaults(func=run)


def default_workers(sessions: str | None, cores: int | None = None) -> int:
    """Worker processes when `--workers` is not given: one a core, at most 4; one with in-memory sessions.

    One process runs the search's Python on one core at a time (the GIL): on two cores two workers
    answer 16 clients 1.5x faster than one (docs/benchmarks.md, "The HTTP API under load").

    Example:
        >>> default_workers("sqlite", 2), default_workers("sqlite", 16), default_workers("memory", 8)
        (2, 4, 1)
    """
    if sessions == "memory":
        return 1
    return max(1, min(4, cores if cores is not None else (os.cpu_count() or 1)))


def run(args: argparse.Namespace) -> int:
    """Check the listen address and token, then run uvicorn until interrupted."""
    try:
        import uvicorn
    except ModuleNotFoundError as exc:  # pragma: no cover - depends on the install
        raise ConfigError('the HTTP server needs its extras: pip install -e ".[server]"') from exc

    from pathrag_gds.api.app import create_app
    from pathrag_gds.api.auth import TokenTable, check_listen
    from pathrag_gds.api.errors import ApiError
    from pathrag_gds.api.server import uvicorn_config
    from pathrag_gds.config import Settings

    settings = Settings.from_env()
    if not 1 <= args.port <= 65535:
        raise ConfigError(f"--port must be between 1 and 65535 (got {args.port})")
    workers = args.workers if args.workers is not None else default_workers(settings.api_sessions)
    if not 1 <= workers <= 64:
        raise ConfigError(f"--workers must be between 1 and 64 (got {workers})")
    tokens = TokenTable.from_settings(settings)  # a bad tokens file stops here, with its message
    try:
        check_listen(args.host, settings.api_token, file_tokens=tokens.enabled)
    except ApiError as exc:
        raise ConfigError(exc.message) from exc
    problem = listen_problem(args.host, args.port)
    if problem is not None:
        print(f"error: {problem}", file=sys.stderr)
        return 1

    options = {
        "host": args.host,
        "port": args.port,
        "log_level": args.log_level,
        "timeout_graceful_shutdown": 5,
    }
    if workers == 1:
        uvicorn.Server(uvicorn_config(create_app(settings), settings, **options)).run()
        return 0
    # Several workers: each process builds its app from the environment; sessions live in a
    # SQLite file they share (or in Neo4j with PATHRAG_API_SESSIONS=neo4j).
    from uvicorn.supervisors import Multiprocess

    if settings.api_sessions == "memory":
        raise ConfigError(
            "PATHRAG_API_SESSIONS=memory keeps sessions in one process: with --workers N use sqlite "
            "(the default) or neo4j"
        )
    tmp: Path | None = None
    if settings.api_sessions_path is None and settings.api_sessions != "neo4j":
        tmp = Path(tempfile.mkdtemp(prefix="pathrag-api-"))
        os.environ["PATHRAG_API_SESSIONS_PATH"] = str(tmp / "sessions.sqlite")
    try:
        config = uvicorn_config(
            "pathrag_gds.api.app:create_app_from_env", settings, factory=True, workers=workers, **options
        )
        Multiprocess(config, sockets=[config.bind_socket()]).run()
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


def listen_problem(host: str, port: int) -> str | None:
    """Why `serve` could not listen on host:port (None: it can), tried as uvicorn binds.

    Every address the host resolves to is bound once (`SO_REUSEADDR`, as uvicorn does, so a port
    whose last connections wait in TIME_WAIT counts as free) and released at once.
    """
    try:
        addresses = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        return f"cannot listen on {host}: the name does not resolve ({exc.strerror}); pass --host an address"
    for family, kind, proto, _, address in addresses:
        with socket.socket(family, kind, proto) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                sock.bind(address)
            except OSError as exc:
                return _bind_message(host, port, exc)
    return None


def _bind_message(host: str, port: int, exc: OSError) -> str:
    where = f"{host}:{port}"
    if exc.errno == errno.EADDRINUSE:
        return (
            f"port {port} on {host} is in use (another `serve`, or another program): stop it, or pass "
            f"another --port (e.g. --port {port + 1 if port < 65535 else 8000})"
        )
    if exc.errno == errno.EACCES:
        return f"no permission to listen on {where} (ports below 1024 need privileges): pass --port 8000"
    if exc.errno == errno.EADDRNOTAVAIL:
        return (
            f"{host} is not an address of this machine: pass --host 127.0.0.1, or 0.0.0.0 for every interface"
        )
    return f"cannot listen on {where}: {exc.strerror or exc}"
