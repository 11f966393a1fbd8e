"""Intent detection: what kind of entity a question asks for, and which relations it hints at.

Rule-based plus embeddings, no LLM. The vocabulary is the ontology of the graph: entity types with
their descriptions, relationship types with their phrases and source/target types. Nothing here
names a dataset's types. The rules, in the order they apply, are in :mod:`pathrag_gds.intent.rules`;
the words they read in :mod:`pathrag_gds.intent.lexicon`.

Example:
    >>> from pathrag_gds.intent.rules import read_question
    >>> read_question("which village was bob in").noun
    'village'
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping

from pathrag_gds.intent.mentions import mask_mentions
from pathrag_gds.intent.model import Encoder, Intent
from pathrag_gds.intent.rules import (
    Draft,
    asked_verb_rule,
    attribute_rule,
    definition_rule,
    described_rule,
    kind_of_named_rule,
    named_answer_rule,
    noun_rule,
    property_of_a_chain_rule,
    read_question,
    relation_end_rule,
    relation_hint_rule,
    same_type_rule,
    unknown_rule,
    wh_concept_rule,
)
from pathrag_gds.intent.text import link_nouns, names_a_property
from pathrag_gds.intent.vocabulary import OntologyVocabulary, vocabulary
from pathrag_gds.ontology import Ontology
from pathrag_gds.paths import EntityRecord

log = logging.getLogger(__name__)

#: A link noun counts where some type fits it at least this well (raw similarity): `cat`, `boat`,
#: `father` do; `name`, `age` do not.
LINK_NOUN_MIN = 0.3


def infer_intent(
    question: str,
    ontology: Ontology,
    encoder: Encoder,
    entities: Iterable[EntityRecord] = (),
    *,
    texts: Encoder | None = None,
) -> Intent:
    """Infer what a question asks for, using the ontology as the vocabulary.

    Args:
        question: the question, in words (`[...]` marks a named entity, as in MetaQA).
        ontology: the graph's ontology (entity and relationship types).
        encoder: the sentence embedder (`encode(texts) -> unit vectors`).
        entities: candidate entities (e.g. the seeds): those named in the question are recorded in
            `named` and their types in `named_types`.
        texts: what embeds the ontology's type and relation texts (default: `encoder`); the service
            passes one that keeps them on disk, while the question's own texts, unbounded in
            number, go through `encoder`.

    Returns:
        The intent: kind, expected answer types with scores, hinted relations, named entities.
    """
    vocab = vocabulary(ontology, texts or encoder)
    if ontology.inferred:
        log.warning(
            "no stored ontology: intent uses the database's labels and relationship types only "
            "(no descriptions, no source/target types); load an ontology for better intent"
        )
    r = read_question(question, entities)
    d = Draft(noun=r.noun)
    d = described_rule(r, d)
    d = relation_hint_rule(r, d, vocab, encoder)
    d = definition_rule(r, d)
    d = attribute_rule(r, d)
    d = named_answer_rule(r, d)
    d = noun_rule(r, d, vocab, encoder)
    d = property_of_a_chain_rule(r, d, vocab, encoder)
    d = kind_of_named_rule(r, d)
    d = wh_concept_rule(r, d, vocab)
    d = asked_verb_rule(r, d, vocab)
    d = same_type_rule(r, d, vocab)
    d = relation_end_rule(r, d, vocab)
    d = unknown_rule(d)
    return Intent(
        question=question,
        kind=d.kind,
        type_scores=dict(d.scores),
        relation_hints=dict(d.hints),
        wh=r.wh,
        noun=d.noun,
        mentions=r.mentions,
        named=tuple(sorted(r.named)),
        named_as=dict(r.named),
        named_types=r.named_types,
        described=tuple(sorted(r.described)),
        reasons=d.reasons,
        link_types=link_types(question, r.named, vocab, encoder),
    )


def link_types(
    question: str, named: Mapping[str, str], vocab: OntologyVocabulary, encoder: Encoder
) -> dict[str, tuple[dict[str, float], ...]]:
    """Per named entity, the type scores of the nouns that link a chain from it, nearest first.

    "Where does X's cat live?" -> the `Animal` scores of `cat`; property nouns (`name`) and nouns
    no type fits are left out.
    """
    out: dict[str, tuple[dict[str, float], ...]] = {}
    for eid, said in named.items():
        kept = []
        for noun in link_nouns(mask_mentions(question, [said])):
            words = [w for w in noun.split() if not names_a_property(w)]
            if not words:
                continue  # a property of the entity before it, no link
            scores, sim, _ = vocab.best_noun(words, encoder)
            if sim >= LINK_NOUN_MIN:
                kept.append(scores)
        if kept:
            out[eid] = tuple(kept)
    return out
