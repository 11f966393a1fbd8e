"""Bearer tokens scoped to communities (constant-time check), and the loopback rules of `serve`.

Tokens come from `PATHRAG_API_TOKEN` (every community) and `PATHRAG_API_TOKENS_FILE`, a JSON or YAML
mapping of token to the communities it may query (`"*"`: every one):

    {"<token of acme's app>": ["acme"], "<an operator's token>": "*"}
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import yaml

from pathrag_gds.api.errors import ApiError
from pathrag_gds.config import Settings
from pathrag_gds.errors import ConfigError

#: Shortest token accepted when the server listens beyond loopback.
MIN_TOKEN_CHARS = 16


def tokens_match(given: str, expected: str) -> bool:
    """Compare two tokens in constant time (no early exit on the first differing byte)."""
    return hmac.compare_digest(given.encode("utf-8"), expected.encode("utf-8"))


@dataclass(frozen=True)
class Caller:
    """Who sent a request: the communities it may query (None: all) and an owner key for sessions."""

    communities: frozenset[str] | None
    owner: str = ""

    def may(self, community_id: str) -> bool:
        """True when this caller may query `community_id`."""
        return self.communities is None or community_id in self.communities


#: The caller of a server without tokens (loopback only): every community.
ANONYMOUS = Caller(None, "")


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8")).digest()


def load_tokens_file(path: Path) -> dict[str, frozenset[str] | None]:
    """Read a tokens file: a mapping of token to a list of community ids, or `"*"` for all.

    Raises:
        ConfigError: the file is missing, unreadable, or an entry is malformed (tokens are not shown).
    """
    where = f"PATHRAG_API_TOKENS_FILE {path}"
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read {where} ({exc.strerror}): fix the path or unset it") from exc
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{where} is not valid JSON or YAML ({exc}): fix the file") from exc
    if not isinstance(data, Mapping) or not data:
        raise ConfigError(
            f'{where} must map tokens to communities, e.g. {{"<token>": ["acme"], "<token2>": "*"}}'
        )
    out: dict[str, frozenset[str] | None] = {}
    for n, (token, scope) in enumerate(data.items(), start=1):
        if not isinstance(token, str) or len(token) < MIN_TOKEN_CHARS:
            raise ConfigError(
                f"entry {n} of {where}: a token must be a string of at least {MIN_TOKEN_CHARS} random "
                "characters"
            )
        if scope == "*" or (isinstance(scope, list) and "*" in scope):
            out[token] = None
        elif isinstance(scope, list) and scope and all(isinstance(c, str) and c for c in scope):
            out[token] = frozenset(scope)
        else:
            raise ConfigError(
                f'entry {n} of {where}: give a non-empty list of community ids, or "*" for all of them'
            )
    return out


class TokenTable:
    """The server's bearer tokens and their scopes (empty: no token, loopback only)."""

    def __init__(self, scopes: Mapping[str, frozenset[str] | None]) -> None:
        self._entries = [(_digest(t), Caller(c, _digest(t).hex()[:32])) for t, c in scopes.items()]

    @classmethod
    def from_settings(cls, settings: Settings) -> TokenTable:
        """`PATHRAG_API_TOKEN` (all communities) plus the entries of `PATHRAG_API_TOKENS_FILE`.

        Raises:
            ConfigError: the tokens file is unusable.
        """
        scopes: dict[str, frozenset[str] | None] = {}
        if settings.api_tokens_file is not None:
            scopes.update(load_tokens_file(settings.api_tokens_file))
        if settings.api_token:
            scopes[settings.api_token] = None
        return cls(scopes)

    def __len__(self) -> int:
        """The number of distinct tokens."""
        return len(self._entries)

    @property
    def enabled(self) -> bool:
        """True when requests must carry a token."""
        return bool(self._entries)

    def authenticate(self, header: str | None) -> Caller:
        """The caller an `Authorization` header names; every caller when no token is configured.

        Every configured token is compared (constant time each, no early exit).

        Raises:
            ApiError: 401 when the header is missing or not `Bearer ...`, 403 when no token matches.
        """
        if not self._entries:
            return ANONYMOUS
        challenge = {"WWW-Authenticate": "Bearer"}
        if not header:
            raise ApiError(
                401,
                "unauthorized",
                "missing Authorization header: send 'Authorization: Bearer <token>'",
                challenge,
            )
        scheme, _, given = header.partition(" ")
        if scheme.lower() != "bearer" or not given.strip():
            raise ApiError(
                401, "unauthorized", "the Authorization header must be 'Bearer <token>'", challenge
            )
        digest = _digest(given.strip())
        found: Caller | None = None
        for expected, caller in self._entries:
            if hmac.compare_digest(digest, expected):
                found = caller
        if found is None:
            raise ApiError(403, "forbidden", "the bearer token is wrong: use a token the server was given")
        return found


def check_authorization(header: str | None, token: str | None) -> None:
    """Check an `Authorization` header against one token (None: no check); see :class:`TokenTable`.

    Raises:
        ApiError: 401 when the header is missing or not `Bearer ...`, 403 when the token is wrong.
    """
    TokenTable({token: None} if token else {}).authenticate(header)


def is_loopback(host: str) -> bool:
    """True when `host` is a loopback address or `localhost`."""
    if host.lower() in {"localhost", "localhost.localdomain"}:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def host_name(host_header: str) -> str:
    """The name of a `Host` header without its port (`[::1]:8000` -> `::1`)."""
    h = host_header.strip()
    if h.startswith("["):
        return h[1 : h.find("]")] if "]" in h else h
    return h.rsplit(":", 1)[0] if h.count(":") == 1 else h


def check_listen(host: str, token: str | None, file_tokens: bool = False) -> None:
    """Refuse to listen beyond loopback without a (long enough) token.

    Args:
        host: the address to listen on.
        token: `PATHRAG_API_TOKEN`.
        file_tokens: `PATHRAG_API_TOKENS_FILE` holds tokens (checked for length when read).

    Raises:
        ApiError: with a message saying to set PATHRAG_API_TOKEN or bind to 127.0.0.1.
    """
    if is_loopback(host):
        return
    if not token and file_tokens:
        return
    if not token:
        raise ApiError(
            500,
            "config_error",
            f"refusing to listen on {host} without a token: set PATHRAG_API_TOKEN (at least "
            f"{MIN_TOKEN_CHARS} random characters) or PATHRAG_API_TOKENS_FILE, or use --host 127.0.0.1",
        )
    if len(token) < MIN_TOKEN_CHARS:
        raise ApiError(
            500,
            "config_error",
            f"PATHRAG_API_TOKEN is {len(token)} characters; use at least {MIN_TOKEN_CHARS} random characters "
            f"to listen on {host}",
        )
