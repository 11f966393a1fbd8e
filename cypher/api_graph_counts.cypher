// Graph counts for the HTTP API's /v1/info (answered from Neo4j's count store).
CALL (*) {
  MATCH (n:{{entity_label}})
  RETURN count(n) AS entities
}
CALL (*) {
  MATCH ()-[r]->()
  RETURN count(r) AS relationships
}
RETURN entities, relationships
