"""The chain pool of a community: the relation chains its graph holds, encoded for the planner.

A schema allows far more chains than a small graph holds: the demo ontology allows ~45,000 chains
of up to 4 hops, its 45 entities walk ~4,000 of them. A chain no entity has cannot reach an
answer; with a pool the planner plans only the pool's chains, and as deep as the pool goes (past
the depth the chain model was trained to: its scores read longer chains of the same phrases), at
the cost of encoding the pool once. Written to the chain model's folder (`chain_vectors.npz`, and
`chain.pool` in its manifest) by `python -m pathrag_gds tune --community ID --chain-pool
[--pool-depth N]`, or by `tune --pool-depth N`, for graphs up to :data:`POOL_MAX_RELATIONSHIPS`
relationships; built again after the graph changes. Off by default: measured on the two story
graphs it helps one and costs the other (docs/chains.md, "Only the chains the graph holds").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pathrag_gds.graph import Graph
from pathrag_gds.ontology import Ontology
from pathrag_gds.search.schema import Chain, parse_step, pool_chain_texts

#: The largest graph (its relationships between the community's entities) a pool is built for.
POOL_MAX_RELATIONSHIPS = 2000
#: The depth `tune --chain-pool` builds by default: the chain model's default training depth.
POOL_DEPTH = 3
#: What the manifest says the pool is.
POOL_SOURCE = (
    "the chains walks of the community's graph take, at tune time (`tune --chain-pool` after it changes)"
)


def parse_chain(tokens: list[str]) -> Chain:
    """A chain from `type:out` / `type:in` tokens.

    Example:
        >>> parse_chain(["owns:in", "lives_in:out"])
        (('owns', 'in'), ('lives_in', 'out'))
    """
    return tuple(parse_step(t) for t in tokens)


def held_chains(
    graph: Graph,
    community: str,
    ontology: Ontology,
    depth: int,
    progress: Callable[[int, int], None] | None = None,
) -> set[Chain]:
    """Every chain of up to `depth` hops some walk of the community's graph takes (one round trip a depth)."""
    starts = [str(r["id"]) for r in graph.read("train_start_ids", community=community)]
    walks: list[dict[str, Any]] = [{"start": i, "chain": [], "end": i, "last": None} for i in starts]
    rels = [r.type for r in ontology.relation_types]
    held: set[Chain] = set()
    for d in range(1, depth + 1):
        walks = graph.read("chain_pool_step", walks=walks, rels=rels, community=community)
        held.update(parse_chain(list(w["chain"])) for w in walks)
        if progress is not None:
            progress(d, depth)
        if not walks:
            break
    return held


def pool_texts(
    graph: Graph,
    community: str,
    ontology: Ontology,
    depth: int,
    progress: Callable[[int, int], None] | None = None,
) -> list[str]:
    """The texts of the community's chain pool (:func:`held_chains`, read from every label)."""
    return pool_chain_texts(ontology, held_chains(graph, community, ontology, depth, progress))


def pool_entry(depth: int, texts: list[str]) -> dict[str, Any]:
    """The manifest's `chain.pool` entry of a pool of these chain texts."""
    return {"depth": depth, "chains": len(texts), "source": POOL_SOURCE}


def relationship_count(graph: Graph, community: str) -> int:
    """Relationships between the community's entities (what decides whether a pool is built)."""
    from pathrag_gds.datasets.loader import community_counts

    counts = community_counts(graph, community)
    return 0 if counts is None else int(sum((counts.get("relationships") or {}).values()))


def rebuild_pool(
    community: str,
    depth: int = POOL_DEPTH,
    settings: Any = None,
    progress: Callable[[str, int, int, str], None] | None = None,
) -> dict[str, Any]:
    """Build the chain pool of the community's chain model again (`tune --chain-pool`); its encoder untouched.

    Returns the manifest's new `chain.pool` entry.

    Raises:
        ModelError: the community has no chain model.
        InvalidInput: `depth` < 1, or the graph is larger than :data:`POOL_MAX_RELATIONSHIPS`.
    """
    from pathrag_gds.catalog import community_state
    from pathrag_gds.chain_model import ChainScorer, chain_model_dir, reset_chain_scorers
    from pathrag_gds.config import get_settings
    from pathrag_gds.encoders import read_json
    from pathrag_gds.errors import InvalidInput, ModelError
    from pathrag_gds.export import write_manifest
    from pathrag_gds.load_versions import refuse_open_load
    from pathrag_gds.service import PathRag

    s = settings or get_settings()
    if depth < 1:
        raise InvalidInput(f"--pool-depth must be at least 1, got {depth}")
    model_dir = chain_model_dir(s, community, s.models_dir)  # rewritten: the user's own, never a shipped one
    if not (model_dir / "manifest.json").is_file():
        raise ModelError(
            f"{model_dir} holds no chain model: run `python -m pathrag_gds tune --community {community}`"
        )
    svc = PathRag(s)
    refuse_open_load(community_state(svc.info, community), s.load_stale_s, "tune --chain-pool")
    n = relationship_count(svc.graph, community)
    if n > POOL_MAX_RELATIONSHIPS:
        raise InvalidInput(
            f"community {community!r} holds {n} relationships, more than a chain pool is built for "
            f"({POOL_MAX_RELATIONSHIPS}): its chain model plans over the schema"
        )
    ontology = svc.ontology_for(community, None)
    texts = pool_texts(svc.graph, community, ontology, depth, _stage(progress, "walks"))
    manifest = read_json(model_dir / "manifest.json")
    chain = manifest["chain"]
    folders = [model_dir, *(model_dir / str(m) for m in chain.get("members", []))]
    entry = pool_entry(depth, texts)
    for folder in folders:
        scorer = ChainScorer(folder, quantization=s.quantization)
        scorer.check_ontology(ontology)
        scorer.save_vectors(texts, _stage(progress, f"chain texts {folder.name}"))
        member = manifest if folder == model_dir else read_json(folder / "manifest.json")
        member["chain"]["pool"] = entry
        write_manifest(folder, member)
    reset_chain_scorers()
    return entry


def _stage(
    progress: Callable[[str, int, int, str], None] | None, stage: str
) -> Callable[[int, int], None] | None:
    """`progress` bound to one stage's name (None: no progress)."""
    if progress is None:
        return None
    report = progress
    return lambda i, k: report(stage, i, k, "")
