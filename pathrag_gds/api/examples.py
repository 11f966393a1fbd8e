"""Example questions of a community, for the explorer's first view (`GET /v1/communities/{id}/examples`).

Where the package ships an evaluation file for the community (`datasets/data/*_eval.yaml`, its
`community_id`), the examples are questions of it: of its first set (`spec`), one per path length
(the last listed of each), shortest first, so that the demo's own multi-hop question is among them.
Any other community gets questions written from its graph: for each relationship type of its
ontology that one of its edges carries, "Which <source type> <phrase> <target name>?" ("Which
Person owns Bob the Cat?"), from the phrase the ontology reads it with.

Example:
    >>> pick_questions([("a?", 0), ("b?", 1), ("c?", 1), ("d?", 3)], 3)
    ['a?', 'c?', 'd?']
    >>> graph_question("Person", "owns", "Bob the Cat")
    'Which Person owns Bob the Cat?'
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from typing import Any, Literal

from pydantic import BaseModel, Field

from pathrag_gds.datasets.bob_suite import DATA, load_suite
from pathrag_gds.errors import InvalidInput
from pathrag_gds.graph import Graph
from pathrag_gds.ontology import Ontology, type_labels

#: Example questions returned at most.
MAX_EXAMPLES = 4


class ExamplesOut(BaseModel):
    """A few questions to ask a community."""

    community_id: str
    source: Literal["eval", "graph", "none"] = Field(
        description="`eval`: from the evaluation file the package ships for it; `graph`: written from its "
        "edges and the ontology's phrases; `none`: it has no edge to write one from"
    )
    questions: list[str]


@cache
def shipped_questions() -> dict[str, tuple[tuple[str, int | None], ...]]:
    """The questions (with their path lengths) of each community an evaluation file ships for."""
    out: dict[str, tuple[tuple[str, int | None], ...]] = {}
    for entry in sorted(DATA.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith("_eval.yaml"):
            continue
        try:
            suite = load_suite(entry)
        except InvalidInput:
            continue
        first = suite.queries or next((qs for qs in suite.sets.values() if qs), ())
        if suite.community_id and first and suite.community_id not in out:
            out[suite.community_id] = tuple((q.query, q.hops) for q in first)
    return out


def pick_questions(questions: Sequence[tuple[str, int | None]], n: int = MAX_EXAMPLES) -> list[str]:
    """Up to `n` questions: the last listed of each path length, shortest first (then the rest in order)."""
    last: dict[int, str] = {}
    for text, hops in questions:
        if hops is not None:
            last[hops] = text
    chosen = [last[h] for h in sorted(last)]
    if len(chosen) > n:  # keep the shortest and the longest, drop from the middle
        chosen = chosen[: n - 1] + chosen[-1:]
    for text, _ in questions:
        if len(chosen) >= n:
            break
        if text not in chosen:
            chosen.append(text)
    return chosen[:n]


def graph_question(source_type: str, phrase: str, target: str) -> str:
    """A question whose answer is the source of an edge: "Which <type> <phrase> <target>?"."""
    return f"Which {source_type} {phrase} {target}?"


def questions_from_edges(
    rows: Iterable[Mapping[str, Any]], ontology: Ontology, n: int = MAX_EXAMPLES
) -> list[str]:
    """Questions from `api_examples.cypher`'s rows (`type`, `source_labels`, `target`), at most `n`."""
    out: list[str] = []
    for row in rows:
        types = type_labels(row.get("source_labels") or [])
        target = str(row.get("target") or "").strip()
        if not target:
            continue
        text = graph_question(
            types[0] if types else "entity", ontology.relation(str(row["type"])).phrase, target
        )
        if text not in out:
            out.append(text)
        if len(out) >= n:
            break
    return out


def community_examples(
    graph: Graph, ontology: Ontology, community_id: str, n: int = MAX_EXAMPLES
) -> ExamplesOut:
    """The examples of a community: its shipped evaluation file's, else written from its edges."""
    shipped = shipped_questions().get(community_id)
    if shipped:
        return ExamplesOut(community_id=community_id, source="eval", questions=pick_questions(shipped, n))
    types = ontology.relation_names
    rows = (
        graph.read(
            "api_examples",
            community_id=community_id,
            types=types,
            limit=len(types),
            entity_label=graph.settings.entity_label,
        )
        if types
        else []
    )
    questions = questions_from_edges(rows, ontology, n)
    return ExamplesOut(
        community_id=community_id, source="graph" if questions else "none", questions=questions
    )
