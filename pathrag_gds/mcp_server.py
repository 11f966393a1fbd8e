"""An MCP server (the official `mcp` SDK): tools `query`, `intent` and `communities` for agents.

Scoped like the HTTP API (`pathrag_gds.api.auth`): over streamable HTTP each call's bearer token
names the communities it may see (`PATHRAG_API_TOKEN`, `PATHRAG_API_TOKENS_FILE`); over stdio the
caller is the local process, limited by `--community` and, when set, by the token in
`PATHRAG_MCP_TOKEN` (checked against the same token settings). docs/mcp.md.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from pathrag_gds.api.auth import ANONYMOUS, Caller, TokenTable
from pathrag_gds.api.errors import ApiError
from pathrag_gds.config import get_settings
from pathrag_gds.errors import PathRagError

#: The variable a stdio client sets to act with one of the server's tokens.
STDIO_TOKEN_ENV = "PATHRAG_MCP_TOKEN"


def _narrow(caller: Caller, allow: frozenset[str] | None) -> Caller:
    """`caller` limited to `allow` (None: no limit)."""
    if allow is None:
        return caller
    scope = allow if caller.communities is None else caller.communities & allow
    return Caller(scope, caller.owner)


class Scope:
    """Who a tool call comes from: the bearer token (HTTP) or the stdio settings, within `allow`."""

    def __init__(self, tokens: TokenTable, allow: frozenset[str] | None, stdio_token: str | None) -> None:
        self.tokens = tokens
        self.allow = allow
        self.stdio_token = stdio_token

    def caller(self, headers: Mapping[str, str] | None) -> Caller:
        """The caller of one tool call.

        Raises:
            ToolError: the token is missing or wrong.
        """
        try:
            if headers is not None:  # streamable HTTP: the request's bearer token
                caller = self.tokens.authenticate(headers.get("authorization"))
            elif self.tokens.enabled and self.stdio_token:
                caller = self.tokens.authenticate(f"Bearer {self.stdio_token}")
            else:  # stdio: the local user started the server
                caller = ANONYMOUS
        except ApiError as exc:
            raise ToolError(f"{exc.status} {exc.code}: {exc.message}") from exc
        return _narrow(caller, self.allow)


def _community(caller: Caller, community: str | None) -> str | None:
    """The community a call may use: `community`, or the caller's only one when it names none."""
    if community is None:
        if caller.communities is not None:
            if len(caller.communities) == 1:
                return next(iter(caller.communities))
            raise ToolError(f"name a community: this caller may query {sorted(caller.communities)}")
        return None
    if not caller.may(community):
        raise ToolError(f"403 forbidden: this caller may not query community {community!r}")
    return community


def _headers(ctx: Context[Any, Any]) -> Mapping[str, str] | None:
    try:
        return ctx.headers
    except ValueError:  # no request (not reached through a transport)
        return None


def build_server(scope: Scope) -> MCPServer:
    """The MCP server with its three tools, each checking `scope` on every call."""
    from pathrag_gds import __version__

    server: MCPServer = MCPServer(
        "pathrag_gds",
        version=__version__,
        instructions=(
            "Path retrieval over a Neo4j knowledge graph: `communities` lists the graphs you may "
            "query, `query` answers a question with ranked paths (answer, path text, sources), "
            "`intent` shows what a question asks for."
        ),
        log_level="WARNING",
    )

    @server.tool()
    def communities(ctx: Context[Any, Any]) -> list[dict[str, Any]]:
        """The communities this caller may query: sizes, type labels, chain model (as `info --json`)."""
        from pathrag_gds.graph import Graph
        from pathrag_gds.inventory import inventory

        caller = scope.caller(_headers(ctx))
        settings = get_settings()
        with Graph.connect(settings) as graph:
            found = inventory(graph, settings)
        return [c.as_dict() for c in found if caller.may(c.id)]

    @server.tool()
    def query(
        question: str,
        ctx: Context[Any, Any],
        community: str | None = None,
        hop_depth: int | None = None,
        top_n: int | None = None,
        mode: str | None = None,
    ) -> dict[str, Any]:
        """Answer a question with the top paths of a community: answer, each path's text, sources.

        Args:
            question: the question, in words.
            ctx: the MCP request (the SDK fills it in; it carries the bearer token).
            community: the community to search (see `communities`).
            hop_depth: how many hops a path may have (default: the server's).
            top_n: how many paths to return (default: the server's).
            mode: the retrieval mode (default: the server's), e.g. `hybrid`, `local`, `global`.
        """
        from pathrag_gds.commands.query import response_json
        from pathrag_gds.service import get_pathrag_service
        from pathrag_gds.validation import QueryLimits, check_query, default_options

        caller = scope.caller(_headers(ctx))
        community_id = _community(caller, community)
        settings = get_settings()
        limits = QueryLimits.of(settings)
        depth, n, seed_n = default_options(settings, limits)
        depth = depth if hop_depth is None else hop_depth
        n = n if top_n is None else top_n
        try:
            check_query(question, limits, hop_depth=depth, top_n=n, seed_n=seed_n)
            result = get_pathrag_service().pathrag(
                question, community_id=community_id, top_n=n, max_depth=depth, seed_n=seed_n, mode=mode
            )
        except PathRagError as exc:
            raise ToolError(str(exc)) from exc
        data: dict[str, Any] = json.loads(response_json(result, hop_depth=depth, top_n=n, seed_n=seed_n))
        return data

    @server.tool()
    def intent(question: str, ctx: Context[Any, Any], community: str | None = None) -> dict[str, Any]:
        """What a question asks for: expected types, hinted relations, the names it mentions."""
        from pathrag_gds.service import get_pathrag_service
        from pathrag_gds.validation import QueryLimits, check_question

        caller = scope.caller(_headers(ctx))
        community_id = _community(caller, community)
        try:
            check_question(question, QueryLimits.of(get_settings()).question_chars)
            service = get_pathrag_service()
            ontology = service.ontology_for(community_id, None)
            entities = service.seed_entities(question, community_id)
            found = service.intent(question, ontology, entities)
        except PathRagError as exc:
            raise ToolError(str(exc)) from exc
        return {"ontology": ontology.id, "inferred_ontology": ontology.inferred, **found.as_dict()}

    return server


def scope_from_settings(allow: list[str] | None) -> Scope:
    """The token settings of the HTTP API, the `--community` allow-list and `PATHRAG_MCP_TOKEN`."""
    return Scope(
        TokenTable.from_settings(get_settings()),
        frozenset(allow) if allow else None,
        os.environ.get(STDIO_TOKEN_ENV) or None,
    )
