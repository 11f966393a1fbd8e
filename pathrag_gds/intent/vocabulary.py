"""The ontology's vocabulary for intent: type and relation texts, embedded once per ontology.

An entity type stands for `a <label>` and `<label>: <description>`; a relationship type for the
sentence `<source> <phrase> <target>. <target> <inverse phrase> <source>. <description>`. Questions
and their nouns are compared with these vectors; :func:`vocabulary` caches them per ontology content.

Example:
    >>> from pathrag_gds.ontology import RelationType
    >>> owns = RelationType("owns", "owns", "is owned by", "", ("Person",), ("Animal",))
    >>> onto = Ontology("o", relation_types=(owns,))
    >>> relation_text(onto, "owns")
    'Person owns Animal. Animal is owned by Person.'
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from pathrag_gds.intent.lexicon import WH_CONCEPTS
from pathrag_gds.intent.model import Encoder, softmax_scores
from pathrag_gds.intent.text import singular
from pathrag_gds.ontology import Ontology

F32 = npt.NDArray[np.float32]

#: Share of the `a <label>` phrase in a noun's or concept's similarity to a type; the rest is the
#: `<label>: <description>` text's.
LABEL_SHARE = 0.5


@dataclass
class OntologyVocabulary:
    """Embedded type and relation texts of one ontology (build with :func:`vocabulary`).

    Attributes:
        ontology: the ontology.
        labels: entity type labels, in order.
        label_vecs: `a <label>` phrases embedded, one row per label.
        type_vecs: `<label>: <description>` embedded.
        relations: relationship types, in order.
        relation_vecs: each relation's sentence (`<source> <phrase> <target>. <description>`).
        concept_scores: wh-word -> type scores of its generic concept.
    """

    ontology: Ontology
    labels: list[str]
    label_vecs: F32
    type_vecs: F32
    relations: list[str]
    relation_vecs: F32
    concept_scores: dict[str, dict[str, float]]
    _noun_cache: dict[str, dict[str, float]] = field(default_factory=dict)

    def best_noun(
        self, words: Sequence[str], encoder: Encoder, *, headed: bool = False
    ) -> tuple[dict[str, float], float, str]:
        """Scores of the noun a short phrase asks for, the similarity, and the noun.

        The word of the phrase that best fits a type (`dog keeps` -> `dog`), or with `headed` (a
        whole noun phrase: :func:`~.text.closed_phrase`) its last word, its head (`lifeboat
        volunteer` -> `volunteer`).
        """
        if headed and words:
            scores, sim = self.noun_scores(words[-1], encoder)
            return scores, sim, words[-1]
        best: tuple[dict[str, float], float, str] = ({}, -1.0, "")
        for w in words:
            scores, sim = self.noun_scores(w, encoder)
            if sim > best[1]:
                best = (scores, sim, w)
        return best

    def noun_scores(self, noun: str, encoder: Encoder) -> tuple[dict[str, float], float]:
        """Type scores of a noun, and its best raw similarity (how well any type fits)."""
        key = singular(noun)
        if key not in self._noun_cache:
            for lab in self.labels:  # the noun is a type label (plural or not)
                if singular(lab) == key:
                    self._noun_cache[key] = {t: (1.0 if t == lab else 0.0) for t in self.labels}
                    self._noun_cache[key + "#best"] = {"": 1.0}
                    break
            else:
                v = np.asarray(encoder.encode([f"a {key}", key]), dtype=np.float32)
                sims = LABEL_SHARE * (self.label_vecs @ v[0]) + (1 - LABEL_SHARE) * (self.type_vecs @ v[1])
                raw = {t: float(s) for t, s in zip(self.labels, sims, strict=True)}
                self._noun_cache[key] = softmax_scores(raw)
                self._noun_cache[key + "#best"] = {"": max(raw.values()) if raw else 0.0}
        return self._noun_cache[key], self._noun_cache[key + "#best"][""]


def relation_text(ontology: Ontology, rel_type: str) -> str:
    """The sentence that stands for a relationship type when embedding."""
    r = ontology.relation(rel_type)
    src = " or ".join(r.source_labels) or "something"
    tgt = " or ".join(r.target_labels) or "something"
    inv = f" {tgt} {r.inverse_phrase} {src}." if r.inverse_phrase else ""
    return f"{src} {r.phrase} {tgt}.{inv} {r.description}".strip()


def type_text(label: str, description: str) -> str:
    """The text that stands for an entity type when embedding."""
    return f"{label}: {description}" if description else label


_vocab_cache: dict[str, OntologyVocabulary] = {}
_vocab_lock = threading.Lock()


def _fingerprint(ontology: Ontology, encoder: Encoder) -> str:
    h = hashlib.sha256()
    h.update(str(id(encoder)).encode())
    for e in ontology.entity_types:
        h.update(f"E|{e.label}|{e.description}\n".encode())
    for r in ontology.relation_types:
        h.update(f"R|{relation_text(ontology, r.type)}\n".encode())
    return h.hexdigest()


def vocabulary(ontology: Ontology, encoder: Encoder) -> OntologyVocabulary:
    """The embedded vocabulary of an ontology, computed once per ontology content and cached.

    An inferred ontology (no stored one) has labels without descriptions: the labels alone are
    embedded, which still works for questions that use the type words.
    """
    key = _fingerprint(ontology, encoder)
    with _vocab_lock:
        cached = _vocab_cache.get(key)
        if cached is not None:
            return cached
    labels = ontology.labels
    rels = ontology.relation_names
    concepts = list(WH_CONCEPTS.values())
    texts = (
        [f"a {lab.lower()}" for lab in labels]
        + [type_text(e.label, e.description) for e in ontology.entity_types]
        + [relation_text(ontology, r) for r in rels]
        + concepts
    )
    vecs = np.asarray(encoder.encode(texts), dtype=np.float32) if texts else np.zeros((0, 1), np.float32)
    n, m = len(labels), len(rels)
    label_vecs, type_vecs = vecs[:n], vecs[n : 2 * n]
    rel_vecs = vecs[2 * n : 2 * n + m]
    concept_vecs = vecs[2 * n + m :]
    concept_scores: dict[str, dict[str, float]] = {}
    for (wh, _), cv in zip(WH_CONCEPTS.items(), concept_vecs, strict=True):
        if not labels:
            concept_scores[wh] = {}
            continue
        sims = LABEL_SHARE * (label_vecs @ cv) + (1 - LABEL_SHARE) * (type_vecs @ cv)
        concept_scores[wh] = softmax_scores({t: float(s) for t, s in zip(labels, sims, strict=True)})
    vocab = OntologyVocabulary(ontology, labels, label_vecs, type_vecs, rels, rel_vecs, concept_scores)
    with _vocab_lock:
        _vocab_cache[key] = vocab
    return vocab


def clear_vocabulary_cache() -> None:
    """Forget embedded vocabularies (tests; after an ontology changes)."""
    with _vocab_lock:
        _vocab_cache.clear()
