"""`python -m pathrag_gds serve`: the HTTP API (FastAPI + uvicorn), OpenAPI docs at `/docs`."""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
from pathlib import Path

from pathrag_gds.errors import ConfigError


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `serve` command."""
    p = sub.add_parser(
        "serve",
        help="serve the HTTP API (docs at /docs)",
        description="Serve the HTTP API. Beyond loopback it needs PATHRAG_API_TOKEN (clients send "
        "'Authorization: Bearer <token>').",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument(
        "--workers",
        type=int,
        default=1,
        help="worker processes (default 1; each loads its own models; sessions are shared via SQLite)",
    )
    p.add_argument("--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"])
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Check the listen address and token, then run uvicorn until interrupted."""
    try:
        import uvicorn
    except ModuleNotFoundError as exc:  # pragma: no cover - depends on the install
        raise ConfigError('the HTTP server needs its extras: pip install -e ".[server]"') from exc

    from pathrag_gds.api.app import create_app
    from pathrag_gds.api.auth import check_listen
    from pathrag_gds.api.errors import ApiError
    from pathrag_gds.config import Settings

    settings = Settings.from_env()
    if not 1 <= args.port <= 65535:
        raise ConfigError(f"--port must be between 1 and 65535 (got {args.port})")
    if not 1 <= args.workers <= 64:
        raise ConfigError(f"--workers must be between 1 and 64 (got {args.workers})")
    try:
        check_listen(args.host, settings.api_token)
    except ApiError as exc:
        raise ConfigError(exc.message) from exc

    if args.workers == 1:
        uvicorn.run(
            create_app(settings),
            host=args.host,
            port=args.port,
            log_level=args.log_level,
            timeout_graceful_shutdown=5,
        )
        return 0
    # Several workers: each process builds its app from the environment; sessions live in a
    # SQLite file they share.
    tmp: Path | None = None
    if settings.api_sessions_path is None:
        tmp = Path(tempfile.mkdtemp(prefix="pathrag-api-"))
        os.environ["PATHRAG_API_SESSIONS_PATH"] = str(tmp / "sessions.sqlite")
    try:
        uvicorn.run(
            "pathrag_gds.api.app:create_app_from_env",
            factory=True,
            host=args.host,
            port=args.port,
            workers=args.workers,
            log_level=args.log_level,
            timeout_graceful_shutdown=5,
        )
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0
