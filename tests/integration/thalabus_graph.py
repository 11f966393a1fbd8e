"""A small Thalabus-shaped graph for the adopt tests, written as Thalabus writes its graph.

`(:Community {id})-[:AGGREGATES]->(:Entity:<type> {id, *_consolidated, embedding})`, relations
with `*_consolidated` properties, an ontology in the graph (`BASED_ON`, `CONTAINS`,
`EntityOntology`, `RelationshipOntology`) and chunks the entities are `MENTIONED_IN`. Every id starts
with the prefix the caller gives (the database is shared: `adopttest_...`).
"""

from __future__ import annotations

from typing import Any

from pathrag_gds.graph import Graph

#: (key, type, name, description, other consolidated attributes)
ENTITIES = [
    (
        "bob",
        "animal",
        "Bob",
        "A grey and white tabby cat who loves the kitchen.",
        {"fur_color": "silver grey"},
    ),
    ("jane", "person", "Jane Holt", "A retired teacher, Bob's owner.", {"role": "owner"}),
    ("martha", "person", "Martha Quinn", "The baker next door.", {}),
    ("kitchen", "place", "the kitchen", "A sunny kitchen with a tiled floor.", {"location_type": "room"}),
    ("house", "place", "Rosewood House", "An old stone house with a green door.", {"location_type": "house"}),
    ("village", "place", "Whiskerville", "A small village by the river.", {"location_type": "village"}),
    ("mishap", "event", "the milk mishap", "Bob knocks over a glass of milk.", {}),
]
#: (source, type, target, consolidated attributes): Thalabus's lowercase relation types
RELATIONS = [
    ("jane", "owns", "bob", {"since": "2019"}),
    ("jane", "lives_in", "house", {}),
    ("martha", "lives_in", "village", {}),
    ("house", "located_in", "village", {}),
    ("house", "contains", "kitchen", {}),
    ("mishap", "involve", "bob", {}),
    ("mishap", "takes_place", "kitchen", {"time_of_day": "morning"}),
]
#: (label, description) of the EntityOntology nodes
ENTITY_TYPES = [
    ("animal", "An animal of the stories, such as a pet."),
    ("person", "A person of the stories."),
    ("place", "A place: a room, a house, a village."),
    ("event", "Something that happens in the stories."),
]
#: (label, description, source labels, target labels) of the RelationshipOntology nodes
RELATION_TYPES = [
    ("owns", "A person owns an animal.", ["person"], ["animal"]),
    ("lives_in", "Where a person lives.", ["person"], ["place"]),
    ("located_in", "A place lies in a larger place.", ["place"], ["place"]),
    ("contains", "A place holds a smaller place.", ["place"], ["place"]),
    ("involve", "Who or what an event involves.", ["event"], ["animal", "person"]),
    ("takes_place", "Where an event happens.", ["event"], ["place"]),
]
#: (key, text, the entities it mentions)
CHUNKS = [
    ("c1", "Jane Holt has owned Bob, a silver-grey tabby, since 2019.", ["jane", "bob"]),
    ("c2", "Rosewood House stands at the edge of Whiskerville, by the river.", ["house", "village"]),
]

BUILD = """
CREATE (c:Community {id: $p, created_at: 1733400000})
CREATE (o:Ontology {id: $onto, name: 'Fictional stories'})
WITH c, o
CALL (c, o) {
  WITH c, o WHERE $ontology_rel IS NOT NULL
  CALL apoc.create.relationship(c, $ontology_rel, {}, o) YIELD rel
  RETURN count(rel) AS linked
}
WITH c, o
UNWIND $types AS t
CREATE (et:EntityOntology {id: $p + '_et_' + t.label, label: t.label, entity_description: t.description})
WITH c, o, et
CALL apoc.create.relationship(o, $type_rel, {}, et) YIELD rel
WITH DISTINCT c, o
UNWIND $rel_types AS t
CREATE (rt:RelationshipOntology {id: $p + '_rt_' + t.label, label: t.label,
       entity_description: t.description})
SET rt += CASE WHEN $end_rels IS NULL
               THEN {entity_source_labels: t.source, entity_target_labels: t.target} ELSE {} END
WITH c, o, rt, t
CALL apoc.create.relationship(o, $type_rel, {}, rt) YIELD rel
WITH c, rt, t
CALL (rt, t) {
  UNWIND CASE WHEN $end_rels IS NULL THEN [] ELSE
         [s IN t.source | [$end_rels[0], s]] + [g IN t.target | [$end_rels[1], g]] END AS e
  MATCH (et:EntityOntology {id: $p + '_et_' + e[1]})
  CALL apoc.create.relationship(rt, e[0], {}, et) YIELD rel
  RETURN count(rel) AS ends
}
WITH DISTINCT c
UNWIND $entities AS e
CREATE (n:Entity {id: $p + '_' + e.key})
SET n += e.props
WITH c, n, e
CALL apoc.create.addLabels(n, [e.type]) YIELD node
CREATE (c)-[:AGGREGATES]->(n)
WITH DISTINCT c
UNWIND $rels AS r
MATCH (s:Entity {id: $p + '_' + r.source}), (t:Entity {id: $p + '_' + r.target})
CALL apoc.create.relationship(s, r.type, r.props, t) YIELD rel
WITH DISTINCT c
UNWIND $chunks AS ch
CREATE (k:Chunk {id: $p + '_' + ch.key, text: ch.text})
WITH k, ch
UNWIND ch.mentions AS m
MATCH (e:Entity {id: $p + '_' + m})
CREATE (e)-[:MENTIONED_IN]->(k)
"""


def build(
    graph: Graph,
    prefix: str,
    *,
    ontology_rel: str | None = "BASED_ON",
    type_rel: str = "CONTAINS",
    end_rels: tuple[str, str] | None = None,
    ontology_id: str | None = None,
    embedding_dim: int = 8,
) -> None:
    """Write the graph; every id starts with `prefix` (the ontology's too, unless `ontology_id`).

    As Thalabus writes it by default; the options vary how its ontology is linked, to test that
    adopt reads the links from the graph: `ontology_rel` joins the community to its ontology
    (None: nothing does), `type_rel` the ontology to its type nodes, `end_rels` (source, target):
    the relation types' ends as relationships from each RelationshipOntology to EntityOntology
    nodes instead of the `entity_source_labels` / `entity_target_labels` properties.
    `embedding_dim`: the length of Thalabus's own embeddings (384: pathrag_gds's index takes them).
    """
    entities = []
    for key, type_, name, desc, attrs in ENTITIES:
        props: dict[str, Any] = {"name_consolidated": name, "description_consolidated": desc}
        props |= {f"{k}_consolidated": v for k, v in attrs.items()}
        props |= {"name": key, "embedding": [0.25] * embedding_dim, "updated_at": 1733400000}  # Thalabus's
        entities.append({"key": key, "type": type_, "props": props})
    rels = [
        {"source": s, "type": t, "target": o, "props": {f"{k}_consolidated": v for k, v in a.items()}}
        for s, t, o, a in RELATIONS
    ]
    rels.append({"source": "bob", "type": "SIMILAR_TO", "target": "martha", "props": {"score": 0.4}})
    with graph.session() as s:
        s.run(
            BUILD,
            p=prefix,
            onto=ontology_id or f"{prefix}_onto",
            ontology_rel=ontology_rel,
            type_rel=type_rel,
            end_rels=list(end_rels) if end_rels else None,
            types=[{"label": label, "description": d} for label, d in ENTITY_TYPES],
            rel_types=[
                {"label": label, "description": d, "source": src, "target": tgt}
                for label, d, src, tgt in RELATION_TYPES
            ],
            entities=entities,
            rels=rels,
            chunks=[{"key": k, "text": t, "mentions": m} for k, t, m in CHUNKS],
        ).consume()


def drop(graph: Graph, prefix: str) -> None:
    """Delete every node whose id starts with `prefix` (the graph, and whatever a failed test left)."""
    with graph.session() as s:
        s.run("MATCH (n) WHERE n.id STARTS WITH $p DETACH DELETE n", p=prefix).consume()


def dump(graph: Graph, prefix: str) -> dict[str, Any]:
    """Every node whose id starts with `prefix` (labels, properties) and every relationship touching one."""
    with graph.session() as s:
        nodes = s.run(
            "MATCH (n) WHERE n.id STARTS WITH $p "
            "RETURN elementId(n) AS id, labels(n) AS labels, properties(n) AS props",
            p=prefix,
        ).data()
        rels = s.run(
            "MATCH (n)-[r]-() WHERE n.id STARTS WITH $p RETURN DISTINCT elementId(startNode(r)) AS s, "
            "type(r) AS t, elementId(endNode(r)) AS e, properties(r) AS props",
            p=prefix,
        ).data()
    return {
        "nodes": sorted((n["id"], sorted(n["labels"]), sorted(n["props"].items())) for n in nodes),
        "rels": sorted((r["s"], r["t"], r["e"], sorted(r["props"].items())) for r in rels),
    }
