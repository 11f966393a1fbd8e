"""Path and entity serialization: the text the scorer reads.

A path text is a natural-language summary of the chain first (one sentence per hop, active or
passive phrasing from the ontology, relation attributes in parentheses), then ` ||| `, then every
entity's attribute text. The whole stays within the model's token limit: the summary is kept, and
entity texts are shortened sentence by sentence when needed.

Example:
    >>> jane = EntityRecord("jane", ("Person",), "Jane", "Bob's owner.", {"age": 34})
    >>> entity_text(jane)
    "Jane is a Person. Jane's description is Bob's owner. Jane's age is 34."
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pathrag_gds.ontology import Ontology
from pathrag_gds.paths import EntityRecord, Path

#: Keys never written as attributes.
SYSTEM_KEYS = frozenset(
    {"id", "label", "labels", "name", "embedding", "seed_score", "community_id", "_relationships_loaded"}
)
SEPARATOR = " ||| "

TokenCounter = Callable[[str], int]


def approx_tokens(text: str) -> int:
    """A cheap upper estimate of WordPiece tokens (used when no tokenizer is given)."""
    return int(len(text.split()) * 1.35) + 2


def words_tokens(text: str, count_tokens: TokenCounter) -> int:
    """Tokens of `text` counted word by word (a cached counter then meets each word once).

    Exact for WordPiece, which splits at spaces before it looks inside a word; an estimate within
    a few tokens for other tokenizers. A path's summary is new with every path, its words are not.

    Example:
        >>> words_tokens("Bob -> owns -> Jane", approx_tokens)
        7
    """
    return 2 + sum(count_tokens(w) - 2 for w in text.split())


def _clean(value: Any) -> str:
    if isinstance(value, list | tuple):
        text = ", ".join(_clean(v) for v in value)
    else:
        text = str(value)
    return " ".join(text.split()).rstrip(".")


def humanize_key(key: str) -> str:
    """`fur_color` -> `fur color`."""
    return key.replace("_", " ").strip()


def entity_sentences(entity: EntityRecord) -> list[str]:
    """The entity's attribute text as sentences: type first, then description, then attributes."""
    name = _clean(entity.name) or entity.id
    out = [f"{name} is a {entity.label}."]
    if entity.description:
        out.append(f"{name}'s description is {_clean(entity.description)}.")
    for key, value in entity.attributes.items():
        if key in SYSTEM_KEYS or key == "description" or value is None or value == "":
            continue
        out.append(f"{name}'s {humanize_key(key)} is {_clean(value)}.")
    return out


def entity_text(entity: EntityRecord) -> str:
    """One entity as text: also the text embedded into the vector index."""
    return " ".join(entity_sentences(entity))


def _rel_attrs(attrs: Mapping[str, Any]) -> str:
    parts = [
        f"{humanize_key(k)} is {_clean(v)}"
        for k, v in attrs.items()
        if k not in SYSTEM_KEYS and v is not None and v != ""
    ]
    return f" ({', '.join(parts)})" if parts else ""


def chain_summary(path: Path, entities: Mapping[str, EntityRecord], ontology: Ontology) -> str:
    """One sentence per hop, in walk order: `Bob is owned by Jane. Jane lives in ...`."""
    if path.depth == 0:
        e = entities[path.start]
        return f"{_clean(e.name)} is a {e.label}."
    sentences = []
    for i, edge in enumerate(path.edges):
        here = _clean(entities[path.node_ids[i]].name)
        there = _clean(entities[path.node_ids[i + 1]].name)
        rel = ontology.relation(edge.type)
        attrs = _rel_attrs(edge.attributes)
        if edge.direction == "out":
            sentences.append(f"{here} {rel.phrase} {there}{attrs}.")
        elif rel.inverse_phrase:
            sentences.append(f"{here} {rel.inverse_phrase} {there}{attrs}.")
        else:
            sentences.append(f"{there} {rel.phrase} {here}{attrs}.")
    return " ".join(sentences)


def path_context(path: Path, entities: Mapping[str, EntityRecord]) -> list[str]:
    """`A -> REL -> B` strings, one per hop (the HTTP API's `path_context`), arrows as stored."""
    out = []
    for i, edge in enumerate(path.edges):
        a = entities[path.node_ids[i]].name
        b = entities[path.node_ids[i + 1]].name
        out.append(f"{a} -> {edge.type} -> {b}" if edge.direction == "out" else f"{a} <- {edge.type} <- {b}")
    return out


def serialize_path(
    path: Path,
    entities: Mapping[str, EntityRecord],
    ontology: Ontology,
    *,
    max_tokens: int = 256,
    count_tokens: TokenCounter = approx_tokens,
    sentences_of: Callable[[EntityRecord], list[str]] = entity_sentences,
) -> str:
    """The scorer's text for a path: `summary ||| entity texts`, within `max_tokens`.

    The summary always stays whole. When the entity texts do not fit, each entity keeps its leading
    sentences (type, description, then attributes) up to an equal share of what is left, so no
    entity is dropped and the end of the text is never cut off blindly. `sentences_of` gives an
    entity's sentences (:func:`entity_sentences`; a caller scoring many paths passes a cached one).
    """
    summary = chain_summary(path, entities, ontology)
    seen: list[str] = []
    for nid in path.node_ids:
        if nid not in seen:
            seen.append(nid)
    per_entity = [sentences_of(entities[n]) for n in seen]
    # Sentence counts are summed (each counted once; the counter is cached by the caller), minus the
    # two special tokens every count includes: an estimate within a few tokens of the joined text.
    sizes = [[max(count_tokens(x) - 2, 1) for x in sentences] for sentences in per_entity]
    head = words_tokens(summary + SEPARATOR, count_tokens)
    if head + sum(map(sum, sizes)) <= max_tokens:
        return summary + SEPARATOR + " ".join(" ".join(x) for x in per_entity)
    budget = max_tokens - head
    if budget <= 0:
        return summary
    share = max(budget // len(per_entity), 1)
    kept: list[str] = []
    for sentences, counts in zip(per_entity, sizes, strict=True):
        taken: list[str] = []
        used = 0
        for x, n in zip(sentences, counts, strict=True):
            if taken and used + n > share:
                break
            taken.append(x)
            used += n
        kept.append(" ".join(taken))
    return summary + SEPARATOR + " ".join(kept)


def answer_candidates(path: Path, exclude: Sequence[str] = ()) -> list[str]:
    """Entity ids that may answer the question, best first: from the end of the path backwards."""
    out = [n for n in reversed(path.node_ids) if n not in exclude]
    return out or [path.end]
