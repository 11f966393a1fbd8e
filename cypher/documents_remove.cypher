// Remove documents of community $community_id from retrieval at time $now: close their open HAS_PART
// edges and forget the content hash (loading the document again opens new edges). History stays.
UNWIND $keys AS key
MATCH (doc:{{document_label}} {document_key: key, community_id: $community_id})
CALL (doc) {
  OPTIONAL MATCH (doc)-[r:{{has_part}}]->()
  WHERE r.end IS NULL
  SET r.end = $now
  RETURN count(r) AS closed
}
SET doc.content_hash = null, doc.removed_at = $now
RETURN key, closed
