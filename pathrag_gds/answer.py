"""The extractive answer of a result, without an LLM: the best path's answer in words. Pure.

It is the default, and the fallback of a generated answer (`pathrag_gds.answer_llm`).

From the #1 path: its first answer candidate, the path in words (the first part of its text, the
chain in the ontology's phrases), and a sentence of its source passages that supports the claim
(:func:`~pathrag_gds.support.supporting_sentence`: it names the answer and an entity the answer is
related to on the path; the most hops stated, then the words of the question and the relation
types); no quote when no sentence does. Without paths (the global mode), the best cluster: its
title and the start of its summary.

Example:
    >>> from pathrag_gds.results import AnswerCandidate, EdgeOut, NodeOut, PathResult, SourceChunk
    >>> p = PathResult(rank=1, score=1.0, depth=1, key="k", text="Bob is owned by Jane. ||| ...",
    ...     path_context=["Bob <- owns <- Jane"],
    ...     nodes=[NodeOut(id="b", name="Bob", labels=[]), NodeOut(id="j", name="Jane", labels=[])],
    ...     answer_candidates=[AnswerCandidate(id="j", name="Jane", labels=["Person"])],
    ...     edges=[EdgeOut(type="owns", source="j", target="b", direction="in")],
    ...     sources=[SourceChunk(id="c", text="Jane had milk. Jane has owned Bob for years.",
    ...         entity_id="j")])
    >>> extractive_answer([p], [], "Who owns Bob?").text
    'Jane. Bob is owned by Jane. As the text has it: "Jane has owned Bob for years."'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from pathrag_gds.sentences import clip, split_sentences
from pathrag_gds.support import PathClaim, attribute_words, entity_names, supporting_sentence

if TYPE_CHECKING:  # pragma: no cover
    from pathrag_gds.results import ClusterResult, PathResult


class Answer(BaseModel):
    """An answer built from the retrieved graph: what, how it is reached, and the text that says so."""

    text: str = Field(description="the answer in one paragraph")
    entity_id: str | None = Field(
        default=None, description="the answer entity: the #1 path's first candidate"
    )
    entity: str | None = Field(default=None, description="its name")
    path: str = Field("", description="the #1 path in words")
    sentence: str | None = Field(default=None, description="the source sentence that supports it")
    source_id: str | None = Field(default=None, description="the chunk the sentence comes from")
    generated: bool = Field(
        default=False,
        description="true: `text` was written by the answer model (PATHRAG_ANSWER_LLM_URL) from the top "
        "paths and their passages; false: the extractive answer",
    )
    model: str | None = Field(default=None, description="the answer model asked, when one was")
    reason: str | None = Field(
        default=None,
        description="why the answer model's text is not given (it failed, or none is configured): the "
        "extractive answer stands in",
    )
    passages: list[str] = Field(
        default_factory=list,
        description="generated: the ids of the source passages the prompt numbered; `[n]` in `text` "
        "cites passages[n-1]",
    )


def _path_words(p: PathResult) -> str:
    words = p.text.split(" ||| ")[0].strip() if p.text else ""
    return words or " ; ".join(p.path_context) or (p.nodes[0].name if p.nodes else "")


def _from_path(p: PathResult, question: str) -> Answer:
    cand = p.answer_candidates[0] if p.answer_candidates else None
    claim = PathClaim.of(
        question,
        {n.id: entity_names(n.name, n.attributes) for n in p.nodes},
        [(e.source, e.type, e.target) for e in p.edges],
        cand.id if cand is not None else None,
        [w for n in p.nodes for w in attribute_words(n.attributes)],
        [w for e in p.edges for w in attribute_words(e.attributes)],
    )
    found = supporting_sentence(claim, [ch.text for ch in p.sources])
    best = (found[0], p.sources[found[1]].id) if found else None
    sentence = clip(best[0]) if best else None
    words = _path_words(p)
    head = f"{cand.name}. " if cand is not None else ""
    return Answer(
        text=head + words + (f' As the text has it: "{sentence}"' if sentence else ""),
        entity_id=cand.id if cand else None,
        entity=cand.name if cand else None,
        path=words,
        sentence=sentence,
        source_id=best[1] if best else None,
    )


def _from_cluster(c: ClusterResult) -> Answer:
    first = split_sentences(c.summary)[:2]
    top = c.top_entities[0] if c.top_entities else None
    return Answer(
        text=f"{c.title}: " + " ".join(first),
        entity_id=top.id if top else None,
        entity=top.name if top else None,
        path="",
    )


def extractive_answer(
    paths: Sequence[PathResult], clusters: Sequence[ClusterResult], question: str = ""
) -> Answer | None:
    """The answer of a result (see the module docstring); None when it holds neither paths nor clusters.

    `question`: its words break ties between sentences that support the claim equally.
    """
    if paths:
        return _from_path(paths[0], question)
    if clusters:
        return _from_cluster(clusters[0])
    return None
