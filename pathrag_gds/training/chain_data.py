"""What a chain tune trains and fits on, read from the community's graph.

The questions its walks generate (phrased with its ontology; no benchmark question is read), a
seeded held-out share of them, the held-out questions as the term fit reads them, and the chain
texts the exported model encodes.

Example:
    >>> len(split_held_out(list(range(50)), seed=0)[0])
    5
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pathrag_gds.ontology import Ontology
from pathrag_gds.paths import EntityRecord
from pathrag_gds.search.schema import TypedChain, chain_text, schema_chain_texts, schema_chains

if TYPE_CHECKING:
    from pathrag_gds.training.chain_tune_options import ChainTuneOptions

Progress = Callable[[str, int, int, str], None]

#: Held-out questions (at most), and schema chains per start type they are ranked among.
HOLDOUT_MAX = 200
HOLDOUT_POOL = 256
#: Entities whose texts are read for the graph's own phrasings (`tune --mined-share`).
MINE_MAX_ENTITIES = 5000


def generate_questions(
    options: ChainTuneOptions, svc: Any, progress: Progress | None
) -> tuple[Ontology, list[Any], dict[str, EntityRecord]]:
    """The community's ontology, the questions its graph generates, and their walks' entities.

    Raises:
        InvalidInput: the community does not exist.
    """
    from pathrag_gds.training.phraser import someone_labels
    from pathrag_gds.training.questions import GeneratedQuestion, QuestionGenerator
    from pathrag_gds.training.source import community_source

    ontology, source = community_source(svc, options.community, cap=options.hub_cap, seed=options.seed)
    rewordings = relation_rewordings(ontology, svc.embedder) if options.synonym_share > 0 else {}
    if options.mined_share > 0:
        mined = graph_phrasings(ontology, source, svc.embedder)
        if progress is not None:
            said = sum(len(v) for v in mined.values())
            progress(
                "questions",
                0,
                options.questions,
                f"{said} phrasings of {len(mined)} relation phrases from the graph's text",
            )
        for phrase, options_ in mined.items():
            rewordings[phrase] = list(dict.fromkeys([*rewordings.get(phrase, []), *options_]))
    gen = QuestionGenerator(
        source,
        ontology,
        seed=options.seed,
        max_depth=options.max_depth,
        entity_share=0.05,
        anchored_share=options.anchored_share,
        with_answers=False,
        rewordings=rewordings,
        reword_share=options.synonym_share + options.mined_share,
        someone=someone_labels(ontology, svc.embedder),
    )
    questions: list[GeneratedQuestion] = []
    step = max(1, options.questions // 20)
    while len(questions) < options.questions:
        batch = gen.generate(min(step, options.questions - len(questions)))
        if not batch:
            break
        questions.extend(batch)
        if progress is not None:
            progress("questions", len(questions), options.questions, "")
    entities = source.entities(sorted({n for q in questions for n in q.path.node_ids}))
    return ontology, questions, entities


def relation_rewordings(ontology: Ontology, embedder: Any) -> dict[str, list[str]]:
    """Other ways to say each relation phrase: WordNet synonyms of the sense nearest its description.

    Raises:
        ModelError: WordNet's files are not found (the message says how to get them).
    """
    import numpy as np

    from pathrag_gds.errors import ModelError
    from pathrag_gds.training.synonyms import load_wordnet, synonym_table, wordnet_dir

    folder = wordnet_dir()
    if folder is None:
        raise ModelError(
            "--synonym-share needs WordNet's database files: `apt-get install wordnet-base` (Debian, "
            "/usr/share/wordnet) or set PATHRAG_WORDNET_DIR to a folder holding index.verb and data.verb; "
            "or tune with --synonym-share 0"
        )
    phrases: dict[str, str] = {}
    for rel in ontology.relation_types:
        for phrase in (rel.phrase, rel.inverse_phrase):
            if phrase:
                phrases.setdefault(phrase, rel.description or phrase)
    return synonym_table(phrases, load_wordnet(folder), lambda texts: np.asarray(embedder.encode(texts)))


def graph_phrasings(
    ontology: Ontology, source: Any, embedder: Any, limit: int = MINE_MAX_ENTITIES
) -> dict[str, list[str]]:
    """How the community's own texts say its relations (:mod:`.mined_phrases`): phrase -> phrasings.

    Reads at most `limit` entities (the first by id) and their relationships.
    """
    import numpy as np

    from pathrag_gds.training.mined_phrases import kept_phrasings, mine

    ids = source.start_ids()[:limit]
    hops = source.neighbours(ids)
    edges = {(e.source_id, e.type, e.target_id): e for hs in hops.values() for e, _ in hs}
    entities = source.entities(sorted({i for e in edges.values() for i in (e.source_id, e.target_id)}))
    candidates = mine(entities, edges.values())
    return kept_phrasings(candidates, ontology, lambda texts: np.asarray(embedder.encode(texts)))


def split_held_out(questions: Sequence[Any], seed: int) -> tuple[list[Any], list[Any]]:
    """(held out, trained on): a seeded tenth of the questions, at most HOLDOUT_MAX, held out."""
    rng = random.Random(seed)
    order = list(range(len(questions)))
    rng.shuffle(order)
    n_hold = min(HOLDOUT_MAX, len(questions) // 10)
    return [questions[i] for i in order[:n_hold]], [questions[i] for i in order[n_hold:]]


def held_out_chains(
    hold: Sequence[Any],
    entities: Mapping[str, EntityRecord],
    ontology: Ontology,
    embedder: Any,
    max_depth: int,
) -> tuple[list[tuple[str, TypedChain, Mapping[str, float]]], list[tuple[str, str, list[str]]]]:
    """The held-out questions as the term fit and training's held-out top-1 read them.

    Per question: (masked question, gold chain, intent type scores), and (masked question, gold
    chain text, the schema's chain texts from its start label).
    """
    from pathrag_gds.intent import infer_intent
    from pathrag_gds.training.chains import question_chain

    pools: dict[str, list[str]] = {}
    holdout = []
    held_chains: list[tuple[str, TypedChain, Mapping[str, float]]] = []
    for q in hold:
        found = question_chain(q, entities, ontology)
        if found is None:
            continue
        masked, positive = found
        # the answer type the question asks, read as the search reads it (question and topic)
        start = entities.get(q.path.node_ids[0])
        intent = infer_intent(q.question, ontology, embedder, [start] if start else [])
        held_chains.append((masked, positive, intent.type_scores))
        label = positive.labels[0]
        if label not in pools:
            pools[label] = [
                chain_text(ontology, c) for c in schema_chains(ontology, label, max_depth, limit=HOLDOUT_POOL)
            ]
        holdout.append((masked, chain_text(ontology, positive), pools[label]))
    return held_chains, holdout


def chain_texts(
    graph: Any, options: ChainTuneOptions, ontology: Ontology
) -> tuple[list[str], dict[str, Any] | None]:
    """The chain texts to encode, and the manifest's `chain.pool` entry (None: the schema's chains).

    The community's chain pool to `pool_depth` hops when it asks for one and the graph is small
    enough (:mod:`pathrag_gds.training.chain_pool`); else every chain of the schema to `max_depth`.
    """
    from pathrag_gds.training.chain_pool import (
        POOL_MAX_RELATIONSHIPS,
        pool_entry,
        pool_texts,
        relationship_count,
    )

    if options.pool_depth > 0 and relationship_count(graph, options.community) <= POOL_MAX_RELATIONSHIPS:
        texts = pool_texts(graph, options.community, ontology, options.pool_depth)
        return texts, pool_entry(options.pool_depth, texts)
    return schema_chain_texts(ontology, options.max_depth), None
