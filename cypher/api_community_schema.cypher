// What a scoped token's /v1/info counts: the type labels its communities' entities carry (the
// entity label itself left out) and the relationship types between entities of one of its
// communities; nothing of other communities.
CALL (*) {
  UNWIND $community_ids AS community_id
  MATCH (:{{community_label}} {id: community_id})-[:{{community_rel}}]->(n:{{entity_label}})
  UNWIND [l IN labels(n) WHERE l <> $entity_label] AS label
  RETURN collect(DISTINCT label) AS labels
}
CALL (*) {
  UNWIND $community_ids AS community_id
  MATCH (c:{{community_label}} {id: community_id})-[:{{community_rel}}]->(:{{entity_label}})-[r]->(t:{{entity_label}})
  WHERE (c)-[:{{community_rel}}]->(t)
  RETURN collect(DISTINCT type(r)) AS types
}
RETURN labels, types
