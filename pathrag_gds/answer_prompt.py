"""The prompt of a generated answer: the question, the top paths' texts and their passages, numbered.

Pure. The paths come best first, each as its text in words and its answer candidates; the source
passages of those paths follow once each (first come, first numbered), as `[1]`, `[2]`, ... so the
answer model can cite them, and `Prompt.passages` says which chunk each number is. Without paths
(the global mode), the best clusters' titles and summaries stand in for them.

Example:
    >>> from pathrag_gds.results import AnswerCandidate, NodeOut, PathResult, SourceChunk
    >>> p = PathResult(rank=1, score=0.9, depth=1, key="k", text="Bob is owned by Jane. ||| Jane is a girl.",
    ...     path_context=["Bob <- owns <- Jane"], edges=[],
    ...     nodes=[NodeOut(id="b", name="Bob", labels=[]), NodeOut(id="j", name="Jane", labels=[])],
    ...     answer_candidates=[AnswerCandidate(id="j", name="Jane", labels=["Person"])],
    ...     sources=[SourceChunk(id="c7", text="Jane named him Bob.", entity_id="j")])
    >>> prompt = build_prompt("Who owns Bob?", [p], [])
    >>> prompt.passages
    ['c7']
    >>> print(prompt.messages[1]["content"])
    Question: Who owns Bob?
    <BLANKLINE>
    Paths through the knowledge graph, best first:
    Path 1: Bob is owned by Jane. Jane is a girl. (may answer: Jane)
    <BLANKLINE>
    Source passages:
    [1] Jane named him Bob.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from pathrag_gds.results import ClusterResult, PathResult, SourceChunk

#: What the answer model is told to do (the system message).
SYSTEM = (
    "You answer questions about a knowledge graph. Use only the paths and source passages given: "
    "the paths come best first, and the first one most likely holds the answer. Answer in one to three "
    "sentences, in the question's language. Cite the passages you rely on by their number in square "
    "brackets, e.g. [1]. If the paths and passages do not answer the question, say so in one sentence."
)
#: Characters of one passage put in the prompt (longer ones are cut at a word, with an ellipsis).
PASSAGE_CHARS = 1200
#: Characters of one path's text put in the prompt.
PATH_CHARS = 800


@dataclass(frozen=True)
class Prompt:
    """The chat messages to send, and the chunk id of each numbered passage (`[n]`: passages[n-1])."""

    messages: list[dict[str, str]]
    passages: list[str] = field(default_factory=list)


def _cut(text: str, limit: int) -> str:
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    head = text[:limit].rsplit(" ", 1)[0] or text[:limit]
    return head + "…"


def path_words(p: PathResult) -> str:
    """A path's text in words: the parts of its serialized text, joined (else its hops, else its node)."""
    parts = [part.strip() for part in p.text.split("|||")] if p.text else []
    words = " ".join(part for part in parts if part)
    return words or " ; ".join(p.path_context) or (p.nodes[0].name if p.nodes else "")


def _where(s: SourceChunk) -> str:
    """Where a passage stands: its document title and headings, when it has them."""
    title = s.document_title or s.document_key
    if title is None:
        return ""
    trail = [title, *(h for h in s.headings if h != title)]
    return "(" + " > ".join(trail) + ") "


def _passages(paths: Sequence[PathResult], limit: int) -> list[SourceChunk]:
    seen: set[str] = set()
    out: list[SourceChunk] = []
    for p in paths:
        for s in p.sources:
            if len(out) >= limit:
                return out
            if s.id not in seen and s.text.strip():
                seen.add(s.id)
                out.append(s)
    return out


def build_prompt(
    question: str,
    paths: Sequence[PathResult],
    clusters: Sequence[ClusterResult],
    *,
    max_paths: int = 5,
    max_passages: int = 8,
) -> Prompt:
    """The messages for the answer model: the system message, then the question and what was found.

    Args:
        question: the question, as asked.
        paths: the result's paths, best first (the first `max_paths` are used).
        clusters: the result's clusters (used when there are no paths: the global mode).
        max_paths: paths put in the prompt.
        max_passages: source passages put in the prompt, numbered.
    """
    top = list(paths[:max_paths])
    lines = [f"Question: {' '.join(question.split())}", ""]
    if top:
        lines.append("Paths through the knowledge graph, best first:")
        for i, p in enumerate(top, start=1):
            names = ", ".join(dict.fromkeys(a.name for a in p.answer_candidates))
            may = f" (may answer: {names})" if names else ""
            lines.append(f"Path {i}: {_cut(path_words(p), PATH_CHARS)}{may}")
    elif clusters:
        lines.append("Groups of related entities in the knowledge graph, best first:")
        for i, c in enumerate(clusters[:max_paths], start=1):
            lines.append(f"Group {i}: {c.title}: {_cut(c.summary, PASSAGE_CHARS)}")
    chosen = _passages(top, max_passages)
    if chosen:
        lines += ["", "Source passages:"]
        lines += [f"[{n}] {_where(s)}{_cut(s.text, PASSAGE_CHARS)}" for n, s in enumerate(chosen, start=1)]
    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "\n".join(lines)}]
    return Prompt(messages=messages, passages=[s.id for s in chosen])
