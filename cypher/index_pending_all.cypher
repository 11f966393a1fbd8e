// One page of entities to embed, keyset-paginated on id (no SKIP): ids after $after, in id order.
// $force: also entities that already have an embedding. Never an entity that a community
// pathrag_gds did not load aggregates (a Thalabus one: its `embedding` is its own model's): not
// adopted, and its ontology_id names no ontology pathrag_gds wrote, or it is tied to a Thalabus
// ontology (pathrag_gds.adopt.owner).
MATCH (n:{{entity_label}})
WHERE n.{{id}} > $after AND ($force OR n.{{embedding}} IS NULL)
  AND NOT EXISTS {
    MATCH (c:{{community_label}})-[:{{community_rel}}]->(n)
    WHERE c.adopted_labels IS NULL
      AND (NOT EXISTS { (:Ontology {id: c.ontology_id})-[:HAS_ENTITY_TYPE|HAS_RELATION_TYPE]->() }
           OR EXISTS { (c)--(:Ontology)--(t) WHERE t:EntityOntology OR t:RelationshipOntology })
  }
WITH n ORDER BY n.{{id}} LIMIT $limit
RETURN n.{{id}} AS id,
       [l IN labels(n) WHERE l <> $entity_label] AS labels,
       apoc.map.removeKey(properties(n), $embedding_key) AS props
