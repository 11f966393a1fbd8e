"""Request and response models of the HTTP API, in one place.

From :mod:`.requests`, :mod:`.responses`, :mod:`.info` (`GET /v1/info`) and :mod:`.examples`.

Requests are strict (`extra="forbid"`): a client can never pass connection details (URI, user,
password); a session is bound to a database NAMED in the server's configuration.
"""

from __future__ import annotations

from pathrag_gds.api.examples import ExamplesOut
from pathrag_gds.api.info import InfoOut, ModeInfo, QueryDefaults
from pathrag_gds.api.requests import (
    FORBIDDEN_FIELDS,
    NO_HOPS,
    VALID_MODES,
    Effective,
    QueryOptions,
    QueryRequest,
    SessionCreate,
    SessionOut,
    has_words,
    resolve,
)
from pathrag_gds.api.responses import (
    ERROR_RESPONSES,
    MAX_NEIGHBORS_PER_SEED,
    AnswerEvent,
    AnswerTokenEvent,
    DepthEvent,
    ErrorDetail,
    ErrorOut,
    Neighbor,
    PathOut,
    PathsEvent,
    QueryResponse,
    SeedGroup,
    detailed_results,
    path_out,
    query_response,
)

__all__ = [
    "ERROR_RESPONSES",
    "FORBIDDEN_FIELDS",
    "MAX_NEIGHBORS_PER_SEED",
    "NO_HOPS",
    "VALID_MODES",
    "AnswerEvent",
    "AnswerTokenEvent",
    "DepthEvent",
    "Effective",
    "ErrorDetail",
    "ErrorOut",
    "ExamplesOut",
    "InfoOut",
    "ModeInfo",
    "Neighbor",
    "PathOut",
    "PathsEvent",
    "QueryDefaults",
    "QueryOptions",
    "QueryRequest",
    "QueryResponse",
    "SeedGroup",
    "SessionCreate",
    "SessionOut",
    "detailed_results",
    "has_words",
    "path_out",
    "query_response",
    "resolve",
]
