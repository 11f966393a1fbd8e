// Delete up to $limit documents of community $community_id with all their sections and chunks (every
// version). Run until it returns 0 (part of deleting a community).
MATCH (doc:{{document_label}} {community_id: $community_id})
WITH doc LIMIT $limit
CALL (doc) {
  OPTIONAL MATCH (doc)-[:{{has_part}}]->(p)
  DETACH DELETE p
}
DETACH DELETE doc
RETURN count(*) AS deleted
