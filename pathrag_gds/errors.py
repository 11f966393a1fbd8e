"""Errors a user can cause, each carrying a message that says what to do."""

from __future__ import annotations


class PathRagError(Exception):
    """Base class: the message is shown to the user as one line, without a traceback."""


class ConfigError(PathRagError):
    """A setting is missing or invalid."""


class DatabaseUnavailable(PathRagError):
    """Neo4j cannot be reached or refused the credentials."""


class ServerNotRunning(DatabaseUnavailable):
    """Nothing answers at the Neo4j URI: no server runs there (`db status` says so, with how to start one)."""


class SchemaError(PathRagError):
    """The graph lacks something the query needs (label, relationship type, vector index, data)."""


class ModelError(PathRagError):
    """A model file is missing or unusable."""


class InvalidInput(PathRagError):
    """A question or parameter is out of range."""


class QueryTimeout(PathRagError):
    """A query ran past its time limit."""


class QueryCancelled(PathRagError):
    """A query was cancelled by its caller (e.g. the HTTP client went away)."""


class LocalServerError(PathRagError):
    """The local Neo4j server cannot be installed, started or stopped (Java, Maven, port, timeout)."""


class LoadIncomplete(SchemaError):
    """A community's first load has not completed (it runs, or was interrupted): nothing to read yet."""


class LoadConflict(PathRagError):
    """A load cannot go on: another load of the community runs, or took over the one that was running."""


class LoadInterrupted(PathRagError):
    """A load stopped before it completed: readers still see the previous version; a re-run completes it."""
