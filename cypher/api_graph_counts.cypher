// Graph counts for the HTTP API's /v1/info (answered from Neo4j's count store), less what loads that
// have not completed wrote (readers do not see it; docs/graph-model.md, Loads and readers): the
// entities they created, and the relationships they wrote around the entities of their community
// (AGGREGATES, MENTIONED_IN and typed ones).
CALL (*) {
  MATCH (n:{{entity_label}})
  RETURN count(n) AS all_entities
}
CALL (*) {
  MATCH ()-[r]->()
  RETURN count(r) AS all_relationships
}
CALL (*) {
  OPTIONAL MATCH (c:{{community_label}})
  WHERE c.loading IS NOT NULL
  WITH c, c.loading AS open
  CALL (c, open) {
    OPTIONAL MATCH (c)-[a:{{community_rel}}]->(:{{entity_label}})
    WHERE a.pathrag_load = open AND a.pathrag_created
    RETURN count(a) AS created
  }
  CALL (c, open) {
    OPTIONAL MATCH (c)-[:{{community_rel}}]->(:{{entity_label}})-[r]-()
    WHERE r.pathrag_load = open
    RETURN count(DISTINCT r) AS written
  }
  RETURN sum(created) AS pending_entities, sum(written) AS pending_relationships
}
RETURN all_entities - pending_entities AS entities,
       all_relationships - pending_relationships AS relationships
