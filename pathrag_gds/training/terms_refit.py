"""Fit a chain model's question terms again, its dual encoder untouched (`tune --refit-terms`).

The question terms (the first hop read near the topic, the answer type the intent reads, the chain a
relational noun names, the last hop read near the question word) are weights fitted on the held-out
generated questions after training (:mod:`pathrag_gds.training.near_fit`). When the way the search
reads a question changes (the intent, a new term), the weights can be fitted again without training:
the held-out questions are generated again from the graph with the options the model was tuned with
(the same seed gives the same questions), and only `chain.near`, `chain.answer_type`, `chain.noun`
and `chain.far` of its manifest are rewritten, with `chain.terms_refit` saying when and with which
code:
`python -m pathrag_gds tune --community people --refit-terms`.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any

from pathrag_gds.config import Settings, get_settings
from pathrag_gds.errors import ModelError
from pathrag_gds.training.chain_data import Progress, generate_questions, held_out_chains, split_held_out
from pathrag_gds.training.chain_tune import ChainTuneOptions


def refit_terms(
    community: str, settings: Settings | None = None, progress: Progress | None = None
) -> dict[str, Any]:
    """Fit the question terms of the community's chain model again; returns what was written.

    Raises:
        ModelError: the community has no chain model, or its manifest holds no tune options.
        InvalidInput: the community does not exist.
    """
    from pathrag_gds.chain_model import ChainScorer, chain_model_dir, reset_chain_scorers
    from pathrag_gds.encoders import read_json
    from pathrag_gds.export import write_manifest
    from pathrag_gds.service import PathRag
    from pathrag_gds.training.lineage import code_version
    from pathrag_gds.training.near_fit import fit_terms

    s = settings or get_settings()
    model_dir = chain_model_dir(s, community, s.models_dir)  # rewritten: the user's own, never a shipped one
    if not (model_dir / "manifest.json").is_file():
        raise ModelError(
            f"{model_dir} holds no chain model: run `python -m pathrag_gds tune --community {community}`"
        )
    manifest = read_json(model_dir / "manifest.json")
    chain = manifest.get("chain")
    saved = chain.get("options") if isinstance(chain, dict) else None
    if not isinstance(chain, dict) or not isinstance(saved, dict):
        raise ModelError(
            f"{model_dir}/manifest.json has no chain.options to generate its questions again; "
            f"re-run `python -m pathrag_gds tune --community {community}`"
        )
    known = {f.name for f in dataclasses.fields(ChainTuneOptions)}
    options = ChainTuneOptions(**{k: v for k, v in saved.items() if k in known and k != "community"},
                               community=community)  # fmt: skip
    t0 = time.perf_counter()
    svc = PathRag(s)
    ontology, questions, entities = generate_questions(options, svc, progress)
    hold, _ = split_held_out(questions, options.seed)
    held, _ = held_out_chains(hold, entities, ontology, svc.embedder, options.max_depth)
    # the weights it replaces are not read: a term the code reads another way now is no error
    scorer = ChainScorer(model_dir, quantization=s.quantization, threads=options.threads, terms=False)
    scorer.check_ontology(ontology)
    fit_terms(
        chain,
        scorer,
        ontology,
        held,
        options.max_depth,
        None if progress is None else lambda i, n: progress("question-term fit", i, n, ""),
    )
    chain["terms_refit"] = {
        "code": code_version(),
        "questions": len(held),
        "seconds": round(time.perf_counter() - t0, 1),
    }
    write_manifest(model_dir, manifest)
    reset_chain_scorers()
    return {k: chain[k] for k in ("near", "answer_type", "noun", "far")}
