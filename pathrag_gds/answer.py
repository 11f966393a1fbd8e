"""The extractive answer of a result, without an LLM: the best path's answer in words. Pure.

It is the default, and the fallback of a generated answer (`pathrag_gds.answer_llm`).

From the #1 path: its first answer candidate, the path in words (the first part of its text, the
chain in the ontology's phrases), and the sentence of its source passages that names most of the
path's entities (the answer counts twice). Without paths (the global mode), the best cluster: its
title and the start of its summary.

Example:
    >>> from pathrag_gds.results import AnswerCandidate, NodeOut, PathResult, SourceChunk
    >>> p = PathResult(rank=1, score=1.0, depth=1, key="k", text="Bob is owned by Jane. ||| ...",
    ...     path_context=["Bob <- owns <- Jane"], edges=[],
    ...     nodes=[NodeOut(id="b", name="Bob", labels=[]), NodeOut(id="j", name="Jane", labels=[])],
    ...     answer_candidates=[AnswerCandidate(id="j", name="Jane", labels=["Person"])],
    ...     sources=[SourceChunk(id="c", text="It rained. Jane named him Bob.", entity_id="j")])
    >>> extractive_answer([p], []).text
    'Jane. Bob is owned by Jane. As the text has it: "Jane named him Bob."'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from pathrag_gds.sentences import clip, name_matcher, scored_sentences, split_sentences

if TYPE_CHECKING:  # pragma: no cover
    from pathrag_gds.results import ClusterResult, PathResult

#: Weight of the answer entity against the path's other entities when choosing the sentence.
ANSWER_WEIGHT = 2.0


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


def _from_path(p: PathResult) -> Answer:
    cand = p.answer_candidates[0] if p.answer_candidates else None
    weights = {n.id: 1.0 for n in p.nodes}
    if cand is not None:
        weights[cand.id] = ANSWER_WEIGHT
    named = name_matcher({n.id: n.name for n in p.nodes})
    found = [(s, score, ch.id) for ch in p.sources for s, score in scored_sentences(ch.text, named, weights)]
    best = max(found, key=lambda x: (x[1], -len(x[0])), default=None)
    sentence = clip(best[0]) if best else None
    words = _path_words(p)
    head = f"{cand.name}. " if cand is not None else ""
    return Answer(
        text=head + words + (f' As the text has it: "{sentence}"' if sentence else ""),
        entity_id=cand.id if cand else None,
        entity=cand.name if cand else None,
        path=words,
        sentence=sentence,
        source_id=best[2] if best else None,
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


def extractive_answer(paths: Sequence[PathResult], clusters: Sequence[ClusterResult]) -> Answer | None:
    """The answer of a result (see the module docstring); None when it holds neither paths nor clusters."""
    if paths:
        return _from_path(paths[0])
    if clusters:
        return _from_cluster(clusters[0])
    return None
