// What one community holds: entities (by type label), embedded entities, relationships between its
// entities (by type, structural edges excluded), chunks mentioning them. For load reports and tests.
MATCH (c:{{community_label}} {id: $community_id})
CALL (c) {
  OPTIONAL MATCH (c)-[:{{community_rel}}]->(n:{{entity_label}})
  RETURN count(n) AS entities, count(n.{{embedding}}) AS embedded
}
CALL (c) {
  OPTIONAL MATCH (c)-[:{{community_rel}}]->(n:{{entity_label}})
  UNWIND [l IN labels(n) WHERE l <> $entity_label] AS label
  WITH label, count(*) AS n WHERE label IS NOT NULL
  RETURN apoc.map.fromPairs(collect([label, n])) AS labels
}
CALL (c) {
  OPTIONAL MATCH (c)-[:{{community_rel}}]->(s:{{entity_label}})-[r]->(t:{{entity_label}})
  WHERE (c)-[:{{community_rel}}]->(t)
  WITH type(r) AS type, count(r) AS n WHERE type IS NOT NULL
  RETURN apoc.map.fromPairs(collect([type, n])) AS relationships
}
CALL (c) {
  OPTIONAL MATCH (c)-[:{{community_rel}}]->(:{{entity_label}})-[m:{{mentioned_in}}]->(ch:{{chunk_label}})
  RETURN count(DISTINCT ch) AS chunks, count(m) AS mentions
}
RETURN c.id AS id, c.ontology_id AS ontology_id, entities, embedded, labels, relationships,
       chunks, mentions
