// Delete the community node (its entities first with `community_delete_batch`). When $drop_ontology,
// also its ontology, unless another community uses it: its entity and relation types, then the
// Ontology node itself only if nothing else is left on it (no relationship, no property but `id`,
// no other label): Thalabus keeps its own ontology under the same label, and an id shared with it
// must not take the user's node with it.
MATCH (c:{{community_label}} {id: $community_id})
WITH c, c.ontology_id AS oid
DETACH DELETE c
WITH oid
OPTIONAL MATCH (o:Ontology {id: oid})
WHERE $drop_ontology AND NOT EXISTS { (:{{community_label}} {ontology_id: oid}) }
CALL (o) {
  OPTIONAL MATCH (o)-[:HAS_ENTITY_TYPE|HAS_RELATION_TYPE]->(t)
  DETACH DELETE t
}
CALL (o) {
  WITH o
  WHERE o IS NOT NULL AND NOT EXISTS { (o)--() } AND keys(o) = ['id'] AND labels(o) = ['Ontology']
  DELETE o
}
RETURN count(*) AS deleted
