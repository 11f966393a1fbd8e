// What one community holds: entities (by type label), embedded entities, relationships between its
// entities (by type, structural edges excluded), chunks mentioning them. For load reports and tests.
// Only what readers see (docs/graph-model.md, Loads and readers): not what a load that has not
// completed wrote (`hidden`: every community's open load).
MATCH (c:{{community_label}} {id: $community_id})
CALL () {
  MATCH (p:{{community_label}})
  WHERE p.loading IS NOT NULL
  RETURN collect(p.loading) AS hidden
}
CALL (c, hidden) {
  OPTIONAL MATCH (c)-[a:{{community_rel}}]->(n:{{entity_label}})
  WHERE NOT coalesce(a.pathrag_load, '') IN hidden
  RETURN collect(n) AS members
}
CALL (members) {
  UNWIND members AS n
  RETURN count(n) AS entities, count(n.{{embedding}}) AS embedded
}
CALL (members) {
  UNWIND members AS n
  UNWIND [l IN labels(n) WHERE l <> $entity_label] AS label
  WITH label, count(*) AS n
  RETURN apoc.map.fromPairs(collect([label, n])) AS labels
}
CALL (c, members, hidden) {
  UNWIND members AS s
  MATCH (s)-[r]->(t:{{entity_label}})
  WHERE NOT coalesce(r.pathrag_load, '') IN hidden
    AND EXISTS { (c)-[a:{{community_rel}}]->(t) WHERE NOT coalesce(a.pathrag_load, '') IN hidden }
  WITH type(r) AS type, count(r) AS n
  RETURN apoc.map.fromPairs(collect([type, n])) AS relationships
}
CALL (members, hidden) {
  UNWIND members AS n
  MATCH (n)-[m:{{mentioned_in}}]->(ch:{{chunk_label}})
  WHERE NOT coalesce(m.pathrag_load, '') IN hidden
  RETURN count(DISTINCT ch) AS chunks, count(m) AS mentions
}
RETURN c.id AS id, c.ontology_id AS ontology_id, entities, embedded, labels, relationships,
       chunks, mentions
