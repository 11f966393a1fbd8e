// Discarding load $load: up to $limit chunks it created, reached through the mentions of the
// community's entities and of the entities outside it that the load touched (a --shared load).
CALL () {
  MATCH (:{{community_label}} {id: $community_id})-[:{{community_rel}}]->(n:{{entity_label}})
  RETURN n
  UNION
  MATCH (p:PathragStaged {load: $load, kind: 'touch'})
  MATCH (n:{{entity_label}} {{{id}}: p.key})
  RETURN n
}
MATCH (n)-[:{{mentioned_in}}]->(ch:{{chunk_label}})
WHERE ch.pathrag_load = $load
WITH DISTINCT ch LIMIT $limit
DETACH DELETE ch
RETURN count(*) AS deleted
