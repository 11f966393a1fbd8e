// What one community's documents hold: documents (removed ones too), sections and chunks, HAS_PART
// edges open and closed, mentions of its chunks. For load reports and tests.
CALL () {
  OPTIONAL MATCH (doc:{{document_label}} {community_id: $community_id})
  OPTIONAL MATCH (doc)-[r:{{has_part}}]->(p)
  RETURN count(DISTINCT doc) AS documents,
         count(DISTINCT CASE WHEN doc.content_hash IS NULL THEN doc END) AS removed,
         count(DISTINCT CASE WHEN p:{{section_label}} THEN p END) AS sections,
         count(DISTINCT CASE WHEN p:{{chunk_label}} THEN p END) AS chunks,
         count(CASE WHEN r.end IS NULL THEN r END) AS open,
         count(CASE WHEN r.end IS NOT NULL THEN r END) AS closed
}
CALL () {
  OPTIONAL MATCH (:{{chunk_label}} {community_id: $community_id})<-[m:{{mentioned_in}}]-()
  RETURN count(m) AS mentions
}
RETURN documents, removed, sections, chunks, open, closed, mentions
