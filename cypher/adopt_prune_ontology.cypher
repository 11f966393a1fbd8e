// Delete an adopted community's ontology types the re-read graph no longer shows.
// $labels: the entity type labels to keep; $types: the relationship types to keep.
MATCH (o:Ontology {id: $ontology_id})
CALL (o) {
  OPTIONAL MATCH (o)-[:HAS_ENTITY_TYPE]->(et:EntityType) WHERE NOT et.label IN $labels
  OPTIONAL MATCH (o)-[:HAS_RELATION_TYPE]->(rt:RelationType) WHERE NOT rt.type IN $types
  WITH collect(DISTINCT et) + collect(DISTINCT rt) AS stale
  FOREACH (t IN stale | DETACH DELETE t)
  RETURN size(stale) AS deleted
}
RETURN deleted
