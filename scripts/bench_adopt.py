"""An adopted graph's answers with the inferred ontology against the same graph loaded with its written one.

The harbour story graph (docs/harbour-graph.md) goes into the database twice, under fresh ids:
1. loaded by the loaders with its written ontology (handwritten phrases and descriptions);
2. written as neo4j-graphrag's KG builder writes a graph (its own `Neo4jWriter`: one type label and
   `__Entity__`, `name`, `description`, the attributes as properties, the relationships as typed),
   then `adopt`ed, so the ontology is read from the graph (phrases from the type names).
Neither has a chain model, so the difference is the ontology and the graph's shape. The 30 harbour
questions run on both; the answers' ids are mapped to each copy's ids. Everything written is
deleted at the end. Needs neo4j-graphrag (the graphrag extra) and NEO4J_URI / NEO4J_PASSWORD.

    .venv/bin/python scripts/bench_adopt.py
"""

from __future__ import annotations

import asyncio
import dataclasses
import uuid
from typing import Any

from neo4j_graphrag.components.kg_writer import Neo4jWriter
from neo4j_graphrag.components.types import Neo4jGraph, Neo4jNode, Neo4jRelationship

from pathrag_gds.adopt import adopt, plan_adoption, remove_adoption
from pathrag_gds.config import ScoringMode, get_settings
from pathrag_gds.datasets.bob_suite import DATA, EvalQuery, load_suite
from pathrag_gds.datasets.demo import read_graph_file
from pathrag_gds.datasets.loader import Dataset, GraphLoader, delete_community, entity_id
from pathrag_gds.encoders import get_embedder
from pathrag_gds.evaluation.bob import run_suite
from pathrag_gds.graph import Graph
from pathrag_gds.indexing import index_entities
from pathrag_gds.scoring import get_scorer
from pathrag_gds.service import PathRag


def _remap(queries: list[EvalQuery], ids: dict[str, str]) -> list[EvalQuery]:
    return [
        dataclasses.replace(
            q, answer=tuple(ids[a] for a in q.answer), must_contain=tuple(ids[m] for m in q.must_contain)
        )
        for q in queries
    ]


def _write_kg(graph: Graph, ds: Dataset, tag: str) -> None:
    """The graph as the KG builder writes it, tagged so that only it is adopted."""
    prefix = tag + ":"
    nodes = [
        Neo4jNode(
            id=prefix + e.id,
            label=e.labels[0],
            properties={"name": e.name, "description": e.description, **e.attributes},
        )
        for e in ds.entities
    ]
    rels = [
        Neo4jRelationship(
            start_node_id=prefix + r.source,
            end_node_id=prefix + r.target,
            type=r.type,
            properties=r.attributes,
        )
        for r in ds.relationships
    ]
    writer = Neo4jWriter(graph.driver, neo4j_database=graph.database, clean_db=False)
    result = asyncio.run(writer.run(Neo4jGraph(nodes=nodes, relationships=rels)))
    if result.status != "SUCCESS":
        raise RuntimeError(f"Neo4jWriter failed: {result.metadata}")
    with graph.session() as s:  # the writer's own cleaning, for these nodes only (a shared database)
        s.run(
            "MATCH (n:__KGBuilder__) WHERE n.__tmp_internal_id STARTS WITH $p "
            f"SET n:`{tag}` SET n.__tmp_internal_id = NULL",
            p=prefix,
        ).consume()


def main() -> None:
    """Load, adopt, ask, print the table, clean up."""
    settings = get_settings()
    tag = f"Bench57_{uuid.uuid4().hex[:8]}"
    loaded, adopted = f"{tag}_loaded", f"{tag}_adopted"
    ds = read_graph_file(DATA / "harbour.yaml")
    suite = load_suite(DATA / "harbour_eval.yaml")
    queries = list(suite.sets["heldout"])
    rows: dict[str, dict[str, Any]] = {}
    with Graph.connect(settings) as graph:
        try:
            ids = {e.id: entity_id(loaded, e.id) for e in ds.entities}
            copy = Dataset(
                ontology=dataclasses.replace(ds.ontology, id=f"{tag}_HarbourStories"),
                community_id=loaded,
                entities=[dataclasses.replace(e, id=ids[e.id]) for e in ds.entities],
                relationships=[
                    dataclasses.replace(r, source=ids[r.source], target=ids[r.target])
                    for r in ds.relationships
                ],
            )
            GraphLoader(graph, progress=False).load(copy)
            _write_kg(graph, ds, tag)
            plan = plan_adoption(graph, adopted, ["__Entity__"], with_labels=[tag], key="name")
            adopt(graph, plan)
            embedder = get_embedder(settings)
            svc = PathRag(settings, graph=graph, scorer=get_scorer(settings))
            names = {e.id: entity_id(adopted, e.name) for e in ds.entities}
            for name, community, mapping in (("loaded", loaded, ids), ("adopted", adopted, names)):
                index_entities(graph, embedder, community=community)
                rows[name] = run_suite(svc, _remap(queries, mapping), community, mode=ScoringMode.OPTION_D)
        finally:
            if graph.read("adopt_state", community_id=adopted):
                remove_adoption(graph, adopted)
            with graph.session() as s:
                s.run(f"MATCH (n:`{tag}`) DETACH DELETE n").consume()
            delete_community(graph, loaded, drop_ontology=True)
    print(f"| harbour ({len(queries)}), no chain model | Hits@1 (Hit@5) | p50 / p95 |")
    print("|---|---|---|")
    for name, label in (("loaded", "loaded, written ontology"), ("adopted", "KG builder graph, adopted")):
        r, ms = rows[name], rows[name]["latency_ms"]
        print(f"| {label} | {r['hits_at_1']} ({r['hits_at_5']}) | {ms['p50']:.0f} / {ms['p95']:.0f} ms |")


if __name__ == "__main__":
    main()
