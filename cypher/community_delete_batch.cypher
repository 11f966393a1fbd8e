// Delete up to $limit entities of one community (those no other community aggregates), together with
// the chunks that only they mention. Run until it returns 0, then `community_delete`.
MATCH (c:{{community_label}} {id: $community_id})-[:{{community_rel}}]->(n:{{entity_label}})
WHERE NOT EXISTS { (n)<-[:{{community_rel}}]-(o:{{community_label}}) WHERE o.id <> $community_id }
WITH n LIMIT $limit
CALL (n) {
  OPTIONAL MATCH (n)-[:MENTIONED_IN]->(ch:Chunk)
  WHERE NOT EXISTS { (ch)<-[:MENTIONED_IN]-(other) WHERE other <> n }
  DETACH DELETE ch
}
DETACH DELETE n
RETURN count(*) AS deleted
