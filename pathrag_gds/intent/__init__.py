"""Intent detection: what a question asks for, by named rules over the graph's ontology.

Modules: `model` (:class:`Intent`, score scale), `lexicon` (the English words the rules read),
`text` (words, stems, wh-word and noun, asked clause), `mentions` (named, described, masked),
`vocabulary` (the ontology embedded once), `rules` (one function a rule), `infer`
(:func:`infer_intent`: the rules in order), `whitelist` (relations that can still reach the answer).
"""

from pathrag_gds.intent.infer import infer_intent
from pathrag_gds.intent.lexicon import MASK
from pathrag_gds.intent.mentions import (
    bracket_mentions,
    definite_descriptions,
    described_entities,
    mask_mentions,
    named_entities,
    part_names,
    role_descriptions,
    type_mentions,
)
from pathrag_gds.intent.model import EXPECTED_MIN, TEMPERATURE, Encoder, Intent
from pathrag_gds.intent.text import main_clause, singular, stem, wh_and_noun
from pathrag_gds.intent.vocabulary import (
    OntologyVocabulary,
    clear_vocabulary_cache,
    relation_text,
    type_text,
    vocabulary,
)
from pathrag_gds.intent.whitelist import relations_allowed, type_distances

__all__ = [
    "EXPECTED_MIN",
    "MASK",
    "TEMPERATURE",
    "Encoder",
    "Intent",
    "OntologyVocabulary",
    "bracket_mentions",
    "clear_vocabulary_cache",
    "definite_descriptions",
    "described_entities",
    "infer_intent",
    "main_clause",
    "mask_mentions",
    "named_entities",
    "part_names",
    "relation_text",
    "relations_allowed",
    "role_descriptions",
    "singular",
    "stem",
    "type_distances",
    "type_mentions",
    "type_text",
    "vocabulary",
    "wh_and_noun",
]
