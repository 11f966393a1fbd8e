// Discarding load $load: up to $limit relationships it wrote (typed relationships, MENTIONED_IN
// and AGGREGATES edges carrying its id), around the community's entities and the entities outside
// it that the load touched (a --shared load). Run after `load_discard_entities`.
CALL () {
  MATCH (:{{community_label}} {id: $community_id})-[:{{community_rel}}]->(n:{{entity_label}})
  RETURN n
  UNION
  MATCH (p:PathragStaged {load: $load, kind: 'touch'})
  MATCH (n:{{entity_label}} {{{id}}: p.key})
  RETURN n
}
MATCH (n)-[r]-()
WHERE r.pathrag_load = $load
WITH DISTINCT r LIMIT $limit
DELETE r
RETURN count(*) AS deleted
