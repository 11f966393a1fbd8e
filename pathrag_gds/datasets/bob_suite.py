"""Story-graph question suites read from YAML: the Bob suite and any file of the same shape.

The Bob suite holds the specification's 10 queries, 10 fresh ones and 24 held-out ones; the harbour
graph's file holds its 30 held-out ones.

A suite file holds named sets of questions (`spec`, `fresh`, `heldout`, ...) and the community they
run in (`community_id`; the Bob file's comes from `bob.yaml` when it has none).

Example:
    >>> suite = load_suite()
    >>> len(suite.queries), len(suite.fresh), len(suite.sets["heldout"]), suite.community_id
    (10, 10, 24, 'DefaultCommunity_FictionalStories')
    >>> harbour = load_suite(DATA / "harbour_eval.yaml")
    >>> sorted(harbour.sets), harbour.community_id
    (['heldout'], 'Harbour_Stories')
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

DATA = resources.files("pathrag_gds.datasets") / "data"


@dataclass(frozen=True)
class EvalQuery:
    """One evaluation question with what its #1 path must hold."""

    id: str
    query: str
    must_contain: tuple[str, ...]
    answer: tuple[str, ...]
    hops: int | None = None
    note: str = ""


#: The keys of a suite file that are not question sets.
META_KEYS = frozenset({"graph", "community_id", "ontology_id"})


@dataclass(frozen=True)
class Suite:
    """An evaluation file: its named question sets and the community they run in."""

    sets: dict[str, tuple[EvalQuery, ...]]
    community_id: str | None
    #: The graph file the questions ask about (`graph:`, beside the suite file), when it names one.
    graph_file: Path | None = None

    @property
    def queries(self) -> tuple[EvalQuery, ...]:
        """The specification's queries (`spec`)."""
        return self.sets.get("spec", ())

    @property
    def fresh(self) -> tuple[EvalQuery, ...]:
        """The fresh queries (`fresh`)."""
        return self.sets.get("fresh", ())


_START = re.compile(r"\s*([a-z0-9_]+)")
_STEP = re.compile(r"\s*(-([a-z_]+)->|<-([a-z_]+)-)\s*([a-z0-9_]+)")


def intended_path(note: str) -> tuple[str, list[tuple[str, str, str]]]:
    """The start entity and the (source, type, target) edges a question's `note` opens with.

    Raises:
        InvalidInput: the note does not open with an entity id.

    Example:
        >>> intended_path("bob -owned_by-> martha <-child_of- jane; Jane is Martha's child")
        ('bob', [('bob', 'owned_by', 'martha'), ('jane', 'child_of', 'martha')])
    """
    from pathrag_gds.errors import InvalidInput

    head = note.split(";")[0]
    m = _START.match(head)
    if m is None:
        raise InvalidInput(f"the note {note!r} does not open with its intended path (a -rel-> b <-rel- c)")
    node, rest, edges = m.group(1), head[m.end() :], []
    start = node
    while (step := _STEP.match(rest)) is not None:
        nxt = step.group(4)
        edges.append((node, step.group(2), nxt) if step.group(2) else (nxt, step.group(3), node))
        node, rest = nxt, rest[step.end() :]
    return start, edges


def _parse(items: Sequence[dict[str, Any]]) -> tuple[EvalQuery, ...]:
    return tuple(
        EvalQuery(
            id=str(q["id"]),
            query=str(q["query"]),
            must_contain=tuple(str(x) for x in q.get("must_contain", [])),
            answer=tuple(str(x) for x in q.get("answer", [])),
            hops=q.get("hops"),
            note=str(q.get("note", "")),
        )
        for q in items
    )


def load_suite(path: Path | Any | None = None) -> Suite:
    """Read a suite file (default: the package's `bob_eval.yaml`, its community from `bob.yaml`).

    Raises:
        InvalidInput: the file is missing, is not YAML of a suite's shape, or holds no questions.
    """
    from pathrag_gds.errors import InvalidInput

    source = DATA / "bob_eval.yaml" if path is None else path
    try:
        data = yaml.safe_load(source.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise InvalidInput(f"cannot read the question file {source}: {exc}") from exc
    if not isinstance(data, dict):
        raise InvalidInput(f"{source}: expected a mapping of question sets (spec, fresh, heldout, ...)")
    try:
        sets = {
            ("spec" if k == "queries" else str(k)): _parse(v)
            for k, v in data.items()
            if k not in META_KEYS and isinstance(v, list)
        }
    except (KeyError, TypeError) as exc:
        raise InvalidInput(f"{source}: every question needs an id and a query ({exc})") from exc
    if not any(sets.values()):
        raise InvalidInput(f"{source}: no questions (expected lists such as spec:, fresh:, heldout:)")
    community = data.get("community_id")
    if community is None and path is None:
        graph = yaml.safe_load((DATA / "bob.yaml").read_text(encoding="utf-8"))
        community = (graph.get("community") or {}).get("id")
    graph_name = data.get("graph")
    graph_file = Path(str(source)).parent / str(graph_name) if graph_name else None
    return Suite(sets=sets, community_id=community, graph_file=graph_file)
