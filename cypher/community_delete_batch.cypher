// Delete up to $limit entities of one community (those no other community aggregates), together with
// the chunks that only they mention (chunks of documents go with their documents:
// `documents_delete_community`). Run until it returns 0, then `community_delete`.
MATCH (c:{{community_label}} {id: $community_id})-[:{{community_rel}}]->(n:{{entity_label}})
WHERE NOT EXISTS { (n)<-[:{{community_rel}}]-(o:{{community_label}}) WHERE o.id <> $community_id }
WITH n LIMIT $limit
CALL (n) {
  OPTIONAL MATCH (n)-[:{{mentioned_in}}]->(ch:{{chunk_label}})
  WHERE NOT EXISTS { (ch)<-[:{{mentioned_in}}]-(other) WHERE other <> n }
    AND NOT EXISTS { (:{{document_label}})-[:{{has_part}}]->(ch) }
  DETACH DELETE ch
}
DETACH DELETE n
RETURN count(*) AS deleted
