"""`python -m pathrag_gds mcp`: an MCP server for agents (stdio by default, or streamable HTTP).

docs/mcp.md says how to connect a client and how calls are scoped to communities.
"""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `mcp` command."""
    p = sub.add_parser("mcp", help="serve the query, intent and communities tools over MCP (stdio or HTTP)")
    p.add_argument("--transport", choices=("stdio", "http"), default="stdio", help="stdio (default) or http")
    p.add_argument("--host", default="127.0.0.1", help="HTTP: address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8765, help="HTTP: port (default 8765); the path is /mcp")
    p.add_argument(
        "--community",
        action="append",
        default=None,
        help="only this community may be seen and queried (repeat for more)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Serve until the client closes stdin (stdio) or the process is interrupted (HTTP)."""
    from pathrag_gds.errors import ConfigError

    try:
        from pathrag_gds.mcp_server import build_server, scope_from_settings
    except ImportError as exc:
        raise ConfigError(
            f"the MCP server needs the `mcp` extra: pip install 'pathrag_gds[mcp]' ({exc})"
        ) from exc
    from pathrag_gds.api.auth import check_listen
    from pathrag_gds.api.errors import ApiError
    from pathrag_gds.config import get_settings

    scope = scope_from_settings(args.community)
    server = build_server(scope)
    if args.transport == "stdio":
        server.run("stdio")
        return 0
    settings = get_settings()
    try:
        check_listen(args.host, settings.api_token, file_tokens=settings.api_tokens_file is not None)
    except ApiError as exc:
        raise ConfigError(exc.message) from exc
    server.run("streamable-http", host=args.host, port=args.port)
    return 0
